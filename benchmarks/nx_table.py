"""The Markdown table of docs/networkx.md from benchmarks/nx_backend.py's JSON records: a row per
function and device, NetworkX's time, gravel's with the conversion and with it cached (each with
its speedup over NetworkX alone), and the largest difference of the answers. Records of several
runs (the calls of one graph split over runs) join in the order given; a function timed twice
keeps its last row. Where the records come from more than one card, each row's device names its
card.

    python benchmarks/nx_table.py benchmarks/results/h100/nx_backend-kron20-*.json
"""

import argparse
import json

HEADER = (
    "| function | device | NetworkX | gravel, conversion included | gravel, conversion cached "
    "| largest difference |\n| --- | --- | ---: | ---: | ---: | ---: |"
)


def seconds(s):
    """`s` seconds as the table writes them: 1 decimal from 10 s, 3 from 10 ms, else in ms."""
    if s < 0.01:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.3f} s" if s < 10 else f"{s:.1f} s"


def speedup(alone, s, over=None):
    """gravel's `s` seconds with its speedup over NetworkX's `alone` (or over a NetworkX run cut
    after `over` seconds: at least that much)."""
    if s is None:
        return "not run"
    base = alone if alone is not None else over
    if base is None or s <= 0:
        return seconds(s)
    ratio = base / s
    text = f"{ratio:.1f}x" if ratio < 10 else f"{ratio:.0f}x"
    return f"{seconds(s)} ({'>' if alone is None else ''}{text})"


def row_line(row, card=None):
    """One row of the table, its device followed by `card` where one is given."""
    device = row["device"] if card is None else f"{row['device']} ({card})"
    name = f"| `{row['function']}` | {device} |"
    if "not_served" in row:
        return f"{name} not served: {row['not_served']} | | | |"
    if row.get("networkx_over_s") is not None:
        alone = f"> {row['networkx_over_s']:g} s"
    else:
        alone = "not run" if row["networkx_s"] is None else seconds(row["networkx_s"])
    over = row.get("networkx_over_s")
    incl = speedup(row["networkx_s"], row.get("gravel_incl_conversion_s"), over)
    excl = speedup(row["networkx_s"], row["gravel_excl_conversion_s"], over)
    diff = "-" if row.get("diff") is None else f"{row['diff']:.1e}"
    return f"{name} {alone} | {incl} | {excl} | {diff} |"


def table(records):
    """The table of the rows of `records` (parsed JSON records, in order), conversions left out
    (they are listed apart)."""
    cards = [r.get("machine", {}).get("gpu") for r in records]
    named = len(set(cards)) > 1
    rows = {}
    for record, card in zip(records, cards):
        for row in record["rows"]:
            if row["function"] != "convert":
                rows[row["function"], row["device"]] = row_line(row, card if named else None)
    return "\n".join([HEADER, *rows.values()])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("records", nargs="+", help="JSON records of benchmarks/nx_backend.py")
    a = p.parse_args()
    records = []
    for path in a.records:
        with open(path) as f:
            records.append(json.load(f))
    print(table(records))
    for record in records:
        for row in record["rows"]:
            if row["function"] == "convert":
                print(f"\n{row['graph']} {row['kind']}: converted in {seconds(row['convert_s'])}")


if __name__ == "__main__":
    main()

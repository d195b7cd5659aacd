"""benchmarks/nx_table.py: the rows docs/networkx.md's tables are made of, from nx_backend.py's
JSON records."""

import json

from .helpers import BENCHMARKS, script

nx_table = script("nx_table")


def _row(function, **kw):
    return {"graph": "kron:20", "function": function, "device": "cuda", "networkx_s": None} | kw


def test_each_kind_of_row():
    rows = [
        _row(
            "bfs_edges",
            networkx_s=4.0,
            gravel_incl_conversion_s=None,
            gravel_excl_conversion_s=0.002,
            diff=0.0,
        ),  # fmt: skip
        _row("pagerank", networkx_over_s=3.0, gravel_excl_conversion_s=0.5, diff=None),
        _row("complement", not_served="more than 5,000 nodes"),
        _row(
            "hits",
            networkx_s=12.34,
            gravel_incl_conversion_s=20.0,
            gravel_excl_conversion_s=1.5,
            diff=3.4e-13,
        ),  # fmt: skip
        {"graph": "kron:20", "kind": "undirected", "function": "convert", "convert_s": 9.6},
    ]
    lines = nx_table.table([{"rows": rows}]).splitlines()
    assert lines[2:] == [
        "| `bfs_edges` | cuda | 4.000 s | not run | 2.00 ms (2000x) | 0.0e+00 |",
        "| `pagerank` | cuda | > 3 s | not run | 0.500 s (>6.0x) | - |",
        "| `complement` | cuda | not served: more than 5,000 nodes | | | |",
        "| `hits` | cuda | 12.3 s | 20.0 s (0.6x) | 1.500 s (8.2x) | 3.4e-13 |",
    ]


def test_later_records_replace_a_function_and_every_row_is_listed():
    path = BENCHMARKS / "results" / "cpu-2core" / "nx_backend.json"
    record = json.loads(path.read_text())
    rows = [r for r in record["rows"] if r["function"] != "convert"]  # listed below the table
    first = dict(rows[0], networkx_s=99.0)
    lines = nx_table.table([{"rows": [first]}, record]).splitlines()
    assert len(lines) == 2 + len(rows)
    assert lines[2] == nx_table.row_line(rows[0]) and "99.0 s" not in lines[2]


def test_rows_of_records_from_two_cards_name_their_card():
    bfs = _row("bfs_edges", networkx_s=4.0, gravel_excl_conversion_s=0.002, diff=0.0)
    hits = _row("hits", networkx_s=1.0, gravel_excl_conversion_s=0.5, diff=0.0)
    h100 = {"machine": {"gpu": "NVIDIA H100 80GB HBM3"}, "rows": [bfs]}
    h200 = {"machine": {"gpu": "NVIDIA H200"}, "rows": [hits]}
    lines = nx_table.table([h100, h200]).splitlines()
    assert lines[2].startswith("| `bfs_edges` | cuda (NVIDIA H100 80GB HBM3) | 4.000 s |")
    assert lines[3].startswith("| `hits` | cuda (NVIDIA H200) | 1.000 s |")
    same = nx_table.table([h100, dict(h200, machine=h100["machine"])]).splitlines()
    assert [line.split(" | ")[1] for line in same[2:]] == ["cuda", "cuda"]

"""Named semirings: a program's process (the "times", over the message and the edge weight) and
reduce (the "plus"), with python-graphblas's names."""

from typing import NamedTuple


class Semiring(NamedTuple):
    """The process expression and the reduce name of a semiring."""

    process: str
    reduce: str


SEMIRINGS = {
    "plus_times": Semiring("message * weight", "sum"),
    "min_plus": Semiring("message + weight", "min"),
    "max_times": Semiring("message * weight", "max"),
    "or_and": Semiring("message and weight != 0", "or"),
}

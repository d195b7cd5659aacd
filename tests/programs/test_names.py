"""What a vertex program may name and how big its expressions may grow (issue 51): parameters that
would hide a name of the language, keywords, expressions past the limits, and vertex parameters
checked on every path."""

import re

import numpy as np
import pytest

import gravel
from gravel import programs
from gravel.programs import Program, ProgramError
from gravel.programs.expressions import MAX_DEPTH, MAX_LENGTH, MAX_TERMS, Expression


def bfs_program(**changes):
    """BFS_FILE's program: a `source` parameter not declared a vertex."""
    spec = dict(
        state="int32",
        message="int32",
        init="0 if v == source else -1",
        start="v == source",
        send="state + 1",
        process="message",
        reduce="min",
        apply="total if state < 0 else state",
        params={"source": 0},
    )
    return Program(**(spec | changes))


# -- names ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name",
    ["v", "n", "iteration", "out_degree", "weight", "u", "state", "old", "message", "total", "inf"]
    + ["min", "max", "abs", "common"],
)
def test_a_parameter_may_not_hide_a_name_of_the_language(name):
    says = f"parameter name {name!r} is a name of the expression language"
    with pytest.raises(ProgramError, match=re.escape(says)):
        bfs_program(params={"source": 0, name: 3})


@pytest.mark.parametrize("name", ["lambda", "if", "True", "None", "class"])
def test_a_parameter_may_not_be_a_keyword(name):
    with pytest.raises(
        ProgramError, match=re.escape(f"parameter name {name!r} is a Python keyword")
    ):
        bfs_program(params={"source": 0, name: 1})


def test_a_parameter_name_must_be_a_string():
    with pytest.raises(ProgramError, match="parameter name 3 is not a plain identifier"):
        bfs_program(params={"source": 0, 3: 1})


def test_a_parameter_named_v_no_longer_changes_the_result():
    """Before, `v` here replaced the vertex id in every expression: every vertex was the source."""
    with pytest.raises(ProgramError, match="'v' is a name of the expression language"):
        bfs_program(params={"source": 0, "v": 0})


@pytest.mark.parametrize("what", ["state", "message"])
def test_a_field_may_not_be_a_keyword(what):
    dtype = [("if", "int32"), ("x", "int32")]
    with pytest.raises(ProgramError, match=f"{what} field 'if' is a Python keyword"):
        bfs_program(**{what: dtype})


def test_fields_may_take_names_of_the_language():
    """A field is always named through its value (``state.v``): it hides nothing."""
    prog = Program(
        [("v", "int64"), ("weight", "float64")],
        "int64",
        init={"v": "v", "weight": "0.0"},
        send="state.v",
        process="message",
        reduce="min",
        apply={"v": "min(state.v, total)", "weight": "state.weight + 1.0"},
        direction="both",
    )
    r = programs.run(gravel.generate.grid(2, 2), prog, device="cpu")
    assert r.state["v"].tolist() == [0, 0, 0, 0]


# -- limits ---------------------------------------------------------------------------------------
def test_a_long_sum_is_refused_naming_the_expression():
    """Before, a valid 2,000-term sum raised a bare RecursionError."""
    send = " + ".join(["1"] * 2000)
    with pytest.raises(ProgramError, match=f"nests more than {MAX_DEPTH} operations deep") as e:
        bfs_program(send=send)
    assert str(e.value).startswith("send = '1 + 1 + 1") and "(7,997 characters)" in str(e.value)


def test_a_deep_nesting_is_refused_naming_the_expression():
    source = "-" * 500 + "state"
    with pytest.raises(ProgramError, match=f"send = '-----.*nests more than {MAX_DEPTH}"):
        bfs_program(send=source)


def test_a_long_source_is_refused_before_it_parses():
    source = "1" + " " * MAX_LENGTH
    with pytest.raises(ProgramError, match=f"is {MAX_LENGTH + 1:,} characters long"):
        bfs_program(send=source)


def test_parser_limits_are_named():
    source = "(" * 300 + "state" + ")" * 300
    with pytest.raises(ProgramError, match=r"send = '\(\(\(.*(does not parse|nests too deep)"):
        bfs_program(send=source)


def test_a_min_whose_cuda_code_would_explode_is_refused():
    """CUDA writes min(a, b, c) as nested ?: repeating the earlier arguments: 2**k terms."""
    source = f"min({', '.join(['state'] * 40)})"
    with pytest.raises(ProgramError, match=f"terms of CUDA .*the limit is {MAX_TERMS:,}"):
        bfs_program(send=source)
    with pytest.raises(ProgramError, match="terms of CUDA"):
        bfs_program(send="abs(" * 12 + "state" + ")" * 12)


def test_an_expression_at_the_limits_runs():
    """A sum nesting MAX_DEPTH deep still compiles and runs; min's CUDA stays within its terms."""
    send = " + ".join(["state"] * MAX_DEPTH) + " + 1"
    prog = bfs_program(send=send, apply="total", init="v", start="True")
    r = programs.run(gravel.generate.grid(1, 3), prog, device="cpu", max_iter=1)
    assert r.state.tolist() == [MAX_DEPTH + 1, 1, MAX_DEPTH + 1]
    e = Expression(f"min({', '.join(['x'] * 12)})", "send", ("x",))
    assert len(e.cuda({"x": "x"})) < 200_000


# -- vertex parameters ----------------------------------------------------------------------------
def test_a_source_parameter_is_a_vertex_by_default():
    G = gravel.generate.grid(3, 3)
    prog = bfs_program()
    assert prog.vertices == ("source",)
    with pytest.raises(
        gravel.VertexNotFoundError, match=re.escape("vertex 99 is not in the graph")
    ):
        programs.run(G, prog, params={"source": 99}, device="cpu")
    with pytest.raises(gravel.VertexNotFoundError, match="vertex 9 is not in the graph"):
        programs.run(G, prog.replace(params={"source": 9}), device="cpu")
    for execution in ("hybrid-seed", "hybrid"):
        with pytest.raises(gravel.VertexNotFoundError, match="vertex -1 is not in the graph"):
            programs.run(G, prog, params={"source": -1}, device="cpu", execution=execution)
    r = programs.run(G, prog, params={"source": 4}, device="cpu")
    assert np.array_equal(r.state, gravel.bfs(G, 4, device="cpu").depth)


def test_a_source_that_is_no_vertex_says_so():
    assert bfs_program(vertices=()).vertices == ()
    assert bfs_program(params={"source": 0.5}, init="0", start="True").vertices == ()

"""The expression language of vertex programs: one source, compiled by Numba and by NVRTC.

A program's functions are Python expressions over named values: arithmetic (``+ - * /`` and unary
minus), comparisons (chained ones too), ``and``/``or``/``not``, conditional expressions
(``a if c else b``), ``min``/``max`` (two or more arguments) and ``abs``, numbers, ``True``,
``False`` and ``inf``; in ``process`` also ``common(a, b)``, the number of out-neighbours vertices
a and b share (the graph's sorted lists intersected: triangle counting). A name is a scalar
(``message``, ``weight``, a parameter) or a field of a structured value (``state.rank``). Nothing
else parses: no calls of other functions, no indexing, no attribute of anything but a value's
fields. ``/`` is true division on both devices.

:class:`Expression` parses and checks once; :meth:`Expression.python` and :meth:`Expression.cuda`
write it out with each name replaced by the code the kernel holds for it. An expression is at
most :data:`MAX_LENGTH` characters long and nests at most :data:`MAX_DEPTH` operations deep (the
code written from it nests as deep, and Python's parser takes 200 levels of parentheses); the
CUDA code written from it holds at most :data:`MAX_TERMS` names and numbers (it repeats the
arguments of ``min``, ``max`` and ``abs``).
"""

import ast

from ..errors import InvalidArgumentError


class ProgramError(InvalidArgumentError):
    """A vertex program that cannot be compiled: a bad expression, name, field or dtype."""


_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_BOOL = {ast.And: ("and", "&&"), ast.Or: ("or", "||")}
_FUNCTIONS = ("min", "max", "abs")
#: functions of the graph, where a function may use them: how each device calls them
GRAPH_FUNCTIONS = {
    "common": ("common(g_off, g_idx, {0}, {1})", "gravel_common(g_off, g_idx, {0}, {1})")
}
_ALLOWED = (
    "arithmetic (+ - * /), comparisons, and/or/not, 'x if c else y', min, max, abs, "
    "numbers, True, False, inf and the names listed"
)
#: the names the language itself holds, whatever the program: a program's parameters may not take
#: them
NAMES = ("inf", *_FUNCTIONS, *GRAPH_FUNCTIONS)
#: the longest source an expression may have, in characters
MAX_LENGTH = 10_000
#: the deepest an expression's operations may nest, as the code written from it nests its
#: parentheses (a comparison counts two levels, a ``min`` or ``max`` of k arguments k - 1: the CUDA
#: code chains them)
MAX_DEPTH = 150
#: the most names and numbers the CUDA code of an expression may hold
MAX_TERMS = 100_000
#: infinity as each device writes it (a float: it widens to double where needed)
_INF = ("np.inf", "__int_as_float(0x7f800000)")


class Expression:
    """One expression of a program, parsed and checked once.

    Parameters
    ----------
    source : str
        The expression (anything else is taken as its ``str``).
    where : str
        The function it is (``"apply"``, say), for the error messages.
    names : iterable of str
        The names it may use (``"state.rank"`` for a field); ``inf`` is always known.
    graph_functions : bool, default False
        Whether it may call the graph's functions (``common``), as ``process`` may.

    Attributes
    ----------
    source : str
    where : str
    tree : ast.expr
        The parsed expression.
    names : set of str
        The names it uses.

    Raises
    ------
    ProgramError
        `source` does not parse, or holds what the language does not allow: a name not in
        `names`, a constant that is not a number or a bool (or an integer beyond 64 bits), a call
        of another function (or with the wrong arguments), an operator, subscript or attribute
        outside the language; or it is longer than :data:`MAX_LENGTH` characters, nests deeper
        than :data:`MAX_DEPTH` or writes more than :data:`MAX_TERMS` terms of CUDA. The message
        names `where` and the offending part (the expression, shortened where it is long).

    Examples
    --------
    >>> from gravel.programs.expressions import Expression
    >>> e = Expression("min(state, total) + 1", "apply", ("state", "total"))
    >>> code = {"state": "st0[v]", "total": "tt0[v]"}
    >>> e.python(code)
    '(min((st0[v]), (tt0[v])) + 1)'
    >>> e.cuda(code)
    '(((st0[v]) < (tt0[v]) ? (st0[v]) : (tt0[v])) + 1)'
    """

    def __init__(self, source, where, names, graph_functions=False):
        self.source, self.where = str(source), where
        self.functions = _FUNCTIONS + (tuple(GRAPH_FUNCTIONS) if graph_functions else ())
        if len(self.source) > MAX_LENGTH:
            self._limit(f"is {len(self.source):,} characters long: the limit is {MAX_LENGTH:,}")
        try:
            self.tree = ast.parse(self.source.strip(), mode="eval").body
        except SyntaxError as e:
            raise ProgramError(f"{where} = {_shown(self.source)} does not parse: {e.msg}") from None
        except (RecursionError, MemoryError):  # Python's own parser gave up
            self._limit(f"nests too deep for Python's parser: the limit is {MAX_DEPTH}")
        depth = _depth(self.tree)
        if depth > MAX_DEPTH:
            self._limit(f"nests more than {MAX_DEPTH} operations deep: the limit is {MAX_DEPTH}")
        self.names = set()
        self._check(self.tree, frozenset(names))
        terms = _terms(self.tree)
        if terms > MAX_TERMS:
            self._limit(
                f"writes {terms:,} terms of CUDA (min, max and abs repeat their arguments): "
                f"the limit is {MAX_TERMS:,}"
            )

    def _limit(self, why):
        raise ProgramError(f"{self.where} = {_shown(self.source)} {why}") from None

    def _fail(self, node, why):
        part = ast.get_source_segment(self.source.strip(), node) or ast.dump(node)
        raise ProgramError(f"{self.where} = {_shown(self.source)}: {_shown(part)} {why}")

    def _check(self, node, names):
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = _dotted(node)
            if name == "inf":
                return
            if name is None or name not in names:
                known = ", ".join(sorted(names)) or "none"
                self._fail(node, f"is not a name {self.where} knows (it knows: {known})")
            self.names.add(name)
            return
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**63:
                self._fail(node, "does not fit a 64-bit integer (write it as a float)")
            if isinstance(v, (bool, int, float)):
                return
            self._fail(node, "is not a number or a boolean")
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            children = (node.left, node.right)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
            children = (node.operand,)
        elif isinstance(node, ast.BoolOp):
            children = node.values
        elif isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
            children = (node.left, *node.comparators)
        elif isinstance(node, ast.IfExp):
            children = (node.test, node.body, node.orelse)
        elif isinstance(node, ast.Call) and _call_ok(node, self.functions):
            children = node.args
        else:
            self._fail(node, f"is not allowed: a program's expressions hold {_ALLOWED}")
        for child in children:
            self._check(child, names)

    def python(self, code):
        """The expression in Python, for Numba.

        Parameters
        ----------
        code : dict of str to str
            The Python code of each name the expression uses (:meth:`Program.code
            <gravel.programs.Program.code>`).

        Returns
        -------
        str
            Every operation parenthesised; ``inf`` as ``np.inf``.
        """
        return _write(self.tree, code, cuda=False)

    def cuda(self, code):
        """The expression in CUDA C++.

        Parameters
        ----------
        code : dict of str to str
            The C++ code of each name the expression uses (:meth:`Program.code
            <gravel.programs.Program.code>`).

        Returns
        -------
        str
            Every operation parenthesised: ``/`` in double precision, ``and``/``or``/``not`` as
            ``&&``/``||``/``!``, conditional expressions, ``min``, ``max`` and ``abs`` as
            ``?:``, integers beyond 32 bits with ``LL``, ``inf`` as a float infinity.
        """
        return _write(self.tree, code, cuda=True)


def _shown(text, most=120):
    """`text` quoted, its middle left out where it is longer than `most` characters."""
    if len(text) <= most:
        return repr(text)
    half = most // 2
    return f"{text[:half]!r} ... {text[-half:]!r} ({len(text):,} characters)"


def _depth(tree):
    """How deep the operations of `tree` nest, walked without recursion (a parsed tree may be
    deeper than Python's recursion limit); the walk stops past :data:`MAX_DEPTH`."""
    deepest, stack = 0, [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (ast.Name, ast.Attribute, ast.Constant)):
            continue
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("min", "max"):
            depth += max(len(node.args) - 1, 1)  # CUDA nests a ?: per further argument
        else:
            depth += 2 if isinstance(node, ast.Compare) else 1  # a comparison: ((a < b) and ..)
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        kids = ast.iter_child_nodes(node)
        stack.extend((child, depth) for child in kids if isinstance(child, ast.expr))
    return deepest


def _terms(node):
    """The names and numbers of the CUDA code :func:`_write` makes of a checked `node`: ``min``
    and ``max`` write their first arguments twice per further argument, ``abs`` its argument three
    times, a chained comparison its middle operands twice."""
    if isinstance(node, (ast.Name, ast.Attribute, ast.Constant)):
        return 1
    if isinstance(node, ast.Compare):
        sides = [_terms(n) for n in (node.left, *node.comparators)]
        return sum(sides) + sum(sides[1:-1])
    if isinstance(node, ast.Call) and node.func.id in ("min", "max"):
        out = _terms(node.args[0])
        for a in node.args[1:]:
            out = 2 * (out + _terms(a))
            if out > MAX_TERMS:
                break
        return out
    if isinstance(node, ast.Call):
        return sum(_terms(a) for a in node.args) * (3 if node.func.id == "abs" else 1)
    return sum(_terms(n) for n in ast.iter_child_nodes(node) if isinstance(n, ast.expr))


def _dotted(node):
    """ "state.rank" for the attribute state.rank, "weight" for a name, None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _call_ok(node, functions):
    if not isinstance(node.func, ast.Name) or node.keywords or node.func.id not in functions:
        return False
    if node.func.id in GRAPH_FUNCTIONS:
        return len(node.args) == 2
    return len(node.args) == 1 if node.func.id == "abs" else len(node.args) >= 2


def _write(node, code, cuda):
    def w(n):
        return _write(n, code, cuda)

    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _dotted(node)
        return _INF[cuda] if name == "inf" else f"({code[name]})"
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return ("true" if v else "false") if cuda else repr(v)
        if isinstance(v, int) and cuda and not -(2**31) <= v < 2**31:
            return f"{v}LL"
        return repr(float(v)) if isinstance(v, float) else str(v)
    if isinstance(node, ast.BinOp):
        op = _BINARY[type(node.op)]
        if cuda and op == "/":
            return f"((double)({w(node.left)}) / ({w(node.right)}))"
        return f"({w(node.left)} {op} {w(node.right)})"
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            return f"(!{w(node.operand)})" if cuda else f"(not {w(node.operand)})"
        return f"({'-' if isinstance(node.op, ast.USub) else '+'}{w(node.operand)})"
    if isinstance(node, ast.BoolOp):
        joint = f" {_BOOL[type(node.op)][cuda]} "
        return f"({joint.join(w(v) for v in node.values)})"
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        parts = [
            f"({w(a)} {_COMPARE[type(op)]} {w(b)})"
            for a, op, b in zip(sides, node.ops, sides[1:], strict=False)
        ]
        return f"({(' && ' if cuda else ' and ').join(parts)})"
    if isinstance(node, ast.IfExp):
        test, yes, no = w(node.test), w(node.body), w(node.orelse)
        return f"({test} ? {yes} : {no})" if cuda else f"({yes} if {test} else {no})"
    args = [w(a) for a in node.args]
    fn = node.func.id
    if fn in GRAPH_FUNCTIONS:
        return GRAPH_FUNCTIONS[fn][cuda].format(*args)
    if not cuda:
        return f"{fn}({', '.join(args)})"
    if fn == "abs":
        return f"({args[0]} < 0 ? -{args[0]} : {args[0]})"
    out = args[0]
    for a in args[1:]:
        pick = "<" if fn == "min" else ">"
        out = f"({out} {pick} {a} ? {out} : {a})"
    return out

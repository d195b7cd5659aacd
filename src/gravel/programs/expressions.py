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
write it out with each name replaced by the code the kernel holds for it.
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
        outside the language. The message names `where` and the offending part.

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
        try:
            self.tree = ast.parse(self.source.strip(), mode="eval").body
        except SyntaxError as e:
            raise ProgramError(f"{where} = {self.source!r} does not parse: {e.msg}") from None
        self.names = set()
        self._check(self.tree, frozenset(names))

    def _fail(self, node, why):
        part = ast.get_source_segment(self.source.strip(), node) or ast.dump(node)
        raise ProgramError(f"{self.where} = {self.source!r}: {part!r} {why}")

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

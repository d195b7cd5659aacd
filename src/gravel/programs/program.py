"""The vertex program: GraphMat's send, process, reduce and apply, as expressions over named fields.

Each iteration, every sender (every active vertex, or every vertex) sends ``send(state)`` along its
edges; each edge turns the message into ``process(message, weight, state)`` with the state of the
vertex it reaches; the values reaching a vertex are folded by `reduce` into ``total``; every vertex
that received at least one value takes ``apply(total, state)`` as its new state and stays active
where `active` holds (by default, where its state changed). The run ends when no vertex is active.

Two declarations let a pull skip work, as a bottom-up BFS does: `listen` names the vertices that
may take messages at all this iteration (a BFS's unreached ones), and ``reduce="any"`` lets a
vertex keep whichever one value reaches it first, so a pull stops reading a list at its first
sender.
"""

import ast
from typing import NamedTuple

import numpy as np

from .expressions import Expression, ProgramError
from .semirings import SEMIRINGS
from .values import VERTEX_NAMES, _cast, _check_parameter_name, _default, fields

DIRECTIONS = ("out", "in", "both")
SENDERS = ("active", "all")
#: the named reductions and their identities for a dtype
REDUCTIONS = {
    "sum": lambda dt: dt.type(0),
    "min": lambda dt: _limits(dt).max,
    "max": lambda dt: _limits(dt).min,
    "or": lambda dt: dt.type(False),
    "and": lambda dt: dt.type(True),
    # one of the values: the GPU reduces any as min, so min's identity (the CPU never reads it)
    "any": lambda dt: _limits(dt).max,
}


def _limits(dt):
    if dt == np.bool_:
        return np.iinfo(np.uint8)
    return np.finfo(dt) if dt.kind == "f" else np.iinfo(dt)


class Active(NamedTuple):
    """The vertices active after an iteration (or the start), as an engine's ``actives()`` gives
    them to :func:`gravel.programs.run`.

    Parameters
    ----------
    count : int
        How many vertices are active.
    arcs : int or None
        The arcs a push from them reads along every way; None where the engine lists their ids
        (the CPU's), to be summed from the ids only where the push/pull choice needs it.
    ids : array of int32, optional
        The active vertices' ids, where the engine lists them.
    """

    count: int
    arcs: int | None
    ids: object = None

    def push_arcs(self, push_degree):
        """The arcs a push from these vertices reads.

        Parameters
        ----------
        push_degree : array
            Each vertex's push degree (its arcs along every way).

        Returns
        -------
        int
            `arcs` where the engine gave it, else the push degrees of `ids` summed.
        """
        return int(push_degree[self.ids].sum()) if self.arcs is None else self.arcs


class Program:
    """A vertex program, run by :func:`gravel.programs.run` on the CPU (Numba) or the GPU.

    Parameters
    ----------
    state, message : NumPy dtype
        The vertex state and the message; structured dtypes name their fields (``state.rank``).
    send : str or dict
        The message a sender sends, over ``state`` and the vertex names: an expression, or one per
        message field (a dict keyed by field name). The vertex names are ``v``, ``n``,
        ``iteration``, ``out_degree`` and ``in_degree``.
    process : str or dict
        What an edge makes of the message, over ``message``, ``weight`` (1 when the graph has none)
        and ``state``, the state of the vertex it reaches; ``u`` is the sender, ``v`` the vertex
        reached, and ``common(a, b)`` counts the out-neighbours a and b share. Given by
        `semiring` when omitted.
    reduce : {"sum", "min", "max", "or", "and", "any"} or str
        How the values reaching a vertex fold into its ``total``: a name (field by field), or an
        expression over ``a`` and ``b`` with its `identity` (scalar messages only). "or" and
        "and" fold bool messages ("max" and "min" are their integers' counterparts). "any" keeps
        one of the values, whichever the device meets first (a pull then reads no further): for
        programs whose values at a vertex are all equal, or all equally good.
    apply : str or dict
        The new state, over ``total``, ``state`` (the old one) and the vertex names.
    active : str, optional
        Whether the vertex stays active after apply, over ``state`` (new), ``old``, ``total`` and
        the vertex names. Default: its state changed. Vertices that received nothing go inactive.
    identity : scalar, optional
        The identity of a reduce expression.
    direction : {"out", "in", "both"}
        Messages travel along out-edges (u -> v reaches v), against them, or both.
    senders : {"active", "all"}
        Whether only active vertices send, or every vertex.
    init : str or dict, optional
        The starting state over the vertex names; default 0. ``run(init=...)`` overrides it.
    start : str, optional
        Which vertices are active at first, over ``state`` and the vertex names; default all.
    listen : str, optional
        Which vertices take messages this iteration, over ``state`` (as the iteration begins),
        ``v`` and the parameters; default all. The others receive nothing and keep their state
        (a pull does not read their lists).
    semiring : str, optional
        A name of :data:`gravel.programs.SEMIRINGS`: its process and reduce.
    params : dict, optional
        Named scalars the expressions may use, with their defaults (numbers or booleans; a
        default's type is the parameter's); ``run(params=...)`` sets them. A name may be
        neither a Python keyword nor a name of the language
        (:data:`~gravel.programs.values.RESERVED`: ``v``, ``n``, ``iteration``, ``state``,
        ``weight``, ``inf``, ``min``, ...).
    vertices : tuple of str, optional
        The parameters that name a vertex (a BFS's ``source``): ``run`` refuses a value that is
        not a vertex of the graph, as the built-in primitives refuse their source. Default:
        ``("source",)`` where the program has an integer parameter ``source``, else none; give
        ``()`` for a ``source`` that is not a vertex.

    Raises
    ------
    ProgramError
        Every argument is checked here, each expression included, and a bad one is named: a
        dtype that is not supported (:func:`~gravel.programs.values.fields`), an unknown
        `direction`, `senders` or `semiring`, neither `process` and `reduce` nor a `semiring`, a
        parameter whose name is not a plain identifier, is a Python keyword or a name of the
        language (:data:`~gravel.programs.values.RESERVED`: it would hide the language's value),
        or whose default is not a number or a bool, a vertex parameter without an integer default
        in `params`, an expression that does not parse, uses a name or construct its function may
        not, or passes the limits of :class:`~gravel.programs.expressions.Expression` (length,
        depth), a dict of expressions whose keys are not the value's fields, or a `reduce` and
        `identity` that do not go together (a named reduce takes no identity, an expression needs
        one and a scalar message, "any" a scalar message).

    Examples
    --------
    Each vertex counts the arcs that reach it, in one iteration:

    >>> import gravel
    >>> from gravel.programs import Program, run
    >>> count = Program(
    ...     "int64", "int64", send="1", process="message", reduce="sum", apply="total",
    ...     senders="all", active="False",
    ... )
    >>> G = gravel.Graph.from_edges([0, 0, 1], [1, 2, 2])
    >>> run(G, count, device="cpu").state.tolist()
    [0, 1, 2]
    """

    def __init__(
        self,
        state,
        message,
        *,
        send,
        apply,
        process=None,
        reduce=None,
        active=None,
        identity=None,
        direction="out",
        senders="active",
        init=None,
        start=None,
        listen=None,
        semiring=None,
        params=None,
        vertices=None,
    ):
        #: the arguments it was made from, for :meth:`replace`
        self.spec = dict(locals())
        del self.spec["self"]
        self.state_dtype, self.state = fields(state, "state")
        self.message_dtype, self.message = fields(message, "message")
        if direction not in DIRECTIONS:
            raise ProgramError(f"direction {direction!r}: expected one of {DIRECTIONS}")
        if senders not in SENDERS:
            raise ProgramError(f"senders {senders!r}: expected one of {SENDERS}")
        self.direction, self.senders = direction, senders
        if semiring is not None:
            if semiring not in SEMIRINGS:
                raise ProgramError(f"unknown semiring {semiring!r} (known: {', '.join(SEMIRINGS)})")
            process = SEMIRINGS[semiring].process if process is None else process
            reduce = SEMIRINGS[semiring].reduce if reduce is None else reduce
        if process is None or reduce is None:
            raise ProgramError("a program needs process and reduce, or a semiring")
        self.params = {k: _default(k, v) for k, v in (params or {}).items()}
        for k in self.params:
            _check_parameter_name(k)
        if vertices is None:
            source = self.params.get("source")
            vertices = ("source",) if source is not None and source.dtype.kind in "iu" else ()
        self.vertices = (vertices,) if isinstance(vertices, str) else tuple(vertices)
        for k in self.vertices:
            if k not in self.params or self.params[k].dtype.kind not in "iu":
                raise ProgramError(f"vertex parameter {k!r} needs an integer default in params")
        vertex = (*VERTEX_NAMES, *self.params)
        states = [f.name("state") for f in self.state]
        messages = [f.name("message") for f in self.message]
        totals = [f.name("total") for f in self.message]
        zero = "0" if self.state_dtype.names is None else dict.fromkeys(self.state_dtype.names, "0")
        self.init = self._each(init or zero, self.state, "init", vertex)
        self.start = Expression(start or "True", "start", (*vertex, *states))
        self.listen = Expression(listen or "True", "listen", ("v", *states, *self.params))
        self.send = self._each(send, self.message, "send", (*vertex, *states))
        self.process = self._each(
            process,
            self.message,
            "process",
            (*messages, "weight", "u", "v", *states, *self.params),
            graph_functions=True,
        )
        self.apply = self._each(apply, self.state, "apply", (*vertex, *states, *totals))
        olds = [f.name("old") for f in self.state]
        changed = " or ".join(f"{n} != {o}" for n, o in zip(states, olds, strict=True))
        self.active = Expression(active or changed, "active", (*vertex, *states, *olds, *totals))
        self.reduce, self.identity = self._reduction(reduce, identity)

    def replace(self, **changes):
        """A new program: this one's arguments with `changes`.

        Parameters
        ----------
        **changes
            Arguments of :class:`Program`, replacing this program's.

        Returns
        -------
        Program
            Checked as the constructor checks its arguments.

        Raises
        ------
        ProgramError
            The arguments, changed, are not a valid program.

        Examples
        --------
        With `listen`, the vertices below `cut` stay out of the propagation (they keep their own
        labels):

        >>> import gravel
        >>> from gravel import programs
        >>> cc = programs.connected_components().replace(listen="v >= cut", params={"cut": 2})
        >>> programs.run(gravel.generate.grid(2, 2), cc, device="cpu").state.tolist()
        [0, 1, 0, 0]
        """
        return Program(**(self.spec | changes))

    def _each(self, spec, out, where, names, graph_functions=False):
        """One Expression per field of `out`: `spec` an expression (scalar `out`) or a dict;
        `graph_functions`: it may call the graph's functions (``common``)."""
        keys = [f.key for f in out]
        if isinstance(spec, dict):
            if set(spec) != set(keys) or keys == [""]:
                raise ProgramError(
                    f"{where} gives fields {sorted(spec)}, the value has fields {keys}"
                    if keys != [""]
                    else f"{where} is for a scalar value: give one expression, not a dict"
                )
            return [Expression(spec[k], f"{where}[{k!r}]", names, graph_functions) for k in keys]
        if keys != [""]:
            raise ProgramError(f"{where} must give one expression per field: a dict over {keys}")
        return [Expression(spec, where, names, graph_functions)]

    def _reduction(self, reduce, identity):
        """(the reduce: a name or an Expression over a and b, one identity per message field)."""
        if reduce in REDUCTIONS:
            if identity is not None:
                raise ProgramError(f"reduce {reduce!r} has its own identity: pass none")
            wide = [f for f in self.message if f.dtype != np.bool_]
            if reduce in ("or", "and") and wide:
                # an integer's or/and would be the first truthy value on the CPU, max/min on the
                # GPU: one meaning on both is max/min's, which says so
                instead = "max" if reduce == "or" else "min"
                raise ProgramError(
                    f"reduce {reduce!r} folds bool messages; message field "
                    f"{wide[0].key or 'message'!r} is {wide[0].dtype}: reduce by {instead!r}"
                )
            if reduce == "any" and len(self.message) > 1:
                raise ProgramError(
                    "reduce 'any' keeps one sender's value: a structured message would mix "
                    "senders field by field on the GPU; give a scalar message"
                )
            return reduce, [REDUCTIONS[reduce](f.dtype) for f in self.message]
        if not isinstance(reduce, str):
            raise ProgramError(f"reduce {reduce!r}: expected {', '.join(REDUCTIONS)} or a string")
        if len(self.message) > 1:
            raise ProgramError(
                f"reduce {reduce!r}: a structured message reduces field by field by a named "
                f"operator ({', '.join(REDUCTIONS)})"
            )
        if identity is None:
            raise ProgramError(f"reduce {reduce!r} is an expression: give its identity")
        dt = self.message[0].dtype
        return Expression(reduce, "reduce", ("a", "b")), [_cast("identity", identity, dt)]

    def code(self, base, **patterns):
        """The code of every name an expression may use, for a kernel writer.

        Parameters
        ----------
        base : dict of str to str
            The code of the vertex names, ``weight``, ``u``, ``a`` and ``b``.
        **patterns : str
            Keyed by ``state``, ``old``, ``total`` or ``message``: how field i of that value is
            read, a :meth:`str.format` pattern over ``i`` (``"st{i}[v]"``, say).

        Returns
        -------
        dict of str to str
            `base`, parameter k as ``p_k``, and each field of each value in `patterns` by its
            name (``state.rank``): what :meth:`Expression.python` and :meth:`Expression.cuda`
            take.
        """
        code = dict(base) | {k: f"p_{k}" for k in self.params}
        values = {"state": self.state, "old": self.state, "total": self.message}
        values["message"] = self.message
        for prefix, pattern in patterns.items():
            code |= {f.name(prefix): pattern.format(i=i) for i, f in enumerate(values[prefix])}
        return code

    @property
    def listens(self):
        """Whether `listen` leaves some vertices deaf (it is not the default, all)."""
        return self.listen.source.strip() != "True"

    def process_uses(self, what):
        """Whether process reads the state of the vertex reached, or calls ``common``: what a
        hybrid run's GPU needs beside the messages.

        Parameters
        ----------
        what : {"state", "common"}
            ``"state"``: whether a process expression names a state field. Any other name:
            whether one calls the function of that name.

        Returns
        -------
        bool

        Examples
        --------
        >>> from gravel import programs
        >>> programs.triangles().process_uses("common"), programs.triangles().process_uses("state")
        (True, False)
        """
        if what == "state":
            return any(n.split(".")[0] == "state" for e in self.process for n in e.names)
        return any(
            isinstance(node, ast.Call) and node.func.id == what
            for e in self.process
            for node in ast.walk(e.tree)
        )

    def bind(self, params):
        """The parameter values of a run: the defaults updated by `params`, cast to their types.

        Parameters
        ----------
        params : dict or None
            Values of some of the program's parameters, by name.

        Returns
        -------
        dict of str to numpy scalar
            Every parameter of the program, in the order of its `params`, of its default's
            dtype.

        Raises
        ------
        ProgramError
            `params` names a parameter the program does not have, or gives a value its dtype
            cannot hold as it is (a fraction or an out-of-range number for an integer, a bool for
            a number or the reverse, an overflow for a float, a non-number).

        Examples
        --------
        >>> from gravel import programs
        >>> programs.bfs().bind({"source": 3})
        {'source': np.int64(3)}
        """
        unknown = set(params or {}) - set(self.params)
        if unknown:
            raise ProgramError(
                f"unknown parameters {sorted(unknown)} (the program has {sorted(self.params)})"
            )
        given = params or {}
        return {
            k: _cast(f"parameter {k!r}", given.get(k, d), d.dtype) for k, d in self.params.items()
        }

"""StaticBounds: every window an op reads or writes stays inside its source on every iteration.

The op registry declares each windowed op's window (`OpDef.window`: the source operand, the
offsets, the extent: tile.load / tile.store / tile.slice / tile.extract / assemble / read /
write and their tensor forms). Type deduction already checks windows at constant offsets; this
verifier checks offsets that are index arithmetic over loop variables of loops with constant
bounds (`pl.range(5)`, `pl.range(0, 256, 64)`), over the whole iteration space, without running
the program: the offset expression (scalar assignments substituted) is evaluated for every
combination of the loop variables it depends on where the enclosing `if` conditions over loop
variables hold (`if i < 4:` keeps a window off the last iteration of `pl.range(5)`) (or, past 65536 combinations, at the corners of
their ranges, exact for the affine offsets kernels use). An offset that depends on anything
else (a parameter, a loop with dynamic bounds) is left to run time.

An L0 cube block (a tile.extract into Left / Right) cut from a source narrowed on K stays inside
the source's valid K as well, at constant offsets too (`CUBE_K_AXIS` in the op registry): the
cube sums its block's whole K, while the matmul it was cut for sums over the source's valid K.
"""

from __future__ import annotations

import itertools
import operator
from typing import Callable, Iterator, Mapping, Sequence

from languages.ops import REGISTRY, static_int, window_extent, window_offsets
from languages.ops.tile_ops import CUBE_K_AXIS
from languages.types import TensorType, TileType, known_extents
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node, walk

RULE = "StaticBounds"
_MAX_COMBINATIONS = 1 << 16

def _floordiv(a: int, b: int) -> int | None:
    return a // b if b else None


def _mod(a: int, b: int) -> int | None:
    return a % b if b else None


_ARITH: dict[str, Callable[[int, int], int | None]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": _floordiv, "%": _mod,
    # an enclosing `if` condition over loop variables (`if i < 4:`): 1 true, 0 false
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b), ">": lambda a, b: int(a > b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "and": lambda a, b: int(bool(a) and bool(b)), "or": lambda a, b: int(bool(a) or bool(b)),
}


class _Unknown(Exception):
    """The expression depends on something that is not a constant-bound loop variable."""


class _Scope:
    def __init__(self) -> None:
        self.loops: dict[str, tuple[range, Node]] = {}  # loop variable -> its iteration values, the loop
        self.scalars: dict[str, Node] = {}  # scalar variable -> its defining expression
        self.guards: list[tuple[Node, bool]] = []  # the enclosing `if` conditions, and the branch taken

    def loop_vars(self, expr: Node, seen: int = 0) -> set[str]:
        if seen > 64:
            raise _Unknown
        kind = expr.KIND
        if kind == "Var":
            name = str(getattr(expr, "name"))
            if name in self.loops:
                return {name}
            if name in self.scalars:
                return self.loop_vars(self.scalars[name], seen + 1)
            raise _Unknown
        if kind in ("ConstInt", "ConstBool"):
            return set()
        if kind == "BinOp" and getattr(expr, "op") in _ARITH:
            return self.loop_vars(getattr(expr, "lhs"), seen + 1) | self.loop_vars(getattr(expr, "rhs"), seen + 1)
        if kind == "UnaryOp" and getattr(expr, "op") in ("-", "not"):
            return self.loop_vars(getattr(expr, "operand"), seen + 1)
        raise _Unknown

    def reached(self, at: Mapping[str, int]) -> bool:
        """Whether the enclosing `if` branches are taken at `at` (a guard over anything but
        these loop variables is assumed taken)."""
        for cond, taken in self.guards:
            try:
                if bool(self.value(cond, at)) != taken:
                    return False
            except (_Unknown, KeyError):
                continue
        return True

    def guard_vars(self) -> set[str]:
        names: set[str] = set()
        for cond, _ in self.guards:
            try:
                names |= self.loop_vars(cond)
            except _Unknown:
                continue
        return names

    def value(self, expr: Node, at: Mapping[str, int]) -> int:
        kind = expr.KIND
        if kind == "Var":
            name = str(getattr(expr, "name"))
            return at[name] if name in at else self.value(self.scalars[name], at)
        if kind == "ConstInt":
            return int(getattr(expr, "value"))
        if kind == "ConstBool":
            return int(bool(getattr(expr, "value")))
        if kind == "UnaryOp":
            operand = self.value(getattr(expr, "operand"), at)
            return int(not operand) if getattr(expr, "op") == "not" else -operand
        result = _ARITH[str(getattr(expr, "op"))](self.value(getattr(expr, "lhs"), at),
                                                  self.value(getattr(expr, "rhs"), at))
        if result is None:
            raise _Unknown
        return int(result)


def _assignments(scope: _Scope, names: Sequence[str]) -> Iterator[dict[str, int]]:
    domains = [scope.loops[n][0] for n in names]
    total = 1
    for domain in domains:
        total *= len(domain)
    points: list[Sequence[int]] = list(domains)
    if total > _MAX_COMBINATIONS:
        points = [(d[0], d[-1]) for d in domains]
    for combo in itertools.product(*points):
        yield dict(zip(names, combo))


def _loop_text(scope: _Scope, at: Mapping[str, int]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in sorted(at.items()))


def _check_call(scope: _Scope, call: Node, out: list[Diagnostic]) -> None:
    op = str(getattr(call, "op"))
    if op not in REGISTRY:
        return
    window = REGISTRY.get(op).window
    if window is None or window.source >= len(getattr(call, "args")):
        return
    source = getattr(getattr(call, "args")[window.source], "type", None)
    if not isinstance(source, (TensorType, TileType)):
        return
    bound = tuple(source.shape)
    offsets = window_offsets(window, call)
    extent = window_extent(window, call, len(bound))
    if offsets is None or extent is None or len(extent) != len(offsets) or len(bound) != len(offsets):
        return
    _check_valid_k(scope, call, op, source, offsets, extent, out)
    for axis, (offset, size, limit) in enumerate(zip(offsets, extent, bound)):
        if static_int(offset) is not None or size == 0:
            continue  # constant offsets are type deduction's to check
        try:
            offset_vars = scope.loop_vars(offset)
            if not offset_vars:
                continue
            names = sorted(offset_vars | scope.guard_vars())
            for at in _assignments(scope, names):
                if not scope.reached(at):
                    continue  # an enclosing `if` keeps the window off this iteration
                start = scope.value(offset, at)
                if 0 <= start and start + size <= limit:
                    continue
                loops = ", ".join(f"{n} in range({scope.loops[n][0].start}, {scope.loops[n][0].stop}, "
                                  f"{scope.loops[n][0].step})" for n in names)
                out.append(Diagnostic.at(
                    call, RULE,
                    f"{op}: the window on axis {axis} spans [{start}, {start + size}) at {_loop_text(scope, at)}, "
                    f"outside the source's extent {limit} ({list(bound)}); its offset ranges over {loops}",
                    hint=f"keep offset + {size} <= {limit} on every iteration: shorten the loop, or step the "
                         f"offset by less"))
                return
        except (_Unknown, KeyError):
            continue


def _check_valid_k(scope: _Scope, call: Node, op: str, source: TensorType | TileType, offsets: Sequence[Node],
                   extent: Sequence[int], out: list[Diagnostic]) -> None:
    """An L0 cube block (an extract into Left / Right) cut from a source narrowed on K stays
    inside the source's valid K on every iteration (`CUBE_K_AXIS`): the cube sums its block's
    whole K, so columns past the source's valid K would enter the sum."""
    result = getattr(call, "type", None)
    if REGISTRY.get(op).semantics[:1] != ("extract",) or not isinstance(result, TileType) \
            or result.memory_space not in CUBE_K_AXIS or not isinstance(source, TileType):
        return
    axis = CUBE_K_AXIS[result.memory_space]
    if axis >= len(offsets) or axis >= len(source.shape):
        return
    valid = source.valid[axis]
    if not isinstance(valid, int) or valid >= source.shape[axis]:
        return
    offset, size = offsets[axis], extent[axis]
    try:
        names = sorted(scope.loop_vars(offset) | scope.guard_vars())
        for at in _assignments(scope, names):
            if not scope.reached(at):
                continue
            start = scope.value(offset, at)
            if start + size <= valid:
                continue
            where = f" at {_loop_text(scope, at)}" if at else ""
            out.append(Diagnostic.at(
                call, RULE,
                f"{op} into {result.memory_space.name}: the block's K (axis {axis}) spans [{start}, {start + size}){where}, "
                f"past its source's valid K {valid} (of {source.shape[axis]}): the cube sums the block's whole K, so "
                "elements past the source's valid K would enter the product",
                hint="cut the K blocks within the source's valid K (the last one narrower), or give the source its "
                     "valid K as its extent"))
            return
    except (_Unknown, KeyError):
        return


def _walk(scope: _Scope, body: Sequence[Node], out: list[Diagnostic]) -> None:
    for stmt in body:
        kind = stmt.KIND
        if kind == "ForStmt":
            bounds = [static_int(getattr(stmt, name)) for name in ("start", "stop", "step")]
            loop_var = str(getattr(getattr(stmt, "loop_var"), "name"))
            if all(b is not None for b in bounds) and bounds[2] != 0:
                start, stop, step = (int(b) for b in bounds if b is not None)
                iterations = range(start, stop, step)
                if len(iterations) == 0:
                    continue  # the body never runs
                scope.loops[loop_var] = (iterations, stmt)
            _walk(scope, getattr(stmt, "body"), out)
            scope.loops.pop(loop_var, None)
        elif kind == "WhileStmt":  # no loop variable: the body's constant windows are checked as they are
            _walk(scope, getattr(stmt, "body"), out)
        elif kind == "ScopeStmt":  # a `pl.at` / `pl.incore` body: a kernel once outlined, checked in place
            _walk(scope, getattr(stmt, "body"), out)
        elif kind == "IfStmt":
            for branch, taken in (("then_body", True), ("else_body", False)):
                scope.guards.append((getattr(stmt, "cond"), taken))
                _walk(scope, getattr(stmt, branch), out)
                scope.guards.pop()
        elif kind in ("AssignStmt", "EvalStmt"):
            value = getattr(stmt, "value")
            if kind == "AssignStmt" and value.KIND != "Call":
                name = str(getattr(getattr(stmt, "target"), "name"))
                if any(n.KIND == "Var" and getattr(n, "name") == name for n in walk(value)):
                    scope.scalars.pop(name, None)  # `off = off + 64` before SSA form: not one value
                else:
                    scope.scalars[name] = value
            for node in walk(value):  # nested calls too (before NormalizeStmtStructure)
                if node.KIND == "Call":
                    _check_call(scope, node, out)


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        _walk(_Scope(), getattr(function, "body"), diagnostics)
    return diagnostics

"""InPlaceSafety: an op writes its result over bytes of an operand it reads only where the op
registry says that is safe.

For every op statement whose tile result overlaps a tile operand's bytes (both offsets assigned
and the byte ranges in one space intersecting, or, before addresses, one MemRef name):

- a zero-copy view (registry family "view") writes nothing: fine;
- an operand the registry declares the result reuses (`ReusesInput`: tile.matmul_acc's
  accumulator, tile.write's target) is updated in place by definition: fine when it is exactly
  the result's buffer;
- otherwise the registry's `OpDef.may_write_over` must admit it (an in-place-safe op, an operand
  it only reads, the same shape, element width and layout) and both must start at one byte, and
  the operand must not be a window of a larger tile (a tile.slice result sits at an offset and at
  its source's row pitch). A `tile.move`, `tile.extract`, a transpose or a width-changing cast
  over its own source reads elements it has already overwritten (NUMERICS.md section 7).

Whether the operand is still needed afterwards is NoCoLiveOverlap's question; this one is about
the single instruction.
"""

from __future__ import annotations

from typing import Sequence

from languages.functions import straight_line_statements
from languages.ops import REGISTRY, ReusesInput
from languages.types import MemRef, TileType
from nanopass.diagnostics import Diagnostic
from nanopass.node import Node

RULE = "InPlaceSafety"


def _overlap(a: MemRef, b: MemRef) -> bool:
    if a.space is not b.space:
        return False
    if a.offset >= 0 and b.offset >= 0:
        return a.offset < b.offset + b.size and b.offset < a.offset + a.size
    return a.name == b.name


def _same_start(a: MemRef, b: MemRef) -> bool:
    if a.offset >= 0 and b.offset >= 0:
        return a.offset == b.offset
    return a.name == b.name


class _Checker:
    def __init__(self) -> None:
        self.defs: dict[str, Node] = {}  # variable -> the call defining it
        self.out: list[Diagnostic] = []

    def block(self, body: Sequence[Node]) -> None:
        for stmt in straight_line_statements(body):
            if stmt.KIND == "AssignStmt":
                target, value = getattr(stmt, "target"), getattr(stmt, "value")
                if value.KIND == "Call":
                    self.defs[str(getattr(target, "name"))] = value
                    self.call(stmt, target, value)

    def is_window(self, value: Node) -> bool:
        """Whether `value` is (a view of) a tile.slice window of a larger tile."""
        seen = 0
        while value.KIND == "Var" and seen < 64:
            seen += 1
            call = self.defs.get(str(getattr(value, "name")))
            if call is None or not REGISTRY.is_view(str(getattr(call, "op"))) or not getattr(call, "args"):
                return False
            if REGISTRY.is_window_view(str(getattr(call, "op"))):
                return True
            value = getattr(call, "args")[0]
        return False

    def call(self, stmt: Node, target: Node, call: Node) -> None:
        op = str(getattr(call, "op"))
        result = getattr(target, "type")
        if op not in REGISTRY or REGISTRY.is_view(op) or not isinstance(result, TileType) or result.memref is None:
            return
        opdef = REGISTRY.get(op)
        reused = opdef.output_memory.index if isinstance(opdef.output_memory, ReusesInput) else None
        for index, arg in enumerate(getattr(call, "args")):
            operand = getattr(arg, "type", None)
            if arg.KIND != "Var" or not isinstance(operand, TileType) or operand.memref is None:
                continue
            if not _overlap(result.memref, operand.memref):
                continue
            if index == reused and _same_start(result.memref, operand.memref):
                continue
            attrs = getattr(call, "attrs")
            if opdef.may_write_over(index, result, operand, attrs) and _same_start(result.memref, operand.memref) \
                    and not self.is_window(arg):
                continue
            self.out.append(Diagnostic.at(
                stmt, RULE,
                f"{op} writes `{getattr(target, 'name')}` ({result.memref.name}, {_describe(result.memref)}) over "
                f"operand `{getattr(arg, 'name')}` ({operand.memref.name}, {_describe(operand.memref)}), which it is "
                f"still reading: {_why(opdef.name, index, result, operand, self.is_window(arg), result.memref, operand.memref)}",
                hint="give the result a buffer of its own (memory-reuse may only hand an operand's buffer to "
                     "an op the op registry declares in-place safe for it)"))


def _describe(memref: MemRef) -> str:
    if memref.offset < 0:
        return f"{memref.space.name}, address unassigned"
    return f"{memref.space.name} bytes [{memref.offset}, {memref.offset + memref.size})"


def _why(op: str, index: int, result: TileType, operand: TileType, window: bool, a: MemRef, b: MemRef) -> str:
    opdef = REGISTRY.get(op)
    if not opdef.in_place_safe:
        return f"{op} is not in-place safe (the op registry)"
    if window:
        return "the operand is a window of a larger tile (at an offset and its source's row pitch)"
    if result.dtype.bits != operand.dtype.bits:
        return f"the element width changes ({operand.dtype.name} -> {result.dtype.name})"
    if tuple(result.shape) != tuple(operand.shape):
        return f"the shape changes ({list(operand.shape)} -> {list(result.shape)})"
    if not _same_start(a, b):
        return "the two tiles start at different bytes"
    return "the two tiles lay their elements out differently"


def verify(program: Node) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in getattr(program, "functions"):
        checker = _Checker()
        checker.block(getattr(function, "body"))
        diagnostics.extend(checker.out)
    return diagnostics

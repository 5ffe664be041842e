"""Vec -> Vec window copies and window writes (a pto.tinsert) in an element type the target's
tinsert takes: the one rewrite every pass that makes such a copy goes through.

PTO writes a window's copy into a Vec tile of its own (tile.move) and a window write between
row-major Vec tiles (tile.assemble) with a Vec -> Vec pto.tinsert
(`languages.views.writes_with_vec_insert`), which takes only some element types (PTOAS: i8 / f16 /
bf16 / f32 on A2/A3; the 8-bit types, f16, bf16, f32 and i32 on A5:
`languages.ops.assembler_element_types.vec_insert_type`). A copy in another type copies the bits of
a type of its width the instruction takes instead (INT16 / UINT16 as FP16, INT32 / UINT32 as FP32
on A2/A3): each tile operand is re-viewed in that type -- a window as the same window cut from its
source's re-view, since a reinterpret re-views a buffer from its first byte -- and the result, a
whole tile, is re-viewed in its own type under its own name. A copy moves bytes (pto-isa's
Vec -> Vec TINSERT is a UB-to-UB copy on both targets, and the simulator converts nothing between
equal types), so a NaN pattern of the copy's type survives.

LegalizeVecLayouts copies the windows it is given so, and a pass after it that copies a window
(MaterializeSemanticAliases' copy of a yielded window, finding 6b09f0c436) through the same
functions; the VecInsertTypes verifier checks every tinsert-written call after LegalizeVecLayouts.
The rewrite is language-neutral (the statements are built of the given language's node classes) and keeps MemRefs where the program has them: a re-view shares its source's
buffer, the rebuilt copy writes the original result's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any, Callable, MutableMapping

from languages.ops import REGISTRY
from languages.ops.assembler_element_types import vec_insert_type, vec_insert_types
from languages.types import DataType, MemRef, TileType
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, Span

# The nodes are the generated classes of whichever tile language the pass rewrites (TilePlaced's,
# Addressed's: `BitCopier.lang`); the rewrite reads and builds them by their common fields.
_Node = Any


def insert_type(tile: TileType, arch: str, at: Node, rule: str) -> DataType | None:
    """The type a pto.tinsert of `tile`'s elements copies them as on `arch` (None: its own); a
    located refusal when the instruction takes no type of that width (64-bit)."""
    bits = vec_insert_type(tile.dtype, arch)
    if bits is None:
        taken = " / ".join(sorted(d.name for d in vec_insert_types(arch)))
        raise CompileError(Diagnostic.at(
            at, rule, f"not supported yet: a Vec window copy or window write of {tile.dtype.name} tiles (PTO's "
                      f"pto.tinsert copies {taken} elements on this target, and none of them is "
                      f"{tile.dtype.bits} bits wide, so not even the bits can be copied)",
            "load the window from GM as a tile of its own (pl.tile.load at its offsets), or keep such data in "
            "a type of 8, 16 or 32 bits"))
    return None if bits is tile.dtype else bits


def _typed(call: _Node, memref: MemRef | None) -> _Node:
    """`call` with its deduced type, bound to `memref` when the program binds tiles to MemRefs."""
    deduced = REGISTRY.deduce(call.op, call.args, call.attrs, placed=True, at=call)
    if isinstance(deduced, TileType) and memref is not None:
        deduced = replace(deduced, memref=memref)
    return replace(call, type=deduced)


@dataclass
class BitCopier:
    """The bit rewrite of one pass over one function of language module `lang` (the generated
    node classes, `languages.gen.tile_placed`, `languages.gen.addressed`): `windows` maps a
    window's name to the tile.slice call that cut it (the rewrite adds the windows it cuts),
    `fresh` makes a new name."""

    lang: ModuleType
    windows: MutableMapping[str, _Node]
    fresh: Callable[[str], str]

    def reinterpreted(self, operand: _Node, dtype: DataType, span: Span) -> _Node:
        """`tile.reinterpret_view(operand, dtype)`: the same bytes seen as `dtype`, in `operand`'s
        buffer."""
        attrs = (("dtype", dtype),)
        deduced = REGISTRY.deduce("tile.reinterpret_view", (operand,), attrs, placed=True)
        if isinstance(deduced, TileType) and operand.type.memref is not None:
            deduced = replace(deduced, memref=operand.type.memref)
        return self.lang.Call(op="tile.reinterpret_view", args=(operand,), attrs=attrs, type=deduced, span=span)

    def bits(self, operand: _Node, dtype: DataType, pre: list[_Node], span: Span) -> _Node:
        """`operand`'s bytes seen as `dtype` (a type of its width), its statements appended to
        `pre`: a plain reinterpret_view of a tile that starts at its buffer's first byte, and for a
        window the same window cut from its source's bits."""
        assert isinstance(operand.type, TileType)
        window = self.windows.get(operand.name)
        if window is not None:
            args = (self.bits(window.args[0], dtype, pre, span), *window.args[1:])
            call = _typed(replace(window, args=args, span=span), args[0].type.memref)
        else:
            call = self.reinterpreted(operand, dtype, span)
        var = self.lang.Var(self.fresh(f"{operand.name}_bits"), call.type, span=span)
        pre.append(self.lang.AssignStmt(target=var, value=call, span=span))
        if window is not None:
            self.windows[var.name] = call
        return var

    def on_bits(self, node: _Node, call: _Node, args: tuple[_Node, ...], result: TileType, what: str,
                rule: str) -> tuple[_Node, tuple[_Node, _Node]]:
        """`call` over `args` (bits of another type) into a handle of its own, then that handle
        re-viewed as `result` under `node`'s target name: the handle and the two statements."""
        rebuilt = _typed(replace(call, args=args), result.memref)
        handle = self.lang.Var(self.fresh(f"{node.target.name}_bits"), rebuilt.type, span=node.target.span)
        back = self.reinterpreted(handle, result.dtype, node.span)
        if back.type != result:
            raise CompileError(Diagnostic.at(node, rule, f"{what} do not re-view as {result}", "this is a compiler bug"))
        return handle, (self.lang.AssignStmt(target=handle, value=rebuilt, span=node.span),
                        self.lang.AssignStmt(target=node.target, value=back, span=node.span))

    def copied(self, node: _Node, call: _Node, arch: str, at: Node, rule: str) -> tuple[tuple[_Node, ...], _Node | None]:
        """`node` (`x = tile.move(window)` within Vec, or `x = tile.assemble(target, source,
        offsets)`, a pto.tinsert) as it stands when the target's tinsert takes its element type
        (the handle None); else the same copy of the operands' bits in a type of their width it
        takes, and `x` that result's bits re-viewed in its own type: the statements and the
        handle of the bits (what a later narrowing of `x` narrows)."""
        result = node.target.type
        assert isinstance(result, TileType)
        bits = insert_type(result, arch, at, rule)
        if bits is None:
            return (node,), None
        pre: list[_Node] = []
        tiles = 1 if call.op == "tile.move" else 2
        args = tuple(self.bits(a, bits, pre, node.span) if i < tiles else a for i, a in enumerate(call.args))
        handle, stmts = self.on_bits(node, call, args, result, f"the {bits.name} bits of `{node.target.name}`", rule)
        return (*pre, *stmts), handle

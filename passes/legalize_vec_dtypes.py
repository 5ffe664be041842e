"""LegalizeVecDtypes (TilePlaced → TilePlaced): vector arithmetic the target cannot do on BF16
tiles runs in FP32.

PTOAS rejects BF16 tiles on some vector instructions (`'pto.tmul' op expects A2/A3 tmul element
type to be i32/i16/f16/f32`, PTO_DIALECT.md row 8); which ones is a fact of the backend
(`BackendHandler.fp32_only_vec_instructions`). Such an operation is computed on FP32 copies of
its BF16 tile operands, and its FP32 result is brought back to BF16 under the original name.
How a copy is made and brought back is a fact of the instruction (`fp32_route` in
languages/ops/assembler_element_types.py), and each way gives the BF16 rule's bits for every
BF16 input (NUMERICS.md sections 2 and 4), signalling and quiet NaNs with any payload, ±0,
subnormals and ±inf included:

- CONVERTED (tcvt both ways: + - * / sqrt recip, fmod, lrelu, the tile-scalar and broadcast
  forms). The widening tcvt is exact on every number (BF16 is FP32 with 16 fewer fraction bits
  and the same exponent range) and quiets a NaN keeping its sign and payload; the narrowing one
  rounds to nearest-even. The BF16 rule is RNE_BF16(op(a, b)) with a quiet NaN of the same sign
  and payload where the result is NaN; computing in FP32 (p = 24 >= 2 * 8 + 2) and rounding
  once gives exactly that, and a BF16 product or quotient has at most 16 significant bits, so
  FP32's subnormal range (which BF16 shares) rounds nothing the direct rounding would keep.
  The remainder is exact in both; lrelu's x > 0 branch is x itself, never a NaN.
- BITS (abs, neg, relu, max / min and their tile-scalar, part, column-reduction and broadcast
  forms). Each result element of these is an operand's bits, with the sign bit changed for
  abs / neg, or a constant BF16 holds (+0, a BF16 literal): the BF16 rule keeps a signalling
  NaN it selects, which tcvt would quiet. So the BF16 bits become the upper half of an FP32
  word (seen as INT16, converted to FP32 and to INT32 -- both exact, as A2/A3's tcvt has no
  INT16 -> INT32 --, shifted left by 16, seen as FP32): that word is the BF16 value exactly and
  a BF16 NaN's bits, kept by the FP32 instruction's selection; the FP32 result's lower half is
  then zero, and shifting it right by 16 (arithmetic) and narrowing to INT16 (in range) gives the
  selected BF16 bits back.
- BITS_ROUNDED (partadd, partmul: the sum or product where both operands are valid, an
  operand's bits where only one is). In as BITS; out, the FP32 bits u are rounded to
  nearest-even as an integer, u + 0x7fff + (bit 16 of u), before the shift: for a number that
  is RNE_BF16 (subnormals and overflow to inf included, the sign riding along), and a NaN's
  lower half is zero (an FP32 instruction's NaN is an operand's NaN, quieted or not, or the
  default NaN), so it comes back as it is: quiet where the sum or product made it, signalling
  where it was copied.

The BITS routes bring a result back as a tile.reinterpret_view of its INT16 bits (a view), so
an op that rewrites its operand's handle (tile.set_validshape, which takes no view) acts on the
bits' own tile instead, re-viewed as BF16 under the original name; so does the whole-tile
re-validation of an operand an FP32 op reads past its valid region. Such an operand that is a
same-shape re-view of another tile (a reshape narrowing its valid region by its own valid_shape
argument) is taken again over the whole tile (`passes.analysis.view_retake`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import numpy as np

import languages.gen.tile_placed as TP
from backend.numerics import round_float64
from backend.targets.handlers import BackendHandler
from languages.decls import TilePlaced
from languages.layout import is_one_element, is_row_major
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, WRITE, OpDef
from languages.ops.data_extents import reads_past_valid
from languages.ops.assembler_element_types import Fp32Route, fp32_route
from languages.types import DataType, ScalarType, TileType
from nanopass.diagnostics import CompileError, Diagnostic, InternalCompileError
from nanopass.langdef import Language
from nanopass.node import Node, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import backend_handler
from passes.analysis.scope_vars import unused_name
from passes.analysis import view_retake

NARROW, WIDE = DataType.BF16, DataType.FP32
# The integers of the same widths: the BF16 bits, and the FP32 word that holds them in its upper half.
NARROW_BITS, WIDE_BITS = DataType.INT16, DataType.INT32
_HALF, _SIGN = 16, 31  # BF16 is the upper half of an FP32 word; bit 31 is its sign
# tile.cast's rounding modes: widening is exact; narrowing rounds to nearest-even (and is exact
# on the integers the BITS routes convert).
_WIDEN_MODE, _NARROW_MODE = "round", "rint"


def _is_narrow_vec(ty: object) -> bool:
    return isinstance(ty, TileType) and ty.dtype is NARROW and ty.memory_space is MemorySpace.Vec


class _Widener(TP.Rewriter):
    def __init__(self, backend: BackendHandler, used: set[str]) -> None:
        super().__init__()
        self.instructions = backend.fp32_only_vec_instructions
        self.used = used
        self.views: dict[str, bool] = {}  # variable -> whether it is a view handle (a slice, a reshape)
        # BF16 results brought back by the BITS routes: the name is a tile.reinterpret_view (a
        # pto.treshape view) of the narrowed INT16 tile, whose own handle an op that rewrites its
        # operand's handle (`handle_only`: tile.set_validshape) acts on instead.
        self.handles: dict[str, TP.Var] = {}
        # Windows (tile.slice results, copies and views of them): their bytes sit at an offset
        # and at their source's row pitch, so a BITS route, whose reinterpret_view re-views a
        # buffer from its first byte, reads a copy of the window instead (NoRebasedWindows).
        self.windows: set[str] = set()
        # The tile.slice calls that cut the windows, by name: a column window's row form is the
        # same elements cut from its source's row view (`_row_of`).
        self.cuts: dict[str, TP.Call] = {}
        # BF16 [N, 1] results brought back on their [1, N] row and re-viewed as the column (a
        # reshape): set_validshape, which takes no view, would have to narrow the row instead.
        self.columns_of_rows: set[str] = set()
        # Same-shape re-views of another tile from its first byte (a reshape narrowing its valid
        # region, a reinterpret_view), by name: read past their valid region, they are taken
        # again over the whole tile (`_whole`).
        self.re_views: dict[str, TP.Call] = {}

    @override
    def visit_Function(self, node: TP.Function) -> TP.Function:
        # Names are per function: what one kernel's variable is (a view, a window, a bit view
        # with its own handle) says nothing of a variable of the same name in the next.
        self.views, self.handles, self.windows, self.cuts, self.columns_of_rows, self.re_views = {}, {}, set(), {}, set(), {}
        return super().visit_Function(node)

    def fresh(self, base: str) -> str:
        return unused_name(base, self.used)

    def _needs_wide(self, call: TP.Call, target: TP.Var) -> bool:
        if call.op not in REGISTRY or not set(REGISTRY.get(call.op).pto) & self.instructions:
            return False
        return _is_narrow_vec(target.type) or any(_is_narrow_vec(getattr(a, "type", None)) for a in call.args)

    def _route(self, call: TP.Call) -> Fp32Route:
        routes = {fp32_route(i) for i in REGISTRY.get(call.op).pto if i in self.instructions}
        assert len(routes) == 1, (call.op, routes)
        return routes.pop()

    @override
    def visit_AssignStmt(self, node: TP.AssignStmt) -> TP.Stmt | tuple[TP.Stmt, ...]:
        call = node.value
        if isinstance(call, TP.Call):
            self.views[node.target.name] = call.op in REGISTRY and REGISTRY.makes_view_handle(call.op)
            if call.op in REGISTRY and (REGISTRY.is_window_view(call.op) or (
                    REGISTRY.is_view(call.op) and call.args and getattr(call.args[0], "name", None) in self.windows)):
                self.windows.add(node.target.name)
            if call.op in REGISTRY and REGISTRY.is_window_view(call.op):
                self.cuts[node.target.name] = call
            source = call.args[0] if call.args else None
            if call.op in REGISTRY and REGISTRY.re_views_from_base(call.op) and isinstance(source, TP.Var) \
                    and source.name not in self.windows and isinstance(source.type, TileType) \
                    and isinstance(node.target.type, TileType) \
                    and tuple(source.type.shape) == tuple(node.target.type.shape):
                self.re_views[node.target.name] = call
        elif isinstance(call, TP.Var):
            if call.name in self.windows:
                self.windows.add(node.target.name)
            if call.name in self.cuts:
                self.cuts[node.target.name] = self.cuts[call.name]
            if call.name in self.columns_of_rows:
                self.columns_of_rows.add(node.target.name)
            if call.name in self.re_views:
                self.re_views[node.target.name] = self.re_views[call.name]
            self.views[node.target.name] = self.views.get(call.name, False)
            if call.name in self.handles:
                self.handles[node.target.name] = self.handles[call.name]
        if isinstance(call, TP.Call) and call.op in REGISTRY:
            on_handle = self._on_handle(node, call, REGISTRY.get(call.op))
            if on_handle is not None:
                return on_handle
        if not isinstance(call, TP.Call) or not self._needs_wide(call, node.target):
            return super().visit_AssignStmt(node)
        pre: list[TP.Stmt] = []
        args: list[TP.Expr] = []
        opdef = REGISTRY.get(call.op)
        route = self._route(call)
        for index, arg in enumerate(call.args):
            ty = getattr(arg, "type", None)
            if isinstance(arg, TP.ConstFloat) and arg.dtype is NARROW:
                # The tile-scalar instructions take a scalar of the tile's element type
                # (`'pto.tfmods' op expects scalar type to match the tile element type`). A BF16
                # literal means its value rounded to BF16 (NUMERICS.md: RNE of the float64), which
                # FP32 holds exactly; its written value (0.1) is not that number, so it is rounded
                # first (a campaign found muls(x, 0.1) one ulp off).
                rounded = float(round_float64(np.array(float(arg.value), dtype=np.float64), NARROW.name, "rint"))
                args.append(TP.ConstFloat(value=rounded, dtype=WIDE, span=arg.span))
            elif self._is_value_scalar(call, opdef, index):
                args.append(self._scalar_as_narrow(arg, call, pre))
            elif not _is_narrow_vec(ty):
                args.append(arg)
            elif index < len(opdef.operands) and opdef.operand_decl(index).effect is WRITE:
                # A scratch operand the op only writes (a reduction's tmp): its contents are not
                # the op's input, so it is not widened (a cast would read unwritten bytes); the
                # FP32 op gets an FP32 scratch of the same shape.
                assert isinstance(ty, TileType)
                args.append(self._scratch(ty, f"{getattr(arg, 'name', 'tmp')}_fp32", call, pre))
            else:
                source = self._whole_if_read_past(call, opdef, index, arg, node.target, pre)
                args.append(self._widen(source, route, f"{getattr(arg, 'name', 'x')}_fp32", pre))
        wide_call = TP.Call(op=call.op, args=tuple(args), attrs=call.attrs,
                            type=REGISTRY.deduce(call.op, tuple(args), call.attrs, placed=True, at=call),
                            span=call.span)
        wide_result = TP.Var(self.fresh(node.target.name + "_fp32"), wide_call.type, span=node.target.span)
        pre.append(TP.AssignStmt(target=wide_result, value=wide_call, span=node.span))
        self.bump("bf16_ops_computed_in_fp32")
        target = node.target.type
        if not (isinstance(target, TileType) and target.dtype is NARROW):
            return (*pre, TP.AssignStmt(target=node.target, value=wide_result, span=node.span))
        back = self._narrow(wide_result, route, node.target.name, pre)
        if back.op == "tile.reshape":
            self.columns_of_rows.add(node.target.name)
            self.views[node.target.name] = True
        elif back.op == "tile.reinterpret_view":
            handle = back.args[0]
            assert isinstance(handle, TP.Var)
            self.handles[node.target.name] = handle
            self.views[node.target.name] = True
        return (*pre, TP.AssignStmt(target=node.target, value=back, span=node.span))

    @staticmethod
    def _is_value_scalar(call: TP.Call, opdef: OpDef, index: int) -> bool:
        """Operand `index` is a scalar the BF16 instruction converts to its tile's type first
        (a tile-scalar form's scalar: it adopts operand `literal_dtype`'s element type)."""
        if index >= len(opdef.operands):
            return False
        decl = opdef.operand_decl(index)
        source = decl.literal_dtype
        return (decl.kind == "scalar" and isinstance(source, int) and not isinstance(source, bool)
                and source < len(call.args) and _is_narrow_vec(getattr(call.args[source], "type", None)))

    def _scalar_as_narrow(self, arg: TP.Expr, call: TP.Call, pre: list[TP.Stmt]) -> TP.Expr:
        """A tile-scalar form's scalar as the FP32 instruction must get it: the BF16 instruction
        converts its scalar to BF16 first (NUMERICS.md section 2, `convert_scalar`: RNE, a NaN
        quieted keeping its sign and top payload bits), the FP32 one would only convert it to
        FP32 -- an FP32 scalar 1 + 2**-10 added to a BF16 256 gives 256 in BF16 (the scalar is
        1.0 there, the tie goes to even) but 258 through FP32. So a scalar that is not BF16
        already is rounded to BF16 (a literal here, at compile time; a variable by a scalar
        cast) and widened back, which is exact."""
        if isinstance(arg, (TP.ConstFloat, TP.ConstInt)) and not isinstance(arg.value, bool):
            rounded = float(round_float64(np.array(float(arg.value), dtype=np.float64), NARROW.name, "rint"))
            return TP.ConstFloat(value=rounded, dtype=WIDE, span=arg.span)
        ty = getattr(arg, "type", None)
        if not isinstance(ty, ScalarType) or ty.dtype is NARROW or not (ty.dtype.is_float or ty.dtype.is_int):
            return arg
        narrow = TP.Var(self.fresh(f"{getattr(arg, 'name', 's')}_bf16"), ScalarType(NARROW), span=call.span)
        pre.append(TP.AssignStmt(target=narrow, value=TP.UnaryOp(op="cast", operand=arg, type=ScalarType(NARROW),
                                                                 span=call.span), span=call.span))
        wide = TP.Var(self.fresh(f"{getattr(arg, 'name', 's')}_fp32"), ScalarType(WIDE), span=call.span)
        pre.append(TP.AssignStmt(target=wide, value=TP.UnaryOp(op="cast", operand=narrow, type=ScalarType(WIDE),
                                                               span=call.span), span=call.span))
        self.bump("bf16_scalars_rounded_for_fp32")
        return wide

    def _on_handle(self, node: TP.AssignStmt, call: TP.Call, opdef: OpDef) -> tuple[TP.Stmt, ...] | None:
        """`tile.set_validshape(x, vr, vc)` of a BF16 result the BITS routes brought back (a view
        of the narrowed INT16 tile): that tile's handle narrowed, then seen as BF16 again under
        the target's name; None for every other call."""
        if any(i < len(opdef.operands) and opdef.operand_decl(i).handle_only and isinstance(arg, TP.Var)
               and arg.name in self.columns_of_rows for i, arg in enumerate(call.args)):
            raise CompileError(Diagnostic.at(
                call, "LegalizeVecDtypes",
                f"not supported yet: `{call.op}` of a BF16 [N, 1] result this target computes in FP32 (brought back "
                "on its [1, N] row, and re-viewed as the column)",
                hint="apply it before the BF16 arithmetic, or compute in FP32 (pl.cast before and after)"))
        handles = [i for i, arg in enumerate(call.args) if i < len(opdef.operands)
                   and opdef.operand_decl(i).handle_only and isinstance(arg, TP.Var) and arg.name in self.handles]
        if not handles:
            return None
        if opdef.semantics[:1] != ("set_validshape",) or handles != [0] or len(call.args) != 3:
            raise CompileError(Diagnostic.at(
                call, "LegalizeVecDtypes",
                f"not supported yet: `{call.op}` of a BF16 result this target computes in FP32 (brought back as a "
                "view of its bits)", hint="apply it before the BF16 arithmetic, or compute in FP32 "
                                          "(pl.cast before and after)"))
        source = call.args[0]
        assert isinstance(source, TP.Var)
        pre: list[TP.Stmt] = []
        view = self._revalidated(self.handles[source.name], call.args[1:], node.target.name, call, pre)
        if view.type != node.target.type:
            raise CompileError(Diagnostic.at(node, "LegalizeVecDtypes", f"the BF16 bits of `{source.name}` narrowed "
                                             f"do not re-view as {node.target.type}", hint="this is a compiler bug"))
        handle = view.args[0]
        assert isinstance(handle, TP.Var)
        self.handles[node.target.name] = handle
        self.views[node.target.name] = True
        self.bump("bf16_bit_handles_narrowed")
        return (*pre, TP.AssignStmt(target=node.target, value=view, span=node.span))

    def _revalidated(self, handle: TP.Var, valid: tuple[TP.Expr, ...], name: str, call: TP.Call,
                     pre: list[TP.Stmt]) -> TP.Call:
        """The BF16 view of `handle` (the INT16 bits of a BITS-route result) set_validshape'd to
        `valid` (the narrowed handle is bound; the view is returned)."""
        args = (handle, *valid)
        narrowed = TP.Call(op="tile.set_validshape", args=args, attrs=(),
                           type=REGISTRY.deduce("tile.set_validshape", args, (), placed=True, at=call), span=call.span)
        bits = self._bind(narrowed, f"{name}_bits", pre)
        return self._view_call(bits, NARROW)

    def _whole_if_read_past(self, call: TP.Call, opdef: OpDef, index: int, arg: TP.Expr, target: TP.Var,
                            pre: list[TP.Stmt]) -> TP.Expr:
        """The tile to widen for `arg`: `arg` itself, or -- when the op reads it past its valid
        region (an element-wise op whose result is valid wider than this operand: the op
        registry's read extent, `languages.ops.data_extents`) -- the whole tile, re-validated by set_validshape: a cast
        converts its valid region only, and the padding the op reads holds the operand's data
        (the DefinedReads verifier proved it on the input)."""
        ty, result = getattr(arg, "type", None), target.type
        if not (isinstance(ty, TileType) and isinstance(result, TileType) and len(ty.shape) == 2):
            return arg
        if not reads_past_valid(opdef, index, ty, result, call.attrs):
            return arg
        return self._whole(arg, call, result, pre)

    def _whole(self, arg: TP.Expr, call: TP.Call, result: TileType, pre: list[TP.Stmt]) -> TP.Expr:
        """`arg` valid over its whole shape: a BITS-route result's INT16 handle re-validated, a
        same-shape re-view of another tile (`re_views`: a reshape narrowing its valid region by
        its own valid_shape argument, a reinterpret_view) taken again over the whole tile of its
        source (`passes.analysis.view_retake`, that argument widened too), or its own handle
        re-validated by set_validshape."""
        ty = getattr(arg, "type", None)
        assert isinstance(ty, TileType)
        if tuple(ty.valid) == tuple(ty.shape):
            return arg
        whole_shape = tuple(TP.ConstInt(value=d, dtype=DataType.INDEX, span=call.span) for d in ty.shape)
        if isinstance(arg, TP.Var) and arg.name in self.handles:
            # A BF16 result of the BITS routes is a view of its INT16 bits: that handle is re-validated.
            return self._bind(self._revalidated(self.handles[arg.name], whole_shape, f"{arg.name}_whole", call, pre),
                              f"{arg.name}_whole", pre)
        re_view = self.re_views.get(arg.name) if isinstance(arg, TP.Var) else None
        if isinstance(arg, TP.Var) and re_view is not None:
            # A view is a pto.treshape handle set_validshape cannot widen (finding 66a183e452's class).
            whole = tuple(ty.shape)
            source = self._whole(re_view.args[0], call, result, pre)
            args = view_retake.retaken_view_args(re_view, source, whole, call.span)
            again = TP.Call(op=re_view.op, args=args, attrs=re_view.attrs,
                            type=REGISTRY.deduce(re_view.op, args, re_view.attrs, placed=True, at=re_view),
                            span=call.span)
            if not isinstance(again.type, TileType) or tuple(again.type.valid) != whole:
                raise InternalCompileError(Diagnostic.at(
                    call, "LegalizeVecDtypes", f"the `{re_view.op}` view `{arg.name}`, taken again over {list(whole)}, "
                    f"is valid over {list(getattr(again.type, 'valid_extents', ()))}", hint="this is a compiler bug"))
            return self._bind(again, f"{arg.name}_whole", pre)
        if not isinstance(arg, TP.Var) or self.views.get(arg.name, False):
            # set_validshape takes no view handle (PTOAS rejects it, ViewLegality refuses it).
            raise CompileError(Diagnostic.at(
                call, "LegalizeVecDtypes",
                f"not supported yet: BF16 {call.op} on this target runs in FP32, and it reads its operand "
                f"`{getattr(arg, 'name', 'x')}` (a view valid in {list(ty.valid_extents)}) past its valid region "
                f"over the result's {list(result.valid_extents)}; the widening cannot reach a view's padding",
                hint="give the operands one valid shape (pl.tile.set_validshape), or compute in FP32 "
                     "(pl.cast before and after)"))
        whole_call = TP.Call(op="tile.set_validshape", args=(arg, *whole_shape), attrs=(),
                             type=REGISTRY.deduce("tile.set_validshape", (arg, *whole_shape), (), placed=True, at=call),
                             span=call.span)
        var = TP.Var(self.fresh(f"{arg.name}_whole"), whole_call.type, span=call.span)
        pre.append(TP.AssignStmt(target=var, value=whole_call, span=call.span))
        return var

    def _widen(self, operand: TP.Expr, route: Fp32Route, name: str, pre: list[TP.Stmt]) -> TP.Var:
        """The FP32 copy of a BF16 tile (the module docstring says why each way is exact). A
        column-major [N, 1] column (a row-broadcast op's per-row operand) is widened on its [1, N]
        row view, as every vector op computes on a column (tcvt and the tile-scalar shifts take
        row-major tiles: RowMajorVecTiles), and the FP32 row re-viewed as the column."""
        tile = getattr(operand, "type", None)
        if _is_column_major_column(tile):
            assert isinstance(tile, TileType)
            row = self._row_of(operand, pre)
            wide_row = self._widen(row, route, f"{name}_row", pre)
            self.bump("bf16_columns_widened_as_rows")
            return self._bind(self._reshape_call(wide_row, tuple(tile.shape)), name, pre)
        if route is Fp32Route.CONVERTED:
            return self._cast(operand, WIDE, _WIDEN_MODE, name, pre)
        bits = self._bind(self._view_call(self._packed(operand, pre), NARROW_BITS), f"{name}_bits", pre)
        as_float = self._cast(bits, WIDE, _NARROW_MODE, f"{name}_bits_f", pre)
        as_int = self._cast(as_float, WIDE_BITS, _NARROW_MODE, f"{name}_bits_i", pre)
        high = self._bind(self._scalar_call("tile.shls", as_int, _HALF), f"{name}_high", pre)
        return self._bind(self._view_call(high, WIDE), name, pre)

    def _narrow(self, wide: TP.Var, route: Fp32Route, name: str, pre: list[TP.Stmt]) -> TP.Call:
        """The call that brings the FP32 result back to BF16 (its last step). A column-major
        [N, 1] result is narrowed on its [1, N] row view (as `_widen` widens one), the last step
        then the BF16 row re-viewed as the column."""
        tile = wide.type
        if _is_column_major_column(tile):
            assert isinstance(tile, TileType)
            row = self._bind(self._reshape_call(wide, (1, tile.shape[0])), f"{name}_fp32_row", pre)
            narrow_row = self._bind(self._narrow(row, route, f"{name}_row", pre), f"{name}_row", pre)
            self.bump("bf16_columns_narrowed_as_rows")
            return self._reshape_call(narrow_row, tuple(tile.shape))
        if route is Fp32Route.CONVERTED:
            return self._cast_call(wide, NARROW, _NARROW_MODE)
        bits: TP.Var = self._bind(self._view_call(wide, WIDE_BITS), f"{name}_fp32_bits", pre)
        if route is Fp32Route.BITS_ROUNDED:
            # u + 0x7fff + (bit 16 of u): `odd` is -1 where bit 16 is set (moved to the sign, then
            # spread by the arithmetic shift), so subtracting it adds that bit.
            moved = self._bind(self._scalar_call("tile.shls", bits, _SIGN - _HALF), f"{name}_lsb", pre)
            odd = self._bind(self._scalar_call("tile.shrs", moved, _SIGN), f"{name}_odd", pre)
            biased = self._bind(self._scalar_call("tile.adds", bits, 0x7FFF), f"{name}_biased", pre)
            sub = TP.Call(op="tile.sub", args=(biased, odd), attrs=(),
                          type=REGISTRY.deduce("tile.sub", (biased, odd), (), placed=True), span=wide.span)
            bits = self._bind(sub, f"{name}_rne", pre)
        upper = self._bind(self._scalar_call("tile.shrs", bits, _HALF), f"{name}_upper", pre)
        narrow = self._cast(upper, NARROW_BITS, _NARROW_MODE, f"{name}_narrow_bits", pre)
        return self._view_call(narrow, NARROW)

    def _row_of(self, column: TP.Expr, pre: list[TP.Stmt]) -> TP.Var:
        """The [1, N] row view of a column-major [N, 1] column: a zero-copy reshape of a tile
        that starts at its buffer's first byte, and for a column window `tile.slice(src, [r, 1],
        [o, 0], [vr, 1])` the same elements cut from the source's row view, `tile.slice(row(src),
        [1, r], [0, o], [1, vr])` (a reshape of the window would re-view its source from its
        first byte, dropping the offset), as LegalizeVecLayouts cuts it."""
        assert isinstance(column, TP.Var) and isinstance(column.type, TileType)
        cut = self.cuts.get(column.name)
        if cut is None:
            if column.name in self.windows:
                raise CompileError(Diagnostic.at(
                    column, "LegalizeVecDtypes",
                    f"not supported yet: a view of a column window (`{column.name}`) as a BF16 operand this target "
                    "computes in FP32", hint="slice the column itself, or compute in FP32 (pl.cast before and after)"))
            return self._bind(self._reshape_call(column, (1, column.type.shape[0])), f"{column.name}_row", pre)
        source = cut.args[0]
        swapped = [_swapped(arg) for arg in cut.args[1:]]
        if not (isinstance(source, TP.Var) and _is_column_major_column(source.type)) \
                or any(arg is None for arg in swapped):
            raise CompileError(Diagnostic.at(
                column, "LegalizeVecDtypes",
                f"not supported yet: a column window (`{column.name}`) of a "
                f"{list(getattr(getattr(source, 'type', None), 'shape', []))} "
                "tile, or one with a non-literal shape or offset list, as a BF16 operand this target computes in FP32",
                hint="slice a whole [N, 1] column with literal lists, or compute in FP32 (pl.cast before and after)"))
        args = (self._row_of(source, pre), *(a for a in swapped if a is not None))
        call = TP.Call(op=cut.op, args=args, attrs=cut.attrs,
                       type=REGISTRY.deduce(cut.op, args, cut.attrs, placed=True, at=cut), span=cut.span)
        row = self._bind(call, f"{column.name}_row", pre)
        self.windows.add(row.name)
        self.cuts[row.name] = call
        return row

    @staticmethod
    def _reshape_call(operand: TP.Var, shape: tuple[int, ...]) -> TP.Call:
        args = (operand, TP.TupleExpr(elements=tuple(TP.ConstInt(value=d, dtype=DataType.INDEX, span=operand.span)
                                                     for d in shape), span=operand.span))
        return TP.Call(op="tile.reshape", args=args, attrs=(),
                       type=REGISTRY.deduce("tile.reshape", args, (), placed=True), span=operand.span)

    def _bind(self, call: TP.Call, name: str, pre: list[TP.Stmt]) -> TP.Var:
        var = TP.Var(self.fresh(name), call.type, span=call.span)
        pre.append(TP.AssignStmt(target=var, value=call, span=call.span))
        return var

    def _packed(self, operand: TP.Expr, pre: list[TP.Stmt]) -> TP.Expr:
        """`operand`, or a copy of it in a tile of its own when it is a window (its bits are
        re-viewed from the buffer's first byte next)."""
        if not (isinstance(operand, TP.Var) and operand.name in self.windows):
            return operand
        self.bump("windows_packed_for_bit_views")
        return self._bind(self._move_call(operand), f"{operand.name}_packed", pre)

    @staticmethod
    def _move_call(window: TP.Var) -> TP.Call:
        """A copy of `window` into a tile of its own in the same space (TMOV)."""
        assert isinstance(window.type, TileType)
        attrs = (("target_memory", window.type.memory_space),)
        return TP.Call(op="tile.move", args=(window,), attrs=attrs,
                       type=REGISTRY.deduce("tile.move", (window,), attrs, placed=True), span=window.span)

    @staticmethod
    def _view_call(operand: TP.Expr, dtype: DataType) -> TP.Call:
        """The same bytes seen as `dtype` (of the same width)."""
        attrs = (("dtype", dtype),)
        return TP.Call(op="tile.reinterpret_view", args=(operand,), attrs=attrs,
                       type=REGISTRY.deduce("tile.reinterpret_view", (operand,), attrs, placed=True),
                       span=operand.span)

    @staticmethod
    def _scalar_call(op: str, operand: TP.Var, value: int) -> TP.Call:
        """`op(operand, value)` with the integer scalar typed as the tile's elements."""
        assert isinstance(operand.type, TileType)
        args = (operand, TP.ConstInt(value=value, dtype=operand.type.dtype, span=operand.span))
        return TP.Call(op=op, args=args, attrs=(), type=REGISTRY.deduce(op, args, (), placed=True),
                       span=operand.span)

    def _scratch(self, like: TileType, name: str, call: TP.Call, pre: list[TP.Stmt]) -> TP.Var:
        shape = TP.TupleExpr(elements=tuple(TP.ConstInt(value=d, dtype=DataType.INDEX, span=call.span)
                                            for d in like.shape), span=call.span)
        attrs = (("dtype", WIDE), ("target_memory", MemorySpace.Vec))
        create = TP.Call(op="tile.create", args=(shape,), attrs=attrs,
                         type=REGISTRY.deduce("tile.create", (shape,), attrs, placed=True, at=call), span=call.span)
        var = TP.Var(self.fresh(name), create.type, span=call.span)
        pre.append(TP.AssignStmt(target=var, value=create, span=call.span))
        return var

    def _cast(self, operand: TP.Expr, dtype: DataType, mode: str, name: str, pre: list[TP.Stmt]) -> TP.Var:
        return self._bind(self._cast_call(operand, dtype, mode), name, pre)

    @staticmethod
    def _cast_call(operand: TP.Expr, dtype: DataType, mode: str) -> TP.Call:
        attrs = (("target_type", dtype), ("mode", mode))
        return TP.Call(op="tile.cast", args=(operand,), attrs=attrs,
                       type=REGISTRY.deduce("tile.cast", (operand,), attrs, placed=True), span=operand.span)


def _is_column_major_column(tile: object) -> bool:
    """A column-major [N, 1] Vec tile of more than one element: it computes on its [1, N] row view
    (a [1, 1] tile is a row as much as a column)."""
    return isinstance(tile, TileType) and tile.memory_space is MemorySpace.Vec and tile.view is not None \
        and not is_row_major(tile.view) and len(tile.shape) == 2 and tile.shape[1] == 1 \
        and not is_one_element(tile.shape)


def _swapped(arg: TP.Expr) -> TP.Expr | None:
    """A [rows, cols] list literal as [cols, rows] (a column's coordinates on its row view)."""
    if not (isinstance(arg, TP.TupleExpr) and len(arg.elements) == 2):
        return None
    return TP.TupleExpr(elements=(arg.elements[1], arg.elements[0]), span=arg.span)


def _names(node: Node) -> set[str]:
    return {str(getattr(n, "name")) for n in walk(node) if n.KIND == "Var"}


@dataclass(frozen=True)
class LegalizeVecDtypes(Pass[TP.Program, TP.Program]):
    """Compute in FP32 the BF16 vector arithmetic the target has no BF16 instruction for."""

    name: ClassVar[str] = "legalize-vec-dtypes"
    spec_name: ClassVar[str] = "LegalizeVecDtypes"
    source: ClassVar[Language] = TilePlaced
    target: ClassVar[Language] = TilePlaced
    requires: ClassVar[frozenset[str]] = frozenset({"TileMemoryPlaced"})
    # It keeps RowMajorVecTiles: its widening and narrowing chains (tcvt, tshls / tshrs) run on
    # an [N, 1] column's [1, N] row view, as LegalizeVecLayouts' ops do (agent-k's finding
    # 3a911717c9: a BF16 row_expand_max's per-row column was cast and shifted column-major).

    @override
    def run(self, program: TP.Program, ctx: PassContext) -> TP.Program:
        backend = backend_handler(ctx)
        if not backend.fp32_only_vec_instructions:
            return program
        return ctx.rewrite(_Widener(backend, _names(program)), program)

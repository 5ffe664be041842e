"""LegalizeVecDtypes (TilePlaced → TilePlaced): vector arithmetic the target cannot do on BF16
tiles runs in FP32.

PTOAS rejects BF16 tiles on some vector instructions (`'pto.tmul' op expects A2/A3 tmul element
type to be i32/i16/f16/f32`, PTO_DIALECT.md row 8); which ones is a fact of the backend
(`BackendHandler.fp32_only_vec_instructions`). Such an operation is computed on FP32 copies:
each BF16 tile operand is widened (`tile.cast`, exact), the operation runs on FP32 tiles, and
its FP32 result is rounded back to BF16 to nearest-even under the original name.

The bits are unchanged (NUMERICS.md section 2): the BF16 result is RNE_BF16(op(a, b)), and for
+ - * / sqrt computing in FP32 (p = 24 >= 2 * 8 + 2) and rounding once gives exactly that; a
BF16 product or quotient has at most 16 significant bits, so FP32's subnormal range (which BF16
shares) rounds nothing the direct rounding would keep; max / min / abs / neg and the exact
remainders are exact in both.
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
from languages.memory_space import MemorySpace
from languages.ops import READS_OVER_RESULT_REGION, REGISTRY, WRITE, OpDef
from languages.types import DataType, TileType
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import backend_handler

NARROW, WIDE = DataType.BF16, DataType.FP32
# tile.cast's rounding modes: widening is exact; narrowing rounds to nearest-even.
_WIDEN_MODE, _NARROW_MODE = "round", "rint"


def _is_narrow_vec(ty: object) -> bool:
    return isinstance(ty, TileType) and ty.dtype is NARROW and ty.memory_space is MemorySpace.Vec


class _Widener(TP.Rewriter):
    def __init__(self, backend: BackendHandler, used: set[str]) -> None:
        super().__init__()
        self.instructions = backend.fp32_only_vec_instructions
        self.used = used
        self.views: dict[str, bool] = {}  # variable -> whether it is a view handle (a slice, a reshape)

    def fresh(self, base: str) -> str:
        name, suffix = base, 0
        while name in self.used:
            suffix += 1
            name = f"{base}_{suffix}"
        self.used.add(name)
        return name

    def _needs_wide(self, call: TP.Call, target: TP.Var) -> bool:
        if call.op not in REGISTRY or not set(REGISTRY.get(call.op).pto) & self.instructions:
            return False
        return _is_narrow_vec(target.type) or any(_is_narrow_vec(getattr(a, "type", None)) for a in call.args)

    @override
    def visit_AssignStmt(self, node: TP.AssignStmt) -> TP.Stmt | tuple[TP.Stmt, ...]:
        call = node.value
        if isinstance(call, TP.Call):
            self.views[node.target.name] = call.op in REGISTRY and REGISTRY.makes_view_handle(call.op)
        elif isinstance(call, TP.Var):
            self.views[node.target.name] = self.views.get(call.name, False)
        if not isinstance(call, TP.Call) or not self._needs_wide(call, node.target):
            return super().visit_AssignStmt(node)
        pre: list[TP.Stmt] = []
        args: list[TP.Expr] = []
        opdef = REGISTRY.get(call.op)
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
            elif not _is_narrow_vec(ty):
                args.append(arg)
            elif index < len(opdef.operands) and opdef.operand_decl(index).effect is WRITE:
                # A scratch operand the op only writes (a reduction's tmp): its contents are not
                # the op's input, so it is not widened (a cast would read unwritten bytes); the
                # FP32 op gets an FP32 scratch of the same shape.
                assert isinstance(ty, TileType)
                args.append(self._scratch(ty, f"{getattr(arg, 'name', 'tmp')}_fp32", call, pre))
            else:
                source = self._whole_if_read_past(call, opdef, arg, node.target, pre)
                wide = self._cast(source, WIDE, _WIDEN_MODE, f"{getattr(arg, 'name', 'x')}_fp32", pre)
                args.append(wide)
        wide_call = TP.Call(op=call.op, args=tuple(args), attrs=call.attrs,
                            type=REGISTRY.deduce(call.op, tuple(args), call.attrs, placed=True, at=call),
                            span=call.span)
        wide_result = TP.Var(self.fresh(node.target.name + "_fp32"), wide_call.type, span=node.target.span)
        pre.append(TP.AssignStmt(target=wide_result, value=wide_call, span=node.span))
        self.bump("bf16_ops_computed_in_fp32")
        target = node.target.type
        if not (isinstance(target, TileType) and target.dtype is NARROW):
            return (*pre, TP.AssignStmt(target=node.target, value=wide_result, span=node.span))
        back = self._cast_call(wide_result, NARROW, _NARROW_MODE)
        return (*pre, TP.AssignStmt(target=node.target, value=back, span=node.span))

    def _whole_if_read_past(self, call: TP.Call, opdef: OpDef, arg: TP.Expr, target: TP.Var,
                            pre: list[TP.Stmt]) -> TP.Expr:
        """The tile to widen for `arg`: `arg` itself, or -- when the op reads it past its valid
        region (an element-wise op whose result is valid wider than this operand,
        `READS_OVER_RESULT_REGION`) -- the whole tile, re-validated by set_validshape: a cast
        converts its valid region only, and the padding the op reads holds the operand's data
        (the DefinedReads verifier proved it on the input)."""
        ty, result = getattr(arg, "type", None), target.type
        if not (isinstance(ty, TileType) and isinstance(result, TileType) and opdef.semantics
                and opdef.semantics[0] in READS_OVER_RESULT_REGION and tuple(ty.shape) == tuple(result.shape)
                and len(ty.shape) == 2 and tuple(ty.valid_extents) != tuple(ty.shape)
                and tuple(result.valid_extents) != tuple(ty.valid_extents)):
            return arg
        if not isinstance(arg, TP.Var) or self.views.get(arg.name, False):
            # set_validshape takes no view handle (PTOAS rejects it, ViewLegality refuses it).
            raise CompileError(Diagnostic.at(
                call, "LegalizeVecDtypes",
                f"not supported yet: BF16 {call.op} on this target runs in FP32, and it reads its operand "
                f"`{getattr(arg, 'name', 'x')}` (a view valid in {list(ty.valid_extents)}) past its valid region "
                f"over the result's {list(result.valid_extents)}; the widening cannot reach a view's padding",
                hint="give the operands one valid shape (pl.tile.set_validshape), or compute in FP32 "
                     "(pl.cast before and after)"))
        extents = tuple(TP.ConstInt(value=d, dtype=DataType.INDEX, span=call.span) for d in ty.shape)
        whole = TP.Call(op="tile.set_validshape", args=(arg, *extents), attrs=(),
                        type=REGISTRY.deduce("tile.set_validshape", (arg, *extents), (), placed=True, at=call),
                        span=call.span)
        var = TP.Var(self.fresh(f"{arg.name}_whole"), whole.type, span=call.span)
        pre.append(TP.AssignStmt(target=var, value=whole, span=call.span))
        return var

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
        call = self._cast_call(operand, dtype, mode)
        var = TP.Var(self.fresh(name), call.type, span=call.span)
        pre.append(TP.AssignStmt(target=var, value=call, span=call.span))
        return var

    @staticmethod
    def _cast_call(operand: TP.Expr, dtype: DataType, mode: str) -> TP.Call:
        attrs = (("target_type", dtype), ("mode", mode))
        return TP.Call(op="tile.cast", args=(operand,), attrs=attrs,
                       type=REGISTRY.deduce("tile.cast", (operand,), attrs, placed=True), span=operand.span)


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

    @override
    def run(self, program: TP.Program, ctx: PassContext) -> TP.Program:
        backend = backend_handler(ctx)
        if not backend.fp32_only_vec_instructions:
            return program
        return ctx.rewrite(_Widener(backend, _names(program)), program)

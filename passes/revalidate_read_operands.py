"""RevalidateReadOperands (TilePlaced -> TilePlaced): an element-wise instruction's sources are
valid over the region it reads.

An element-wise op reads a same-shape operand over its result's valid region
(`languages.ops.data_extents.read_extent`), also where that operand is valid over less: a tile
narrowed by set_validshape after a whole load still holds the loaded data past its valid region,
and DefinedReads proves those elements hold data. PTOAS, though, wants the sources and the dst
of such an instruction valid over one region (`'pto.tsub' op expects src0 and src1 to have the
same valid_shape`: `languages.layout.VALID_SHAPE_MATCHED_INSTRUCTIONS`). So each operand of such
an op valid over another region than the one it reads is re-validated over that region first:

- a handle of its own: `tile.set_validshape(x, rows, cols)` (a new handle on the same bytes);
- a view (set_validshape takes no view handle): the view taken again over the region read, by the
  registry's fact on how its valid region is made (`languages.ops.ViewValid`): a window or a
  reshape with its valid_shape stating the region, a re-view deriving it from its source's (a
  reinterpret_view: LegalizeVecDtypes' BF16 bits; a transpose view) of its source re-validated
  first, recursively;
- a view that cannot be taken again so: a located 'not supported yet'.

It runs after LegalizeVecLayouts and LegalizeVecDtypes, which re-validate the operands they
re-view themselves (an [N, 1] column's row, a BF16 operand's FP32 copy): what is left is an
instruction as the user wrote it (a hand-written tile.sub) or as ConvertTensorToTileOps made it.
TargetOpRules checks the fact on the PTO program (`SameValidShape`); the pass claims it on its own
output as ValidMatchedReads (verifiers/valid_matched_reads.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import languages.gen.tile_placed as TP
from languages.decls import TilePlaced
from languages.layout import VALID_SHAPE_MATCHED_INSTRUCTIONS
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY, OpDef
from languages.ops.data_extents import read_extent
from languages.types import DataType, TileType, is_symbolic
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, Span, walk
from nanopass.passes import Pass, PassContext
from passes.analysis.scope_vars import unused_name

RULE = "RevalidateReadOperands"


def _valid_matched(opdef: OpDef) -> bool:
    return any(instruction in VALID_SHAPE_MATCHED_INSTRUCTIONS for instruction in opdef.pto)


class _Revalidator(TP.Rewriter):
    def __init__(self, used: set[str]) -> None:
        super().__init__()
        self.used = used
        # The call making each view handle (set_validshape takes none), by name: taken again over a
        # region by its registry fact.
        self.views: dict[str, TP.Call] = {}

    def fresh(self, base: str) -> str:
        return unused_name(base, self.used)

    @override
    def visit_AssignStmt(self, node: TP.AssignStmt) -> TP.Stmt | tuple[TP.Stmt, ...]:
        call = node.value
        if isinstance(call, TP.Var):
            if call.name in self.views:
                self.views[node.target.name] = self.views[call.name]
            return super().visit_AssignStmt(node)
        if not isinstance(call, TP.Call) or call.op not in REGISTRY:
            return super().visit_AssignStmt(node)
        if REGISTRY.makes_view_handle(call.op):
            self.views[node.target.name] = call
        opdef = REGISTRY.get(call.op)
        result = node.target.type
        if not _valid_matched(opdef) or not isinstance(result, TileType) or is_symbolic(result.valid_shape):
            return super().visit_AssignStmt(node)
        pre: list[TP.Stmt] = []
        args = list(call.args)
        for i, arg in enumerate(args):
            region = self._region_read(opdef, i, arg, result, call)
            if region is not None:
                args[i] = self._revalidated(arg, region, call, pre, node.span)
        if not pre:
            return super().visit_AssignStmt(node)
        self.bump("operands_revalidated", len(pre))
        again = TP.Call(op=call.op, args=tuple(args), attrs=call.attrs,
                        type=REGISTRY.deduce(call.op, tuple(args), call.attrs, placed=True, at=call), span=call.span)
        return (*pre, TP.AssignStmt(target=node.target, value=again, span=node.span))

    @staticmethod
    def _region_read(opdef: OpDef, index: int, arg: TP.Expr, result: TileType, call: TP.Call) -> tuple[int, ...] | None:
        """The region the op reads of Vec tile `arg` when it is not the one `arg` is valid over
        (None: it reads `arg` over its own valid region, or not as a tile)."""
        ty = getattr(arg, "type", None)
        if not (isinstance(arg, TP.Var) and isinstance(ty, TileType) and ty.memory_space is MemorySpace.Vec
                and len(ty.shape) == 2 and not is_symbolic(ty.valid_shape)):
            return None
        read = read_extent(opdef, index, ty, result, call.attrs)
        if read is None or len(read) != 2 or any(not isinstance(e, int) for e in read):
            return None
        region = tuple(int(e) for e in read if e is not None)
        if region == tuple(ty.valid) or any(r > s for r, s in zip(region, ty.shape)):
            return None
        return region

    def _revalidated(self, arg: TP.Expr, region: tuple[int, ...], call: TP.Call, pre: list[TP.Stmt],
                     span: Span) -> TP.Var:
        """`arg` valid over `region`: bound to a fresh name in `pre`."""
        assert isinstance(arg, TP.Var)
        view = self.views.get(arg.name)
        if view is not None:
            value = self._view_again(view, region, call, pre, span)
            if value is None:
                raise CompileError(Diagnostic.at(
                    call, RULE,
                    f"not supported yet: `{call.op}` reads its operand `{arg.name}` (a {view.op} view valid over "
                    f"{list(getattr(arg.type, 'valid_extents', ()))}) over {list(region)}, and PTO wants the sources "
                    "of an element-wise instruction valid over one region; this view cannot be taken again over it",
                    "give the operands one valid shape (pl.tile.set_validshape on the tile the view is taken of), or "
                    "narrow the source tile before taking the view"))
        else:
            args = (arg, *_index_list(region, span).elements)
            value = TP.Call(op="tile.set_validshape", args=args, attrs=(),
                            type=REGISTRY.deduce("tile.set_validshape", args, (), placed=True, at=call), span=span)
        var = TP.Var(self.fresh(f"{arg.name}_read"), value.type, span=span)
        if view is not None:
            self.views[var.name] = value
        pre.append(TP.AssignStmt(target=var, value=value, span=span))
        return var

    def _view_again(self, view: TP.Call, region: tuple[int, ...], call: TP.Call, pre: list[TP.Stmt],
                    span: Span) -> TP.Call | None:
        """The view `view` taken again valid over `region` (its source re-validated first over
        the region the view needs of it, when it does not serve), or None when its registry fact
        gives no such view."""
        fact = REGISTRY.get(view.op).view_valid
        source = view.args[0] if view.args else None
        source_type, view_type = getattr(source, "type", None), view.type
        if fact is None or not isinstance(source, TP.Var) or not isinstance(source_type, TileType) \
                or not isinstance(view_type, TileType) or is_symbolic(source_type.valid_shape):
            return None
        needed = fact.source_region(source_type, view_type, view.args, view.attrs, region)
        if needed is None or len(needed) != len(source_type.shape) \
                or any(n > int(d) for n, d in zip(needed, source_type.shape)):
            return None
        wider: TP.Expr = source
        if not fact.source_fits(source_type.valid, needed):
            wider = self._revalidated(source, needed, call, pre, span)
        args = fact.stated((wider, *view.args[1:]), region, lambda r: _index_list(tuple(r), span),
                           lambda e: TP.ConstInt(value=e, dtype=DataType.INDEX, span=span))
        if args is None:
            return None
        try:
            again = self._again(view, args, span)
        except CompileError:
            return None
        again_type = again.type
        return again if isinstance(again_type, TileType) and tuple(again_type.valid) == tuple(region) else None

    @staticmethod
    def _again(view: TP.Call, args: tuple[TP.Expr, ...], span: Span) -> TP.Call:
        """The view `view` taken again with `args`."""
        return TP.Call(op=view.op, args=args, attrs=view.attrs,
                       type=REGISTRY.deduce(view.op, args, view.attrs, placed=True, at=view), span=span)


def _index_list(values: tuple[int, ...], span: Span) -> TP.TupleExpr:
    return TP.TupleExpr(elements=tuple(TP.ConstInt(value=v, dtype=DataType.INDEX, span=span) for v in values),
                        span=span)


def _names(node: Node) -> set[str]:
    return {str(getattr(n, "name")) for n in walk(node) if n.KIND == "Var"}


@dataclass(frozen=True)
class RevalidateReadOperands(Pass[TP.Program, TP.Program]):
    """Re-validate an element-wise op's operand over the region it reads (PTOAS wants one valid shape)."""

    name: ClassVar[str] = "revalidate-read-operands"
    spec_name: ClassVar[str] = "RevalidateReadOperands"
    source: ClassVar[Language] = TilePlaced
    target: ClassVar[Language] = TilePlaced
    requires: ClassVar[frozenset[str]] = frozenset({"TileMemoryPlaced"})
    produces: ClassVar[frozenset[str]] = frozenset({"ValidMatchedReads"})

    @override
    def run(self, program: TP.Program, ctx: PassContext) -> TP.Program:
        return ctx.rewrite(_Revalidator(_names(program)), program)

"""InitMemRef (L0Tiled → Addressed): bind every tile to a MemRef.

Each tile-defining statement gets a fresh buffer (`mem_<space>_<n>`) of its physical size (an
Acc tile at the L0C row footprint); a zero-copy view (`family == "view"` in the op registry:
tile.slice, tile.reshape, tile.transpose_view, tile.set_validshape) reads the same bytes as its
input, so it shares the input's MemRef. Offsets stay unassigned (-1) until AllocateMemoryAddr;
semantic aliases are merged by MaterializeSemanticAliases.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar, Sequence

from typing_extensions import override

import languages.gen.addressed as A
import languages.gen.l0_tiled as L
from backend.targets.handlers import BackendHandler
from languages.decls import Addressed, L0Tiled
from languages.ops import REGISTRY
from languages.types import MemRef, TileType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node
from nanopass.passes import Pass, PassContext
from passes.analysis.memrefs import UNASSIGNED_OFFSET, backend_handler, physical_bytes

_VIEW_FAMILY = "view"


def is_view_op(op: str) -> bool:
    """Zero-copy ops whose result reads the input's bytes (registry family "view")."""
    return op in REGISTRY and REGISTRY.get(op).family == _VIEW_FAMILY


class _Binder(A.FromL0Tiled):
    def __init__(self, backend: BackendHandler) -> None:
        super().__init__()
        self.backend = backend
        self.memrefs: dict[str, MemRef] = {}
        self.vars: dict[str, A.Var] = {}
        self.counter = 0

    def _fresh(self, ty: TileType) -> MemRef:
        space = ty.memory_space
        if space is None:
            raise CompileError(Diagnostic("InitMemRef", f"a {list(ty.shape)} tile has no memory space",
                                          hint="run infer-tile-memory-space before init-mem-ref"))
        name = f"mem_{space.name.lower()}_{self.counter}"
        self.counter += 1
        self.bump("memrefs-created")
        return MemRef(name, space, UNASSIGNED_OFFSET, physical_bytes(ty, self.backend))

    def _bind(self, name: str, ty: Type, share: MemRef | None = None) -> Type:
        if not isinstance(ty, TileType):
            return ty
        memref = share if share is not None else self.memrefs.get(name) or self._fresh(ty)
        self.memrefs[name] = memref
        return replace(ty, memref=memref)

    @override
    def visit_Function(self, node: L.Function) -> A.Function:
        self.memrefs, self.vars, self.counter = {}, {}, 0
        return super().visit_Function(node)

    @override
    def visit_Var(self, node: L.Var) -> A.Var:
        known = self.vars.get(node.name)
        if known is None:
            known = A.Var(name=node.name, type=self._bind(node.name, node.type), span=node.span)
            self.vars[node.name] = known
        return known

    @override
    def visit_AssignStmt(self, node: L.AssignStmt) -> A.Stmt | tuple[A.Stmt, ...]:
        if not isinstance(node.value, L.Call):
            value = self.visit_Expr(node.value)
            share = _memref_of(value) if value.KIND == "Var" else None
            ty = self._bind(node.target.name, node.target.type, share)
            return A.AssignStmt(target=self._target(node.target, ty), value=value, span=node.span)
        call = node.value
        args = tuple(self.visit_Expr(a) for a in call.args)
        share = _memref_of(args[0]) if is_view_op(call.op) and args else None
        if share is not None:
            self.bump("views-sharing")
        ty = self._bind(node.target.name, node.target.type, share)
        call_ty = ty if isinstance(call.type, TileType) else call.type
        value = A.Call(op=call.op, args=args, attrs=call.attrs, type=call_ty, span=call.span)
        return A.AssignStmt(target=self._target(node.target, ty), value=value, span=node.span)

    def _target(self, var: L.Var, ty: Type) -> A.Var:
        target = A.Var(name=var.name, type=ty, span=var.span)
        self.vars[var.name] = target
        return target

    @override
    def visit_Call(self, node: L.Call) -> A.Expr:
        args = tuple(self.visit_Expr(a) for a in node.args)
        ty = node.type
        if isinstance(ty, TileType):  # a tile result nobody names still occupies a buffer
            ty = replace(ty, memref=self._fresh(ty))
        return A.Call(op=node.op, args=args, attrs=node.attrs, type=ty, span=node.span)


def _memref_of(expr: Node) -> MemRef | None:
    ty = getattr(expr, "type", None)
    return ty.memref if isinstance(ty, TileType) else None


@dataclass(frozen=True)
class InitMemRef(Pass[L.Program, A.Program]):
    """Bind every tile to a MemRef (space, physical size; offset unassigned)."""

    name: ClassVar[str] = "init-mem-ref"
    spec_name: ClassVar[str] = "InitMemRef"
    source: ClassVar[Language] = L0Tiled
    target: ClassVar[Language] = Addressed
    requires: ClassVar[frozenset[str]] = frozenset({"L0TiledFit", "AccCompactValid"})
    # Every value gets a buffer of its own (views share their source's): nothing overlaps yet.
    produces: ClassVar[frozenset[str]] = frozenset({"HasMemRefs", "AccL0CFootprint", "NoCoLiveOverlap",
                                                    "InPlaceSafety", "TargetOpBuffers"})

    @override
    def run(self, program: L.Program, ctx: PassContext) -> A.Program:
        return ctx.rewrite(_Binder(backend_handler(ctx)), program)


__all__: Sequence[str] = ("InitMemRef", "is_view_op")

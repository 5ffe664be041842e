"""UpdateOrchestrationCallSites (TileUnplaced → TileUnplaced): callers allocate the outputs.

Phase 2b of ConvertTensorToTileOps: an InCore function that gained `Out` parameters for its
exit stores is called from orchestration code with fewer arguments than it now takes. For each
missing trailing `Out` tensor parameter the caller allocates the tensor (`tensor.create`, the
host-side allocation) right before the call and passes it along.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_extensions import override

import languages.gen.tile_unplaced as U
from languages.decls import TileUnplaced
from languages.ops import REGISTRY
from languages.types import TensorType
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Span, walk
from nanopass.passes import Pass, PassContext
from passes.convert_tensor_to_tile_ops import index_list

RULE = "UpdateOrchestrationCallSites"
UPDATED_CALLERS = frozenset({"Orchestration", "Opaque"})


class CallSiteUpdateMutator(U.Rewriter):
    def __init__(self) -> None:
        super().__init__()
        self._callees: dict[str, U.Function] = {}
        self._used_names: set[str] = set()
        # Per parameter name, the first suffix not yet tried: the k-th call site of a callee
        # would otherwise probe k taken names before finding a free one (quadratic).
        self._next_suffix: dict[str, int] = {}

    @override
    def visit_Program(self, node: U.Program) -> U.Program:
        self._callees = {f.name: f for f in node.functions}
        return super().visit_Program(node)

    @override
    def visit_Function(self, node: U.Function) -> U.Function:
        if node.func_type not in UPDATED_CALLERS:
            return node
        self._used_names = {n.name for n in walk(node) if isinstance(n, U.Var)}
        self._next_suffix = {}
        return super().visit_Function(node)

    @override
    def visit_AssignStmt(self, node: U.AssignStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if not isinstance(node.value, U.FuncCall):
            return node
        allocations, call = self._complete(node.value)
        if not allocations:
            return node
        return (*allocations, U.AssignStmt(target=node.target, value=call, span=node.span))

    @override
    def visit_EvalStmt(self, node: U.EvalStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if not isinstance(node.value, U.FuncCall):
            return node
        allocations, call = self._complete(node.value)
        if not allocations:
            return node
        return (*allocations, U.EvalStmt(value=call, span=node.span))

    def _complete(self, call: U.FuncCall) -> tuple[list[U.Stmt], U.FuncCall]:
        callee = self._callees.get(call.callee)
        if callee is None or len(call.args) >= len(callee.params):
            return [], call
        allocations: list[U.Stmt] = []
        args = list(call.args)
        for param in callee.params[len(call.args):]:
            if param.direction != "Out" or not isinstance(param.var.type, TensorType):
                raise CompileError(Diagnostic.at(
                    call, RULE, f"call to `{callee.name}` passes {len(call.args)} of {len(callee.params)} arguments; "
                                f"parameter `{param.var.name}` ({param.direction}) is missing",
                    "pass every input argument; only Out tensors are allocated by the caller"))
            allocations.append(self._allocate(param.var, call.span))
            args.append(allocations[-1].target if isinstance(allocations[-1], U.AssignStmt) else param.var)
        self.bump("outputs_allocated", len(allocations))
        return allocations, U.FuncCall(callee=call.callee, args=tuple(args), type=call.type, span=call.span)

    def _allocate(self, param: U.Var, span: Span) -> U.AssignStmt:
        tensor = param.type
        assert isinstance(tensor, TensorType)
        suffix = self._next_suffix.get(param.name, 0)
        name = param.name if suffix == 0 else f"{param.name}_{suffix}"
        while name in self._used_names:
            suffix += 1
            name = f"{param.name}_{suffix}"
        self._used_names.add(name)
        self._next_suffix[param.name] = suffix + 1
        args: tuple[U.Expr, ...] = (index_list(tensor.shape, span),)
        attrs = (("dtype", tensor.dtype),)
        create = U.Call(op="tensor.create", args=args, attrs=attrs,
                        type=REGISTRY.deduce("tensor.create", args, attrs), span=span)
        return U.AssignStmt(target=U.Var(name, create.type, span=span), value=create, span=span)


@dataclass(frozen=True)
class UpdateOrchestrationCallSites(Pass[U.Program, U.Program]):
    """Allocate (tensor.create) and pass the Out tensors InCore callees gained."""

    name: ClassVar[str] = "update-orchestration-call-sites"
    spec_name: ClassVar[str] = "UpdateOrchestrationCallSites"
    source: ClassVar[Language] = TileUnplaced
    target: ClassVar[Language] = TileUnplaced
    produces: ClassVar[frozenset[str]] = frozenset({"CallSitesComplete", "TypeChecked"})

    @override
    def run(self, program: U.Program, ctx: PassContext) -> U.Program:
        return ctx.rewrite(CallSiteUpdateMutator(), program)

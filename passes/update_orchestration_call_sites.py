"""UpdateOrchestrationCallSites (TileUnplaced → TileUnplaced): callers allocate the outputs.

Phase 2b of ConvertTensorToTileOps: an InCore function that gained `Out` parameters for its
exit stores is called from orchestration code with fewer arguments than it now takes. For each
missing trailing `Out` tensor parameter the caller allocates the tensor (`tensor.create`, the
host-side allocation) right before the call and passes it along.

A Group function (a cluster wrapper) only forwards: it gains the same trailing `Out` parameters
as the callees it calls with too few arguments and passes them on, so that its own caller
allocates them (the outputs are forwarded, callee first, through nested wrappers).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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
FORWARDING_CALLERS = frozenset({"Group", "Spmd"})


class _OutputForwarder(U.Rewriter):
    """Completes a wrapper's calls with new `Out` parameters of the wrapper itself."""

    def __init__(self, callees: dict[str, U.Function], used: set[str]) -> None:
        super().__init__()
        self.callees = callees
        self.used = used
        self.added: list[U.Param] = []

    @override
    def visit_FuncCall(self, node: U.FuncCall) -> U.Expr:
        callee = self.callees.get(node.callee)
        if callee is None or len(node.args) >= len(callee.params):
            return node
        args = list(node.args)
        for param in callee.params[len(node.args):]:
            if param.direction != "Out" or not isinstance(param.var.type, TensorType):
                return node  # reported by the orchestration-side completion (or CallSitesComplete)
            name, n = param.var.name, 0
            while name in self.used:
                n += 1
                name = f"{param.var.name}_{n}"
            self.used.add(name)
            var = U.Var(name, param.var.type, span=param.var.span)
            self.added.append(U.Param(var=var, direction="Out", span=param.span))
            args.append(var)
        return U.FuncCall(callee=node.callee, args=tuple(args), type=node.type, span=node.span)


def _forward_outputs(program: U.Program) -> U.Program:
    """Every Group function gains (and forwards) the Out parameters its callees gained."""
    functions = list(program.functions)
    for _ in range(len(functions)):
        changed = False
        for index, function in enumerate(functions):
            if function.func_type not in FORWARDING_CALLERS:
                continue
            forwarder = _OutputForwarder({f.name: f for f in functions},
                                         {n.name for n in walk(function) if isinstance(n, U.Var)})
            body = tuple(forwarder.visit_Stmt_block(function.body))
            if forwarder.added:
                functions[index] = replace(function, params=(*function.params, *forwarder.added), body=body)
                changed = True
        if not changed:
            break
    return replace(program, functions=tuple(functions))


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
        node = _forward_outputs(node)
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

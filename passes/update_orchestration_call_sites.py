"""UpdateOrchestrationCallSites (TileUnplaced → TileUnplaced): callers allocate the outputs.

Phase 2b of ConvertTensorToTileOps: an InCore function that gained `Out` parameters for its
exit stores is called from orchestration code with fewer arguments than it now takes. For each
missing trailing `Out` tensor parameter the caller allocates the tensor (`tensor.create`, the
host-side allocation) right before the call and passes it along.

A Group function (a cluster wrapper) only forwards: it gains the same trailing `Out` parameters
as the callees it calls with too few arguments and passes them on, so that its own caller
allocates them (the outputs are forwarded, callee first, through nested wrappers).

A kernel result the orchestration assembles into a window of a GM tensor
(`r = self.k(...); t2 = pl.assemble(t, r, offsets)`) is the kernel writing that window: its `Out`
parameter is passed `tensor.window(t, r's shape, offsets)` instead of a fresh tensor, the
assemble goes and `t2` is `t` from then on. Kernels are then bound to the strides of the windows
they are called on (a column block of a [64, 64] tensor is [64, 16] at strides [64, 1]): the
parameter's type carries them, so the kernel's tensor view addresses the caller's elements.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
import operator
from typing import Callable, ClassVar, cast

from typing_extensions import override

import languages.gen.tile_unplaced as U
from languages.decls import TileUnplaced
from languages.ops import REGISTRY
from languages.functions import is_kernel_function, returned_param_indices
from languages.ops import type_of
from languages.types import Dims, TensorType, TupleType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.langdef import Language
from nanopass.node import Node, Span, preorder, walk
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


@dataclass(frozen=True)
class _OutWindow:
    """A kernel call whose result is assembled into a window of `target`: its Out parameter
    `param` is passed that window."""

    param: int
    target: U.Var
    offsets: U.Expr
    shape: Dims
    assemble: U.AssignStmt
    # The tensor.create the caller passed as that Out argument (replaced by the window), if any.
    created: U.AssignStmt | None = None


def _blocks(body: tuple[U.Stmt, ...], loop: U.ForStmt | None = None
            ) -> list[tuple[tuple[U.Stmt, ...], U.ForStmt | None]]:
    """`body` and every statement block nested in it, each with the loop it is the body of."""
    found: list[tuple[tuple[U.Stmt, ...], U.ForStmt | None]] = [(body, loop)]
    for stmt in body:
        if isinstance(stmt, U.ForStmt):
            found += _blocks(stmt.body, stmt)
        elif isinstance(stmt, U.IfStmt):
            found += _blocks(stmt.then_body) + _blocks(stmt.else_body)
    return found


def _floordiv(a: int, b: int) -> int | None:
    return a // b if b else None


def _mod(a: int, b: int) -> int | None:
    return a % b if b else None


_INDEX_ARITH: dict[str, Callable[[int, int], int | None]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": _floordiv, "%": _mod}
# Past this many iterations a parallel loop's windows are not compared pairwise.
MAX_COMPARED_ITERATIONS = 256


def _index_at(expr: U.Expr, var: str, value: int) -> int | None:
    """An index expression over loop variable `var` at `var = value` (None: not such an expression)."""
    if isinstance(expr, U.ConstInt):
        return expr.value
    if isinstance(expr, U.Var):
        return value if expr.name == var else None
    if isinstance(expr, U.BinOp) and expr.op in _INDEX_ARITH:
        lhs, rhs = _index_at(expr.lhs, var, value), _index_at(expr.rhs, var, value)
        return None if lhs is None or rhs is None else _INDEX_ARITH[expr.op](lhs, rhs)
    return None


def _check_parallel_windows_disjoint(loop: U.ForStmt, offsets: U.Expr, shape: Dims, at: U.Call) -> None:
    """The iterations of a pl.parallel loop are independent (JIT_FRONTEND.md section 6): the
    windows its kernel calls write must not overlap from one iteration to another."""
    bounds = [b.value if isinstance(b, U.ConstInt) else None for b in (loop.start, loop.stop, loop.step)]
    if None in bounds or not isinstance(offsets, U.TupleExpr) or bounds[2] == 0:
        return
    start, stop, step = cast(list[int], bounds)
    iterations = list(range(start, stop, step))
    if len(iterations) > MAX_COMPARED_ITERATIONS:
        return
    corners: list[tuple[int, list[int]]] = []
    for value in iterations:
        found = [_index_at(e, loop.loop_var.name, value) for e in offsets.elements]
        if None in found:
            return
        corners.append((value, cast(list[int], found)))
    for n, (first, a) in enumerate(corners):
        for second, b in corners[n + 1:]:
            if all(abs(x - y) < extent for x, y, extent in zip(a, b, shape)):
                raise CompileError(Diagnostic.at(
                    at, RULE, f"the windows this pl.parallel loop's kernel writes overlap: iteration "
                              f"{loop.loop_var.name} = {first} writes {shape} at {a}, iteration {second} at {b} "
                              "(a parallel loop's iterations are independent)",
                    "give each iteration its own window (offset it by the loop variable times the window's "
                    "extent), or use pl.range"))


def _var_names(node: Node) -> set[str]:
    return {n.name for n in walk(node) if isinstance(n, U.Var)}


class _OutWindowPlan:
    """Which kernel calls of a host function write their result straight into the window it is
    assembled into. The kernel writes the window when it runs, so nothing may read the assembled
    tensor after the call but the assemble itself, and the window must be nameable at the call."""

    def __init__(self, function: U.Function, callees: dict[str, U.Function]) -> None:
        self.callees = callees
        self.order = list(preorder(function))
        self.position = {id(n): i for i, n in enumerate(self.order)}
        self.windows: dict[int, _OutWindow] = {}
        self.created_as = {n.target.name: n for n in self.order if isinstance(n, U.AssignStmt)
                           and isinstance(n.value, U.Call) and n.value.op == "tensor.create"}
        for block, loop in _blocks(function.body):
            for index, stmt in enumerate(block):
                if isinstance(stmt, U.AssignStmt) and isinstance(stmt.value, U.FuncCall):
                    window = self._window(stmt, stmt.value, block, index)
                    if window is not None:
                        self.windows[id(stmt)] = window
                    if window is not None and loop is not None and loop.kind == "parallel":
                        assert isinstance(window.assemble.value, U.Call)
                        _check_parallel_windows_disjoint(loop, window.offsets, window.shape, window.assemble.value)
        self.folded = {id(w.assemble) for w in self.windows.values()}
        self.folded |= {id(w.created) for w in self.windows.values() if w.created is not None}

    def _uses_after(self, name: str, stmt: U.Stmt) -> list[U.Var]:
        start = self.position[id(stmt)]
        return [n for n in self.order[start + 1:] if isinstance(n, U.Var) and n.name == name]

    def _window(self, stmt: U.AssignStmt, call: U.FuncCall, block: tuple[U.Stmt, ...],
                index: int) -> _OutWindow | None:
        callee = self.callees.get(call.callee)
        if callee is None or isinstance(call.type, TupleType):
            return None
        uses = [u for u in self._uses_after(stmt.target.name, stmt) if u is not stmt.target]
        assemble = next((s for s in block[index + 1:] if isinstance(s, U.AssignStmt)
                         and isinstance(s.value, U.Call) and s.value.op == "tensor.assemble"
                         and any(u is s.value.args[1] for u in uses)), None)
        if assemble is None or len(uses) != 1 or not isinstance(assemble.value, U.Call):
            return None
        target, offsets = assemble.value.args[0], assemble.value.args[2]
        if not isinstance(target, U.Var) or dict(assemble.value.attrs).get("atomic", "none") != "none":
            return None
        if [u for u in self._uses_after(target.name, stmt) if u is not target]:
            return None  # read (or written) after the kernel wrote the window
        between = block[index + 1:block.index(assemble)]
        defined = {s.target.name for s in between if isinstance(s, U.AssignStmt)}
        if defined & _var_names(offsets):
            return None  # the window's offsets are computed after the call
        returned = returned_param_indices(callee)
        shape = type_of(stmt.target)
        if len(returned) != 1 or not isinstance(shape, TensorType) or callee.params[returned[0]].direction != "Out":
            return None
        created = None
        if returned[0] < len(call.args):
            # An Out argument the caller allocated for the call alone: the window replaces it.
            passed = call.args[returned[0]]
            if not isinstance(passed, U.Var):
                return None
            created = self.created_as.get(passed.name)
            if created is None or len(self._uses_after(passed.name, created)) != 2:  # its target, the call
                return None
        return _OutWindow(returned[0], target, offsets, shape.shape, assemble, created)


class CallSiteUpdateMutator(U.Rewriter):
    def __init__(self) -> None:
        super().__init__()
        self._callees: dict[str, U.Function] = {}
        self._used_names: set[str] = set()
        # Per parameter name, the first suffix not yet tried: the k-th call site of a callee
        # would otherwise probe k taken names before finding a free one (quadratic).
        self._next_suffix: dict[str, int] = {}
        self._plan: _OutWindowPlan | None = None
        # The result of a folded assemble is the assembled tensor itself from then on.
        self._renamed: dict[str, U.Var] = {}

    @override
    def visit_Program(self, node: U.Program) -> U.Program:
        node = _forward_outputs(node)
        self._callees = {f.name: f for f in node.functions}
        program = super().visit_Program(node)
        # A kernel's result is typed with its window's strides once the kernel is bound, and a
        # call taking that result binds the next kernel: bind until nothing changes.
        for _ in range(len(program.functions) + 1):
            bound = _bind_window_strides(program)
            if bound is program:
                break
            program = bound
        return program

    @override
    def visit_Function(self, node: U.Function) -> U.Function:
        if node.func_type not in UPDATED_CALLERS:
            return node
        self._used_names = {n.name for n in walk(node) if isinstance(n, U.Var)}
        self._next_suffix = {}
        self._plan = _OutWindowPlan(node, self._callees)
        self._renamed = {}
        try:
            return super().visit_Function(node)
        finally:
            self._plan = None

    @override
    def visit_Var(self, node: U.Var) -> U.Var:
        return self._renamed.get(node.name, node)

    @override
    def visit_AssignStmt(self, node: U.AssignStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        assert self._plan is not None
        if id(node) in self._plan.folded and isinstance(node.value, U.Call) and node.value.op == "tensor.create":
            return ()  # the Out argument a window replaces
        if id(node) in self._plan.folded:
            assert isinstance(node.value, U.Call)
            target = node.value.args[0]
            assert isinstance(target, U.Var)
            self._renamed[node.target.name] = self.visit_Var(target)
            self.bump("assembles_written_by_kernels")
            return ()
        if isinstance(node.value, U.Call) and node.value.op == "tensor.assemble":
            raise CompileError(Diagnostic.at(
                node.value, RULE, "not supported yet: `tensor.assemble` in host code, except of a kernel's result "
                                  "written into an Out argument of its own (the kernel then writes the window "
                                  "itself) into a tensor nothing reads after the call",
                "assemble the value a kernel call returns into its Out tensor, right after the call, into a tensor "
                "read by nothing but the assemble; or assemble inside the kernel"))
        if not isinstance(node.value, U.FuncCall):
            return super().visit_AssignStmt(node)
        allocations, call = self._complete(self._visit_call(node.value), self._plan.windows.get(id(node)))
        if not allocations:
            return U.AssignStmt(target=node.target, value=call, span=node.span)
        return (*allocations, U.AssignStmt(target=node.target, value=call, span=node.span))

    def _visit_call(self, call: U.FuncCall) -> U.FuncCall:
        return U.FuncCall(callee=call.callee, args=tuple(self.visit_Expr(a) for a in call.args), type=call.type,
                          span=call.span)

    @override
    def visit_EvalStmt(self, node: U.EvalStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        if not isinstance(node.value, U.FuncCall):
            return super().visit_EvalStmt(node)
        allocations, call = self._complete(self._visit_call(node.value), None)
        return (*allocations, U.EvalStmt(value=call, span=node.span))

    def _complete(self, call: U.FuncCall, window: _OutWindow | None) -> tuple[list[U.Stmt], U.FuncCall]:
        callee = self._callees.get(call.callee)
        if window is not None and window.param < len(call.args):
            assert callee is not None
            view = self._window(callee.params[window.param].var, window, call.span)
            call = U.FuncCall(callee=call.callee, args=(*call.args[:window.param], view.target,
                                                        *call.args[window.param + 1:]), type=call.type, span=call.span)
            done, completed = self._complete(call, None)
            return [view, *done], completed
        if callee is None or len(call.args) >= len(callee.params):
            return [], call
        allocations: list[U.Stmt] = []
        args: list[U.Expr] = list(call.args)
        for index, param in enumerate(callee.params[len(call.args):], start=len(call.args)):
            if param.direction != "Out" or not isinstance(param.var.type, TensorType):
                raise CompileError(Diagnostic.at(
                    call, RULE, f"call to `{callee.name}` passes {len(call.args)} of {len(callee.params)} arguments; "
                                f"parameter `{param.var.name}` ({param.direction}) is missing",
                    "pass every input argument; only Out tensors are allocated by the caller"))
            if window is not None and window.param == index:
                allocations.append(self._window(param.var, window, call.span))
            else:
                allocations.append(self._allocate(param.var, call.span))
            args.append(allocations[-1].target if isinstance(allocations[-1], U.AssignStmt) else param.var)
        self.bump("outputs_allocated", len(allocations))
        return allocations, U.FuncCall(callee=call.callee, args=tuple(args), type=call.type, span=call.span)

    def _fresh_name(self, base: str) -> str:
        suffix = self._next_suffix.get(base, 0)
        name = base if suffix == 0 else f"{base}_{suffix}"
        while name in self._used_names:
            suffix += 1
            name = f"{base}_{suffix}"
        self._used_names.add(name)
        self._next_suffix[base] = suffix + 1
        return name

    def _allocate(self, param: U.Var, span: Span) -> U.AssignStmt:
        tensor = param.type
        assert isinstance(tensor, TensorType)
        name = self._fresh_name(param.name)
        args: tuple[U.Expr, ...] = (index_list(tensor.shape, span),)
        attrs = (("dtype", tensor.dtype),)
        create = U.Call(op="tensor.create", args=args, attrs=attrs,
                        type=REGISTRY.deduce("tensor.create", args, attrs), span=span)
        return U.AssignStmt(target=U.Var(name, create.type, span=span), value=create, span=span)

    def _window(self, param: U.Var, window: _OutWindow, span: Span) -> U.AssignStmt:
        """The Out argument of a kernel whose result is assembled into `window`: that window."""
        name = self._fresh_name(param.name)
        at = window.assemble.value
        args: tuple[U.Expr, ...] = (self.visit_Var(window.target), index_list(window.shape, at.span),
                                    self.visit_Expr(window.offsets))
        view = U.Call(op="tensor.window", args=args, attrs=(),
                      type=REGISTRY.deduce("tensor.window", args, (), at=at), span=at.span)
        return U.AssignStmt(target=U.Var(name, view.type, span=span), value=view, span=at.span)


def _stride_text(strides: Dims | None) -> str:
    return "packed" if strides is None else f"strides {list(strides)}"


def _bind_window_strides(program: U.Program) -> U.Program:
    """Kernels called on windows of wider tensors take the windows' strides: a parameter's type
    gets the strides of the tensors passed to it (every call site must pass one layout), and
    the kernel's results and its callers' values are typed again from it."""
    functions = {f.name: f for f in program.functions}
    passed: dict[tuple[str, int], tuple[Dims | None, U.FuncCall]] = {}
    calls = [(call, functions[call.callee]) for caller in program.functions for call in walk(caller)
             if isinstance(call, U.FuncCall) and call.callee in functions]
    for call, callee in calls:
        for index, (arg, param) in enumerate(zip(call.args, callee.params)):
            arg_type, param_type = type_of(arg), param.var.type
            if isinstance(arg_type, TensorType):
                earlier = passed.setdefault((callee.name, index), (arg_type.strides, call))
                declared = param_type.strides if isinstance(param_type, TensorType) else None
                if earlier[0] != arg_type.strides or (declared is not None and declared != arg_type.strides):
                    raise CompileError(Diagnostic.at(
                        call, RULE, f"not supported yet: parameter `{param.var.name}` of `{callee.name}` passed "
                                    f"tensors of two layouts ({_stride_text(arg_type.strides)} here, "
                                    f"{_stride_text(declared if declared is not None else earlier[0])} "
                                    "at another call)",
                        "call the kernel on windows of one layout (e.g. all row blocks), or write a second kernel"))
    bound: dict[str, dict[int, Dims]] = {}
    for (name, index), (strides, call) in passed.items():
        param_type = functions[name].params[index].var.type
        if strides is None or (isinstance(param_type, TensorType) and param_type.strides == strides):
            continue
        if not is_kernel_function(functions[name]):
            raise CompileError(Diagnostic.at(
                call, RULE, f"not supported yet: a window of a wider tensor passed to `{name}`, which is not a "
                            "kernel (InCore) function", "call the InCore kernel on the window directly"))
        bound.setdefault(name, {})[index] = strides
    if not bound:
        return program
    retyped: dict[str, U.Function] = {}
    out: list[U.Function] = []
    for function in program.functions:
        strides_of = bound.get(function.name, {})
        start = {p.var.name: replace(p.var, type=replace(p.var.type, strides=strides_of[i]))
                 for i, p in enumerate(function.params) if i in strides_of and isinstance(p.var.type, TensorType)}
        function = _Retyper(start, retyped).retype(function) if start or retyped else function
        retyped[function.name] = function
        out.append(function)
    return replace(program, functions=tuple(out))


def _with_strides_of(old: Type, new: Type | None) -> Type:
    """`old` with `new`'s strides, when both are the same tensor but for its strides."""
    if isinstance(old, TensorType) and isinstance(new, TensorType) and (old.shape, old.dtype) == (new.shape, new.dtype):
        return replace(old, strides=new.strides)
    return old


class _Retyper(U.Rewriter):
    """Types a function again after some of its tensors changed strides: a call's tensor result
    takes the strides its deduction gives from the re-typed arguments, a loop carry those of its
    initial value, a call of a re-typed function its new result type (nothing else changes)."""

    def __init__(self, start: dict[str, U.Var], functions: dict[str, U.Function]) -> None:
        super().__init__()
        self.env = dict(start)
        self.functions = functions

    def retype(self, function: U.Function) -> U.Function:
        params = tuple(replace(p, var=self.visit_Var(p.var)) for p in function.params)
        body = self.visit_Stmt_block(function.body)
        returned = next((s.values for s in walk_statements(body) if isinstance(s, U.ReturnStmt)), ())
        return_types = tuple(_with_strides_of(t, type_of(v)) for t, v in zip(function.return_types, returned)) \
            if len(returned) == len(function.return_types) else function.return_types
        return replace(function, params=params, body=body, return_types=return_types)

    def _rebind(self, var: U.Var, new_type: Type | None) -> U.Var:
        retyped = _with_strides_of(var.type, new_type)
        if retyped != var.type:
            self.env[var.name] = replace(var, type=retyped)
        return self.visit_Var(var)

    @override
    def visit_Var(self, node: U.Var) -> U.Var:
        return self.env.get(node.name, node)

    @override
    def visit_AssignStmt(self, node: U.AssignStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        value = self.visit_Expr(node.value)
        if isinstance(value, U.Call) and value is not node.value and isinstance(value.type, TensorType):
            value = replace(value, type=_with_strides_of(
                value.type, REGISTRY.deduce(value.op, value.args, value.attrs, at=node.value)))
        elif isinstance(value, U.FuncCall) and value.callee in self.functions:
            callee_types = self.functions[value.callee].return_types
            if len(callee_types) == 1:
                value = replace(value, type=_with_strides_of(value.type, callee_types[0]))
        return U.AssignStmt(target=self._rebind(node.target, type_of(value)), value=value, span=node.span)

    @override
    def visit_ForStmt(self, node: U.ForStmt) -> U.Stmt | tuple[U.Stmt, ...]:
        iter_args = []
        for arg in node.iter_args:
            init = self.visit_Expr(arg.init)
            iter_args.append(U.IterArg(var=self._rebind(arg.var, type_of(init)), init=init, span=arg.span))
        body = self.visit_Stmt_block(node.body)
        results = tuple(self._rebind(r, a.var.type) for r, a in zip(node.results, iter_args))
        return replace(node, start=self.visit_Expr(node.start), stop=self.visit_Expr(node.stop),
                       step=self.visit_Expr(node.step), iter_args=tuple(iter_args), body=body, results=results)


def walk_statements(body: tuple[U.Stmt, ...]) -> list[U.Stmt]:
    return [s for block, _ in _blocks(body) for s in block]


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

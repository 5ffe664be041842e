"""The reference interpreter: runs DSL, Tensor, TileUnplaced, TilePlaced, L0Tiled (and Addressed)
programs at the value level, with the arithmetic of `backend.numerics` (NUMERICS.md).

What it models, and why:

* GM tensors are mutable buffers shared by reference: a kernel's `Out` / `InOut` parameter is
  the caller's buffer, and `tile.store` / `tensor.assemble` / `tensor.write` write into it, as
  the hardware's stores do.  Tiles are values: every tile op yields a fresh array.
* A tile (or tensor) value is its whole *physical* array plus its valid shape.  Ops compute
  only the result's valid region; the rest of a fresh buffer holds the 0xFF poison pattern
  (what unwritten on-chip memory reads as in the simulator), and `tile.load` fills it with
  the tile's pad value.  So a boxed M = 100 tile has 12 poisoned rows that no result reads.
* Memory spaces are ignored except where the numerics differ: a store of an FP32 accumulator
  into an FP16/BF16 tensor goes through FIXPIPE (RNE, whatever a folded cast asked for), and
  matmul accumulates as one sequential fused chain over K, so a K-tiled loop of
  `tile.matmul_acc` gives the same bits as one full-K matmul.
* Every op's meaning is its registry `semantics` key; this file dispatches on that key and
  restates no op list.

Entry point: `interpret(program, inputs, entry=None) -> {"ret0": ..., <Out/InOut param>: ...}`.
`kernel_runner` replaces the execution of kernel calls (the simulator plugs in there to run
compiled kernels under an interpreted orchestration function); it is told which instance
(`Launch`: block, lane) each call runs.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, replace
from typing import Any, Callable, Final, Mapping, Protocol, Sequence, Union, cast

import numpy as np
import numpy.typing as npt

from backend import cross_core, numerics
from backend.cross_core import launch_with_fresh, run_group
from backend.arrays import check_input_names, coerce_input, poison_array
from backend.buffers import POOL
from backend.numerics import ArithmeticFault, NumericsError
from languages.functions import GROUP, describe_launch, entry_function, is_kernel_function, launches
from languages.layout import flat_index_pitch
from languages.ops import REGISTRY, OpDef, ReusesInput
from languages.ops.system_ops import SINGLE_LAUNCH, Launch, syncall_participants
from languages.ops.tensor_ops import computed_batch, cube_extents
from languages.types import (
    AttrValue, Attrs, DataType, ScalarType, SymbolicExtent, TensorType, TileType, TupleType, Type, map_extents,
    symbolic_extents,
)
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import NO_SPAN, Node, Span, walk

Array = npt.NDArray[Any]
RULE = "Interpreter"
# A while loop that runs this often is taken to run forever (the reference must end).
MAX_WHILE_ITERATIONS: Final = 100_000

class InterpreterError(CompileError):
    """A run-time fault of the interpreted program (bad input, division by zero, ...)."""

    def __init__(self, message: str, span: Span = NO_SPAN, hint: str = "") -> None:
        super().__init__(Diagnostic(RULE, message, span, hint))
        self.message = message


# -- values ------------------------------------------------------------------------------------------


def all_poison(data: Array) -> bool:
    """A buffer no one has written (a fresh tensor.create): every byte still the poison pattern."""
    raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    # The first byte settles most buffers at once; a poisoned one is read by one reduction (no
    # temporary array of comparisons): the poison byte is the largest, so a minimum equal to it
    # means every byte is it.
    assert numerics.POISON_BYTE == 0xFF
    return bool(raw.size == 0 or (raw[0] == numerics.POISON_BYTE and raw.min() == numerics.POISON_BYTE))


@dataclass
class ArrayValue:
    """A tensor or tile: the physical array (row-major, its own dtype) and the valid extent."""

    data: Array
    dtype: DataType
    valid: tuple[int, ...]
    is_tensor: bool

    @property
    def region(self) -> Array:
        """The valid region (a NumPy view)."""
        return self.data[tuple(slice(0, v) for v in self.valid)]


def _stored_return(value: Value, args: Sequence[Value]) -> Value:
    """A kernel's returned tensor as its caller sees it: stored into a fresh (poisoned) output
    over its valid region only, as the compiled kernel stores it -- the bytes past a narrowed
    return (a mask's undefined bits past its whole compared bytes) are not the caller's. A
    parameter the kernel wrote in place and returns is its caller's buffer, kept whole."""
    if not isinstance(value, ArrayValue) or not value.is_tensor or tuple(value.valid) == tuple(value.data.shape) \
            or any(isinstance(a, ArrayValue) and np.shares_memory(a.data, value.data) for a in args):
        return value
    stored = poison_array(value.data.shape, value.dtype)
    stored[tuple(slice(0, v) for v in value.valid)] = value.region
    return ArrayValue(stored, value.dtype, value.valid, True)


Scalar = Union[int, float, bool]
Value = Union[ArrayValue, Scalar, tuple[Any, ...], None]
KernelRunner = Callable[[Node, Sequence[Value], Launch], tuple[Value, ...]]


def _np_dtype(dtype: DataType) -> np.dtype[Any]:
    return numerics.np_dtype(dtype.name)


def _array_type(ty: Type, span: Span) -> TensorType | TileType:
    if not isinstance(ty, (TensorType, TileType)):
        raise InterpreterError(f"expected a tensor or tile type, got {type(ty).__name__}", span)
    return ty


class _Created(threading.local):
    """Per thread, the buffers `fresh_value` made during the running `interpret` (None outside
    one), by id, weakly: a buffer no one references any more drops out, so an id is never
    confused with a later array's. Nothing but the run's own values refers to them, so at the
    end of the run one of them can be an output as it is (`_output_array`), not a copy."""

    buffers: weakref.WeakValueDictionary[int, Array] | None = None


_CREATED = _Created()


def fresh_value(ty: Type, span: Span = NO_SPAN) -> ArrayValue:
    """A poisoned buffer of type `ty` (tensor.create / tile.create)."""
    arr_ty = _array_type(ty, span)
    data = poison_array(arr_ty.shape, arr_ty.dtype)
    created = _CREATED.buffers
    if created is not None:
        created[id(data)] = data
    return ArrayValue(data, arr_ty.dtype, tuple(arr_ty.valid), isinstance(arr_ty, TensorType))


def _resolved_extents(ty: Type, env: dict[str, Value], span: Span) -> Type:
    """`ty` with its runtime valid extents replaced by their values in `env`: every semantic
    then reads constant extents. A value outside [0, the dimension] is the program's error."""
    if not symbolic_extents(ty):
        return ty

    def value_of(extent: SymbolicExtent) -> int:
        value = env.get(extent.name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise InterpreterError(f"the runtime valid extent `{extent.name}` has no integer value here", span)
        return value

    resolved = map_extents(ty, value_of)
    for arr in (resolved.types if isinstance(resolved, TupleType) else (resolved,)):
        if isinstance(arr, (TensorType, TileType)) and any(not 0 <= v <= s for v, s in zip(arr.valid, arr.shape)):
            named = [str(e) for e in symbolic_extents(ty)]
            raise InterpreterError(f"the runtime valid extents {named} give a valid shape {list(arr.valid)} "
                                   f"outside the shape {list(arr.shape)}", span)
    return resolved


def _scalar_of(element: Any, dtype: DataType) -> Scalar:
    """A NumPy element as an exact Python scalar."""
    if dtype is DataType.BOOL:
        return bool(element)
    if dtype.is_float:
        return float(numerics.widen_to_float64(np.asarray(element, dtype=_np_dtype(dtype)), dtype.name))
    return int(element)


def wrap_int(value: int, dtype: DataType) -> int:
    """An integer of `dtype`, wrapped to its width (INDEX is a 64-bit signed register)."""
    bits = dtype.bits
    wrapped = int(value) % (1 << bits)
    if dtype.is_signed and wrapped >= 1 << (bits - 1):
        wrapped -= 1 << bits
    return wrapped


def round_scalar(value: float, dtype: DataType) -> float:
    """A float scalar rounded (RNE) to `dtype`, carried exactly as a Python float."""
    rounded = numerics.round_float64(np.asarray(value, dtype=np.float64), dtype.name, "rint")
    return float(numerics.widen_to_float64(rounded, dtype.name))


def _to_scalar_type(value: Scalar, dtype: DataType) -> Scalar:
    if dtype is DataType.BOOL:
        return bool(value)
    if dtype.is_float:
        return round_scalar(float(value), dtype)
    return wrap_int(int(value), dtype)


# -- node shapes (every value-level language has the same fields) -----------------------------------


class _VarLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> Type: ...
    @property
    def node_span(self) -> Span: ...


class _ParamLike(Protocol):
    @property
    def var(self) -> Any: ...
    @property
    def direction(self) -> str: ...


class _FunctionLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def func_type(self) -> str: ...
    @property
    def params(self) -> Sequence[Any]: ...
    @property
    def return_types(self) -> Sequence[Type]: ...
    @property
    def body(self) -> Sequence[Node]: ...


def _function(node: Node) -> _FunctionLike:
    return cast(_FunctionLike, node)


def _param(node: Node) -> tuple[_VarLike, str]:
    param = cast(_ParamLike, node)
    return cast(_VarLike, param.var), param.direction


def _field(node: Node, name: str) -> Any:
    return getattr(node, name)


# -- control-flow signals ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Exit:
    """How a block ended: `return` leaves the function, `yield` ends a loop body / if branch."""

    kind: str
    values: tuple[Value, ...]


# -- the interpreter -----------------------------------------------------------------------------------


class _InstanceWrites:
    """Which instance of a launch wrote each element of the call's tensors: an element two
    instances leave with different values is a race (found by comparing the bytes before and
    after each instance, so instances that write the same value agree and are no race)."""

    def __init__(self, label: str, tensors: Sequence[tuple[str, Value]], grid: Sequence[Launch], span: Span) -> None:
        self.label, self.grid, self.span = label, grid, span
        self.tensors = [(name, a) for name, a in tensors if isinstance(a, ArrayValue) and a.is_tensor]
        self.owners: list[Array] = [np.full(a.data.shape, -1, dtype=np.int64) for _, a in self.tensors]
        self.snapshots: list[Array] = []

    @staticmethod
    def _bytes(data: Array) -> Array:
        return np.ascontiguousarray(data).view(np.uint8).reshape(data.shape + (-1,))

    def before(self) -> None:
        self.snapshots = [self._bytes(a.data).copy() for _, a in self.tensors]

    def after(self, launch: Launch) -> None:
        index = self.grid.index(launch)
        for (name, value), owner, snapshot in zip(self.tensors, self.owners, self.snapshots):
            changed = np.any(self._bytes(value.data) != snapshot, axis=-1)
            clash = changed & (owner >= 0)
            if np.any(clash):
                element = tuple(int(i) for i in np.argwhere(clash)[0])
                first = self.grid[int(owner[element])]
                raise InterpreterError(
                    f"{self.label} runs as {len(self.grid)} instances, and "
                    f"{describe_launch(launch, self.grid)} writes {name}{list(element)} after "
                    f"{describe_launch(first, self.grid)} wrote a different value there: on the device the result "
                    "depends on which instance finishes last", self.span,
                    "give each instance its own window of the output (offset it by pl.tile.get_block_idx() "
                    "or pl.tile.get_subblock_idx())")
            owner[changed] = index


class Interpreter:
    def __init__(self, program: Node, kernel_runner: KernelRunner | None = None) -> None:
        self.functions: dict[str, Node] = {_function(f).name: f for f in _field(program, "functions")}
        self.kernel_runner = kernel_runner
        # The instance the code being run belongs to (what pl.tile.get_block_idx() & co. read).
        self.launch: Launch = SINGLE_LAUNCH

    # -- functions ---------------------------------------------------------------------------------

    def call_function(self, function: Node, args: Sequence[Value], span: Span = NO_SPAN) -> tuple[Value, ...]:
        """Run a call of `function`: once, or once per instance its attributes launch (blocks of
        a Spmd wrapper's `core_num`, the two lanes of a `dual_aiv_dispatch` kernel), in order.
        Instances that write one GM element with different values are an error: on the device
        the result would depend on which instance finishes last."""
        fn = _function(function)
        if len(args) != len(fn.params):
            raise InterpreterError(f"{fn.name} takes {len(fn.params)} arguments, got {len(args)}", span)
        grid = launches(function, self.launch)
        if len(grid) == 1:
            return self.call_instance(function, args)
        outer, returned = self.launch, cast(tuple[Value, ...], ())
        # A run's entry has no call site: the function itself is where the launch is declared.
        writes = None if self.accumulates(function) else _InstanceWrites(
            f"`{fn.name}`", [(_param(p)[0].name, a) for p, a in zip(fn.params, args)], grid,
            span if span != NO_SPAN else function.node_span)
        try:
            for launch in grid:
                self.launch = launch
                if writes is not None:
                    writes.before()
                returned = self.call_instance(function, args)
                if writes is not None:
                    writes.after(launch)
        finally:
            self.launch = outer
        return returned

    def accumulates(self, node: Node, seen: frozenset[str] = frozenset()) -> bool:
        """Whether `node` (or a function it calls) stores atomically (atomic="add"): instances
        that add into one element are a reduction, not a race, so their writes are not compared."""
        for inner in walk(node):
            if inner.KIND == "Call" and dict(_field(inner, "attrs")).get("atomic") not in (None, "none"):
                return True
            if inner.KIND == "FuncCall":
                callee = str(_field(inner, "callee"))
                if callee in self.functions and callee not in seen and \
                        self.accumulates(self.functions[callee], seen | {callee}):
                    return True
        return False

    def call_instance(self, function: Node, args: Sequence[Value]) -> tuple[Value, ...]:
        fn = _function(function)
        if self.kernel_runner is not None and is_kernel_function(function):
            return self.kernel_runner(function, args, self.launch)
        env: dict[str, Value] = {}
        for param, arg in zip(fn.params, args):
            var, _ = _param(param)
            env[var.name] = arg
        if fn.func_type == GROUP:
            return self.run_group(function, env)
        ended = self.run_block(fn.body, env)
        if ended is None or ended.kind != "return":
            if fn.return_types:
                raise InterpreterError(f"function {fn.name} ends without a return", function.node_span)
            return ()
        if is_kernel_function(function):
            return tuple(_stored_return(value, args) for value in ended.values)
        return ended.values

    def run_group(self, function: Node, env: dict[str, Value]) -> tuple[Value, ...]:
        """A Group launches its kernels (`self.f_aic(...)`, `self.f_aiv(...)`) together: they run
        as coroutines exchanging tiles through the cross-core FIFOs; then the Group returns."""
        launches: list[tuple[Node, Node, list[Value]]] = []
        ended: _Exit | None = None
        for stmt in _function(function).body:
            value = _field(stmt, "value") if stmt.KIND in ("AssignStmt", "EvalStmt") else None
            if value is not None and value.KIND == "FuncCall" and str(_field(value, "callee")) in self.functions:
                args = [self.eval(a, env) for a in _field(value, "args")]
                launches.append((stmt, self.functions[str(_field(value, "callee"))], args))
            elif stmt.KIND == "ReturnStmt":
                self._launch(launches, env)
                launches = []
                ended = _Exit("return", tuple(self.eval(v, env) for v in _field(stmt, "values")))
            elif stmt.KIND == "AssignStmt" and _field(stmt, "value").KIND in ("TupleGetItem", "Var"):
                # Unpacking a kernel's tuple of results: the launches it reads from run first.
                self._launch(launches, env)
                launches = []
                self.run_stmt(stmt, env)
            elif stmt.KIND == "AssignStmt" and value is not None and value.KIND == "Call" and not launches:
                # Host-side set-up before the launch (the a2/a3 pipe's GM slot buffer).
                self.run_stmt(stmt, env)
            else:
                raise InterpreterError("a Group function only allocates, launches its kernels and returns their "
                                       "results", stmt.node_span)
        self._launch(launches, env)
        return ended.values if ended is not None else ()

    def _launch(self, launches: list[tuple[Node, Node, list[Value]]], env: dict[str, Value]) -> None:
        if not launches:
            return
        names = [_function(callee).name for _, callee, _ in launches]
        tasks = [(lambda c=callee, a=args: self.call_function(c, a)) for _, callee, args in launches]
        # Only an Out parameter's buffer is asked whether it was unwritten (the kernel runner asks
        # nothing else), so only those are scanned.
        unwritten = [a.data for _, callee, args in launches for p, a in zip(_function(callee).params, args)
                     if _param(p)[1] == "Out" and isinstance(a, ArrayValue) and a.is_tensor and all_poison(a.data)]
        with launch_with_fresh(unwritten):
            results = run_group(names, tasks)
        for (stmt, _, _), returned in zip(launches, results):
            if stmt.KIND != "AssignStmt":
                continue
            value = _field(stmt, "value")
            single = not isinstance(_field(value, "type"), TupleType) and len(returned) <= 1
            env[cast(_VarLike, _field(stmt, "target")).name] = (returned[0] if returned else None) if single else returned

    # -- statements --------------------------------------------------------------------------------

    def run_block(self, body: Sequence[Node], env: dict[str, Value]) -> _Exit | None:
        for stmt in body:
            ended = self.run_stmt(stmt, env)
            if ended is not None:
                return ended
        return None

    def run_stmt(self, stmt: Node, env: dict[str, Value]) -> _Exit | None:
        kind = stmt.KIND
        if kind == "AssignStmt":
            env[cast(_VarLike, _field(stmt, "target")).name] = self.eval(_field(stmt, "value"), env)
            return None
        if kind == "EvalStmt":
            self.eval(_field(stmt, "value"), env)
            return None
        if kind in ("YieldStmt", "ReturnStmt"):
            values = tuple(self.eval(v, env) for v in _field(stmt, "values"))
            return _Exit("yield" if kind == "YieldStmt" else "return", values)
        if kind == "ForStmt":
            return self.run_for(stmt, env)
        if kind == "WhileStmt":
            return self.run_while(stmt, env)
        if kind == "IfStmt":
            return self.run_if(stmt, env)
        if kind == "ScopeStmt" and _field(stmt, "scope_kind") == "spmd":
            return self.run_spmd_scope(stmt, env)
        if kind == "ScopeStmt":
            # A DSL scope (pl.at, pl.cluster, runtime scopes) says where its body runs, not what
            # it computes: the body runs in place, its definitions visible after it.
            return self.run_block(_field(stmt, "body"), env)
        raise InterpreterError(f"cannot execute a {kind} statement", stmt.node_span)

    def run_spmd_scope(self, stmt: Node, env: dict[str, Value]) -> _Exit | None:
        """`with pl.spmd(n):` runs its body once per block, in block order (as the Spmd wrapper
        OutlineClusterScopes makes of it does)."""
        blocks = int(cast(int, dict(_field(stmt, "attrs"))["core_num"]))
        grid = [replace(self.launch, block_idx=b, block_num=blocks) for b in range(blocks)]
        outer, ended = self.launch, None
        writes = None if self.accumulates(stmt) else _InstanceWrites(
            "the pl.spmd(...) scope", list(env.items()), grid, stmt.node_span)
        try:
            for launch in grid:
                self.launch = launch
                if writes is not None:
                    writes.before()
                ended = self.run_block(_field(stmt, "body"), env)
                if writes is not None:
                    writes.after(launch)
                if ended is not None:
                    return ended
        finally:
            self.launch = outer
        return ended

    def run_for(self, stmt: Node, env: dict[str, Value]) -> _Exit | None:
        bounds = [self.int_of(_field(stmt, name), env) for name in ("start", "stop", "step")]
        if bounds[2] == 0:
            raise InterpreterError("loop step is 0", stmt.node_span)
        iter_vars = [cast(_VarLike, _field(it, "var")).name for it in _field(stmt, "iter_args")]
        carried = tuple(self.eval(_field(it, "init"), env) for it in _field(stmt, "iter_args"))
        loop_var = cast(_VarLike, _field(stmt, "loop_var")).name
        for index in range(*bounds):
            env[loop_var] = index
            env.update(zip(iter_vars, carried))
            ended = self.run_block(_field(stmt, "body"), env)
            if ended is not None and ended.kind == "return":
                return ended
            if iter_vars:
                if ended is None or len(ended.values) != len(iter_vars):
                    raise InterpreterError(f"loop body must yield {len(iter_vars)} values", stmt.node_span)
                carried = ended.values
        self._bind_results(stmt, carried, env)
        return None

    def run_while(self, stmt: Node, env: dict[str, Value]) -> _Exit | None:
        """Before every iteration the condition reads the carried values; the results are the
        values it first fails on. (A while without iter args, DSL text before ConvertToSSA,
        carries its names in `env` itself.)"""
        iter_vars = [cast(_VarLike, _field(it, "var")).name for it in _field(stmt, "iter_args")]
        carried = tuple(self.eval(_field(it, "init"), env) for it in _field(stmt, "iter_args"))
        for _ in range(MAX_WHILE_ITERATIONS):
            env.update(zip(iter_vars, carried))
            if not self.eval(_field(stmt, "cond"), env):
                self._bind_results(stmt, carried, env)
                return None
            ended = self.run_block(_field(stmt, "body"), env)
            if ended is not None and ended.kind == "return":
                return ended
            if iter_vars:
                if ended is None or len(ended.values) != len(iter_vars):
                    raise InterpreterError(f"while body must yield {len(iter_vars)} values", stmt.node_span)
                carried = ended.values
        raise InterpreterError(f"the while loop ran {MAX_WHILE_ITERATIONS} iterations and its condition still holds",
                               stmt.node_span, "make sure the loop's condition becomes false")

    def run_if(self, stmt: Node, env: dict[str, Value]) -> _Exit | None:
        taken = bool(self.eval(_field(stmt, "cond"), env))
        ended = self.run_block(_field(stmt, "then_body" if taken else "else_body"), env)
        if ended is not None and ended.kind == "return":
            return ended
        self._bind_results(stmt, ended.values if ended is not None else (), env)
        return None

    def _bind_results(self, stmt: Node, values: tuple[Value, ...], env: dict[str, Value]) -> None:
        results = _field(stmt, "results")
        if len(results) != len(values):
            raise InterpreterError(f"{len(results)} results but {len(values)} yielded values", stmt.node_span)
        for var, value in zip(results, values):
            env[cast(_VarLike, var).name] = value

    # -- expressions -------------------------------------------------------------------------------

    def eval(self, expr: Node, env: dict[str, Value]) -> Value:
        handler = _EXPRESSIONS.get(expr.KIND)
        if handler is None:
            raise InterpreterError(f"cannot evaluate a {expr.KIND}", expr.node_span)
        return handler(self, expr, env)

    def eval_var(self, expr: Node, env: dict[str, Value]) -> Value:
        name = cast(_VarLike, expr).name
        if name not in env:
            raise InterpreterError(f"{name} is used before it is defined", expr.node_span)
        return env[name]

    def int_of(self, expr: Node, env: dict[str, Value]) -> int:
        value = self.eval(expr, env)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InterpreterError(f"expected an integer, got {value!r}", expr.node_span)
        return value

    def eval_const(self, expr: Node, env: dict[str, Value]) -> Value:
        value = _field(expr, "value")
        if expr.KIND == "ConstBool":
            return bool(value)
        return _to_scalar_type(value, _field(expr, "dtype"))

    def eval_tuple(self, expr: Node, env: dict[str, Value]) -> Value:
        return tuple(self.eval(e, env) for e in _field(expr, "elements"))

    def eval_getitem(self, expr: Node, env: dict[str, Value]) -> Value:
        value = self.eval(_field(expr, "value"), env)
        index = int(_field(expr, "index"))
        if not isinstance(value, tuple) or not 0 <= index < len(value):
            raise InterpreterError(f"cannot take element {index} of {type(value).__name__}", expr.node_span)
        return cast(Value, value[index])

    def eval_funccall(self, expr: Node, env: dict[str, Value]) -> Value:
        callee = str(_field(expr, "callee"))
        if callee not in self.functions:
            raise InterpreterError(f"call to unknown function {callee}", expr.node_span)
        args = [self.eval(a, env) for a in _field(expr, "args")]
        returned = self.call_function(self.functions[callee], args, expr.node_span)
        if isinstance(_field(expr, "type"), TupleType) or len(returned) > 1:
            return returned
        return returned[0] if returned else None

    def eval_binop(self, expr: Node, env: dict[str, Value]) -> Value:
        op = str(_field(expr, "op"))
        lhs, rhs = self.eval(_field(expr, "lhs"), env), self.eval(_field(expr, "rhs"), env)
        if not isinstance(lhs, (int, float)) or not isinstance(rhs, (int, float)):
            raise InterpreterError(f"operator {op} needs scalars", expr.node_span)
        if op in _LOGIC:
            return _LOGIC[op](lhs, rhs)
        ty = _field(expr, "type")
        dtype = ty.dtype if isinstance(ty, ScalarType) else DataType.INDEX
        if op in ("//", "%") and rhs == 0:
            raise InterpreterError(f"scalar {op} by zero", expr.node_span)
        if dtype.is_float:
            return round_scalar(float(_ARITH[op](float(lhs), float(rhs))), dtype)
        return _to_scalar_type(_ARITH[op](int(lhs), int(rhs)), dtype)

    def eval_unary(self, expr: Node, env: dict[str, Value]) -> Value:
        operand = self.eval(_field(expr, "operand"), env)
        if not isinstance(operand, (int, float)):
            raise InterpreterError("unary operator needs a scalar", expr.node_span)
        if _field(expr, "op") == "not":
            return not operand
        ty = _field(expr, "type")
        dtype = ty.dtype if isinstance(ty, ScalarType) else DataType.INDEX
        if _field(expr, "op") == "cast":
            inner = _field(expr, "operand")
            source = getattr(inner, "type", None)
            source_dtype = source.dtype if isinstance(source, ScalarType) else getattr(inner, "dtype", DataType.INDEX)
            return numerics.scalar_cast(operand, source_dtype.name, dtype.name)
        return _to_scalar_type(-operand, dtype)

    def eval_call(self, expr: Node, env: dict[str, Value]) -> Value:
        op = str(_field(expr, "op"))
        try:
            opdef = REGISTRY.get(op)
        except KeyError as err:
            raise InterpreterError(str(err.args[0]), expr.node_span) from None
        handler = _SEMANTICS.get(opdef.semantics[0])
        if handler is None:
            raise InterpreterError(f"{op} has no value-level semantics ({opdef.semantics[0]!r})", expr.node_span)
        args = [self.eval(a, env) for a in _field(expr, "args")]
        ty = _resolved_extents(_field(expr, "type"), env, expr.node_span)
        call = _CallSite(opdef, args, opdef.with_defaults(_field(expr, "attrs")), ty, expr.node_span, self.launch)
        try:
            return handler(call)
        except ArithmeticFault as fault:
            raise InterpreterError(f"{op}: {fault}", expr.node_span) from None
        except NumericsError as err:
            raise InterpreterError(f"{op}: {err}", expr.node_span) from None


_LOGIC: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "and": lambda a, b: bool(a) and bool(b), "or": lambda a, b: bool(a) or bool(b),
}  # fmt: skip

def _true_division(a: float, b: float) -> float:
    """IEEE division in float64 (x / 0 is a signed infinity, 0 / 0 a NaN; Python would raise):
    rounded to the scalar's type afterwards, which is correctly rounded for FP32 / FP16 / BF16
    (float64 carries more than twice their precision plus two bits)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


# Python's // and % (floor semantics): the pl DSL is Python syntax, and the simulator agrees.
_ARITH: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "/": lambda a, b: _true_division(a, b),
}  # fmt: skip

_ExprHandler = Callable[[Interpreter, Node, dict[str, Value]], Value]
_EXPRESSIONS: Final[dict[str, _ExprHandler]] = {
    "Var": Interpreter.eval_var,
    "ConstInt": Interpreter.eval_const,
    "ConstFloat": Interpreter.eval_const,
    "ConstBool": Interpreter.eval_const,
    "TupleExpr": Interpreter.eval_tuple,
    "TupleGetItem": Interpreter.eval_getitem,
    "FuncCall": Interpreter.eval_funccall,
    "BinOp": Interpreter.eval_binop,
    "UnaryOp": Interpreter.eval_unary,
    "Call": Interpreter.eval_call,
}


# -- op semantics (dispatched on the registry's semantics key) ---------------------------------------


@dataclass(frozen=True)
class _CallSite:
    opdef: OpDef
    args: list[Value]
    attrs: Attrs
    type: Type
    span: Span
    launch: Launch = SINGLE_LAUNCH

    def fail(self, message: str) -> InterpreterError:
        return InterpreterError(f"{self.opdef.name}: {message}", self.span)

    def array(self, index: int) -> ArrayValue:
        value = self.args[index] if index < len(self.args) else None
        if not isinstance(value, ArrayValue):
            raise self.fail(f"operand {index} is not a tensor or tile")
        return value

    def scalar(self, index: int) -> Scalar:
        value = self.args[index]
        if not isinstance(value, (int, float, bool)):
            raise self.fail(f"operand {index} is not a scalar")
        return value

    def ints(self, index: int) -> tuple[int, ...]:
        value = self.args[index]
        items = value if isinstance(value, tuple) else (value,)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            raise self.fail(f"operand {index} is not a list of integers")
        return tuple(int(v) for v in items)

    def attr(self, name: str, default: AttrValue = None) -> AttrValue:
        for key, value in self.attrs:
            if key == name and value is not None:
                return value
        return default

    @property
    def result_type(self) -> TensorType | TileType:
        return _array_type(self.type, self.span)

    def fresh_result(self) -> ArrayValue:
        return fresh_value(self.type, self.span)

    def reuses_input(self) -> int | None:
        rule = self.opdef.output_memory
        return rule.index if isinstance(rule, ReusesInput) else None


def _write_region(target: Array, offsets: Sequence[int], values: Array, what: str, call: _CallSite) -> None:
    end = [o + e for o, e in zip(offsets, values.shape)]
    if any(o < 0 for o in offsets) or any(e > s for e, s in zip(end, target.shape)):
        raise call.fail(f"{what} at offsets {list(offsets)} with extent {list(values.shape)} leaves "
                        f"the buffer of shape {list(target.shape)}")
    target[tuple(slice(o, e) for o, e in zip(offsets, end))] = values


def _read_window(source: Array, offsets: Sequence[int], extent: Sequence[int], what: str, call: _CallSite) -> Array:
    end = [o + e for o, e in zip(offsets, extent)]
    if any(o < 0 for o in offsets) or any(e > s for e, s in zip(end, source.shape)):
        raise call.fail(f"{what} at offsets {list(offsets)} with extent {list(extent)} leaves "
                        f"the source of shape {list(source.shape)}")
    return source[tuple(slice(o, e) for o, e in zip(offsets, end))]


def _result_with(call: _CallSite, region: Array) -> ArrayValue:
    """A fresh result buffer whose valid region holds `region`."""
    out = call.fresh_result()
    _write_region(out.data, [0] * region.ndim, np.asarray(region).astype(out.data.dtype, copy=False), "result", call)
    return out


def _result_region_of(value: ArrayValue, call: _CallSite) -> Array:
    """`value`'s data broadcast to the result's shape, cut to the result's valid region."""
    shape = call.result_type.shape
    try:
        full = np.broadcast_to(value.data, shape)
    except ValueError:
        raise call.fail(f"operand of shape {list(value.data.shape)} does not broadcast to {list(shape)}") from None
    return full[tuple(slice(0, v) for v in call.result_type.valid)]


def _sem_binary(call: _CallSite) -> Value:
    if not isinstance(call.args[1], ArrayValue):
        return _sem_scalar_binary(call)
    dtype = call.result_type.dtype.name
    lhs, rhs = (_result_region_of(call.array(i), call) for i in (0, 1))
    return _result_with(call, numerics.binary(call.opdef.semantics[1], lhs, rhs, dtype))


def _sem_scalar_binary(call: _CallSite) -> Value:
    dtype = call.result_type.dtype.name
    x = _result_region_of(call.array(0), call)
    return _result_with(call, numerics.scalar_binary(call.opdef.semantics[1], x, call.scalar(1), dtype))


def _sem_unary(call: _CallSite) -> Value:
    x = _result_region_of(call.array(0), call)
    return _result_with(call, numerics.unary(call.opdef.semantics[1], x, call.result_type.dtype.name))


def _as_rows(region: Array) -> Array:
    """Leading axes folded into rows: a reduction sees a 2-D [rows, cols] block."""
    return region.reshape(-1, region.shape[-1]) if region.ndim != 2 else region


_REDUCTIONS: Final[dict[tuple[str, str], Callable[[Array, str], Array]]] = {
    ("reduce_row", "sum"): numerics.row_sum, ("reduce_row", "max"): numerics.row_max,
    ("reduce_row", "min"): numerics.row_min, ("reduce_row", "prod"): numerics.row_prod,
    ("reduce_col", "sum"): numerics.col_sum, ("reduce_col", "max"): numerics.col_max,
    ("reduce_col", "min"): numerics.col_min, ("reduce_col", "prod"): numerics.col_prod,
}  # fmt: skip


def _sem_reduce(call: _CallSite) -> Value:
    key = (call.opdef.semantics[0], call.opdef.semantics[1])
    source = call.array(0)
    reduced = _REDUCTIONS[key](_as_rows(source.region), call.result_type.dtype.name)
    out_valid = call.result_type.valid
    return _result_with(call, reduced.reshape(out_valid))


def _sem_row_expand(call: _CallSite) -> Value:
    x = _result_region_of(call.array(0), call)
    row = call.array(1)
    column = row.data[tuple(slice(0, v) for v in x.shape[:-1]) + (slice(0, 1),)]
    expanded = np.broadcast_to(column, x.shape)
    return _result_with(call, numerics.binary(call.opdef.semantics[1], x, expanded, call.result_type.dtype.name))


def _sem_col_expand(call: _CallSite) -> Value:
    x = _result_region_of(call.array(0), call)
    col = call.array(1)
    row = col.data[(slice(0, 1), slice(0, x.shape[1]))]
    expanded = np.broadcast_to(row, x.shape)
    return _result_with(call, numerics.binary(call.opdef.semantics[1], x, expanded, call.result_type.dtype.name))


def _cube_matrices(lhs: Array, rhs: Array, lhs_valid: Sequence[int], rhs_valid: Sequence[int], a_trans: bool,
                   b_trans: bool, call: _CallSite) -> tuple[Array, Array]:
    """The [M, K] and [K, N] matrices the cube multiplies (the registry's `cube_extents`: M, K
    from the left operand's valid shape, N from the right's valid columns, after a_trans /
    b_trans), of one matrix of each operand; the product's elements past [M, N] are not written."""
    m, k, n = cube_extents(lhs_valid, rhs_valid, a_trans, b_trans)
    rhs_k = rhs_valid[-1] if b_trans else rhs_valid[-2]
    if rhs_k < k:
        raise call.fail(f"left operand has K = {k} valid columns but the right one only {rhs_k} valid rows")
    a = lhs.T if a_trans else lhs
    b = rhs.T if b_trans else rhs
    return a[:m, :k], b[:k, :n]


def _matmul_operands(call: _CallSite, lhs_index: int) -> tuple[Array, Array, str]:
    """The [M, K] and [K, N] operands of a 2-D matmul, as the cube unit reads them."""
    lhs, rhs = call.array(lhs_index), call.array(lhs_index + 1)
    a, b = _cube_matrices(lhs.data, rhs.data, lhs.valid, rhs.valid, bool(call.attr("a_trans", False)),
                          bool(call.attr("b_trans", False)), call)
    return a, b, lhs.dtype.name


def _accumulator_dtype(in_dtype: str) -> str:
    return "INT32" if in_dtype == "INT8" else "FP32"


def _store_product(call: _CallSite, base: ArrayValue, product: Array) -> ArrayValue:
    """Write the accumulator product into `base`'s buffer, converting through FIXPIPE when the
    result dtype is narrower (a cast folded into the accumulator's drain)."""
    dtype = call.result_type.dtype
    if numerics.dtype_name_of(product) != dtype.name:
        product = numerics.fixpipe_cast(product, dtype.name)
    _write_region(base.data, [0, 0], product, "matmul result", call)
    base.valid = tuple(call.result_type.valid)
    return base


def _batched(call: _CallSite, lhs_index: int, acc: ArrayValue | None) -> Value:
    """A matmul of rank > 2 operands: one 2-D matmul (or matmul_acc) per broadcast batch index,
    each the MAD chain of its matrices (NUMERICS.md section 1)."""
    lhs, rhs = call.array(lhs_index), call.array(lhs_index + 1)
    a_trans, b_trans = bool(call.attr("a_trans", False)), bool(call.attr("b_trans", False))
    ty = call.result_type
    batch = tuple(ty.shape[:-2])
    # The accumulator is read, not written (the registry's effect on it is READ): the result is
    # a new value even where the accumulator is a GM tensor.
    out = ArrayValue(acc.data.copy(), acc.dtype, acc.valid, False) if acc is not None else call.fresh_result()
    in_dtype = lhs.dtype.name
    acc_dtype = numerics.np_dtype(_accumulator_dtype(in_dtype))
    # Each operand's matrices broadcast over the batch whole: `_cube_matrices` takes their valid
    # [M, K] / [K, N], and a batch index past an operand's valid batch is not computed.
    lhs_all = np.broadcast_to(lhs.data, batch + tuple(lhs.data.shape[-2:]))
    rhs_all = np.broadcast_to(rhs.data, batch + tuple(rhs.data.shape[-2:]))
    computed = computed_batch(batch, lhs.data.shape, lhs.valid, rhs.data.shape, rhs.valid)
    for index in np.ndindex(*batch):
        if any(bound is not None and i >= bound for i, bound in zip(index, computed)):
            continue
        a, b = _cube_matrices(lhs_all[index], rhs_all[index], lhs.valid, rhs.valid, a_trans, b_trans, call)
        m, n = a.shape[0], b.shape[1]
        start = (np.asarray(out.data[index][:m, :n]).astype(acc_dtype) if acc is not None
                 else np.zeros((m, n), dtype=acc_dtype))
        product = numerics.matmul(a, b, start, in_dtype)
        if numerics.dtype_name_of(product) != ty.dtype.name:
            product = numerics.fixpipe_cast(product, ty.dtype.name)
        out.data[index][:m, :n] = product
    out.valid = tuple(ty.valid)
    return out


def _sem_batch_matmul(call: _CallSite) -> Value:
    return _batched(call, 0, None)


def _sem_batch_matmul_acc(call: _CallSite) -> Value:
    return _batched(call, 1, call.array(0))


def _sem_matmul(call: _CallSite) -> Value:
    if len(call.result_type.shape) > 2:
        return _batched(call, 0, None)
    a, b, in_dtype = _matmul_operands(call, 0)
    start = np.zeros((a.shape[0], b.shape[1]), dtype=numerics.np_dtype(_accumulator_dtype(in_dtype)))
    return _store_product(call, call.fresh_result(), numerics.matmul(a, b, start, in_dtype))


def _sem_matmul_acc(call: _CallSite) -> Value:
    if len(call.result_type.shape) > 2:
        return _batched(call, 1, call.array(0))
    acc = call.array(0)
    a, b, in_dtype = _matmul_operands(call, 1)
    init = len(call.args) > 3 and call.args[3] is not None and bool(call.scalar(3))
    m, n = a.shape[0], b.shape[1]
    acc_dtype = numerics.np_dtype(_accumulator_dtype(in_dtype))
    start = np.zeros((m, n), dtype=acc_dtype) if init else np.asarray(acc.data[:m, :n]).astype(acc_dtype)
    # A new value, also where the accumulator is a GM tensor: the registry reads it (READ), so a
    # later read of that tensor sees it unchanged.
    base = ArrayValue(acc.data.copy(), acc.dtype, acc.valid, False)
    return _store_product(call, base, numerics.matmul(a, b, start, in_dtype))


def _sem_matmul_bias(call: _CallSite) -> Value:
    a, b, in_dtype = _matmul_operands(call, 0)
    acc_dtype = numerics.np_dtype(_accumulator_dtype(in_dtype))
    bias_row = np.asarray(call.array(2).region).reshape(-1)[: b.shape[1]].astype(acc_dtype)
    start = np.broadcast_to(bias_row, (a.shape[0], b.shape[1])).copy()
    return _store_product(call, call.fresh_result(), numerics.matmul(a, b, start, in_dtype))


def _sem_cast(call: _CallSite) -> Value:
    x = _result_region_of(call.array(0), call)
    mode = str(call.attr("mode", "round"))
    return _result_with(call, numerics.cast(x, call.array(0).dtype.name, call.result_type.dtype.name, mode))


def _pad_fill(tile: TileType) -> Array | None:
    pad = tile.view.pad if tile.view is not None else "null"
    if pad == "null":
        return None
    dtype = tile.dtype.name
    if pad == "zero":
        return np.zeros((), dtype=numerics.np_dtype(dtype))
    if numerics.is_float(dtype):
        # FP8E4M3FN has no infinity: its largest finite value bounds every element.
        bound = numerics.float_format(dtype).max_finite if tile.dtype is DataType.FP8E4M3FN else float("inf")
        return np.asarray(bound if pad == "max" else -bound).astype(numerics.np_dtype(dtype))
    limits = np.iinfo(numerics.np_dtype(dtype))
    return np.asarray(limits.max if pad == "max" else limits.min, dtype=numerics.np_dtype(dtype))


def _sem_load(call: _CallSite) -> Value:
    tensor = call.array(0)
    offsets, shapes = call.ints(1), call.ints(2)
    valid = call.ints(3) if len(call.args) > 3 and call.args[3] is not None else shapes
    window = _read_window(tensor.data, offsets, valid, "loaded window", call)
    out = call.fresh_result()
    ty = call.result_type
    fill = _pad_fill(ty) if isinstance(ty, TileType) else None
    if fill is not None:
        out.data[...] = fill
    if window.ndim != out.data.ndim:
        # A row-packed load (FlattenTileNdTo2D): the N-D window in row-major order, as 2-D rows.
        window = window.reshape(tuple(out.valid))
    _write_region(out.data, [0] * window.ndim, window, "loaded window", call)
    return out


def _converted_for(source: ArrayValue, values: Array, dst: DataType) -> Array:
    """Values moved between buffers of different dtypes: FIXPIPE for an FP32/INT32 accumulator
    (the only producer of a wider source), RNE otherwise."""
    if source.dtype == dst:
        return values
    if source.dtype in (DataType.FP32, DataType.INT32) and dst.byte_width <= source.dtype.byte_width:
        return numerics.fixpipe_cast(values, dst.name)
    return numerics.cast(values, source.dtype.name, dst.name, "rint")


def _sem_store(call: _CallSite) -> Value:
    tile, tensor = call.array(0), call.array(2)
    values = _converted_for(tile, np.asarray(tile.region), tensor.dtype)
    window = call.attr("window", None)
    if isinstance(window, tuple):
        values = values.reshape(window)
    if call.attr("atomic", "none") == "add":
        # An atomic store adds into what GM holds (RNE in the tensor's dtype).
        current = _read_window(tensor.data, call.ints(1), values.shape, "accumulated window", call)
        values = numerics.binary("add", np.asarray(current), values, tensor.dtype.name)
    _write_region(tensor.data, call.ints(1), values, "stored valid region", call)
    return tensor


def _sem_move(call: _CallSite) -> Value:
    source = call.array(0)
    out = call.fresh_result()
    moved = _converted_for(source, source.region, out.dtype)
    _write_region(out.data, [0] * moved.ndim, moved, "moved tile", call)
    return out


def _sem_extract(call: _CallSite) -> Value:
    source = call.array(0)
    row, col = int(call.scalar(1)), int(call.scalar(2))
    window = _read_window(source.data, (row, col), call.ints(3), "extracted window", call)
    out = call.fresh_result()
    out.data[...] = _converted_for(source, window, out.dtype)
    return out


def _sem_slice(call: _CallSite) -> Value:
    source = call.array(0)
    shape, offsets = call.ints(1), call.ints(2)
    end = [o + s for o, s in zip(offsets, shape)]
    inside = all(o >= 0 for o in offsets) and all(e <= s for e, s in zip(end, source.data.shape))
    valid = tuple(call.result_type.valid)
    if inside:
        # A view: no copy, so a write through the slice reaches the source, as on hardware.
        data = source.data[tuple(slice(o, e) for o, e in zip(offsets, end))]
        return ArrayValue(data, source.dtype, valid, source.is_tensor)
    window = _read_window(source.data, offsets, valid, "slice", call)
    out = call.fresh_result()
    _write_region(out.data, [0] * window.ndim, window, "slice", call)
    return out


def _sem_window(call: _CallSite) -> Value:
    """A window of a GM tensor (host code): a NumPy view of the source's buffer, so a kernel
    handed it reads and writes the source's elements; the kernel runner reads its offset and
    strides off the view. A window reaching past its source is the program's error."""
    source = call.array(0)
    shape, offsets = call.ints(1), call.ints(2)
    if any(o < 0 or o + s > d for o, s, d in zip(offsets, shape, source.data.shape)):
        raise call.fail(f"the window at offsets {list(offsets)} with extent {list(shape)} reaches past its "
                        f"source of shape {list(source.data.shape)}")
    data = source.data[tuple(slice(o, o + s) for o, s in zip(offsets, shape))]
    return ArrayValue(data, source.dtype, tuple(shape), True)


def _sem_assemble(call: _CallSite) -> Value:
    target, source = call.array(0), call.array(1)
    base = target if target.is_tensor else ArrayValue(target.data.copy(), target.dtype, target.valid, False)
    values = _converted_for(source, source.region, target.dtype)
    if call.attr("atomic", "none") == "add":
        current = _read_window(base.data, call.ints(2), values.shape, "accumulated window", call)
        values = numerics.binary("add", np.asarray(current), np.asarray(values), target.dtype.name)
    _write_region(base.data, call.ints(2), values, "assembled source", call)
    return base


def _sem_expand_clone(call: _CallSite) -> Value:
    source, target = call.array(0), call.array(1)
    base = target if target.is_tensor else ArrayValue(target.data.copy(), target.dtype, target.valid, False)
    base.data[...] = np.broadcast_to(source.data, base.data.shape)
    return base


def _sem_create(call: _CallSite) -> Value:
    return call.fresh_result()


def _sem_full(call: _CallSite) -> Value:
    out = call.fresh_result()
    out.data[...] = numerics.convert_scalar(call.scalar(1), out.dtype.name)
    return out


def _sem_reshape(call: _CallSite) -> Value:
    source = call.array(0)
    ty = call.result_type
    data = source.data.reshape(ty.shape)
    # A reshape of a GM tensor is a view of its bytes (a write through it reaches the source, a read
    # sees the source's writes: spec convert_tensor_to_tile_ops.md); a tile's is a new value.
    return ArrayValue(data if source.is_tensor else data.copy(), source.dtype, tuple(ty.valid), source.is_tensor)


def _sem_transpose(call: _CallSite) -> Value:
    source = call.array(0)
    axis1, axis2 = int(cast(int, call.attr("axis1", 0))), int(cast(int, call.attr("axis2", 1)))
    data = np.swapaxes(source.data, axis1, axis2).copy()
    return ArrayValue(data, source.dtype, tuple(call.result_type.valid), source.is_tensor)


def _sem_transpose_view(call: _CallSite) -> Value:
    source = call.array(0)
    # The last two axes swap (an N-D tile is a batch of matrices, each transposed).
    return ArrayValue(np.swapaxes(source.data, -1, -2).copy(), source.dtype, tuple(call.result_type.valid),
                      source.is_tensor)


def _sem_set_validshape(call: _CallSite) -> Value:
    source = call.array(0)
    return ArrayValue(source.data, source.dtype, (int(call.scalar(1)), int(call.scalar(2))), source.is_tensor)


def _sem_read(call: _CallSite) -> Value:
    source = call.array(0)
    window = _read_window(source.data, call.ints(1), [1] * source.data.ndim, "read", call)
    return _scalar_of(window.reshape(()), source.dtype)


def _sem_write(call: _CallSite) -> Value:
    target = call.array(0)
    base = target if target.is_tensor else ArrayValue(target.data.copy(), target.dtype, target.valid, False)
    element = numerics.convert_scalar(call.scalar(2), target.dtype.name).reshape([1] * base.data.ndim)
    _write_region(base.data, call.ints(1), element, "write", call)
    return base


def _sem_tpush(call: _CallSite) -> Value:
    # The FIFO carries the valid rectangle only (the slot is compacted to valid_col pitch).
    source = call.array(0)
    cross_core.push(call.opdef.semantics[1], ArrayValue(np.array(source.region), source.dtype, source.valid, False))
    return None


def _sem_tpop(call: _CallSite) -> Value:
    item = cross_core.pop(call.opdef.semantics[1])
    if not isinstance(item, ArrayValue):
        raise call.fail("the FIFO holds no tile")
    out = call.fresh_result()
    if tuple(item.valid) != tuple(out.valid):
        raise call.fail(f"pops a tile valid in {list(out.valid)}, but the matching push carried "
                        f"{list(item.valid)}")
    _write_region(out.data, [0] * item.data.ndim, _converted_for(item, item.data, out.dtype), "popped tile", call)
    return out


def _sem_dim(call: _CallSite) -> Value:
    source = call.array(0)
    return int(source.data.shape[int(cast(int, call.attr("axis", 0)))])


# -- the catalog families (vector_ops) -------------------------------------------------------------


def _scalar_or_region(call: _CallSite, index: int) -> Array | Scalar:
    value = call.args[index]
    if isinstance(value, ArrayValue):
        return _result_region_of(value, call)
    return call.scalar(index)


def _sem_fused(call: _CallSite) -> Value:
    meaning = call.opdef.semantics[1]
    second = _scalar_or_region(call, 1)
    carry = _result_region_of(call.array(2), call)
    return _result_with(call, numerics.fused(meaning, _result_region_of(call.array(0), call), second, carry,
                                             call.result_type.dtype.name))


def _sem_partial(call: _CallSite) -> Value:
    valid = call.result_type.valid
    rows = 1
    for extent in valid[:-1]:
        rows *= extent  # N-D values are row-packed: the leading axes multiply into the rows
    out_valid = (rows, valid[-1])
    a, b = (_as_rows(call.array(i).region) for i in (0, 1))
    result = numerics.partial(call.opdef.semantics[1], a, b, out_valid, call.result_type.dtype.name)
    return _result_with(call, result.reshape(valid))


def _sem_prelu(call: _CallSite) -> Value:
    slope = _scalar_or_region(call, 1)
    x = _result_region_of(call.array(0), call)
    return _result_with(call, numerics.prelu(x, slope, call.result_type.dtype.name))


def _sem_expands(call: _CallSite) -> Value:
    out = call.fresh_result()
    out.region[...] = numerics.convert_scalar(call.scalar(1), out.dtype.name)
    return out


def _cmp_mode(call: _CallSite) -> str:
    code = call.attr("cmp_type", 0)
    assert isinstance(code, int)
    return numerics.COMPARE_MODES[code]


def _sem_compare(call: _CallSite) -> Value:
    lhs = call.array(0)
    region = _as_rows(lhs.region)
    rhs: Array | Scalar = call.scalar(1) if not isinstance(call.args[1], ArrayValue) else _as_rows(call.array(1).region)
    bits = numerics.compare(_cmp_mode(call), region, rhs, lhs.dtype.name)
    ty = call.result_type
    mask = numerics.pack_mask(bits, (ty.shape[0], ty.shape[1]), ty.dtype.name)
    return ArrayValue(mask, ty.dtype, tuple(ty.valid), isinstance(ty, TensorType))


def _sem_select(call: _CallSite) -> Value:
    mask = call.array(0)
    valid = call.result_type.valid
    rows, cols = (valid[0], valid[1]) if len(valid) == 2 else (1, valid[-1])
    bits = numerics.unpack_mask(np.asarray(mask.data), rows, cols)
    dtype = call.result_type.dtype.name
    src = _result_region_of(call.array(1), call).reshape(rows, cols)
    other: Array | Scalar = call.scalar(3) if len(call.args) == 4 and not isinstance(call.args[3], ArrayValue) \
        else _result_region_of(call.array(2), call).reshape(rows, cols)
    return _result_with(call, numerics.select(bits, src, other, dtype).reshape(valid))


def _sem_broadcast(call: _CallSite) -> Value:
    rows = call.result_type.valid
    source = call.array(1).data
    along_rows = call.opdef.semantics[0] == "row_broadcast"
    picked = source[tuple(slice(0, v) for v in rows[:-1]) + (slice(0, 1),)] if along_rows else source[(slice(0, 1), slice(0, rows[1]))]
    return _result_with(call, np.broadcast_to(picked, tuple(rows)))


def _sem_expdif(call: _CallSite) -> Value:
    x = _result_region_of(call.array(0), call)
    vector = call.array(1).data
    if call.opdef.semantics[0] == "row_expdif":
        other = np.broadcast_to(vector[tuple(slice(0, v) for v in x.shape[:-1]) + (slice(0, 1),)], x.shape)
    else:
        other = np.broadcast_to(vector[(slice(0, 1), slice(0, x.shape[1]))], x.shape)
    return _result_with(call, numerics.expdif(x, other, call.result_type.dtype.name))


def _sem_ci(call: _CallSite) -> Value:
    ty = call.result_type
    count = ty.valid[-1]
    values = numerics.sequence(int(call.scalar(0)), count, bool(call.attr("descending", False)), ty.dtype.name)
    return _result_with(call, values.reshape(tuple(ty.valid)))


def _sem_random(call: _CallSite) -> Value:
    ty = call.result_type
    rows, cols = ty.valid
    words = [int(call.scalar(i)) for i in range(6)]
    values = numerics.trandom(rows, cols, (words[0], words[1]), (words[2], words[3], words[4], words[5]),
                              int(cast(int, call.attr("rounds", 10))), ty.dtype.name)
    return _result_with(call, values)


def _sem_tri(call: _CallSite) -> Value:
    ty = call.result_type
    rows, cols = ty.valid
    marks = numerics.triangle(rows, cols, int(call.scalar(0)), bool(call.attr("upper", False)), ty.dtype.name)
    return _result_with(call, marks)


def _sem_fillpad(call: _CallSite) -> Value:
    source = call.array(0)
    out = call.fresh_result()
    pad = str(call.attr("pad_value", "zero"))
    fill = _pad_value_of(out.dtype, pad)
    out.data[...] = fill
    _write_region(out.data, [0] * source.data.ndim, np.asarray(source.region), "filled source", call)
    return out


def _pad_value_of(dtype: DataType, pad: str) -> Array:
    name = dtype.name
    if pad == "zero":
        return np.zeros((), dtype=numerics.np_dtype(name))
    if numerics.is_float(name):
        bound = numerics.float_format(name).max_finite if dtype is DataType.FP8E4M3FN else float("inf")
        return np.asarray(bound if pad == "max" else -bound).astype(numerics.np_dtype(name))
    limits = np.iinfo(numerics.np_dtype(name))
    return np.asarray(limits.max if pad == "max" else limits.min, dtype=numerics.np_dtype(name))


def _sem_concat(call: _CallSite) -> Value:
    a, b = call.array(0), call.array(1)
    out = call.fresh_result()
    rows = out.valid[0]
    _write_region(out.data, [0, 0], np.asarray(a.data[:rows, :]), "first operand", call)
    _write_region(out.data, [0, a.data.shape[1]], np.asarray(b.region), "second operand", call)
    return out


def _sem_reinterpret(call: _CallSite) -> Value:
    source = call.array(0)
    ty = call.result_type
    # The bytes in row-major order, re-read as the new dtype (flat first: a [2, 1] INT8 column is
    # one FP16, which NumPy cannot view along a last axis of one byte).
    raw = np.ascontiguousarray(source.data).reshape(-1).view(numerics.np_dtype(ty.dtype.name)).reshape(ty.shape)
    return ArrayValue(raw, ty.dtype, tuple(ty.valid), source.is_tensor)


def _sem_view(call: _CallSite) -> Value:
    """A zero-copy view: the result shares the source's buffer, so a write through it lands in
    the source (as a GM alias does)."""
    source = call.array(0)
    ty = call.result_type
    return ArrayValue(source.data.reshape(ty.shape), source.dtype, tuple(ty.valid), source.is_tensor)


# -- sorting, gathers and scatters (index_ops) -------------------------------------------------------


def _sem_sort32(call: _CallSite) -> Value:
    src, idx = call.array(0), call.array(1)
    return _result_with(call, numerics.sort32(np.asarray(src.region), np.asarray(idx.region), src.dtype.name))


def _sem_mrgsort1(call: _CallSite) -> Value:
    """Format 1: groups of four blocks merged; the columns after the last whole group keep the
    result buffer's (poisoned) bytes, as TMRGSORT leaves them unwritten."""
    src = call.array(0)
    out = call.fresh_result()
    cols = out.valid[-1]
    row, written = numerics.mrgsort_format1(np.asarray(src.data[0, :cols]), int(call.scalar(1)), cols, src.dtype.name)
    out.data[0, :written] = row[:written]
    return out


def _sem_mrgsort2(call: _CallSite) -> Value:
    count = len(call.args) - (0 if call.opdef.name.startswith("tensor.") else 1)
    sources = [np.asarray(call.array(i).region)[0] for i in range(count)]
    out = call.fresh_result()
    dtype = out.dtype.name
    row, _ = numerics.mrgsort_format2(sources, out.valid[-1], bool(call.attr("exhausted", False)), dtype)
    out.data[0, :row.size] = row
    return out


def _index_pitch(value: ArrayValue) -> int | None:
    """The row pitch a tile op's flat index counts in a 2-D tile (TGATHER / TSCATTER index the
    Vec buffer, rows padded to 32 bytes); None for a tensor, whose flat index is its elements."""
    shape = np.asarray(value.data).shape
    return None if value.is_tensor or len(shape) != 2 else flat_index_pitch(shape, value.dtype)


def _sem_gather(call: _CallSite) -> Value:
    src = call.array(0)
    return _result_with(call, numerics.gather_flat(np.asarray(src.data), np.asarray(call.array(1).region),
                                                   _index_pitch(src)))


def _sem_tensor_gather(call: _CallSite) -> Value:
    """Flat over the source's elements, or along `dim` of a rank-2 source."""
    src, index = call.array(0), np.asarray(call.array(1).region).astype(np.int64)
    dim = call.attr("dim")
    if dim is None:
        return _result_with(call, numerics.gather_flat(np.asarray(src.data), index))
    rows, cols = src.data.shape
    if int(cast(int, dim)) % 2 == 1:
        flat = index + np.arange(index.shape[0])[:, None] * cols
    else:
        flat = index * cols + np.arange(index.shape[1])[None, :]
    return _result_with(call, numerics.gather_flat(np.asarray(src.data), flat))


def _sem_gather_mask(call: _CallSite) -> Value:
    src = call.array(0)
    pattern = int(cast(int, call.attr("mask_pattern")))
    columns = numerics.mask_pattern_columns(pattern, src.valid[-1])
    picked = np.ascontiguousarray(np.asarray(src.region)[:, columns])
    ty = call.result_type
    return _result_with(call, picked.view(numerics.np_dtype(ty.dtype.name)))


def _sem_scatter_mask(call: _CallSite) -> Value:
    """The source's rows written into the marked columns of a copy of dst (spec "Mask patterns":
    the inverse of gather_mask; unmarked columns keep dst's values)."""
    dst, src = call.array(0), call.array(1)
    pattern = int(cast(int, call.attr("mask_pattern")))
    data = np.array(dst.data, copy=True)
    columns = numerics.mask_pattern_columns(pattern, data.shape[-1])
    data[:, columns] = np.asarray(src.data)
    return ArrayValue(data, dst.dtype, tuple(call.result_type.valid), dst.is_tensor)


def _sem_gatherb(call: _CallSite) -> Value:
    """32-byte blocks of the source's bytes at each byte offset (a block past the end is not
    read: those elements keep the result's poison, as pto-isa skips them)."""
    src, offsets = call.array(0), np.asarray(call.array(1).region).astype(np.int64)
    out = call.fresh_result()
    raw = np.ascontiguousarray(src.data).view(np.uint8).reshape(-1)
    dst = out.data.view(np.uint8).reshape(out.data.shape[0], -1)
    for r in range(offsets.shape[0]):
        for c in range(offsets.shape[1]):
            start = int(offsets[r, c])
            if start + 32 <= raw.size:
                dst[r, c * 32:(c + 1) * 32] = raw[start:start + 32]
    return out


def _sem_mgather(call: _CallSite) -> Value:
    mem, idx = call.array(0), np.asarray(call.array(1).region).astype(np.int64)
    if call.attr("coalesce", "row") == "elem":
        return _result_with(call, numerics.gather_flat(np.asarray(mem.data), idx))
    rows = idx.reshape(-1)
    count = mem.data.shape[0]
    inside = (rows >= 0) & (rows < count)
    mode = call.attr("gather_oob", "undefined")
    if mode == "clamp":
        rows, inside = np.clip(rows, 0, count - 1), np.ones_like(inside)
    elif mode == "wrap":
        rows, inside = np.mod(rows, count), np.ones_like(inside)
    elif not inside.all() and mode != "zero":
        raise call.fail(f"row index {int(rows[~inside][0])} outside the {count} rows of the GM tensor")
    data = np.asarray(mem.data)
    picked = data[np.where(inside, rows, 0)]
    # gather_oob="zero": a row index outside the tensor reads a row of zeros.
    picked = np.where(inside[:, None], picked, np.zeros((), dtype=data.dtype)).astype(data.dtype)
    return _result_with(call, picked)


def _sem_scatter(call: _CallSite) -> Value:
    dst, src, index = call.array(0), call.array(1), call.array(2)
    data = numerics.scatter_flat(np.asarray(dst.data), np.asarray(index.region), np.asarray(src.region),
                                 _index_pitch(dst))
    return ArrayValue(data, dst.dtype, tuple(call.result_type.valid), dst.is_tensor)


def _sem_tensor_scatter(call: _CallSite) -> Value:
    """out[b, index[b, k]] = src[b, k]: the input's copy, rows updated in index order."""
    dst, index, src = call.array(0), np.asarray(call.array(1).region).astype(np.int64), call.array(2)
    cols = dst.data.shape[1]
    flat = index + np.arange(index.shape[0])[:, None] * cols
    data = numerics.scatter_flat(np.asarray(dst.data), flat, np.asarray(src.region))
    return _result_with(call, data)


def _sem_scatter_update(call: _CallSite) -> Value:
    dst, index, src = call.array(0), np.asarray(call.array(1).region).astype(np.int64), call.array(2)
    width = dst.data.shape[-1]
    rows = np.asarray(dst.data).reshape(-1, width)
    flat = index.reshape(-1, 1) * width + np.arange(width)[None, :]
    updated = numerics.scatter_flat(rows, flat, np.asarray(src.region).reshape(-1, width))
    return _result_with(call, updated.reshape(dst.data.shape))


def _sem_spmd(call: _CallSite) -> Value:
    """The block / lane of the instance running (as the simulator runs it)."""
    return call.launch.identity(call.opdef.semantics[1])


def _sem_barrier(call: _CallSite) -> Value:
    """A barrier orders nothing in one kernel's values; an all-core one (a mix syncall) in a Group
    launch holds this side until the other has arrived (cross_core.barrier)."""
    if call.opdef.name == "system.syncall" and len(syncall_participants(call.attrs)) > 1:
        cross_core.barrier()
    return None


def _sem_pipe_buffer(call: _CallSite) -> Value:
    """reserve_buffer / import_peer_buffer name a region: its address (0 until it is placed)."""
    base = call.attr("base")
    return base if isinstance(base, int) and base >= 0 else 0


def _sem_pipe_init(call: _CallSite) -> Value:
    cross_core.configure_pipe(call.attr("dir_mask"), call.attr("slot_num"))
    return None


def _sem_tfree(call: _CallSite) -> Value:
    try:
        cross_core.free(call.opdef.semantics[1])
    except cross_core.CrossCoreError as err:
        raise call.fail(err.message) from None
    return None


_SemanticsHandler = Callable[[_CallSite], Value]
_SEMANTICS: Final[dict[str, _SemanticsHandler]] = {
    "binary": _sem_binary,
    "scalar_binary": _sem_scalar_binary,
    "unary": _sem_unary,
    "reduce_row": _sem_reduce,
    "reduce_col": _sem_reduce,
    "row_expand": _sem_row_expand,
    "col_expand": _sem_col_expand,
    "matmul": _sem_matmul,
    "matmul_acc": _sem_matmul_acc,
    "matmul_bias": _sem_matmul_bias,
    "batch_matmul": _sem_batch_matmul,
    "batch_matmul_acc": _sem_batch_matmul_acc,
    "cast": _sem_cast,
    "load": _sem_load,
    "store": _sem_store,
    "move": _sem_move,
    "extract": _sem_extract,
    "slice": _sem_slice,
    "window": _sem_window,
    "assemble": _sem_assemble,
    "expand_clone": _sem_expand_clone,
    "create": _sem_create,
    "full": _sem_full,
    "reshape": _sem_reshape,
    "transpose": _sem_transpose,
    "transpose_view": _sem_transpose_view,
    "set_validshape": _sem_set_validshape,
    "read": _sem_read,
    "write": _sem_write,
    "dim": _sem_dim,
    "tpush": _sem_tpush,
    "tpop": _sem_tpop,
    "fused": _sem_fused,
    "partial": _sem_partial,
    "prelu": _sem_prelu,
    "expands": _sem_expands,
    "compare": _sem_compare,
    "select": _sem_select,
    "row_broadcast": _sem_broadcast,
    "col_broadcast": _sem_broadcast,
    "row_expdif": _sem_expdif,
    "col_expdif": _sem_expdif,
    "ci": _sem_ci,
    "tri": _sem_tri,
    "random": _sem_random,
    "fillpad": _sem_fillpad,
    "concat": _sem_concat,
    "reinterpret": _sem_reinterpret,
    "view": _sem_view,
    "spmd": _sem_spmd,
    "barrier": _sem_barrier,
    "marker": _sem_barrier,
    "sort32": _sem_sort32,
    "mrgsort1": _sem_mrgsort1,
    "mrgsort2": _sem_mrgsort2,
    "gather": _sem_gather,
    "tensor_gather": _sem_tensor_gather,
    "gather_mask": _sem_gather_mask,
    "gatherb": _sem_gatherb,
    "mgather": _sem_mgather,
    "scatter": _sem_scatter,
    "scatter_mask": _sem_scatter_mask,
    "tensor_scatter": _sem_tensor_scatter,
    "scatter_update": _sem_scatter_update,
    "pipe_buffer": _sem_pipe_buffer,
    "pipe_init": _sem_pipe_init,
    "tfree": _sem_tfree,
}


# -- entry points ----------------------------------------------------------------------------------------


def bind_inputs(function: Node, inputs: Mapping[str, object]) -> list[Value]:
    """Arguments for `function` from `inputs` (copies: the caller's arrays are never written).
    An `Out` tensor missing from `inputs` starts poisoned."""
    check_input_names(function, list(inputs), "inputs")
    args: list[Value] = []
    for param in _function(function).params:
        var, _ = _param(param)
        ty = var.type
        if var.name not in inputs:
            args.append(fresh_value(ty, var.node_span))
            continue
        coerced = coerce_input(var.name, inputs[var.name], ty)
        if isinstance(coerced, np.ndarray):
            assert isinstance(ty, (TensorType, TileType))
            args.append(ArrayValue(coerced, ty.dtype, tuple(ty.valid), isinstance(ty, TensorType)))
        else:
            args.append(coerced)
    return args


def _output_array(value: Value, what: str, owned: set[int] | None = None) -> Array:
    """An output's array: a copy, except for a buffer in `owned` (ids of the buffers the run
    made for its arguments, which die with it), given out as it is once and then forgotten
    (so two outputs never share one array)."""
    if isinstance(value, ArrayValue):
        if owned is not None and id(value.data) in owned:
            owned.discard(id(value.data))
            return value.data
        return value.data.copy()
    if isinstance(value, (bool, int, float)):
        return np.asarray(value)
    raise InterpreterError(f"{what} is a {type(value).__name__}, which is not an output value")


def _load_same_bytes() -> Callable[[Array, Array], bool] | None:
    """backend/_mad.c's memcmp of two buffers (None without the extension, or with a build from
    before it: then NumPy compares)."""
    try:
        from backend import _mad
    except ImportError:
        return None
    return getattr(_mad, "same_bytes", None)


_SAME_BYTES = _load_same_bytes()


def _same_bits(a: Array, b: Array) -> bool:
    """Whether two arrays hold the same bit patterns (`to_bits` equal; NaN payloads and signed
    zeros distinguished): two buffers of one shape, dtype and C order compare their bytes (one
    memcmp, or 8-byte words without the extension; a [512, 512] FP32 input compared element
    by element cost more than the kernel's arithmetic), others element-wise."""
    if a.shape == b.shape and a.dtype == b.dtype and a.flags.c_contiguous and b.flags.c_contiguous and a.nbytes:
        if _SAME_BYTES is not None:
            try:
                return bool(_SAME_BYTES(a, b))
            except (BufferError, TypeError, ValueError):  # a dtype NumPy exports no buffer of
                pass
        if a.nbytes % 8 == 0:
            return bool(np.array_equal(a.reshape(-1).view(np.uint64), b.reshape(-1).view(np.uint64)))
    return bool(np.array_equal(numerics.to_bits(a), numerics.to_bits(b)))


def collect_outputs(function: Node, args: Sequence[Value], returned: Sequence[Value],
                    inputs_before: Mapping[str, Array] | None = None,
                    owned: set[int] | None = None) -> dict[str, Array]:
    """`ret0`, `ret1`, ... for returned values and every Out / InOut parameter by name.

    An `In` tensor the program wrote into is an output too: the compiler upgrades such a
    parameter to Out / InOut (UpgradeParamDirections), so the compiled program reports it.
    `inputs_before` (the In tensors' contents before the run) tells which were written.
    `owned`: ids of argument buffers the run made itself (see `_output_array`; consumed)."""
    outputs = {f"ret{i}": _output_array(v, f"return value {i}", owned) for i, v in enumerate(returned)}
    before = inputs_before or {}
    for param, arg in zip(_function(function).params, args):
        var, direction = _param(param)
        if direction in ("Out", "InOut"):
            outputs[var.name] = _output_array(arg, f"parameter {var.name}", owned)
        elif var.name in before and isinstance(arg, ArrayValue) and not _same_bits(arg.data, before[var.name]):
            outputs[var.name] = _output_array(arg, f"parameter {var.name}", owned)
    return outputs


def interpret(program: Node, inputs: Mapping[str, object], entry: str | None = None,
              kernel_runner: KernelRunner | None = None) -> dict[str, Array]:
    """Run `program` from its entry function on `inputs` (keyed by parameter name).

    Returns the returned values as `ret0`, `ret1`, ... and the final contents of every Out /
    InOut parameter by name.  `kernel_runner`, if given, executes every kernel call instead of
    interpreting the kernel's body.
    """
    function = entry_function(program, entry)
    args = bind_inputs(function, inputs)
    before = {var.name: _contents_before(inputs.get(var.name), arg) for var, arg in
              ((_param(p)[0], a) for p, a in zip(_function(function).params, args))
              if isinstance(arg, ArrayValue)}
    owned = {id(arg.data) for arg in args if isinstance(arg, ArrayValue)}  # bind_inputs made them
    outer, created = _CREATED.buffers, weakref.WeakValueDictionary[int, Array]()
    _CREATED.buffers = created
    try:
        returned = Interpreter(program, kernel_runner).call_function(function, args)
    finally:
        _CREATED.buffers = outer
    # Buffers the run created and returns die with it too: handed out as they are, once.
    owned.update(id(v.data) for v in returned if isinstance(v, ArrayValue) and created.get(id(v.data)) is v.data)
    outputs = collect_outputs(function, args, returned, before, owned)
    for arg in args:  # the bound copies no output became are dead: the next run reuses them
        if isinstance(arg, ArrayValue) and id(arg.data) in owned:
            POOL.give_back(arg.data)
    return outputs


def _contents_before(given: object, arg: ArrayValue) -> Array:
    """What a bound argument held before the run: the caller's own array where binding made a
    plain copy of it (bind_inputs never writes the caller's arrays), else a copy."""
    if isinstance(given, np.ndarray) and given.dtype == arg.data.dtype and given.shape == arg.data.shape:
        return given
    return arg.data.copy()


__all__ = [
    "ArrayValue",
    "Interpreter",
    "InterpreterError",
    "KernelRunner",
    "bind_inputs",
    "collect_outputs",
    "fresh_value",
    "interpret",
]

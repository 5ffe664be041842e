"""Execute PTO-language programs on the machine model (NUMERICS.md section 5).

The PTO language is the IR form of PTO-ISA MLIR (see `languages/ops/pto_ops.py`): constants
are `arith.constant`, GM tensors are seen through `pto.make_tensor_view` / `pto.partition_view`,
tile buffers are `pto.alloc_tile` handles at a byte address, and instructions are
destination-passing `EvalStmt(pto.tX(*ins, out))`.  Each instruction's meaning comes from its
registry `semantics` key; the executor reads and writes the operands' bytes through the
machine (addresses, layouts, pads, valid regions) and computes values with
`backend.sim.instructions`, i.e. with `backend.numerics`.

Entry points:

* `run_kernel(function, inputs, handler, checked=True, machine=None) -> dict[str, ndarray]`
  runs one InCore kernel.  `inputs` maps parameter names to arrays (tensors, given as their
  dtype or as same-width raw bit patterns) or Python / NumPy scalars.  A tensor parameter
  missing from `inputs` starts poisoned (an output the kernel must write).  The result maps
  every `Out` / `InOut` tensor parameter to its final contents, plus `ret0`, `ret1`, ... for
  values the kernel returns.
* `run_pto(program, inputs, handler, checked=True, kernel=None)` runs the program's single
  kernel (or the one named `kernel`).  A multi-kernel program's orchestration is not in PTO:
  the caller interprets the orchestration function and calls `run_kernel` once per kernel
  call, passing the current contents of every tensor argument and taking back the Out / InOut
  ones.  Each `run_kernel` call starts on a fresh machine (on-chip buffers poisoned), as a
  separate kernel launch does.

Partition views address a tensor in its logical coordinates (the `tile.load` offsets); the
`layout` of `pto.make_tensor_view` ("nd" / "dn") only decides how the GM buffer is stored.
Only one AIV lane is modelled.  The AIC and AIV kernels of a Group launch run as two
`run_kernel` calls (separate machines: separate cores, separate buffers) that the caller runs as
coroutines through `backend.cross_core.run_group`; `pto.tpush_*` / `pto.tpop_*` exchange
`FifoSlot`s through that launch's FIFOs (split = 0: one reader).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Final, Mapping, Union, cast

import numpy as np
import numpy.typing as npt

from backend import cross_core, numerics
from backend.targets.handlers import BackendHandler, get_backend
from backend.numerics import ArithmeticFault, NumericsError
from backend.sim import fast_paths
from backend.sim import instructions as ins
from backend.sim.machine import GmTensor, Machine, PoisonRead, SimulationError, TileHandle, handle_for, np_dtype_of
from languages.gen import pto as P
from languages.memory_space import MemorySpace
from languages.ops.pto_ops import OPS as PTO_OPS, SCALAR_CONVERSIONS, alloc_operands
from languages.ops.index_ops import MASK_PATTERNS
from languages.ops.system_ops import SINGLE_LAUNCH, Launch, syncall_participants
from languages.types import DataType, MemRef, ScalarType, TensorType, TileType, ViewType, attr
from nanopass.node import NO_SPAN, Span

Array = npt.NDArray[Any]
ScalarValue = Union[int, float, bool]


@dataclass(frozen=True)
class TensorViewValue:
    """A `pto.make_tensor_view` result: the GM tensor it looks at."""

    tensor: GmTensor


@dataclass(frozen=True)
class PartitionValue:
    """A `pto.partition_view` result: a static window of a GM tensor."""

    tensor: GmTensor
    offsets: tuple[int, ...]
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class FifoSlot:
    """One cross-core FIFO entry: the pushed valid rectangle, row-major at valid_col pitch."""

    values: Array  # flat, valid_rows * valid_cols elements of `dtype`
    dtype: DataType
    valid: tuple[int, int]
    from_acc: bool
    source: str


Value = Union[ScalarValue, TileHandle, TensorViewValue, PartitionValue, GmTensor]

# Every instruction's meaning is its registry declaration (languages/ops/pto_ops.py).
SEMANTICS: Final[dict[str, tuple[str, ...]]] = {op.name: op.semantics for op in PTO_OPS}


def _dtype(tile: TileHandle) -> str:
    return tile.dtype.name


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


# Step kinds of a planned block (compared by identity).
_ASSIGN_CALL: Final = "assign-call"
_EVAL_CALL: Final = "eval-call"
_TERMINATOR: Final = "terminator"
_OTHER: Final = "other"

# MAD lays the product out in L0C at a pitch derived from the Left operand's valid rows.
_MAD_ROW_BOX: Final = 16


class _Instr:
    """Context of one executing instruction: its name and span for every message."""

    def __init__(self, op: str, span: Span) -> None:
        self.op = op
        self.span = span

    def fail(self, message: str, hint: str = "") -> SimulationError:
        return SimulationError(f"{self.op}: {message}", self.span, hint)


class Executor:
    """Runs one function's statements against a `Machine`."""

    def __init__(self, machine: Machine, launch: Launch = SINGLE_LAUNCH) -> None:
        self.machine = machine
        self.launch = launch  # the block / lane this kernel instance runs as
        self.env: dict[str, Value] = {}
        self._renamed: dict[tuple[int, str], tuple[TileHandle, TileHandle]] = {}
        # Per partition_view call: its static sizes (read from attributes or the result type).
        self._partition_sizes: dict[int, tuple[P.Call, tuple[int, ...]]] = {}
        # Per call site, its fast path or None (the call is kept: ids of dead nodes are reused).
        self._fast: dict[int, tuple[P.Call, Callable[[], Any] | None]] = {}
        # Per block, its steps (`_plan_block`), keyed likewise.
        self._plans: dict[int, tuple[tuple[P.Stmt, ...], list[tuple[str, P.Stmt, Callable[[], Any] | None]]]] = {}
        # Per FIFO, the buffers of the slots this side popped and holds, oldest first: a tfree
        # hands the oldest back to the producer, whose next push overwrites it.
        self._held_slots: dict[str, list[MemRef]] = {}
        # Caches of the fast paths that hold one launch's values (emptied by `reset`).
        self._launch_caches: list[dict[Any, Any]] = []

    def launch_cache(self) -> dict[Any, Any]:
        """A dict for a fast path's memo of values of the current launch, emptied when the
        executor is reset for the next launch."""
        cache: dict[Any, Any] = {}
        self._launch_caches.append(cache)
        return cache

    def reset(self, machine: Machine, launch: Launch) -> None:
        """Start another launch of the same function on `machine`: no value of the last one
        survives (the environment, renamed handles, held FIFO slots and the fast paths' launch
        caches are emptied); what depends on the code alone stays -- the blocks' plans and the
        call sites' fast paths, which read the environment (the same dict) and the machine
        (`self.machine`) when they run."""
        self.machine = machine
        self.launch = launch
        self.env.clear()
        self._renamed.clear()
        self._held_slots.clear()
        for cache in self._launch_caches:
            cache.clear()

    # -- values -----------------------------------------------------------------------------

    def lookup(self, var: P.Var) -> Value:
        try:
            return self.env[var.name]
        except KeyError:
            raise SimulationError(f"%{var.name} is used before it is defined", var.span) from None

    def eval(self, expr: P.Expr) -> Value:
        if isinstance(expr, P.Var):
            return self.lookup(expr)
        if isinstance(expr, P.ConstInt):
            return _wrap_int(expr.value, expr.dtype)
        if isinstance(expr, P.ConstFloat):
            return _float_scalar(expr.value, expr.dtype)
        if isinstance(expr, P.ConstBool):
            return expr.value
        if isinstance(expr, P.BinOp):
            return self.eval_binop(expr)
        if isinstance(expr, P.UnaryOp):
            operand = self.scalar(expr.operand)
            return (not operand) if expr.op == "not" else -operand
        if isinstance(expr, P.Call):
            return self.eval_call(expr, None)
        raise SimulationError(f"cannot evaluate a {expr.KIND} here", expr.span)

    def scalar(self, expr: P.Expr) -> ScalarValue:
        value = self.eval(expr)
        if isinstance(value, np.generic):
            item: ScalarValue = value.item()
            return item
        if not isinstance(value, (int, float, bool)):
            raise SimulationError(f"expected a scalar, got {type(value).__name__}", expr.span)
        return value

    def index(self, expr: P.Expr) -> int:
        value = self.scalar(expr)
        if isinstance(value, float):
            raise SimulationError(f"expected an integer index, got {value}", expr.span)
        return int(value)

    def indices(self, expr: P.Expr) -> tuple[int, ...]:
        if isinstance(expr, P.TupleExpr):
            return tuple(self.index(e) for e in expr.elements)
        return (self.index(expr),)

    def tile(self, expr: P.Expr, instr: _Instr) -> TileHandle:
        """An instruction operand's tile, named by the operand's SSA name for messages."""
        value = self.handle(expr, instr)
        if isinstance(expr, P.Var) and expr.name != value.name:
            # Renamed copies are memoized (a loop renames the same handles every iteration);
            # set_validshape, the one mutation of a handle, drops them.
            key = (id(value), expr.name)
            hit = self._renamed.get(key)
            if hit is None or hit[0] is not value:
                hit = self._renamed[key] = (value, replace(value, name=expr.name))
            return hit[1]
        return value

    def handle(self, expr: P.Expr, instr: _Instr) -> TileHandle:
        """The shared handle itself (what `pto.set_validshape` mutates)."""
        value = self.eval(expr)
        if not isinstance(value, TileHandle):
            raise instr.fail(f"operand {_name(expr)} is not a tile buffer")
        return value

    def eval_binop(self, expr: P.BinOp) -> ScalarValue:
        lhs, rhs = self.scalar(expr.lhs), self.scalar(expr.rhs)
        if expr.op in ("//", "%") and not isinstance(rhs, float) and rhs == 0:
            raise SimulationError(f"integer division by zero in `{expr.op}`", expr.span)
        if expr.op not in _PY_BINOPS:
            raise SimulationError(f"unknown scalar operator `{expr.op}`", expr.span)
        result: ScalarValue = _PY_BINOPS[expr.op](lhs, rhs)
        return result

    # -- statements -------------------------------------------------------------------------

    def run_block(self, body: tuple[P.Stmt, ...]) -> tuple[Value, ...] | None:
        """Execute a block; returns the values of its terminating yield / return (if any)."""
        hit = self._plans.get(id(body))
        if hit is None or hit[0] is not body:
            hit = self._plans[id(body)] = (body, self._plan_block(body))
        env = self.env
        for kind, stmt, fast in hit[1]:
            if kind is _ASSIGN_CALL:
                result = fast() if fast is not None else None
                assert isinstance(stmt, P.AssignStmt) and isinstance(stmt.value, P.Call)
                env[stmt.target.name] = result if result is not None else self.eval_call(stmt.value, stmt.target)
            elif kind is _EVAL_CALL:
                if fast is None or not fast():
                    assert isinstance(stmt, P.EvalStmt) and isinstance(stmt.value, P.Call)
                    self.eval_call(stmt.value, None, stmt.span)
            elif kind is _TERMINATOR:
                assert isinstance(stmt, (P.YieldStmt, P.ReturnStmt))
                return tuple(self.eval(v) for v in stmt.values)
            else:
                self.run_stmt(stmt)
        return None

    def _plan_block(self, body: tuple[P.Stmt, ...]) -> list[tuple[str, P.Stmt, Callable[[], Any] | None]]:
        """A block as steps: (kind, statement, its call's fast path); the block ends at its
        first yield / return."""
        steps: list[tuple[str, P.Stmt, Callable[[], Any] | None]] = []
        for stmt in body:
            if isinstance(stmt, (P.YieldStmt, P.ReturnStmt)):
                steps.append((_TERMINATOR, stmt, None))
                break
            if isinstance(stmt, P.AssignStmt) and isinstance(stmt.value, P.Call):
                steps.append((_ASSIGN_CALL, stmt, self._fast_path(stmt.value, stmt.target)))
            elif isinstance(stmt, P.EvalStmt) and isinstance(stmt.value, P.Call):
                steps.append((_EVAL_CALL, stmt, self._fast_path(stmt.value, None)))
            else:
                steps.append((_OTHER, stmt, None))
        return steps

    def run_stmt(self, stmt: P.Stmt) -> None:
        if isinstance(stmt, P.AssignStmt):
            value = stmt.value
            if isinstance(value, P.Call):
                fast = self._fast_path(value, stmt.target)
                result = fast() if fast is not None else None
                self.env[stmt.target.name] = result if result is not None else self.eval_call(value, stmt.target)
            else:
                self.env[stmt.target.name] = self.eval(value)
        elif isinstance(stmt, P.EvalStmt):
            if not isinstance(stmt.value, P.Call):
                raise SimulationError("a PTO statement must be an instruction call", stmt.span)
            fast = self._fast_path(stmt.value, None)
            if fast is None or not fast():
                self.eval_call(stmt.value, None, stmt.span)
        elif isinstance(stmt, P.ForStmt):
            self.run_for(stmt)
        elif isinstance(stmt, P.IfStmt):
            self.run_if(stmt)
        else:
            raise SimulationError(f"unexpected {stmt.KIND} in the middle of a block", stmt.span)

    def run_for(self, stmt: P.ForStmt) -> None:
        start, stop, step = self.index(stmt.start), self.index(stmt.stop), self.index(stmt.step)
        if step <= 0:
            raise SimulationError(f"scf.for step must be positive, got {step}", stmt.span)
        carried = tuple(self.eval(it.init) for it in stmt.iter_args)
        for i in range(start, stop, step):
            self.env[stmt.loop_var.name] = i
            for it, value in zip(stmt.iter_args, carried):
                self.env[it.var.name] = value
            yielded = self.run_block(stmt.body)
            if stmt.iter_args:
                if yielded is None or len(yielded) != len(stmt.iter_args):
                    raise SimulationError("scf.for body must yield one value per iter_arg", stmt.span)
                carried = yielded
        self._bind_results(stmt.results, carried, stmt.span)

    def run_if(self, stmt: P.IfStmt) -> None:
        taken = stmt.then_body if self.scalar(stmt.cond) else stmt.else_body
        yielded = self.run_block(taken)
        self._bind_results(stmt.results, yielded or (), stmt.span)

    def _bind_results(self, results: tuple[P.Var, ...], values: tuple[Value, ...], span: Span) -> None:
        if len(results) != len(values):
            raise SimulationError(f"region yields {len(values)} values for {len(results)} results", span)
        for var, value in zip(results, values):
            self.env[var.name] = value

    def _fast_path(self, call: P.Call, target: P.Var | None) -> Callable[[], Any] | None:
        """The call site's fast path (`backend.sim.fast_paths`), built on its first run."""
        hit = self._fast.get(id(call))
        if hit is not None and hit[0] is call:
            return hit[1]
        fast = None
        semantics = SEMANTICS.get(call.op)
        if fast_paths.ENABLED and semantics:
            builder = fast_paths.BUILDERS.get(semantics[0])
            fast = builder(self, call, target) if builder is not None else None
        self._fast[id(call)] = (call, fast)
        return fast

    # -- calls ------------------------------------------------------------------------------

    def eval_call(self, call: P.Call, target: P.Var | None, span: Span = NO_SPAN) -> Value:
        where = call.span if call.span.known else span
        instr = _Instr(call.op, where)
        if call.op.startswith("arith."):
            return self.arith(call, instr)
        semantics = SEMANTICS.get(call.op)
        if semantics is None:
            raise instr.fail("the simulator does not implement this instruction")
        handler = _VALUE_OPS.get(semantics[0])
        if handler is not None:
            return handler(self, call, target, instr)
        action = _DPS_OPS.get(semantics[0])
        if action is None:
            raise instr.fail(f"no simulation for semantics {semantics[0]!r}")
        if not call.args:
            raise instr.fail("a destination-passing instruction needs an outs() operand")
        try:
            action(self, call, semantics, instr)
        except ArithmeticFault as fault:
            raise instr.fail(f"{fault.args[0]}", "check the divisor operand's values") from None
        except (NumericsError, ins.InstructionError) as err:
            raise instr.fail(str(err)) from None
        if target is not None:
            return self.eval(call.args[-1])
        return 0

    # -- arith ------------------------------------------------------------------------------

    def arith(self, call: P.Call, instr: _Instr) -> Value:
        if call.op == "arith.constant":
            return self.eval(call.args[0])
        if call.op in ("arith.cmpi", "arith.cmpf"):
            predicate = str(attr(call.attrs, "predicate"))
            if predicate not in _PREDICATES:
                raise instr.fail(f"unknown comparison predicate {predicate!r}")
            lhs, rhs = self.scalar(call.args[0]), self.scalar(call.args[1])
            if predicate in _UNSIGNED_PREDICATES:
                operand_dtype = _scalar_dtype(call.args[0])
                lhs, rhs = _as_unsigned(lhs, operand_dtype), _as_unsigned(rhs, operand_dtype)
            return bool(_PREDICATES[predicate](lhs, rhs))
        if call.op in SCALAR_CONVERSIONS:
            target, source = attr(call.attrs, "dtype"), _scalar_dtype(call.args[0])
            if not isinstance(target, DataType) or source is None:
                raise instr.fail(f"{call.op} needs a scalar operand and a target dtype")
            operand = self.scalar(call.args[0])
            if isinstance(operand, bool):
                raise instr.fail(f"{call.op} of a flag")
            return _convert_scalar(call.op, operand, source, target, instr)
        values = [self.scalar(a) for a in call.args]
        name = call.op.split(".", 1)[1]
        if name in _INT_ARITH:
            if name in ("floordivsi", "remsi", "divsi", "divui", "remui") and values[1] == 0:
                raise instr.fail(f"integer division by zero ({values[0]} / 0)")
            ty = _scalar_dtype(call.args[0])
            if name in ("divui", "remui"):
                values = [_as_unsigned(v, ty) for v in values]
            result = _INT_ARITH[name](*[int(v) for v in values])
            return _wrap_int(result, ty) if ty is not None else result
        if name in _FLOAT_ARITH:
            dtype = _scalar_dtype(call.args[0]) or DataType.FP32
            operands = [np.asarray(v, dtype=np.float64) for v in values]
            with np.errstate(all="ignore"):
                exact = _FLOAT_ARITH[name](*operands)
            return _float_scalar(float(exact), dtype)
        raise instr.fail("the simulator does not implement this arith op")

    # -- value-producing PTO ops ------------------------------------------------------------

    def make_tensor_view(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        pointer = call.args[0]
        if not isinstance(pointer, P.Var):
            raise instr.fail("the pointer operand must be a kernel parameter")
        tensor = self.lookup(pointer)
        if not isinstance(tensor, GmTensor):
            raise instr.fail(f"%{pointer.name} is not a tensor parameter")
        layout = str(attr(call.attrs, "layout", "nd"))
        if len(call.args) >= 3:
            tensor.set_view(self.indices(call.args[1]), self.indices(call.args[2]), layout)
        else:
            tensor.set_layout(layout)
        return TensorViewValue(tensor)

    def partition_view(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        view = self.eval(call.args[0])
        if not isinstance(view, TensorViewValue):
            raise instr.fail("the first operand must be a pto.make_tensor_view result")
        offsets = self.indices(call.args[1])
        known = self._partition_sizes.get(id(call))
        if len(call.args) > 2:  # runtime sizes (a runtime valid extent of the tile)
            sizes_t = self.indices(call.args[2])
        elif known is not None and known[0] is call:
            sizes_t = known[1]
        else:
            sizes = attr(call.attrs, "sizes")
            if not isinstance(sizes, tuple):
                if target is None or not isinstance(target.type, ViewType):
                    raise instr.fail("missing static sizes")
                sizes = target.type.shape
            sizes_t = tuple(int(s) for s in sizes)
            self._partition_sizes[id(call)] = (call, sizes_t)
        shape = view.tensor.shape
        if len(offsets) != len(shape) or len(sizes_t) != len(shape):
            raise instr.fail(f"offsets {list(offsets)} / sizes {list(sizes_t)} do not match the rank of "
                             f"tensor {view.tensor.name} {list(shape)}")
        for axis, (off, size, dim) in enumerate(zip(offsets, sizes_t, shape)):
            if off < 0 or off + size > dim:
                raise instr.fail(f"window offset {off} + size {size} leaves tensor {view.tensor.name} "
                                 f"axis {axis} of extent {dim}")
        return PartitionValue(view.tensor, offsets, sizes_t)

    def alloc_tile(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        if target is None or not isinstance(target.type, TileType):
            raise instr.fail("pto.alloc_tile must bind a tile-typed value")
        tile = target.type
        if tile.memref is None or tile.memory_space is None:
            raise instr.fail(f"%{target.name} has no memory space / address")
        address_arg, valid_args = alloc_operands(call)
        if address_arg is not None:
            # The printed `addr = %c..._i64` operand is what the hardware sees.
            address = self.index(cast(P.Expr, address_arg))
            tile = TileType(tile.shape, tile.dtype, tile.valid_shape, tile.memory_space, tile.view,
                            MemRef(tile.memref.name, tile.memref.space, address, tile.memref.size))
        assert tile.memref is not None and tile.memory_space is not None
        alignment = self.machine.handler.alignment(tile.memory_space)
        if tile.memref.offset % alignment:
            raise instr.fail(f"tile {target.name} in {tile.memory_space.name} at addr {tile.memref.offset} is "
                             f"not aligned to the space's {alignment}-byte boundary")
        handle = handle_for(target.name, tile)
        if valid_args:
            handle.valid = (self.index(cast(P.Expr, valid_args[0])), self.index(cast(P.Expr, valid_args[1])))
            if not (0 <= handle.valid[0] <= handle.shape[0] and 0 <= handle.valid[1] <= handle.shape[1]):
                raise instr.fail(f"initial valid shape {list(handle.valid)} outside {handle.describe()}")
        return handle

    def subview(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        source = self.handle(call.args[0], instr)
        offsets = self.indices(call.args[1])
        sizes, valid = attr(call.attrs, "sizes"), attr(call.attrs, "valid")
        if not isinstance(sizes, tuple) or len(sizes) != 2 or len(offsets) != 2:
            raise instr.fail("pto.subview needs 2-D offsets and sizes")
        shape = (int(sizes[0]), int(sizes[1]))
        valid_dims = (int(valid[0]), int(valid[1])) if isinstance(valid, tuple) and len(valid) == 2 else shape
        if len(call.args) > 2:  # runtime valid extents
            runtime = self.indices(call.args[2])
            if len(runtime) != 2 or not (0 <= runtime[0] <= shape[0] and 0 <= runtime[1] <= shape[1]):
                raise instr.fail(f"valid shape {list(runtime)} outside the window {list(shape)}")
            valid_dims = (runtime[0], runtime[1])
        origin = (source.origin[0] + offsets[0], source.origin[1] + offsets[1])
        if origin[0] + shape[0] > source.origin[0] + source.shape[0] or \
                origin[1] + shape[1] > source.origin[1] + source.shape[1]:
            raise instr.fail(f"window {list(shape)} at {list(offsets)} leaves {source.describe()}")
        name = target.name if target is not None else source.name
        return TileHandle(name, source.storage, shape, valid_dims, origin, source.buffer)

    def set_validshape(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        tile = self.handle(call.args[0], instr)
        rows, cols = self.index(call.args[1]), self.index(call.args[2])
        if not (0 <= rows <= tile.shape[0] and 0 <= cols <= tile.shape[1]):
            raise instr.fail(f"valid shape [{rows}, {cols}] outside {tile.describe()}")
        # The handle is mutated in place: every SSA name bound to it sees the new extent.
        tile.valid = (rows, cols)
        self._renamed.clear()
        return 0

    # -- cross-core FIFOs ---------------------------------------------------------------------

    def tpush(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        """TPUSH: the producer writes its valid rectangle into the FIFO slot at a valid_col row
        pitch; an Acc source is drained by FIXPIPE, which walks L0C at the compact pitch when
        the accumulator is compact (the machine's Acc reader does)."""
        if len(call.args) != 1:
            raise instr.fail("a push takes one tile")
        src = self.tile(call.args[0], instr)
        values = self.machine.read_tile(src, instr.op, instr.span)
        cross_core.push(SEMANTICS[call.op][1], FifoSlot(np.ascontiguousarray(values).reshape(-1), src.dtype,
                                                        src.valid, src.space is MemorySpace.Acc, src.name))
        return 0

    def tpop(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        """TPOP: the consumer reads its valid rectangle back from the slot at its own valid_col
        pitch into the buffer the pop binds; reading past what the producer wrote reads stale
        slot bytes (a poison read in checked mode)."""
        if target is None or not isinstance(target.type, TileType) or target.type.memref is None:
            raise instr.fail("a pop must bind a tile buffer")
        if target.type.memref.offset < 0:
            raise instr.fail(f"the popped tile %{target.name} has no address in the consumer's "
                             f"{target.type.memref.space.name}", "simulate the compiled program, not its .pto text "
                             "(the FIFO slot address is not printed)")
        dst = handle_for(target.name, target.type)
        slot = cross_core.pop(SEMANTICS[call.op][1])
        if not isinstance(slot, FifoSlot):
            raise instr.fail("the FIFO holds no tile")
        rows, cols = dst.valid
        flat = np.arange(rows * cols).reshape(rows, cols)
        if flat.size and int(flat.max()) >= slot.values.size:
            if self.machine.checked:
                raise PoisonRead(instr.op, target.name, tuple(int(i) for i in np.unravel_index(
                    slot.values.size, (rows, cols))), instr.span, f"FIFO slot pushed from {slot.source}")
            stale = np.full((flat.size - slot.values.size) * slot.values.itemsize, numerics.POISON_BYTE, np.uint8)
            padded = np.concatenate([slot.values, stale.view(slot.values.dtype)])
            values = padded[flat]
        else:
            values = slot.values[flat]
        if slot.dtype is not dst.dtype:
            values = ins.convert_move(values, slot.dtype.name, dst.dtype.name, slot.from_acc)
        self.machine.write_tile(dst, values, instr.op, instr.span)
        self._held_slots.setdefault(SEMANTICS[call.op][1], []).append(target.type.memref)
        return dst

    # -- data movement ----------------------------------------------------------------------

    def dps_operands(self, call: P.Call, instr: _Instr, count: int) -> tuple[list[P.Expr], P.Expr]:
        *inputs, out = call.args
        if len(inputs) < count:
            raise instr.fail(f"expected at least {count} ins() operands, got {len(inputs)}")
        return inputs, out

    def partition(self, expr: P.Expr, instr: _Instr) -> PartitionValue:
        value = self.eval(expr)
        if not isinstance(value, PartitionValue):
            raise instr.fail(f"operand {_name(expr)} is not a pto.partition_view")
        return value

    @staticmethod
    def window_index(part: PartitionValue, region: tuple[int, int], instr: _Instr) -> tuple[Array, ...]:
        """Multi-indices of the top-left `region` of a partition seen as 2-D [prod(lead), last]."""
        sizes = part.sizes if part.sizes else (1,)
        rows = int(np.prod(sizes[:-1], dtype=np.int64)) if len(sizes) > 1 else 1
        cols = sizes[-1]
        if region[0] > rows or region[1] > cols:
            raise instr.fail(f"tile valid region {list(region)} exceeds the partition window "
                             f"{list(part.sizes)} of tensor {part.tensor.name}")
        grid = np.indices(sizes).reshape(len(sizes), rows, cols)[:, : region[0], : region[1]]
        return tuple(grid[axis] + part.offsets[axis] for axis in range(len(sizes)))

    @staticmethod
    def _block_start(part: PartitionValue, region: tuple[int, int], instr: _Instr) -> tuple[int, int] | None:
        """Where the top-left `region` of a 1-D / 2-D partition starts in its tensor (None for
        other ranks, which go element by element)."""
        if len(part.sizes) != len(part.tensor.shape) or len(part.sizes) not in (1, 2):
            return None
        rows, cols = (1, part.sizes[0]) if len(part.sizes) == 1 else part.sizes
        if region[0] > rows or region[1] > cols:
            raise instr.fail(f"tile valid region {list(region)} exceeds the partition window "
                             f"{list(part.sizes)} of tensor {part.tensor.name}")
        return (0, part.offsets[0]) if len(part.sizes) == 1 else (part.offsets[0], part.offsets[1])

    def read_window(self, part: PartitionValue, region: tuple[int, int], instr: _Instr, check: bool = True) -> Array:
        """The top-left `region` of a partition: whole-window views where the rank allows."""
        start = self._block_start(part, region, instr)
        if start is not None:
            window = self.machine.read_gm_block(part.tensor, start, region, instr.op, instr.span, check)
            if window is not None:
                return window
        index = self.window_index(part, region, instr)
        return self.machine.read_gm(part.tensor, index, instr.op, instr.span, check)

    def write_window(self, part: PartitionValue, region: tuple[int, int], values: Array, instr: _Instr) -> None:
        start = self._block_start(part, region, instr)
        if start is not None and self.machine.write_gm_block(part.tensor, start, values.reshape(region)):
            return
        index = self.window_index(part, region, instr)
        self.machine.write_gm(part.tensor, index, values, instr.op, instr.span)

    def load(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        part, tile = self.partition(inputs[0], instr), self.tile(out, instr)
        if part.tensor.dtype is not tile.dtype and not _signless_pair(part.tensor.dtype, tile.dtype):
            raise instr.fail(f"tensor {part.tensor.name} is {part.tensor.dtype.name} but the tile is "
                             f"{tile.dtype.name}", "insert a pto.tcvt after the load")
        if tile.view.pad == "null":
            # GM bytes straight into the tile's bytes where both are blocks (the general path
            # below reports a poisoned source and handles the other shapes).
            start = self._block_start(part, tile.valid, instr)
            if start is not None and self.machine.load_block(part.tensor, start, tile, instr.op, instr.span):
                return
        window = self.read_window(part, tile.valid, instr)
        if part.tensor.dtype is not tile.dtype:  # signless GM integers: the tile reads the bits
            window = np.ascontiguousarray(window).view(numerics.np_dtype(tile.dtype.name))
        if tile.view.pad == "null":
            # A null pad leaves the bytes outside the valid region as they were (poison if new).
            self.machine.write_tile(tile, window, instr.op, instr.span)
        else:
            filled = ins.tload(window, tile.shape, _dtype(tile), tile.view.pad)
            self.machine.write_tile(tile, filled, instr.op, instr.span)

    def store(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        tile, part = self.tile(inputs[0], instr), self.partition(out, instr)
        from_acc = tile.space is MemorySpace.Acc
        values = self.machine.read_tile(tile, instr.op, instr.span)
        if _signless_pair(part.tensor.dtype, tile.dtype):  # a uiN tile into signless iN GM: the bits
            converted = np.ascontiguousarray(values).view(numerics.np_dtype(part.tensor.dtype.name))
        else:
            converted = ins.tstore(values, _dtype(tile), part.tensor.dtype.name, from_acc)
        if attr(call.attrs, "atomicType", "atomic_none") == "atomic_add":
            # TSTORE atomic add: GM += the stored values (RNE in the tensor's dtype).
            # An Out parameter's earlier value is what an atomic store accumulates into.
            current = self.read_window(part, tile.valid, instr, check=not part.tensor.prior)
            converted = numerics.binary("add", current, converted, part.tensor.dtype.name)
        self.write_window(part, tile.valid, converted, instr)

    def read_source(self, src: TileHandle, region: tuple[int, int], instr: _Instr, dst: TileHandle,
                    origin: tuple[int, int] = (0, 0)) -> Array:
        """Read a move's source; Acc -> Mat readers (TMovCcToCb, TExtractAccToMat) have no compact
        branch in PTO-ISA, so they walk L0C at the physical Rows pitch."""
        pitch = None
        if src.space is MemorySpace.Acc and dst.space is MemorySpace.Mat:
            pitch = src.storage.shape[0]
        return self.machine.read_tile(src, instr.op, instr.span, region, origin, pitch)

    def move(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        handler = self.machine.handler
        if src.space is not dst.space and not handler.can_move(src.space, dst.space):
            # pto-isa's TMOV has no branch for the pair: the hardware would copy nothing.
            raise instr.fail(f"pto.tmov from {src.space.name} to {dst.space.name}: {handler.name} has no "
                             f"{src.space.name} → {dst.space.name} data path")
        if src.space is not MemorySpace.Acc and self.machine.move_block(src, dst.valid, dst, instr.op, instr.span):
            return  # same dtype, both blocks: a byte move (FIXPIPE out of Acc goes the long way)
        values = self.read_source(src, dst.valid, instr, dst)
        converted = ins.tmov(values, _dtype(src), _dtype(dst), src.space is MemorySpace.Acc)
        self.machine.write_tile(dst, converted, instr.op, instr.span)

    def extract(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 3)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        row, col = self.index(inputs[1]), self.index(inputs[2])
        if row + dst.valid[0] > src.shape[0] or col + dst.valid[1] > src.shape[1]:
            raise instr.fail(f"window {list(dst.valid)} at [{row}, {col}] leaves source {src.describe()}")
        if src.space is not MemorySpace.Acc and self.machine.move_block(src, dst.valid, dst, instr.op, instr.span,
                                                                      origin=(row, col)):
            return
        values = self.read_source(src, dst.valid, instr, dst, (row, col))
        converted = ins.convert_move(values, _dtype(src), _dtype(dst), src.space is MemorySpace.Acc)
        self.machine.write_tile(dst, converted, instr.op, instr.span)

    def assemble(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 3)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        row, col = self.index(inputs[1]), self.index(inputs[2])
        values = self.machine.read_tile(src, instr.op, instr.span)
        converted = ins.convert_move(values, _dtype(src), _dtype(dst), src.space is MemorySpace.Acc)
        self.machine.write_tile(dst, converted, instr.op, instr.span, origin=(row, col))

    def transpose(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        rows, cols = dst.valid
        values = self.machine.read_tile(src, instr.op, instr.span, (cols, rows))
        self.machine.write_tile(dst, ins.ttrans(values), instr.op, instr.span)

    def reshape(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        # Metadata only: the destination reads the same bytes under a new shape.  A distinct
        # destination buffer gets a byte copy (with its written map), never a re-layout.
        inputs, out = self.dps_operands(call, instr, 1)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        if src.storage.memref is None or dst.storage.memref is None:
            raise instr.fail("both tiles need an address")
        if src.space is not dst.space or src.storage.nbytes != dst.storage.nbytes:
            raise instr.fail(f"cannot reshape {src.describe()} into {dst.describe()}: the byte size or "
                             "memory space differs")
        start, target = src.storage.memref.offset, dst.storage.memref.offset
        size = src.storage.nbytes
        if start != target:
            memory, written = self.machine.memory[src.space], self.machine.written[src.space]
            memory[target:target + size] = memory[start:start + size].copy()
            written[target:target + size] = written[start:start + size].copy()
            self.machine.forget_written(src.space)

    def full(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        dst = self.tile(out, instr)
        values = ins.texpands(self.scalar(inputs[0]), dst.valid, _dtype(dst))
        self.machine.write_tile(dst, values, instr.op, instr.span)

    def fillpad(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        values = self.machine.read_tile(src, instr.op, instr.span)
        filled = ins.tload(values, dst.shape, _dtype(dst), dst.view.pad)
        self.machine.write_tile(dst, filled if dst.view.pad != "null" else values, instr.op, instr.span)

    # -- cube -------------------------------------------------------------------------------

    def matmul(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        kind = semantics[0]
        inputs, out = self.dps_operands(call, instr, 3 if kind == "matmul_acc" else 2)
        first = 1 if kind == "matmul_acc" else 0
        lhs, rhs = self.tile(inputs[first], instr), self.tile(inputs[first + 1], instr)
        dst = self.tile(out, instr)
        self._check_cube_spaces(lhs, rhs, dst, instr)
        m, k = lhs.valid
        n = rhs.valid[1]
        if rhs.valid[0] < k:
            raise instr.fail(f"Right {rhs.describe()} has {rhs.valid[0]} valid rows, fewer than Left's K = {k}")
        a = self.machine.read_tile(lhs, instr.op, instr.span)
        b = self.machine.read_tile(rhs, instr.op, instr.span, (k, n))
        in_dtype = _dtype(lhs)
        if _dtype(rhs) != in_dtype:
            raise instr.fail(f"Left is {in_dtype} but Right is {_dtype(rhs)}")
        pitch = _round_up(m, _MAD_ROW_BOX)
        if kind == "matmul":
            result = ins.tmatmul(a, b, in_dtype)
        elif kind == "matmul_acc":
            acc_in = self.tile(inputs[0], instr)
            start = self.machine.read_tile(acc_in, instr.op, instr.span, (m, n), pitch=pitch)
            result = ins.tmatmul_acc(start, a, b, in_dtype)
        else:
            bias = self.tile(inputs[2], instr)
            bias_row = self.machine.read_tile(bias, instr.op, instr.span, (1, n))
            result = ins.tmatmul_bias(a, b, bias_row, in_dtype)
        if np.dtype(result.dtype) != numerics.np_dtype(_dtype(dst)):
            raise instr.fail(f"the accumulator {dst.describe()} must be {numerics.dtype_name_of(result)}")
        self.machine.write_tile(dst, result, instr.op, instr.span, pitch=pitch)

    @staticmethod
    def _check_cube_spaces(lhs: TileHandle, rhs: TileHandle, dst: TileHandle, instr: _Instr) -> None:
        expected = ((lhs, MemorySpace.Left, "lhs"), (rhs, MemorySpace.Right, "rhs"), (dst, MemorySpace.Acc, "acc"))
        for tile, space, role in expected:
            if tile.space is not space:
                raise instr.fail(f"{role} {tile.describe()} must be in {space.name}")

    # -- vector -----------------------------------------------------------------------------

    def elementwise(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        kind, meaning = semantics[0], (semantics[1] if len(semantics) > 1 else "")
        inputs, out = self.dps_operands(call, instr, _ARITY[kind])
        dst = self.tile(out, instr)
        region = dst.valid
        dtype = _dtype(dst)

        def read(expr: P.Expr, shape: tuple[int, int] = region) -> Array:
            return self.machine.read_tile(self.tile(expr, instr), instr.op, instr.span, shape)

        result: Array
        if kind == "binary":
            result = ins.tbinary(meaning, read(inputs[0]), read(inputs[1]), dtype)
        elif kind == "scalar_binary":
            result = ins.tscalar(meaning, read(inputs[0]), self.scalar(inputs[1]), dtype)
        elif kind == "unary":
            result = ins.tunary(meaning, read(inputs[0]), dtype)
        elif kind == "fused":
            second: Array | float | int = (self.scalar(inputs[1]) if meaning in ("addsc", "subsc")
                                           else read(inputs[1]))
            result = ins.tfused(meaning, read(inputs[0]), second, read(inputs[2]), dtype)
        elif kind == "row_expand":
            result = ins.trow_expand_op(meaning, read(inputs[0]), read(inputs[1], (region[0], 1)), dtype)
        elif kind == "col_expand":
            result = ins.tcol_expand_op(meaning, read(inputs[0]), read(inputs[1], (1, region[1])), dtype)
        elif kind == "row_broadcast":
            result = ins.trow_expand(np.empty(region), read(inputs[0], (region[0], 1)))
        else:  # col_broadcast
            result = ins.tcol_expand(np.empty(region), read(inputs[0], (1, region[1])))
        self.machine.write_tile(dst, result, instr.op, instr.span)

    def reduce(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        values = self.machine.read_tile(src, instr.op, instr.span)
        if semantics[0] == "reduce_row":
            result = ins.trow_reduce(semantics[1], values, _dtype(dst))
        else:
            result = ins.tcol_reduce(semantics[1], values, _dtype(dst))
        self.machine.write_tile(dst, result, instr.op, instr.span)

    def convert(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        mode = str(attr(call.attrs, "rmode", "round"))
        values = self.machine.read_tile(src, instr.op, instr.span, dst.valid)
        self.machine.write_tile(dst, ins.tcvt(values, _dtype(src), _dtype(dst), mode), instr.op, instr.span)

    # -- the catalog families ------------------------------------------------------------------

    def _read(self, expr: P.Expr, instr: _Instr, region: tuple[int, int] | None = None) -> Array:
        return self.machine.read_tile(self.tile(expr, instr), instr.op, instr.span, region)

    def compare(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        """TCMP / TCMPS (pto-isa a2a3 / a5 TCmp.hpp, TCmps.hpp): for each valid row of the first
        operand, whole store granules of mask bytes (`BackendHandler.compare_mask_row_bytes`;
        on a2a3 an NE compare also inverts every byte of the valid rows). Of those bytes only
        the packed bits of the compared columns are defined; the rest hold poison and count as
        unwritten (a read of them is a poison read), and no other byte of the mask is touched
        (nothing zeroes it)."""
        inputs, out = self.dps_operands(call, instr, 2)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        lhs = self.machine.read_tile(src, instr.op, instr.span)
        other = self.operand_value(inputs[1], instr, src.valid)
        mode = str(attr(call.attrs, "cmpMode", "eq"))
        bits = numerics.compare(mode, lhs, other, _dtype(src))
        words = numerics.packed_mask_words(bits, _dtype(dst))
        if words.shape[0] > dst.shape[0] or words.shape[1] > dst.shape[1]:
            raise instr.fail(f"{instr.op}: mask {dst.describe()} cannot hold the bits of a {list(src.valid)} compare")
        self._poison_compare_footprint(dst, src, mode, instr)
        self.machine.write_tile(dst, words, instr.op, instr.span)

    def _poison_compare_footprint(self, dst: TileHandle, src: TileHandle, mode: str, instr: _Instr) -> None:
        """The bytes TCMP / TCMPS store into `dst`, before its defined words are written: poison."""
        handler = self.machine.handler
        rows, cols = src.valid
        width = dst.dtype.byte_width
        footprint = handler.compare_mask_row_bytes(src.dtype.byte_width, cols)
        if mode == "ne" and handler.compare_ne_inverts_valid_rows:
            footprint = max(footprint, int(dst.storage.shape[-1]) * width)
        starts = self.machine.tile_offsets(dst, (rows, 1), instr.op, instr.span).reshape(-1) * width
        capacity = handler.capacity(dst.space)
        for start in starts.tolist():
            self.machine.release_bytes(dst.space, int(start), min(footprint, capacity - int(start)))

    def operand_value(self, expr: P.Expr, instr: _Instr, region: tuple[int, int]) -> Array | ScalarValue:
        """A tile operand's `region`, or a scalar operand's value."""
        value = self.eval(expr)
        if isinstance(value, TileHandle):
            return self.machine.read_tile(self.tile(expr, instr), instr.op, instr.span, region)
        return self.scalar(expr)

    def select(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        """TSEL (mask, a, b, tmp) / TSELS (mask, src, tmp, scalar): per element, the mask bit
        of its row and column picks the first value or the second."""
        inputs, out = self.dps_operands(call, instr, 4 if call.op == "pto.tsel" else 3)
        dst = self.tile(out, instr)
        rows, cols = dst.valid
        mask = self.tile(inputs[0], instr)
        width = 8 * mask.dtype.byte_width
        words = -(-cols // width)
        bits = numerics.unpack_mask(self.machine.read_tile(mask, instr.op, instr.span, (rows, words)), rows, cols)
        first = self._read(inputs[1], instr, dst.valid)
        second: Array | ScalarValue = (self._read(inputs[2], instr, dst.valid) if call.op == "pto.tsel"
                                       else self.scalar(inputs[3]))
        self.machine.write_tile(dst, numerics.select(bits, first, second, _dtype(dst)), instr.op, instr.span)

    def prelu(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 2)
        dst = self.tile(out, instr)
        slope = self.operand_value(inputs[1], instr, dst.valid)
        result = numerics.prelu(self._read(inputs[0], instr, dst.valid), slope, _dtype(dst))
        self.machine.write_tile(dst, result, instr.op, instr.span)

    def partial(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 2)
        dst = self.tile(out, instr)
        a, b = self._read(inputs[0], instr), self._read(inputs[1], instr)
        result = numerics.partial(semantics[1], a, b, dst.valid, _dtype(dst))
        self.machine.write_tile(dst, result, instr.op, instr.span)

    def sequence(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 1)
        dst = self.tile(out, instr)
        start = int(self.scalar(inputs[0]))
        if semantics[0] == "ci":
            row = numerics.sequence(start, dst.valid[1], bool(attr(call.attrs, "descending", False)), _dtype(dst))
            values = np.broadcast_to(row, dst.valid)
        else:
            values = numerics.triangle(*dst.valid, start, bool(attr(call.attrs, "upperOrLower", 0)), _dtype(dst))
        self.machine.write_tile(dst, values, instr.op, instr.span)

    def random(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        """TRANDOM: Philox words of the counter, as the Ascend950 vector unit lays them out."""
        inputs, out = self.dps_operands(call, instr, 6)
        dst = self.tile(out, instr)
        words = [int(self.scalar(a)) for a in inputs]
        rounds = attr(call.attrs, "rounds", 10)
        values = numerics.trandom(*dst.valid, (words[0], words[1]), (words[2], words[3], words[4], words[5]),
                                  int(rounds) if isinstance(rounds, int) else 10, _dtype(dst))
        self.machine.write_tile(dst, values, instr.op, instr.span)

    def expdif(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 2)
        dst = self.tile(out, instr)
        rows, cols = dst.valid
        x = self._read(inputs[0], instr, dst.valid)
        if semantics[0] == "row_expdif":
            other = ins.trow_expand(x, self._read(inputs[1], instr, (rows, 1)))
        else:
            other = ins.tcol_expand(x, self._read(inputs[1], instr, (1, cols)))
        self.machine.write_tile(dst, numerics.expdif(x, other, _dtype(dst)), instr.op, instr.span)

    def concat(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        """TCONCAT: each row of a's valid columns, then b's."""
        inputs, out = self.dps_operands(call, instr, 2)
        dst = self.tile(out, instr)
        a, b = self._read(inputs[0], instr), self._read(inputs[1], instr)
        self.machine.write_tile(dst, np.concatenate([a, b], axis=1), instr.op, instr.span)

    # -- scalar access and SPMD identity ----------------------------------------------------

    def gm_element(self, pointer: P.Expr, offset: int, instr: _Instr) -> tuple[GmTensor, tuple[Array, ...]]:
        """The logical index of the element `offset` elements past a tensor parameter's base."""
        tensor = self.eval(pointer)
        if not isinstance(tensor, GmTensor):
            raise instr.fail(f"operand {_name(pointer)} is not a tensor parameter")
        count = int(np.prod(tensor.shape)) if tensor.shape else 1
        if tensor.strides is not None:
            return tensor, tuple(np.array([i]) for i in self._strided_index(tensor, offset, instr))
        if not 0 <= offset < count:
            raise instr.fail(f"element offset {offset} leaves tensor {tensor.name} of {count} elements")
        if tensor.layout == "dn" and len(tensor.shape) == 2:
            index: tuple[int, ...] = (offset % tensor.shape[0], offset // tensor.shape[0])
        else:
            index = tuple(int(i) for i in np.unravel_index(offset, tensor.shape))
        return tensor, tuple(np.array([i]) for i in index)

    @staticmethod
    def _strided_index(tensor: GmTensor, offset: int, instr: _Instr) -> tuple[int, ...]:
        """The logical index of element `offset` of a tensor addressed at explicit (pitched
        row-major) strides, as a window of a wider tensor is; an offset between its rows or past
        its last element is no element of it."""
        assert tensor.strides is not None
        index, rest = [], offset
        for stride, dim in zip(tensor.strides, tensor.shape):
            step = max(stride, 1)
            index.append(rest // step if offset >= 0 else -1)
            rest = rest % step
        if offset < 0 or rest or any(not 0 <= i < d for i, d in zip(index, tensor.shape)):
            raise instr.fail(f"element offset {offset} is no element of tensor {tensor.name} {list(tensor.shape)} "
                             f"at strides {list(tensor.strides)}")
        return tuple(index)

    def load_scalar(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        tensor, index = self.gm_element(call.args[0], self.index(call.args[1]), instr)
        element = self.machine.read_gm(tensor, index, instr.op, instr.span)[0]
        return _scalar_value(element, tensor.dtype)

    def store_scalar(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        value = self.scalar(call.args[0])
        tensor, index = self.gm_element(call.args[1], self.index(call.args[2]), instr)
        converted = numerics.convert_scalar(value, tensor.dtype.name).reshape(1)
        self.machine.write_gm(tensor, index, converted, instr.op, instr.span)
        return 0

    def tile_element(self, tile: TileHandle, offset: int, instr: _Instr) -> tuple[int, int]:
        rows, cols = tile.shape
        if not 0 <= offset < rows * cols:
            raise instr.fail(f"element offset {offset} leaves {tile.describe()}")
        return offset // cols, offset % cols

    def tgetval(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        tile = self.tile(call.args[0], instr)
        origin = self.tile_element(tile, self.index(call.args[1]), instr)
        element = self.machine.read_tile(tile, instr.op, instr.span, (1, 1), origin=origin)[0, 0]
        return _scalar_value(element, tile.dtype)

    def tsetval(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 2)
        tile = self.tile(out, instr)
        origin = self.tile_element(tile, self.index(inputs[0]), instr)
        value = numerics.convert_scalar(self.scalar(inputs[1]), _dtype(tile)).reshape(1, 1)
        self.machine.write_tile(tile, value, instr.op, instr.span, origin=origin)

    def view_dim(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        view = self.eval(call.args[0])
        if not isinstance(view, TensorViewValue):
            raise instr.fail("the first operand must be a pto.make_tensor_view result")
        return int(view.tensor.shape[self.index(call.args[1])])

    def spmd(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        """The block / lane of the instance running (the host's launch of this kernel)."""
        return self.launch.identity(SEMANTICS[call.op][1])

    def barrier(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        """A barrier orders traffic between pipes and cores; one block on one lane sees none of
        its pipes' (they run in program order here), but an all-core one (a mix syncall) in a
        Group launch holds this core until the other has arrived (cross_core.barrier)."""
        if call.op == "pto.syncall" and len(syncall_participants(call.attrs)) > 1:
            cross_core.barrier()
        return 0

    # -- sorting, gathers and scatters --------------------------------------------------------

    def sort32(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 2)
        src, idx, dst = self.tile(inputs[0], instr), self.tile(inputs[1], instr), self.tile(out, instr)
        scores = self.machine.read_tile(src, instr.op, instr.span)
        indices = self.machine.read_tile(idx, instr.op, instr.span, src.valid)
        self.machine.write_tile(dst, numerics.sort32(scores, indices, _dtype(src)), instr.op, instr.span)

    def mrgsort(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        """TMRGSORT: format 1 is (src, block_len, dst); format 2 is (src0..srcN, tmp, dst,
        executed counts). Format 1 leaves the columns after its last whole group unwritten."""
        last = call.args[-1]
        if isinstance(getattr(last, "type", None), ViewType):
            *sources, _tmp, out, _counts = call.args
            dst = self.tile(out, instr)
            rows = [self.machine.read_tile(self.tile(s, instr), instr.op, instr.span)[0] for s in sources]
            merged, _ = numerics.mrgsort_format2(rows, dst.valid[1], bool(attr(call.attrs, "exhausted", False)),
                                                 _dtype(dst))
            self.machine.write_tile(dst, merged.reshape(1, -1), instr.op, instr.span)
            return 0
        src_expr, block_expr, out = call.args
        src, dst = self.tile(src_expr, instr), self.tile(out, instr)
        row = self.machine.read_tile(src, instr.op, instr.span, (1, dst.valid[1]))[0]
        merged, written = numerics.mrgsort_format1(row, self.index(block_expr), dst.valid[1], _dtype(dst))
        if written:
            self.machine.write_tile(dst, merged[:written].reshape(1, -1), instr.op, instr.span)
        return 0

    def gather(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        """TGATHER: the index form reads the source's whole buffer flat (an index outside it
        reads 0); the mask form compacts the marked columns."""
        pattern = attr(call.attrs, "maskPattern")
        inputs, out = self.dps_operands(call, instr, 1)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        if pattern is not None:
            number = next(k for k, (name, _) in MASK_PATTERNS.items() if name == pattern)
            values = self.machine.read_tile(src, instr.op, instr.span)
            picked = np.ascontiguousarray(values[:, numerics.mask_pattern_columns(number, src.valid[1])])
            self.machine.write_tile(dst, picked.view(numerics.np_dtype(_dtype(dst))), instr.op, instr.span)
            return
        indices = self._read(inputs[1], instr, dst.valid)
        # Only the elements an index reaches are read: the buffer's row padding (poisoned) is
        # consumed as data only if an index points into it.
        rows, cols = src.shape
        flat = np.unique(np.asarray(indices).astype(np.int64).reshape(-1))
        for target in flat[(flat >= 0) & (flat < rows * cols)]:
            self.machine.read_tile(src, instr.op, instr.span, (1, 1), (int(target) // cols, int(target) % cols))
        checked, self.machine.checked = self.machine.checked, False
        try:
            whole = self.machine.read_tile(src, instr.op, instr.span, src.shape)
        finally:
            self.machine.checked = checked
        self.machine.write_tile(dst, numerics.gather_flat(whole, indices), instr.op, instr.span)

    def gatherb(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 2)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        per_block = 32 // dst.dtype.byte_width
        offsets = self._read(inputs[1], instr, (dst.valid[0], dst.valid[1] // per_block)).astype(np.int64)
        raw = np.ascontiguousarray(self.machine.read_tile(src, instr.op, instr.span, src.shape)).view(np.uint8).reshape(-1)
        for r in range(offsets.shape[0]):
            for c in range(offsets.shape[1]):
                start = int(offsets[r, c])
                if start + 32 <= raw.size:
                    block = raw[start:start + 32].view(numerics.np_dtype(_dtype(dst))).reshape(1, -1)
                    self.machine.write_tile(dst, block, instr.op, instr.span, origin=(r, c * per_block))

    def scatter(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        """TSCATTER (index form): dst.flat[indexes] = src over the destination's whole buffer."""
        inputs, out = self.dps_operands(call, instr, 2)
        src, dst = self.tile(inputs[0], instr), self.tile(out, instr)
        values = self.machine.read_tile(src, instr.op, instr.span)
        indices = self._read(inputs[1], instr, src.valid).astype(np.int64)
        rows, cols = dst.shape
        for (i, j), target in np.ndenumerate(indices):
            if not 0 <= target < rows * cols:
                raise instr.fail(f"index {int(target)} at [{i}, {j}] outside the {rows * cols} elements of "
                                 f"{dst.describe()}")
            self.machine.write_tile(dst, values[i:i + 1, j:j + 1], instr.op, instr.span,
                                    origin=(int(target) // cols, int(target) % cols))

    def mgather(self, call: P.Call, semantics: tuple[str, ...], instr: _Instr) -> None:
        inputs, out = self.dps_operands(call, instr, 2)
        part, dst = self.partition(inputs[0], instr), self.tile(out, instr)
        idx = self.tile(inputs[1], instr)
        rows_index = self.machine.read_tile(idx, instr.op, instr.span).astype(np.int64).reshape(-1)
        tensor = part.tensor
        cols = dst.valid[1]
        count = int(tensor.shape[0])
        mode = attr(call.attrs, "gatherOob") or "undefined"  # PTO's gatherOob: clamp / wrap / zero
        for r, row in enumerate(rows_index[:dst.valid[0]]):
            row = int(row)
            if not 0 <= row < count:
                if mode == "clamp":
                    row = min(max(row, 0), count - 1)
                elif mode == "wrap":
                    row %= count
                elif mode == "zero":
                    self.machine.write_tile(dst, np.zeros((1, cols), dtype=np_dtype_of(dst.dtype)),
                                            instr.op, instr.span, origin=(r, 0))
                    continue
                else:
                    raise instr.fail(f"row index {row} outside the {count} rows of {tensor.name}")
            index = (np.full(cols, row), np.arange(cols))
            values = self.machine.read_gm(tensor, index, instr.op, instr.span)
            self.machine.write_tile(dst, values.reshape(1, -1), instr.op, instr.span, origin=(r, 0))

    # -- the cross-core pipe --------------------------------------------------------------------

    def pipe_buffer(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        """reserve_buffer / import_reserved_buffer: the region's address (0 when PTOAS places it)."""
        base = attr(call.attrs, "base")
        return base if isinstance(base, int) and base >= 0 else 0

    def pipe_init(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        """initialize_pipe: each direction of dir_mask gets slot_num slots."""
        cross_core.configure_pipe(attr(call.attrs, "dir_mask", 0), attr(call.attrs, "slot_num", 0))
        return 0

    def tfree(self, call: P.Call, target: P.Var | None, instr: _Instr) -> Value:
        """TFREE: the oldest held slot goes back to the producer. Its bytes become unwritten
        (poison), as the producer's next push may replace them at any time: a read of the popped
        tile or of a view of it after the free is a poison read, not a silent stale value."""
        fifo = SEMANTICS[call.op][1]
        try:
            cross_core.free(fifo)
        except cross_core.CrossCoreError as err:
            raise instr.fail(err.message) from None
        held = self._held_slots.get(fifo)
        if held:
            slot = held.pop(0)
            self.machine.release_bytes(slot.space, slot.offset, slot.size)
        return 0


def _scalar_value(element: Any, dtype: DataType) -> ScalarValue:
    if dtype.is_float:
        return _float_scalar(float(numerics.widen_to_float64(np.asarray(element), dtype.name)), dtype)
    if dtype is DataType.BOOL:
        return bool(element)
    return int(element)


def _arity_table() -> dict[str, int]:
    return {"binary": 2, "scalar_binary": 2, "unary": 1, "fused": 3, "row_expand": 2, "col_expand": 2,
            "row_broadcast": 1, "col_broadcast": 1}


_ARITY: Final = _arity_table()

_ValueOp = Callable[[Executor, P.Call, "P.Var | None", _Instr], Value]
_DpsOp = Callable[[Executor, P.Call, tuple[str, ...], _Instr], None]

_VALUE_OPS: Final[dict[str, _ValueOp]] = {
    "tensor_view": Executor.make_tensor_view,
    "partition_view": Executor.partition_view,
    "alloc": Executor.alloc_tile,
    "slice": Executor.subview,
    "set_validshape": Executor.set_validshape,
    "tpush": Executor.tpush,
    "tpop": Executor.tpop,
    "load_scalar": Executor.load_scalar,
    "store_scalar": Executor.store_scalar,
    "tgetval": Executor.tgetval,
    "view_dim": Executor.view_dim,
    "spmd": Executor.spmd,
    "barrier": Executor.barrier,
    "mrgsort": Executor.mrgsort,
    "pipe_buffer": Executor.pipe_buffer,
    "pipe_init": Executor.pipe_init,
    "tfree": Executor.tfree,
}

_DPS_OPS: Final[dict[str, _DpsOp]] = {
    "load": Executor.load,
    "store": Executor.store,
    "move": Executor.move,
    "extract": Executor.extract,
    "assemble": Executor.assemble,
    "transpose": Executor.transpose,
    "reshape": Executor.reshape,
    "full": Executor.full,
    "fillpad": Executor.fillpad,
    "matmul": Executor.matmul,
    "matmul_acc": Executor.matmul,
    "matmul_bias": Executor.matmul,
    "cast": Executor.convert,
    "reduce_row": Executor.reduce,
    "reduce_col": Executor.reduce,
    "compare": Executor.compare,
    "select": Executor.select,
    "prelu": Executor.prelu,
    "partial": Executor.partial,
    "ci": Executor.sequence,
    "tri": Executor.sequence,
    "random": Executor.random,
    "row_expdif": Executor.expdif,
    "col_expdif": Executor.expdif,
    "concat": Executor.concat,
    "tsetval": Executor.tsetval,
    "sort32": Executor.sort32,
    "gather": Executor.gather,
    "gatherb": Executor.gatherb,
    "scatter": Executor.scatter,
    "mgather": Executor.mgather,
    **{kind: Executor.elementwise for kind in _ARITY},
}


# -- scalar helpers --------------------------------------------------------------------------------


def _name(expr: P.Expr) -> str:
    return f"%{expr.name}" if isinstance(expr, P.Var) else expr.KIND


def _scalar_dtype(expr: P.Expr) -> DataType | None:
    ty = getattr(expr, "type", None)
    if isinstance(ty, ScalarType):
        return ty.dtype
    dtype = getattr(expr, "dtype", None)
    return dtype if isinstance(dtype, DataType) else None


_UNSIGNED_PREDICATES: Final = frozenset({"ult", "ule", "ugt", "uge"})


def _signless_pair(gm: DataType, tile: DataType) -> bool:
    """Whether a GM tensor of `gm` elements and a tile of `tile` elements hold the same integers
    up to signedness: the PTO text spells GM integers signless (`!pto.ptr<i16>`), the tile says
    how to read them (`dtype=ui16`), and a load or store between them copies the bits."""
    return gm is not tile and gm.is_int and tile.is_int and gm.bits == tile.bits \
        and DataType.BOOL not in (gm, tile) and DataType.INDEX not in (gm, tile)


# How each integer-reading conversion reads its signless operand: as signed (sign-extending
# ones) or unsigned of the operand's width; and which conversions write an unsigned value.
_READS_SIGNED: Final = frozenset({"arith.extsi", "arith.sitofp", "arith.index_cast"})
_READS_UNSIGNED: Final = frozenset({"arith.extui", "arith.uitofp"})
_BITS_ONLY: Final = frozenset({"arith.trunci", "arith.bitcast"})


def _convert_scalar(op: str, operand: int | float, source: DataType, target: DataType, instr: _Instr) -> int | float:
    """An arith scalar conversion, as MLIR defines it on signless integers: the operation, not
    the operand's DSL type, says how the bits are read (extsi / sitofp / index_cast sign-extend,
    extui / uitofp zero-extend, fptoui saturates to the unsigned range, trunci / bitcast keep the
    low bits); the result is then carried as its DSL type reads it (an unsigned one in
    [0, 2**width)). numerics.scalar_cast does the arithmetic, as the interpreter's scalar cast."""
    if op == "arith.bitcast" and (source.is_float or target.is_float or source.bits != target.bits):
        raise instr.fail(f"the simulator implements arith.bitcast between integers of one width only "
                         f"({source.name} to {target.name})")
    if op in ("arith.extsi", "arith.extui", "arith.trunci") and (not source.is_int or not target.is_int):
        raise instr.fail(f"{op} converts between integers, not {source.name} to {target.name}")
    if op in ("arith.sitofp", "arith.uitofp") and (not source.is_int or not target.is_float):
        raise instr.fail(f"{op} converts an integer to a float, not {source.name} to {target.name}")
    if op in ("arith.fptosi", "arith.fptoui") and (not source.is_float or not target.is_int):
        raise instr.fail(f"{op} converts a float to an integer, not {source.name} to {target.name}")
    if op == "arith.index_cast" and (not source.is_int or not target.is_int or DataType.INDEX not in (source, target)):
        raise instr.fail(f"arith.index_cast converts between index and an integer, not {source.name} to {target.name}")
    read_as, write_as = source, target
    if source.is_int and source is not DataType.INDEX:
        if op in _READS_SIGNED:
            read_as = _signed_of(source)
        elif op in _READS_UNSIGNED:
            read_as = _unsigned_of(source)
    if op == "arith.fptoui" and target is not DataType.INDEX:
        write_as = _unsigned_of(target)
    elif op == "arith.fptosi" and target is not DataType.INDEX:
        write_as = _signed_of(target)
    if op in _BITS_ONLY:
        read_as = source
    result = numerics.scalar_cast(operand, read_as.name, write_as.name)
    # The result as its DSL type holds it (fptosi into an unsigned-typed value keeps its bits).
    return _wrap_int(int(result), target) if target.is_int else result


def _signed_of(dtype: DataType) -> DataType:
    """The signed integer type of `dtype`'s width (MLIR's signless `iN` read as signed)."""
    return DataType[f"INT{dtype.bits}"] if dtype.is_int and dtype is not DataType.INDEX and dtype.bits in (8, 16, 32, 64) \
        else dtype


def _unsigned_of(dtype: DataType) -> DataType:
    """The unsigned integer type of `dtype`'s width (MLIR's signless `iN` read as unsigned)."""
    return DataType[f"UINT{dtype.bits}"] if dtype.is_int and dtype is not DataType.INDEX and dtype.bits in (8, 16, 32, 64) \
        else dtype


def _as_unsigned(value: Any, dtype: DataType | None) -> Any:
    """A signless integer's bits read as unsigned (an op such as divui / cmpi ult does that)."""
    if dtype is None or not dtype.is_int or dtype is DataType.INDEX or isinstance(value, (bool, float)):
        return value
    return int(value) % (1 << dtype.bits)


def _wrap_int(value: int, dtype: DataType | None) -> int | bool:
    """An integer of `dtype`, wrapped to its width as the hardware's registers are."""
    if dtype is None or dtype is DataType.INDEX or not dtype.is_int:
        return bool(value) if dtype is DataType.BOOL else int(value)
    bits = dtype.bits
    wrapped = int(value) % (1 << bits)
    if dtype.is_signed and wrapped >= 1 << (bits - 1):
        wrapped -= 1 << bits
    return wrapped


def _float_scalar(value: float, dtype: DataType) -> float:
    """A float scalar rounded (RNE) to its format, carried exactly as a Python float."""
    if not dtype.is_float:
        return float(value)
    rounded = numerics.round_float64(np.asarray(value, dtype=np.float64), dtype.name, "rint")
    return float(numerics.widen_to_float64(rounded, dtype.name))


def _c_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _py_floordiv(a: Any, b: Any) -> Any:
    return a // b


_PY_BINOPS: Final[dict[str, Callable[[Any, Any], Any]]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "//": _py_floordiv, "%": lambda a, b: a % b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "and": lambda a, b: bool(a) and bool(b), "or": lambda a, b: bool(a) or bool(b),
}  # fmt: skip

_INT_ARITH: Final[dict[str, Callable[..., int]]] = {
    "addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
    "floordivsi": lambda a, b: a // b, "divsi": _c_div,
    "remsi": lambda a, b: a - _c_div(a, b) * b,
    "divui": lambda a, b: a // b, "remui": lambda a, b: a % b,  # on operands read as unsigned
    "andi": lambda a, b: a & b, "ori": lambda a, b: a | b, "xori": lambda a, b: a ^ b,
    "maxsi": max, "minsi": min,
}  # fmt: skip

_FLOAT_ARITH: Final[dict[str, Callable[..., Array]]] = {
    "addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide, "remf": np.fmod,
    "negf": np.negative, "maxf": np.maximum, "minf": np.minimum,
}  # fmt: skip

_PREDICATES: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
    "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
    "oeq": lambda a, b: a == b, "une": lambda a, b: not a == b, "olt": lambda a, b: a < b,
    "ole": lambda a, b: a <= b, "ogt": lambda a, b: a > b, "oge": lambda a, b: a >= b,
}  # fmt: skip


# -- entry points ----------------------------------------------------------------------------------


def _resolve_handler(handler: BackendHandler | str) -> BackendHandler:
    return get_backend(handler) if isinstance(handler, str) else handler


def _bind_params(function: P.Function, inputs: Mapping[str, Any], machine: Machine,
                 executor: Executor, out_buffers: Mapping[str, Array] | None = None,
                 priors: Mapping[str, Array] | None = None,
                 windows: Mapping[str, tuple[npt.NDArray[np.uint8], bool]] | None = None) -> None:
    names = {p.var.name for p in function.params}
    unknown = sorted(set(inputs) - names)
    if unknown:
        raise SimulationError(f"inputs {unknown} are not parameters of kernel {function.name} "
                              f"(parameters: {sorted(names)})")
    for param in function.params:
        ty, name = param.var.type, param.var.name
        if isinstance(ty, TensorType) and windows is not None and name in windows:
            window, holds_values = windows[name]
            executor.env[name] = machine.bind_window(name, ty.shape, ty.dtype, window, holds_values)
        elif isinstance(ty, TensorType) and priors is not None and name in priors and param.direction == "Out":
            executor.env[name] = machine.bind_tensor(name, ty.shape, ty.dtype, np.asarray(priors[name]), prior=True)
        elif isinstance(ty, TensorType):
            given = inputs.get(name)
            if given is None and param.direction != "Out":
                raise SimulationError(f"kernel {function.name} needs an input for tensor parameter {name!r}",
                                      param.span)
            values = None if given is None else np.asarray(given)
            buffer = out_buffers.get(name) if out_buffers is not None and given is None else None
            executor.env[name] = machine.bind_tensor(name, ty.shape, ty.dtype, values, buffer=buffer)
        elif isinstance(ty, ScalarType):
            if name not in inputs:
                raise SimulationError(f"kernel {function.name} needs a value for scalar parameter {name!r}",
                                      param.span)
            raw = np.asarray(inputs[name]).item()
            executor.env[name] = (_float_scalar(float(raw), ty.dtype) if ty.dtype.is_float
                                  else _wrap_int(int(raw), ty.dtype))
        elif isinstance(ty, TileType) and ty.memref is not None and ty.memref.offset >= 0 and name in inputs:
            # A tile parameter lives at its buffer's address: its input is written there
            # before the kernel starts (the caller's core left it there).
            handle = handle_for(name, ty)
            machine.write_tile(handle, np.asarray(inputs[name]), "kernel entry", param.span)
            executor.env[name] = handle
        else:
            raise SimulationError(f"kernel parameter {name!r} has a type the simulator cannot bind",
                                  param.span)


def _output(value: Value) -> Array:
    if isinstance(value, GmTensor):
        return value.values()
    if isinstance(value, (int, float, bool)):
        return np.asarray(value)
    raise SimulationError(f"a kernel cannot return a {type(value).__name__}")


def run_kernel(function: P.Function, inputs: Mapping[str, Any], handler: BackendHandler | str,
               checked: bool = True, machine: Machine | None = None,
               out_buffers: Mapping[str, Array] | None = None, launch: Launch = SINGLE_LAUNCH,
               written: dict[str, npt.NDArray[np.bool_]] | None = None,
               priors: Mapping[str, Array] | None = None,
               windows: Mapping[str, tuple[npt.NDArray[np.uint8], bool]] | None = None) -> dict[str, Array]:
    """Run one kernel; returns Out / InOut tensors by parameter name and `ret<i>` for returns.

    `windows` maps tensor parameters called on a window of a wider tensor to the caller's bytes
    of that window and whether they hold its values (Machine.bind_window).

    `out_buffers` maps tensor parameters without an input to arrays holding only poison bytes
    (fresh buffers of the caller): where one is C-contiguous and of the parameter's shape and
    dtype, it is the GM buffer itself, so the kernel writes straight into it (the result then
    is that array). `launch` is the instance it runs as (what pto.get_block_idx & co. read).
    `priors` maps Out parameters to the caller's earlier contents (bound as GmTensor.prior:
    unwritten but there for an atomic store). `written`, when given, receives for each Out /
    InOut tensor which of its elements (in logical index order) the kernel wrote."""
    own_machine = machine is None
    machine = machine if machine is not None else Machine(_resolve_handler(handler), checked)
    executor = _take_executor(function, machine, launch)
    _bind_params(function, inputs, machine, executor, out_buffers, priors, windows)
    returned = executor.run_block(function.body) or ()
    outputs: dict[str, Array] = {}
    for param in function.params:
        value = executor.env.get(param.var.name)
        if param.direction in ("Out", "InOut") and isinstance(value, GmTensor):
            # A machine made here dies with this call: its GM buffers can be handed out as
            # they are; a caller's machine keeps running, so it gets copies.
            outputs[param.var.name] = value.logical_values() if own_machine and not value.shared else value.values()
            if written is not None:
                written[param.var.name] = value.written_elements()
    for i, value in enumerate(returned):
        outputs[f"ret{i}"] = _output(value)
    if own_machine:
        machine.release()  # its buffers serve the next launch
        _give_executor(function, executor)  # (an executor on a caller's machine dies with it)
    return outputs


# Per kernel function, executors of finished launches (the entry keeps the function alive, so
# its id is not reused): the next launch resets one instead of planning its blocks and building
# its call sites' fast paths again. Taken exclusively (a launch running meanwhile -- another
# thread, a coroutine of a group launch -- gets another), given back only after a launch that
# completed on a machine of its own (released: nothing of the launch is kept).
_EXECUTORS: dict[int, tuple[P.Function, list[Executor]]] = {}
_EXECUTORS_CAPACITY: Final = 64  # functions
_EXECUTORS_KEPT: Final = 2  # per function


def _take_executor(function: P.Function, machine: Machine, launch: Launch) -> Executor:
    hit = _EXECUTORS.get(id(function))
    if hit is not None and hit[0] is function:
        try:
            executor = hit[1].pop()
        except IndexError:
            executor = None
        if executor is not None:
            executor.reset(machine, launch)
            return executor
    return Executor(machine, launch)


def _give_executor(function: P.Function, executor: Executor) -> None:
    executor.reset(executor.machine, executor.launch)  # (its values die with the launch)
    hit = _EXECUTORS.get(id(function))
    if hit is None or hit[0] is not function:
        if len(_EXECUTORS) >= _EXECUTORS_CAPACITY:
            _EXECUTORS.clear()
        hit = _EXECUTORS[id(function)] = (function, [])
    if len(hit[1]) < _EXECUTORS_KEPT and all(kept is not executor for kept in hit[1]):
        hit[1].append(executor)


def run_pto(program: P.Program, inputs: Mapping[str, Any], handler: BackendHandler | str,
            checked: bool = True, kernel: str | None = None) -> dict[str, Array]:
    """Run the program's kernel (the only function, or the one named `kernel`)."""
    functions = {f.name: f for f in program.functions}
    if kernel is None:
        if len(functions) != 1:
            raise SimulationError(
                f"program {program.name} has {len(functions)} kernels ({', '.join(functions)}); "
                "name one with kernel=..., or sequence them with run_kernel")
        kernel = next(iter(functions))
    if kernel not in functions:
        raise SimulationError(f"program {program.name} has no kernel {kernel!r} "
                              f"(kernels: {', '.join(functions)})")
    return run_kernel(functions[kernel], inputs, handler, checked)


__all__ = ["Executor", "PartitionValue", "SEMANTICS", "TensorViewValue", "run_kernel", "run_pto"]

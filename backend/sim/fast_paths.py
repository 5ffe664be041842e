"""Per-instruction fast paths of the simulator: the common case of an instruction as one
closure built once per call site, with every static fact (operand names, semantics, sizes,
the exact NumPy ufunc) resolved at build time.

A fast path does the whole-tile work of the general handler in `executor.py` when the
operands are the ordinary ones (SSA names bound to tiles and partition views, same dtypes,
block-shaped windows, written sources) and otherwise declines *before touching any byte*,
returning None / False: the general handler then runs and reports whatever is wrong with its
own message and span. So a fast path never decides an error and never changes a result; the
tests in tests/test_sim_fast_paths.py run programs with the fast paths switched off
(`ENABLED = False`) and compare bytes, outputs and diagnostics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Final, Optional

import numpy as np

from backend import numerics
from backend.sim.machine import GmTensor, SimulationError, TileHandle
from languages.gen import pto as P
from languages.memory_space import MemorySpace
from languages.types import DataType, ViewType, attr

if TYPE_CHECKING:
    from backend.sim.executor import Executor

# Tests switch the fast paths off to compare with the general handlers.
ENABLED = True

FastValue = Callable[[], Optional[object]]  # a value-producing op: its value, or None to decline
FastAction = Callable[[], bool]  # a destination-passing op: True when done, False to decline


def _var_names(args: tuple[P.Expr, ...]) -> tuple[str, ...] | None:
    names = tuple(a.name for a in args if isinstance(a, P.Var))
    return names if len(names) == len(args) else None


def _window_start(sizes: tuple[int, ...], offsets: tuple[int, ...], rank: int,
                  region: tuple[int, int]) -> tuple[int, int] | None:
    """Where the top-left `region` of a 1-D / 2-D partition starts (None: the general path)."""
    if len(sizes) != rank:
        return None
    if rank == 2:
        if region[0] > sizes[0] or region[1] > sizes[1]:
            return None
        return offsets[0], offsets[1]
    if rank == 1:
        if region[0] > 1 or region[1] > sizes[0]:
            return None
        return 0, offsets[0]
    return None


def partition_view(executor: Executor, call: P.Call, target: P.Var | None) -> FastValue | None:
    from backend.sim.executor import PartitionValue, TensorViewValue
    if len(call.args) != 2 or not isinstance(call.args[0], P.Var) or not isinstance(call.args[1], P.TupleExpr):
        return None
    offset_names = _var_names(call.args[1].elements)
    sizes = attr(call.attrs, "sizes")
    if not isinstance(sizes, tuple):
        if target is None or not isinstance(target.type, ViewType):
            return None
        sizes = target.type.shape
    if offset_names is None or not all(isinstance(s, int) for s in sizes):
        return None
    static_sizes = tuple(int(s) for s in sizes)
    view_name, env = call.args[0].name, executor.env
    # The windows made so far by offsets: a loop nest revisits the same few (a K loop's A
    # windows for every N block), and a PartitionValue is immutable. (Emptied when the
    # executor starts its next launch: they hold that launch's tensors.)
    made: dict[tuple[object, ...], PartitionValue] = executor.launch_cache()

    def run() -> object | None:
        view = env.get(view_name)
        if type(view) is not TensorViewValue:
            return None
        offsets = tuple(env.get(name) for name in offset_names)
        tensor = view.tensor
        hit = made.get(offsets)
        if hit is not None and hit.tensor is tensor:
            return hit
        shape = tensor.shape
        if len(shape) != len(offsets) or len(shape) != len(static_sizes):
            return None
        for off, size, dim in zip(offsets, static_sizes, shape):
            if type(off) is not int or off < 0 or off + size > dim:
                return None
        if len(made) >= _MADE_WINDOWS:
            made.clear()
        part = made[offsets] = PartitionValue(tensor, offsets, static_sizes)  # type: ignore[arg-type]
        return part

    return run


_MADE_WINDOWS: Final = 1024  # partition windows remembered per call site


def load(executor: Executor, call: P.Call, target: P.Var | None) -> FastAction | None:
    from backend.sim.executor import PartitionValue
    names = _var_names(call.args)
    if names is None or len(names) != 2:
        return None
    part_name, tile_name = names
    env, op, span = executor.env, call.op, call.span  # (the machine is the launch's: read per run)

    def run() -> bool:
        machine = executor.machine
        part, tile = env.get(part_name), env.get(tile_name)
        if type(part) is not PartitionValue or type(tile) is not TileHandle:
            return False
        tensor = part.tensor
        if tensor.dtype is not tile.storage.dtype or tile.view.pad != "null":
            return False
        start = _window_start(part.sizes, part.offsets, len(tensor.shape), tile.valid)
        if start is None:
            return False
        try:
            return machine.load_block(tensor, start, tile, op, span)
        except SimulationError:
            return False

    return run


# Accumulator dtypes whose FIXPIPE conversion to the same dtype passes the bits through
# (numerics.fixpipe_cast: INT32 unchanged, FP32 -> FP32 a copy), so such a store is a block move.
_FIXPIPE_BIT_COPIES: Final = frozenset({DataType.FP32, DataType.INT32})


def store(executor: Executor, call: P.Call, target: P.Var | None) -> FastAction | None:
    from backend.sim import instructions as ins
    from backend.sim.executor import PartitionValue
    names = _var_names(call.args)
    if names is None or len(names) != 2 or attr(call.attrs, "atomicType", "atomic_none") != "atomic_none":
        return None
    tile_name, part_name = names
    env, op, span = executor.env, call.op, call.span  # (the machine is the launch's: read per run)

    def run() -> bool:
        machine = executor.machine
        tile, part = env.get(tile_name), env.get(part_name)
        if type(part) is not PartitionValue or type(tile) is not TileHandle:
            return False
        tensor = part.tensor
        start = _window_start(part.sizes, part.offsets, len(tensor.shape), tile.valid)
        if start is None:
            return False
        if tile.storage.memory_space is MemorySpace.Acc and (tensor.dtype is not tile.storage.dtype
                                                             or tensor.dtype not in _FIXPIPE_BIT_COPIES):
            return _store_from_acc(tile, tensor, start)
        if tensor.dtype is not tile.storage.dtype:
            return False
        try:
            return machine.store_block(tile, tensor, start, op, span)
        except SimulationError:
            return False

    def _store_from_acc(tile: TileHandle, tensor: GmTensor, start: tuple[int, int]) -> bool:
        machine = executor.machine
        # FIXPIPE converts on the way out: the general handler's read, conversion and write,
        # each as one whole-window step; nothing is written before all three are known to apply.
        if tensor.byte_block(start, tile.valid) is None:
            return False
        try:
            values = machine.read_written(tile, tile.valid, op, span)
            if values is None:
                return False
            converted = ins.tstore(values, tile.storage.dtype.name, tensor.dtype.name, True)
        except (SimulationError, numerics.NumericsError, ins.InstructionError):
            return False
        return machine.write_gm_block(tensor, start, converted)

    return run


def _has_nan(values: Any) -> bool:
    """Whether a float array holds a NaN: its minimum is NaN exactly then (NumPy's min
    propagates NaN), one reduction without a temporary array of flags."""
    if not values.size:
        return False
    least = _MINIMUM(values, axis=None)
    return bool(least != least)  # (NaN is the one value unequal to itself)


_MINIMUM: Final = np.minimum.reduce


def elementwise(executor: Executor, call: P.Call, target: P.Var | None) -> FastAction | None:
    from backend.sim.executor import SEMANTICS
    semantics = SEMANTICS.get(call.op, ())
    if len(semantics) < 2 or semantics[0] not in ("binary", "unary"):
        return None
    kind, meaning = semantics[0], semantics[1]
    names = _var_names(call.args)
    if names is None or len(names) != (3 if kind == "binary" else 2):
        return None
    env, op, span = executor.env, call.op, call.span  # (the machine is the launch's: read per run)
    *source_names, dst_name = names
    # Per dtype: whether it is a float and the exact ufunc of a binary op (registry facts, asked
    # once per call site instead of every run).
    facts: dict[DataType, tuple[bool, np.ufunc | None]] = {}

    def run() -> bool:
        machine = executor.machine
        dst = env.get(dst_name)
        sources = [env.get(name) for name in source_names]
        if type(dst) is not TileHandle or any(type(s) is not TileHandle for s in sources):
            return False
        dtype = dst.storage.dtype
        if any(s.storage.dtype is not dtype for s in sources):  # type: ignore[union-attr]
            return False
        region = dst.valid
        try:
            target_view = machine.tile_target(dst, region, op, span)
            if target_view is None:
                return False
            read = [machine.tile_values(s, region, op, span) for s in sources]  # type: ignore[arg-type]
        except SimulationError:
            return False
        operands = [o for o in read if o is not None]
        if len(operands) != len(read):
            return False
        view, access = target_view
        if kind == "binary":
            known = facts.get(dtype)
            if known is None:
                known = facts[dtype] = (dtype.is_float, numerics.exact_ufunc(meaning, dtype.name))
            is_float, ufunc = known
            if ufunc is None:
                return False
            if is_float and (_has_nan(operands[0]) or _has_nan(operands[1])):
                # Which operand's NaN a NaN result carries is the rule's (numerics.propagate_nan),
                # not NumPy's loop's. (Computed before the store: the target may be an operand.)
                view[...] = numerics.binary(meaning, operands[0], operands[1], dtype.name)
            else:
                with np.errstate(all="ignore"):
                    ufunc(operands[0], operands[1], out=view)
        elif not numerics.unary_into(meaning, operands[0], dtype.name, view):
            try:
                result: Any = numerics.unary(meaning, operands[0], dtype.name)
            except numerics.NumericsError:
                return False
            if result.dtype != view.dtype or result.shape != view.shape:
                return False
            view[...] = result
        machine.mark_target(access)
        return True

    return run


def move(executor: Executor, call: P.Call, target: P.Var | None) -> FastAction | None:
    """TMOV between two tiles of one dtype, not out of Acc (FIXPIPE converts): a block move."""
    names = _var_names(call.args)
    if names is None or len(names) != 2:
        return None
    src_name, dst_name = names
    env, op, span = executor.env, call.op, call.span  # (the machine is the launch's: read per run)

    def run() -> bool:
        machine = executor.machine
        src, dst = env.get(src_name), env.get(dst_name)
        if type(src) is not TileHandle or type(dst) is not TileHandle:
            return False
        if src.storage.memory_space is MemorySpace.Acc or src.storage.dtype is not dst.storage.dtype:
            return False
        here, there = src.storage.memory_space, dst.storage.memory_space
        if here is not there and (here is None or there is None or not machine.handler.can_move(here, there)):
            return False  # no data path: the general handler reports it
        try:
            return machine.move_block(src, dst.valid, dst, op, span)
        except SimulationError:
            return False

    return run


def extract(executor: Executor, call: P.Call, target: P.Var | None) -> FastAction | None:
    """TEXTRACT of a window at (row, col) between two tiles of one dtype, not out of Acc: the
    block (or strided) move the general handler makes, without its operand plumbing."""
    names = _var_names(call.args)
    if names is None or len(names) != 4:
        return None
    src_name, row_name, col_name, dst_name = names
    env, op, span = executor.env, call.op, call.span  # (the machine is the launch's: read per run)

    def run() -> bool:
        machine = executor.machine
        src, dst = env.get(src_name), env.get(dst_name)
        row, col = env.get(row_name), env.get(col_name)
        if type(src) is not TileHandle or type(dst) is not TileHandle or type(row) is not int or type(col) is not int:
            return False
        if src.storage.memory_space is MemorySpace.Acc or src.storage.dtype is not dst.storage.dtype:
            return False
        rows, cols = dst.valid
        if row < 0 or col < 0 or row + rows > src.shape[0] or col + cols > src.shape[1]:
            return False  # the general handler says which window leaves the source
        try:
            return machine.move_block(src, dst.valid, dst, op, span, origin=(row, col))
        except SimulationError:
            return False

    return run


def matmul(executor: Executor, call: P.Call, target: P.Var | None) -> FastAction | None:
    """TMATMUL / TMATMUL_ACC on Left / Right / Acc tiles with block forms, all written: the
    general handler's reads, chain and write without its per-operand plumbing."""
    from backend.sim.executor import _MAD_ROW_BOX, SEMANTICS, _round_up
    from backend.sim import instructions as ins
    kind = SEMANTICS.get(call.op, ("",))[0]
    names = _var_names(call.args)
    if kind not in ("matmul", "matmul_acc") or names is None or len(names) != (4 if kind == "matmul_acc" else 3):
        return None
    env, op, span = executor.env, call.op, call.span  # (the machine is the launch's: read per run)
    *ins_names, dst_name = names

    def run() -> bool:
        machine = executor.machine
        tiles = [env.get(name) for name in ins_names]
        dst = env.get(dst_name)
        if type(dst) is not TileHandle or any(type(t) is not TileHandle for t in tiles):
            return False
        lhs, rhs = tiles[-2], tiles[-1]
        assert isinstance(lhs, TileHandle) and isinstance(rhs, TileHandle)
        if (lhs.storage.memory_space is not MemorySpace.Left or rhs.storage.memory_space is not MemorySpace.Right
                or dst.storage.memory_space is not MemorySpace.Acc or lhs.storage.dtype is not rhs.storage.dtype):
            return False
        m, k = lhs.valid
        n = rhs.valid[1]
        if rhs.valid[0] < k:
            return False
        pitch = _round_up(m, _MAD_ROW_BOX)
        in_dtype = lhs.storage.dtype.name
        try:
            acc_tile = tiles[0] if kind == "matmul_acc" else None
            assert acc_tile is None or isinstance(acc_tile, TileHandle)
            if (acc_tile is None or acc_tile.storage.memory_space is MemorySpace.Acc) and \
                    machine.mad_tiles(lhs, rhs, acc_tile, dst, pitch, op, span):
                return True
            a = machine.read_written(lhs, lhs.valid, op, span)
            b = machine.read_written(rhs, (k, n), op, span)
            start = None
            if kind == "matmul_acc":
                acc_in = tiles[0]
                assert isinstance(acc_in, TileHandle)
                start = machine.read_written(acc_in, (m, n), op, span, pitch)
                if start is None:
                    return False
            if a is None or b is None:
                return False
            # The destination's window: its errors are the general handler's to report.
            machine.check_window(dst, (m, n), op, span, pitch)
            result = ins.tmatmul(a, b, in_dtype) if start is None else ins.tmatmul_acc(start, a, b, in_dtype)
        except (SimulationError, numerics.NumericsError, ins.InstructionError):
            return False
        if np.dtype(result.dtype) != numerics.np_dtype(dst.storage.dtype.name):
            return False
        machine.write_tile(dst, result, op, span, pitch=pitch)
        return True

    return run


BUILDERS: dict[str, Callable[[Executor, P.Call, "P.Var | None"], Callable[[], Any] | None]] = {
    "partition_view": partition_view,
    "load": load,
    "store": store,
    "move": move,
    "extract": extract,
    "matmul": matmul,
    "matmul_acc": matmul,
    "binary": elementwise,
    "unary": elementwise,
}

"""SPMD identity and synchronisation: `tile.get_block_idx` / `get_block_num` /
`get_subblock_idx` (and their `tensor.*` spellings), and the `system.*` barriers.

The identity ops return an INDEX scalar (PyPTO's programs annotate `pl.Scalar[pl.INDEX]`);
PTO reads them with `pto.get_block_idx` & co. (an i64) and an `arith.index_cast`. What they
return is the `Launch` the kernel instance runs in: block 0 of 1 on lane 0, unless the function
that launches it says otherwise (`core_num` on a Spmd wrapper, `dual_aiv_dispatch` on an AIV
kernel: languages/functions.py).

The barriers order memory traffic between pipes and cores; a run of one block on one lane
observes nothing of them, so their value-level meaning is "no effect" (semantics key
`barrier`), while PTO keeps the instruction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from languages.ops import (READ_WRITE, AttrDecl, CompletedBy, DeductionError, OpDef, OperandDecl, TileConversion,
                           describe, type_of)
from languages.ops.target_rules import A2A3, A5, PipeIn, Unavailable
from languages.memory_space import MemorySpace
from languages.types import INDEX, Attrs, DataType, NoneType, ScalarType, TensorType, TileType, Type
from nanopass.node import Node



@dataclass(frozen=True)
class Launch:
    """Which instance of a kernel runs: its block of the SPMD grid and its AIV lane."""

    block_idx: int = 0
    block_num: int = 1
    subblock_idx: int = 0

    def identity(self, op_name: str) -> int:
        """What `tile.<op_name>()` (get_block_idx, get_block_num, get_subblock_idx) returns."""
        return int(getattr(self, op_name.removeprefix("get_")))


SINGLE_LAUNCH = Launch()
# What each identity op reads, and the value a one-block, one-lane run sees.
SPMD_IDENTITY: dict[str, int] = {name: SINGLE_LAUNCH.identity(name)
                                 for name in ("get_block_idx", "get_block_num", "get_subblock_idx")}


def _deduce_identity(args: Sequence[Node], attrs: Attrs) -> Type:
    return INDEX


def _deduce_barrier(args: Sequence[Node], attrs: Attrs) -> Type:
    return NoneType()


# A soft syncall's workspaces, as PTOAS 0.44 verifies them (SyncAllOp::verify): the GM
# workspace is an INT32 tensor of at least 64 bytes (16 counters), and beside it the barrier
# stages through on-chip INT32 tiles, one per side that takes part: a Vec (UB) tile for the
# vector cores, a Mat (L1) tile for the cube. The Tensor-level call names only the GM tensor;
# ConvertTensorToTileOps allocates the on-chip ones (one 32-byte block of INT32 each, the
# smallest tile either space holds) and passes used_cores (0: the launch's count, PTOAS's and
# pto-isa's default) so the tile-level call's operands are positional: gm, used_cores, tiles.
SYNCALL_COUNTER_DTYPE = DataType.INT32
SYNCALL_MIN_COUNTERS = 16
SOFT_SYNCALL_TILE_WORKSPACES: dict[str, tuple[MemorySpace, ...]] = {
    "aiv_only": (MemorySpace.Vec,),
    "aic_only": (MemorySpace.Mat,),
    "mix": (MemorySpace.Vec, MemorySpace.Mat),
}
SYNCALL_TILE_WORKSPACE_SHAPE = (1, 8)
# The kinds of core a syncall counts (pto-isa SYNCALL_IMPL, SYNCALL_SOFT_*_IMPL): none passes
# until every core of those kinds arrives, so in a mixed kernel split into an AIC and an AIV
# kernel (ExpandMixedKernel) a mix barrier is taken by both, each with both workspaces (PTOAS
# verifies a soft mix syncall's operands whatever core its function runs on).
SYNCALL_PARTICIPANTS: dict[str, frozenset[str]] = {
    "aiv_only": frozenset({"AIV"}),
    "aic_only": frozenset({"AIC"}),
    "mix": frozenset({"AIC", "AIV"}),
}


def syncall_participants(attrs: Attrs) -> frozenset[str]:
    """The kinds of core a syncall with these attributes waits for."""
    return SYNCALL_PARTICIPANTS[str(dict(attrs).get("core_type", "aiv_only"))]


def syncall_tile_workspaces(attrs: Attrs) -> tuple[MemorySpace, ...]:
    """The on-chip workspaces a syncall with these attributes takes (none for a hard one)."""
    full = dict(attrs)
    if full.get("mode", "hard") != "soft":
        return ()
    return SOFT_SYNCALL_TILE_WORKSPACES[str(full.get("core_type", "aiv_only"))]


def missing_syncall_workspaces(args: Sequence[Node], attrs: Attrs) -> str:
    """What a syncall call lacks below Tensor: a soft one's on-chip workspaces, which only
    ConvertTensorToTileOps adds ("" when it has them, or needs none)."""
    spaces = syncall_tile_workspaces(attrs)
    if not spaces or len(args) > 2:
        return ""
    names = " and ".join(f"an INT32 {list(SYNCALL_TILE_WORKSPACE_SHAPE)} {s.pl_name} tile" for s in spaces)
    return f"it does not name its on-chip workspaces ({names}, after gm_workspace and used_cores)"


# A Tensor-level soft syncall names only its GM workspace; ConvertTensorToTileOps adds the rest.
_SYNCALL_WORKSPACES = CompletedBy(
    "ConvertTensorToTileOps", "TileUnplaced", missing_syncall_workspaces,
    "pass them after gm_workspace and used_cores (pl.system.syncall(ws, n, vec_ws, ..., mode=\"soft\"), each "
    "a pl.tile.create of [1, 8] INT32 in its space), or write the kernel for the pipeline to take up at Tensor, "
    "where ConvertTensorToTileOps allocates them")


def _deduce_syncall(args: Sequence[Node], attrs: Attrs) -> Type:
    """syncall(mode="hard"|"soft", core_type=..., gm_workspace=None, used_cores=None): a soft
    barrier polls INT32 counters in a GM workspace (at least 64 bytes); below Tensor it also
    takes the on-chip workspaces of SOFT_SYNCALL_TILE_WORKSPACES."""
    soft = attr_value(attrs, "mode") == "soft"
    if soft and not args:
        raise DeductionError("a soft syncall needs its gm_workspace tensor",
                             hint="pass gm_workspace=<an INT32 GM tensor of at least 16 elements>, or use mode=\"hard\"")
    if not soft and args:
        raise DeductionError("a hard syncall takes no workspace", 0)
    if args:
        workspace = type_of(args[0])
        if (not isinstance(workspace, TensorType) or workspace.dtype != SYNCALL_COUNTER_DTYPE
                or _count(workspace.shape) < SYNCALL_MIN_COUNTERS):
            raise DeductionError(f"expected an INT32 GM tensor of at least {SYNCALL_MIN_COUNTERS} elements (the "
                                 f"barrier's 64 bytes of counters), got {describe(args[0])}", 0,
                                 hint="pass a pl.Tensor[[16], pl.INT32] (or larger) workspace parameter")
    if len(args) > 1:
        used = type_of(args[1])
        if not isinstance(used, ScalarType) or used.dtype != DataType.INT32:
            raise DeductionError(f"expected an INT32 used_cores, got {describe(args[1])}", 1,
                                 hint="pass a constant core count, or pl.cast(n, pl.INT32)")
    tiles = args[2:]
    if tiles:
        spaces = syncall_tile_workspaces(attrs)
        got = [type_of(t) for t in tiles]
        if len(got) != len(spaces) or not all(
                isinstance(t, TileType) and t.dtype == SYNCALL_COUNTER_DTYPE
                and t.memory_space in (None, space) for t, space in zip(got, spaces)):
            names = ", ".join(f"an INT32 {s.name} tile" for s in spaces) or "no tile"
            raise DeductionError(f"expected the on-chip workspaces of a {attr_value(attrs, 'core_type')} syncall "
                                 f"({names}), got {', '.join(describe(t) for t in tiles)}", 2)
    return NoneType()


def _deduce_sync_event(args: Sequence[Node], attrs: Attrs) -> Type:
    """sync_set / sync_wait(event_id, pipe=, [ffts_mode=]): a cross-core flag on a pipe; the
    event id is a constant (0..15 on the flag registers) or an INDEX scalar."""
    event = type_of(args[0])
    if not isinstance(event, ScalarType) or not (event.dtype.is_int or event.dtype is DataType.INDEX):
        raise DeductionError(f"expected an integer event id, got {describe(args[0])}", 0)
    mode = attr_value(attrs, "ffts_mode")
    if mode is not None and mode not in _FFTS_MODES:
        raise DeductionError(f"attribute 'ffts_mode' expected 0, 1 or 2, got {mode!r}")
    return NoneType()


def _deduce_set_ffts(args: Sequence[Node], attrs: Attrs) -> Type:
    workspace = type_of(args[0])
    if not isinstance(workspace, TensorType) or workspace.dtype not in (DataType.INT64, DataType.INT8):
        raise DeductionError(f"expected the FFTS workspace, an INT64 (or INT8) GM tensor, got {describe(args[0])}", 0)
    return NoneType()


def attr_value(attrs: Attrs, name: str) -> object:
    return dict(attrs).get(name)


def _count(shape: tuple[int, ...]) -> int:
    total = 1
    for extent in shape:
        total *= extent
    return total


def _identity_ops() -> list[OpDef]:
    ops: list[OpDef] = []
    for name, seen in SPMD_IDENTITY.items():
        ops.append(OpDef(f"tile.{name}", (), _deduce_identity, ("spmd", name), "spmd", pto=(f"pto.{name}",),
                         doc=f"An INDEX scalar (a one-block run sees {seen})."))
        ops.append(OpDef(f"tensor.{name}", (), _deduce_identity, ("spmd", name), "spmd",
                         to_tile=TileConversion(f"tile.{name}"), doc=f"The tensor-level spelling of tile.{name}."))
    return ops


_CORE_TYPES = ("aiv_only", "aic_only", "mix")


def _system_ops() -> list[OpDef]:
    ops = [
        OpDef("system.syncall", (OperandDecl("gm_workspace", "tensor", effect=READ_WRITE, optional=True,
                                             shared_by_cores=True),
                                 OperandDecl("used_cores", "scalar", optional=True, literal_dtype=DataType.INT32),
                                 OperandDecl("tile_workspaces", "tile", effect=READ_WRITE, optional=True,
                                             variadic=True)),
              _deduce_syncall, ("barrier",), "system",
              attrs=(AttrDecl("mode", "str", "hard", ("hard", "soft")),
                     AttrDecl("core_type", "str", "aiv_only", _CORE_TYPES)),
              pto=("pto.syncall",), completed_by=_SYNCALL_WORKSPACES,
              doc="All-participant barrier across cores (hard: FFTS; soft: polls a GM workspace)."),
    ]
    sync_attrs = (AttrDecl("pipe", "str", "PIPE_ALL", _PIPES),)
    event = OperandDecl("event_id", "scalar", literal_dtype=DataType.INT32)
    ops += [
        OpDef("system.sync_set", (event,), _deduce_sync_event, ("barrier",), "system",
              attrs=(*sync_attrs, AttrDecl("ffts_mode", "int", None, (None, *_FFTS_MODES))), pto=("pto.sync.set",),
              target_rules=(_NEEDS_SET_FFTS, PipeIn(A5, "Ascend950's sync.set signals from PIPE_FIX or PIPE_MTE3",
                                                    "set the flag from pl.PipeType.MTE3 or FIX",
                                                    pipes=frozenset({"PIPE_FIX", "PIPE_MTE3"}))),
              doc="Set cross-core flag event_id when the pipe's preceding work is done."),
        OpDef("system.sync_wait", (event,), _deduce_sync_event, ("barrier",), "system",
              attrs=sync_attrs, pto=("pto.sync.wait",),
              target_rules=(_NEEDS_SET_FFTS, PipeIn(A5, "Ascend950's sync.wait blocks PIPE_FIX, MTE1, MTE2, MTE3 or V",
                                                    "wait on one of those pipes",
                                                    pipes=frozenset({"PIPE_FIX", "PIPE_MTE1", "PIPE_MTE2",
                                                                     "PIPE_MTE3", "PIPE_V"}))),
              doc="Block the pipe until cross-core flag event_id is set."),
        OpDef("system.set_ffts", (OperandDecl("workspace", "tensor"),), _deduce_set_ffts, ("barrier",), "system",
              pto=("pto.set_ffts",), target_rules=(_NO_MEMREF_PARAMS,),
              doc="Point the FFTS flag base at a GM workspace (A2/A3 cross-core sync)."),
    ]
    ops.append(OpDef("tensor.dump_tag", (OperandDecl("tensor", "tensor"),), _deduce_barrier, ("marker",), "system",
                     doc="Tag a tensor for the runtime's selective dump of the dispatches that consume it "
                         "(Orchestration / Inline functions; no effect on values)."))
    for name, doc in (("bar_v", "vector-pipe barrier"), ("bar_m", "matrix-pipe barrier"),
                      ("bar_all", "all-pipe barrier"), ("fence", "memory fence")):
        ops.append(OpDef(f"system.{name}", (), _deduce_barrier, ("barrier",), "system", pto=("pto.barrier",),
                         attrs=(AttrDecl("pipe", "str", _BARRIER_PIPES[name]),), pto_attrs=(("pipe", "pipe"),),
                         doc=f"A {doc} (pto.barrier on its pipe)."))
    return ops


_PIPES = tuple(f"PIPE_{name}" for name in ("S", "V", "M", "MTE1", "MTE2", "MTE3", "ALL", "FIX"))
_FFTS_MODES = (0, 1, 2)
# PTOAS lowers A2/A3 cross-core flags through an FFTS base that `pto.set_ffts` sets from a
# memref<..xi64> argument, and rejects sync.set / sync.wait without it in the same function;
# this compiler passes GM tensors as !pto.ptr and has no memref parameter form yet.
_NEEDS_SET_FFTS = Unavailable(
    A2A3, "PTOAS needs pto.set_ffts over a memref<..xi64> FFTS workspace in the same function on A2/A3, "
    "a parameter form this compiler does not emit yet", "compile for Ascend950, whose flags need no FFTS base",
    what="not supported yet on this target")
_NO_MEMREF_PARAMS = Unavailable(
    A2A3 | A5, "PTOAS's pto.set_ffts takes a memref<..xi64> argument, a parameter form this compiler does not "
    "emit yet (GM tensors are !pto.ptr)", "leave the FFTS base to the runtime (Ascend950 needs none)",
    what="not supported yet")
# The pipe each PyPTO barrier waits on (pto-isa PIPE_*).
_BARRIER_PIPES = {"bar_v": "PIPE_V", "bar_m": "PIPE_M", "bar_all": "PIPE_ALL", "fence": "PIPE_ALL"}

OPS: tuple[OpDef, ...] = tuple(_identity_ops() + _system_ops())

__all__ = ["OPS", "SINGLE_LAUNCH", "SPMD_IDENTITY", "Launch"]

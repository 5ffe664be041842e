"""SPMD identity and synchronisation: `tile.get_block_idx` / `get_block_num` /
`get_subblock_idx` (and their `tensor.*` spellings), and the `system.*` barriers.

The identity ops return an INDEX scalar (PyPTO's programs annotate `pl.Scalar[pl.INDEX]`);
PTO reads them with `pto.get_block_idx` & co. (an i64) and an `arith.index_cast`. The
simulator and the interpreter run one block on one vector lane: block 0 of 1, sub-block 0.

The barriers order memory traffic between pipes and cores; a run of one block on one lane
observes nothing of them, so their value-level meaning is "no effect" (semantics key
`barrier`), while PTO keeps the instruction.
"""

from __future__ import annotations

from typing import Sequence

from languages.ops import READ_WRITE, AttrDecl, DeductionError, OpDef, OperandDecl, TileConversion, describe, type_of
from languages.types import INDEX, Attrs, NoneType, ScalarType, TensorType, Type
from nanopass.node import Node

# What each identity op reads, and the value a one-block, one-lane run sees.
SPMD_IDENTITY: dict[str, int] = {"get_block_idx": 0, "get_block_num": 1, "get_subblock_idx": 0}


def _deduce_identity(args: Sequence[Node], attrs: Attrs) -> Type:
    return INDEX


def _deduce_barrier(args: Sequence[Node], attrs: Attrs) -> Type:
    return NoneType()


def _deduce_syncall(args: Sequence[Node], attrs: Attrs) -> Type:
    """syncall(mode="hard"|"soft", core_type=..., gm_workspace=None, used_cores=None): a soft
    barrier polls a GM workspace (at least 64 bytes of INT32 counters)."""
    soft = attr_value(attrs, "mode") == "soft"
    if soft and not args:
        raise DeductionError("a soft syncall needs its gm_workspace tensor",
                             hint="pass gm_workspace=<a 64-byte INT32 GM tensor>, or use mode=\"hard\"")
    if not soft and args:
        raise DeductionError("a hard syncall takes no workspace", 0)
    if args:
        workspace = type_of(args[0])
        if not isinstance(workspace, TensorType) or workspace.dtype.bits * _count(workspace.shape) < 64 * 8:
            raise DeductionError(f"expected a GM tensor of at least 64 bytes, got {describe(args[0])}", 0)
    if len(args) > 1 and not isinstance(type_of(args[1]), ScalarType):
        raise DeductionError(f"expected an integer used_cores, got {describe(args[1])}", 1)
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
        OpDef("system.syncall", (OperandDecl("gm_workspace", "tensor", effect=READ_WRITE, optional=True),
                                 OperandDecl("used_cores", "scalar", optional=True)),
              _deduce_syncall, ("barrier",), "system",
              attrs=(AttrDecl("mode", "str", "hard", ("hard", "soft")),
                     AttrDecl("core_type", "str", "aiv_only", _CORE_TYPES)),
              pto=("pto.syncall",),
              doc="All-participant barrier across cores (hard: FFTS; soft: polls a GM workspace)."),
    ]
    for name, doc in (("bar_v", "vector-pipe barrier"), ("bar_m", "matrix-pipe barrier"),
                      ("bar_all", "all-pipe barrier"), ("fence", "memory fence")):
        ops.append(OpDef(f"system.{name}", (), _deduce_barrier, ("barrier",), "system", pto=("pto.barrier",),
                         attrs=(AttrDecl("pipe", "str", _BARRIER_PIPES[name]),), pto_attrs=(("pipe", "pipe"),),
                         doc=f"A {doc} (pto.barrier on its pipe)."))
    return ops


# The pipe each PyPTO barrier waits on (pto-isa PIPE_*).
_BARRIER_PIPES = {"bar_v": "PIPE_V", "bar_m": "PIPE_M", "bar_all": "PIPE_ALL", "fence": "PIPE_ALL"}

OPS: tuple[OpDef, ...] = tuple(_identity_ops() + _system_ops())

__all__ = ["OPS", "SPMD_IDENTITY"]

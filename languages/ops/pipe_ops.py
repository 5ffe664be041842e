"""The cross-core pipe's set-up and slot release (spec pto_codegen.md "Cross-Core Operations").

A mixed kernel's AIC and AIV functions exchange tiles through one pipe: a ring of `slot_num`
slots of `slot_size` bytes in the consumer's local buffer (Vec for cube -> vector, Mat for
vector -> cube), which the consumer reserves (`system.reserve_buffer`) and the producer imports
by name (`system.import_peer_buffer`); each side then initialises its end of the pipe
(`system.aic_initialize_pipe` / `system.aiv_initialize_pipe`) before its first push or pop. On
Ascend910B the slots travel through GM, so the pipe also names a GM slot buffer. A consumer
releases each popped slot with `system.tfree_to_aic` / `system.tfree_to_aiv` once the popped
tile is dead, so that the producer may reuse it.

`reserve_buffer`'s `base` is the reserved region's byte address in its space: AUTO (-1) until
the memory planner resolves it (PYPTO / DSA_RP); under the PTOAS planner it stays AUTO and
PTOAS places the region (`auto = true`).

Value-level meaning: the set-up ops only name buffers (`reserve_buffer` / `import_peer_buffer`
return the region's address as an INT32 scalar), and `tfree` releases a slot of the FIFO the
interpreter and the simulator model (backend/cross_core.py).
"""

from __future__ import annotations

from typing import Sequence

from languages.memory_space import MemorySpace
from languages.ops import AttrDecl, DeductionError, OpDef, OperandDecl, describe, type_of
from languages.types import Attrs, DataType, NoneType, ScalarType, TensorType, TileType, Type
from nanopass.node import Node

I32 = ScalarType(DataType.INT32)
AUTO_BASE = -1
# pto-isa's pipe directions: 1 cube -> vector, 2 vector -> cube, 3 both.
C2V, V2C = 1, 2
DEFAULT_SLOT_NUM = 2
# The consumer's local buffer per direction.
CONSUMER_SPACE = {C2V: MemorySpace.Vec, V2C: MemorySpace.Mat}
# The reserved regions' names (one per direction), as PyPTO's automatic set-up spells them.
FIFO_NAMES = {C2V: "c2v_fifo", V2C: "v2c_fifo"}


def _deduce_buffer(args: Sequence[Node], attrs: Attrs) -> Type:
    return I32


def _deduce_init(args: Sequence[Node], attrs: Attrs) -> Type:
    for index in (0, 1):
        if not isinstance(type_of(args[index]), ScalarType):
            raise DeductionError(f"expected an INT32 consumer buffer address, got {describe(args[index])}", index)
    if len(args) > 2 and not isinstance(type_of(args[2]), TensorType):
        raise DeductionError(f"expected the GM slot buffer tensor, got {describe(args[2])}", 2)
    return NoneType()


def _deduce_free(args: Sequence[Node], attrs: Attrs) -> Type:
    if not isinstance(type_of(args[0]), TileType):
        raise DeductionError(f"expected the popped tile, got {describe(args[0])}", 0)
    return NoneType()


def _pipe_attrs() -> tuple[AttrDecl, ...]:
    return (AttrDecl("dir_mask", "int", C2V, (C2V, V2C, C2V | V2C)), AttrDecl("slot_size", "int"),
            AttrDecl("slot_num", "int", DEFAULT_SLOT_NUM), AttrDecl("id", "int"))


def _ops() -> list[OpDef]:
    region = (AttrDecl("name", "str"), AttrDecl("size", "int"), AttrDecl("location", "memory_space"),
              AttrDecl("base", "int", AUTO_BASE))
    consumer_bufs = (OperandDecl("c2v_consumer_buf", "scalar"), OperandDecl("v2c_consumer_buf", "scalar"),
                     OperandDecl("gm_slot_buffer", "tensor", optional=True))
    ops = [
        OpDef("system.reserve_buffer", (), _deduce_buffer, ("pipe_buffer",), "pipe", attrs=region,
              pto=("pto.reserve_buffer",), doc="Reserve the consumer's slot region; its address (INT32)."),
        OpDef("system.import_peer_buffer", (), _deduce_buffer, ("pipe_buffer",), "pipe",
              attrs=(AttrDecl("name", "str"), AttrDecl("peer_func", "str")),
              pto=("pto.import_reserved_buffer",), doc="The peer function's reserved region of this name."),
    ]
    for core in ("aic", "aiv"):
        ops.append(OpDef(f"system.{core}_initialize_pipe", consumer_bufs, _deduce_init, ("pipe_init",), "pipe",
                         attrs=_pipe_attrs(), pto=(f"pto.{core}_initialize_pipe",),
                         doc=f"Initialise the {core.upper()} end of the pipe (before its first push / pop)."))
    # tfree_to_aic runs on the vector core: it releases a slot popped from the cube (and back).
    for towards, popped_on in (("aic", "aiv"), ("aiv", "aic")):
        ops.append(OpDef(f"system.tfree_to_{towards}", (OperandDecl("tile", "tile"),), _deduce_free,
                         ("tfree", popped_on), "pipe", attrs=(AttrDecl("id", "int"),),
                         pto=(f"pto.tfree_from_{towards}",),
                         doc=f"Release the slot of a tile popped from the {towards.upper()} (its split is the pop's)."))
    return ops


OPS: tuple[OpDef, ...] = tuple(_ops())

__all__ = ["AUTO_BASE", "C2V", "CONSUMER_SPACE", "DEFAULT_SLOT_NUM", "FIFO_NAMES", "I32", "OPS", "V2C"]

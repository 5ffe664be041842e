"""The two paths a kernel's stores take to GM, and which path each call's writes take.

A bulk store (tensor.assemble, tile.store, any op the registry declares writing a tensor operand
outside the scalar-access family) goes through MTE3; a scalar store (tensor.write,
pto.store_scalar: the scalar-access family) through the D-cache. On A2/A3 the two are not
coherent, so a kernel never writes one GM tensor by both (spec convert_tensor_to_tile_ops.md,
"GM Store Coherence Restriction"). The fact is stated here once for the GmStoreCoherence
verifier and for the program generator, which must not draw a kernel the verifier refuses.
"""

from __future__ import annotations

from typing import Iterable

from languages.ops import READ, WRITE, OpDef, ReusesInput
from languages.types import Attrs

BULK, SCALAR = "bulk", "scalar"
_SCALAR_FAMILY = "scalar_access"


def store_paths(opdef: OpDef, arity: int, attrs: Attrs = ()) -> tuple[tuple[int, str], ...]:
    """(operand index, path) of every operand a call of `opdef` with `arity` arguments writes:
    SCALAR for the scalar-access family, BULK for any other writing op."""
    path = SCALAR if opdef.family == _SCALAR_FAMILY else BULK
    written: list[tuple[int, str]] = []
    for index in range(arity):
        try:
            writes = bool(opdef.effect_of(index, attrs) & WRITE)
        except IndexError:
            break
        if writes:
            written.append((index, path))
    return tuple(written)


def aliased_operand(opdef: OpDef, arity: int) -> int | None:
    """The operand whose GM tensor a call's result names (its result reuses that operand's
    storage: a write / assemble into a tensor is that tensor), or None."""
    rule = opdef.output_memory
    if isinstance(rule, ReusesInput) and rule.index < arity:
        return rule.index
    return None


def incoherent(paths: Iterable[str]) -> bool:
    """Whether stores by these paths to one GM tensor of a kernel may lose writes (both paths)."""
    seen = set(paths)
    return BULK in seen and SCALAR in seen


def gm_accesses(opdef: OpDef, arity: int, attrs: Attrs = ()) -> tuple[tuple[int, bool, bool, str], ...]:
    """(operand index, reads, writes, path) of every tensor operand a call of `opdef` with
    `arity` arguments touches the data of: a view or a dimension query touches none (its result
    names the tensor, or its shape), nor does an operand every core shares by design (a soft
    syncall's counters, updated atomically: `shared_by_cores`). The path is SCALAR for the
    scalar-access family (the D-cache), BULK otherwise (MTE2 / MTE3). Which tensor operands a call
    has is the caller's to say (the indices returned are the operands declared as tensors)."""
    if opdef.family == "view" or opdef.semantics[:1] == ("dim",):
        return ()
    path = SCALAR if opdef.family == _SCALAR_FAMILY else BULK
    out: list[tuple[int, bool, bool, str]] = []
    for index in range(arity):
        try:
            decl = opdef.operand_decl(index)
            effect = opdef.effect_of(index, attrs)
        except IndexError:
            break
        if decl.shared_by_cores:
            continue
        reads, writes = bool(effect & READ), bool(effect & WRITE)
        if reads or writes:
            out.append((index, reads, writes, path))
    return tuple(out)


def shared_through_the_dcache(accesses: Iterable[tuple[bool, bool, str]]) -> bool:
    """(reads, writes, path) of a kernel's accesses of one GM tensor: whether a scalar access
    (the D-cache) meets a bulk access with a write on either side. In a mixed kernel the two may
    run on different cores, and no cross-core barrier makes the D-cache's view of the tensor
    agree with MTE2 / MTE3's, so ExpandMixedKernel refuses such a pair on two cores (the program
    generator keeps any kernel off it)."""
    seen = list(accesses)
    scalar = [(r, w) for r, w, p in seen if p == SCALAR]
    bulk = [(r, w) for r, w, p in seen if p == BULK]
    return bool(scalar and bulk) and (any(w for _, w in scalar) or any(w for _, w in bulk))

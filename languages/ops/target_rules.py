"""Target-dependent operator constraints, stated as data on the op that has them.

An instruction is not the same instruction on every Ascend target: PTOAS's per-arch verifiers
and pto-isa's per-arch implementations accept different element types, and some
implementations use a scratch operand on one target and ignore it on another. `OpDef.target_rules`
lists such constraints; each one names the target architectures (`BackendHandler.arch`:
"a2a3", "a5") it applies on. The TargetOpRules verifier checks them on the program the user
wrote (so the error names the user's line) and after every pass.

Operand positions are call-argument indices; `RESULT` stands for the op's result (the
instruction's dst).
"""

from __future__ import annotations

from dataclasses import dataclass

from languages.types import AttrValue, DataType

RESULT = -1

A2A3 = frozenset({"a2a3"})
A5 = frozenset({"a5"})


@dataclass(frozen=True)
class TargetRule:
    """A constraint holding on the targets whose arch is in `archs`; `because` says why (the
    instruction's behaviour there), `fix` how the user can comply.  `when` restricts the rule
    to calls whose attribute has a value (tile.store's atomic='add')."""

    archs: frozenset[str]
    because: str
    fix: str
    when: tuple[tuple[str, AttrValue], ...] = ()


@dataclass(frozen=True)
class DtypeIn(TargetRule):
    """Operand `operand`'s element type is one of `dtypes`."""

    operand: int = 0
    dtypes: frozenset[DataType] = frozenset()


@dataclass(frozen=True)
class Unavailable(TargetRule):
    """The op has no instruction on these targets at all (TRANDOM on A2/A3), or none this
    compiler can emit yet (`what` says which)."""

    what: str = "not available on this target"


@dataclass(frozen=True)
class PipeIn(TargetRule):
    """The op's `pipe` attribute is one of `pipes` (PTOAS's per-arch sync verifiers)."""

    pipes: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Disjoint(TargetRule):
    """Operand `operand` shares no byte with any of `others` (RESULT: the instruction's dst):
    the instruction writes it while the others are still read (or reads it after writing them)."""

    operand: int = 0
    others: tuple[int, ...] = ()


@dataclass(frozen=True)
class WholeRows(TargetRule):
    """Operand `operand` is not a window narrower than the buffer it views: the instruction
    counts positions by the operand's own columns while its rows lie the buffer's pitch apart
    (the index form of TGATHER / TSCATTER)."""

    operand: int = 0


@dataclass(frozen=True)
class MaskScratch(TargetRule):
    """Operand `operand` is the scratch a compare writes its packed predicate mask of the result
    into, plus `extra_rows` rows the instruction uses after it: its valid region has more rows
    than the result's (`extra_rows` more) and at least one mask row's bytes per row
    (`mask_row_bytes(result valid columns)`)."""

    operand: int = 0
    extra_rows: int = 1


__all__ = ["A2A3", "A5", "RESULT", "Disjoint", "DtypeIn", "MaskScratch", "PipeIn", "TargetRule", "Unavailable",
           "WholeRows"]

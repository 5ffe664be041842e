"""Memory spaces of the Ascend cube/vector cores (TARGET_FACTS.md "Memory spaces")."""

from __future__ import annotations

import enum


class MemorySpace(enum.Enum):
    """Where a value lives; the integer values follow PyPTO's MemorySpace numbering."""

    DDR = 0
    Vec = 1
    Mat = 2
    Left = 3
    Right = 4
    Acc = 5
    Bias = 6

    @property
    def pto_name(self) -> str:
        """Spelling of the space in PTO-ISA `loc=` attributes."""
        return _PTO_NAMES[self]

    @property
    def pl_name(self) -> str:
        """Spelling in the `pl` DSL (`pl.Mem.Vec`); global memory prints as DDR."""
        return self.name

    @classmethod
    def parse(cls, text: str) -> MemorySpace:
        """From 'Vec', 'pl.Mem.Vec', 'MemorySpace.Vec', PTO's 'vec' or 'gm'."""
        key = text.removeprefix("pl.").removeprefix("Mem.").removeprefix("MemorySpace.")
        for space in cls:
            if space.name.lower() == key.lower() or _PTO_NAMES[space] == key.lower():
                return space
        raise KeyError(text)


_PTO_NAMES: dict[MemorySpace, str] = {
    MemorySpace.DDR: "gm",
    MemorySpace.Vec: "vec",
    MemorySpace.Mat: "mat",
    MemorySpace.Left: "left",
    MemorySpace.Right: "right",
    MemorySpace.Acc: "acc",
    MemorySpace.Bias: "bias",
}

ON_CHIP_SPACES: tuple[MemorySpace, ...] = tuple(s for s in MemorySpace if s is not MemorySpace.DDR)
# The spaces a tile may be compact in (a valid-row pitch: a row-narrowed L0 buffer keeps its
# valid rows' boxes together); elsewhere a tile's rows are its shape's (AccCompactValid).
COMPACT_SPACES: tuple[MemorySpace, ...] = (MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)

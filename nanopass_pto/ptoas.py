"""The real PTO assembler (PTOAS) as an oracle: where it is, how it is run, and the rejection
classes that are known and open (not findings).

PTOAS is found as `$PTOAS`, on `PATH`, or in the user cache where
`../shared/external/build-ptoas.sh` builds it. A kernel compiled for Ascend910B is assembled with
`--pto-arch=a3`, one for Ascend950 with `a5`, both at `--pto-level=level3` (PTO_DIALECT.md).
tests/test_ptoas.py and the fuzz campaigns' `--ptoas` oracle (nanopass_pto.fuzz_target) share
these facts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

ARCH = {"Ascend910B": "a3", "Ascend950": "a5"}
CACHE = Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "ptoas"


def find_tool(name: str, env: str, candidates: list[Path]) -> Path | None:
    """`$env`, else `name` on PATH, else the first existing candidate."""
    configured = os.environ.get(env)
    if configured:
        return Path(configured)
    on_path = shutil.which(name)
    if on_path:
        return Path(on_path)
    return next((c for c in candidates if c.is_file()), None)


def find_ptoas() -> Path | None:
    """The PTOAS binary, or None when it is not built."""
    found = find_tool("ptoas", "PTOAS", sorted(CACHE.glob("*/build/tools/ptoas/ptoas")))
    return found if found is not None and found.is_file() else None


def assemble(ptoas: Path, pto: Path, arch: str, cpp: Path) -> subprocess.CompletedProcess[str]:
    """PTOAS on the PTO file `pto` for `arch` ("a3" / "a5"), writing C++ to `cpp`."""
    return subprocess.run([str(ptoas), f"--pto-arch={arch}", "--pto-level=level3", str(pto), "-o", str(cpp)],
                          capture_output=True, text=True, timeout=300)


# The rejection classes still open for generated programs, by name (tests/test_ptoas.py says
# what each one is and what would close it).
# PTOAS checks each vector instruction's element types per arch; the instructions
# languages/ops/assembler_element_types.py does not cover yet (BF16 reductions and
# transcendentals on A5, ...) and an unsigned fill (texpands wants a signless scalar equal to the
# element type) are known.
ELEMENT_TYPE = re.compile(r"op expects [^\n]*element (type|types|size)s? (to be|to match)|"
                          r"op expects scalar type to match the tile element type|"
                          r"'pto\.texpands' op expects scalar type == dst element type|"
                          r"op integer return type must be signless")
# A tcvt between element widths whose rows pad differently, and A5's tcmp, which wants its mask
# declared of its sources' shape (languages.layout's ShapeMatch open_because).
CAST_PITCH = re.compile(r"'pto\.tcvt' op expects src and dst to have compatible shapes"
                        r"|'pto\.tcmp' op expects src0, src1, and dst to have the same shape")
# A vector instruction of a family not re-viewed as rows yet reaching a column-major tile.
ROW_MAJOR_OPERANDS = re.compile(r"op expects [^\n]*to use (row-major layout|the row_major blayout)")
KNOWN_OPEN: dict[str, re.Pattern[str]] = {"CAST_PITCH": CAST_PITCH, "ROW_MAJOR_OPERANDS": ROW_MAJOR_OPERANDS,
                                          "ELEMENT_TYPE": ELEMENT_TYPE}


def known_open_class(stderr: str) -> str | None:
    """The name of the known-open rejection class PTOAS's `stderr` belongs to, or None."""
    return next((name for name, pattern in KNOWN_OPEN.items() if pattern.search(stderr)), None)


__all__ = ["ARCH", "CACHE", "CAST_PITCH", "ELEMENT_TYPE", "KNOWN_OPEN", "ROW_MAJOR_OPERANDS", "assemble", "find_ptoas",
           "find_tool", "known_open_class"]

"""A dump resumes where it was taken, under every verifier: compiling an example's dump at each
Addressed point (after InitMemRef, MemoryReuse, AllocateMemoryAddr) with the default pipeline
re-runs the memory planning on a program whose buffers may already have addresses, and must
verify and simulate as the example does.

MemoryReuse used to keep a merged slot's first offset with the slot's grown size, so on an input
already addressed the merged buffer reached into the bytes of buffers laid out after it: NoCoLiveOverlap
and InPlaceSafety refused tests/golden/pto/vec_ops.py after MemoryReuse (an internal error, the pass blamed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import languages.gen.addressed as A
from languages.types import TileType
from nanopass.node import walk
from passes.analysis.memrefs import UNASSIGNED_OFFSET
from nanopass_pto.plugin import parse
from passes.memory_reuse import reuse_mapping

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ("softmax_rows_f32.py", "matmul_f16_f32.py", "ragged_rows_f32.py")
ADDRESSED_DUMPS = ("_after_InitMemRef.py", "_after_MemoryReuse.py", "_after_AllocateMemoryAddr.py")


def _compile(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nanopass.pipeline", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_addressed_dump_resumes_under_verify_all(example: str, tmp_path: Path) -> None:
    dumped = _compile(str(ROOT / "examples" / example), "--verify-all", "--dump-dir", str(tmp_path))
    assert dumped.returncode == 0, dumped.stderr
    dumps = [p for p in sorted(tmp_path.iterdir()) if p.name.endswith(ADDRESSED_DUMPS)]
    assert len(dumps) == len(ADDRESSED_DUMPS), [p.name for p in tmp_path.iterdir()]
    for dump in dumps:
        resumed = _compile(str(dump), "--verify-all", "--simulate")
        assert resumed.returncode == 0, f"{dump.name}:\n{resumed.stderr}"
        assert "Traceback" not in resumed.stderr and "mismatch" not in resumed.stderr
        assert "bit-exact" in resumed.stderr, resumed.stderr


def test_the_addressed_golden_kernel_verifies_and_simulates() -> None:
    resumed = _compile(str(ROOT / "tests" / "golden" / "pto" / "vec_ops.py"), "--verify-all", "--simulate")
    assert resumed.returncode == 0, resumed.stderr
    assert "ret0: bit-exact" in resumed.stderr


def _addressed_kernel() -> A.Function:
    text = (ROOT / "tests" / "golden" / "pto" / "vec_ops.py").read_text()
    program = parse(text, "vec_ops.py")
    assert isinstance(program, A.Program)
    return next(f for f in program.functions if f.name == "vec_ops")


def test_a_merged_buffer_is_unaddressed_until_allocation() -> None:
    function = _addressed_kernel()
    mapping, reused = reuse_mapping(function)
    assert reused > 0
    merged = set(mapping.values())
    assert merged and all(m.offset == UNASSIGNED_OFFSET for m in merged)
    # Every member of a merged slot fits in it: the slot is as large as its largest member.
    sizes: dict[str, int] = {}
    for node in walk(function):
        ty = getattr(node, "type", None)
        if isinstance(ty, TileType) and ty.memref is not None:
            sizes[ty.memref.name] = ty.memref.size
    for name, shared in mapping.items():
        assert shared.size >= sizes[name]

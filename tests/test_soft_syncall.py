"""A soft syncall reaches PTO in the form PTOAS 0.44 verifies (SyncAllOp::verify): its GM
workspace as a partition view of an INT32 tensor of at least 16 counters, and beside it one
on-chip INT32 staging tile per side that takes part (SOFT_SYNCALL_TILE_WORKSPACES), which the
Tensor-level call leaves to the compiler. A workspace PTOAS would refuse is the user's error at
the call. (tests/test_ptoas.py hands the kernel to the real assembler on both targets.)"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numpy as np

from languages.memory_space import MemorySpace
from languages.ops.system_ops import SOFT_SYNCALL_TILE_WORKSPACES
from nanopass.pipeline import main
from tests.test_kernels_matmul import B910, B950, check_kernel

KERNEL = Path(__file__).resolve().parent / "kernels" / "ops" / "soft_syncall_workspaces.py"


def _run(args: list[str]) -> tuple[int, str]:
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        rc = main(args)
    return rc, log.getvalue()


def test_soft_barriers_leave_the_values_alone(tmp_path: Path) -> None:
    x = np.random.default_rng(5).standard_normal((16, 32)).astype(np.float32)
    counters = np.zeros(16, np.int32)
    expected = ((x + np.float32(1.0)) * np.float32(3.0) - x).astype(np.float32)
    for backend in (B910, B950):
        check_kernel(KERNEL, {"x": x, "counters": counters}, {"ret0": expected}, backend, tmp_path)


def test_each_core_type_gets_its_staging_tiles_in_ptoas_operand_order(tmp_path: Path) -> None:
    pto = tmp_path / "k.pto"
    rc, log = _run([str(KERNEL), "--verify-all", "-o", str(pto)])
    assert rc == 0, log
    syncalls = [line for line in pto.read_text().splitlines() if "pto.syncall(" in line]
    assert len(syncalls) == 3, syncalls
    for line, core_type in zip(syncalls, ("aiv_only", "mix", "aic_only")):
        types = line.split(" : ", 1)[1].split(") mode")[0]
        spaces = re.findall(r"loc=(\w+)", types)
        assert types.startswith("!pto.partition_tensor_view<16xi32>"), line
        assert spaces == [{MemorySpace.Vec: "vec", MemorySpace.Mat: "mat"}[s]
                          for s in SOFT_SYNCALL_TILE_WORKSPACES[core_type]], line
        assert all("dtype=i32" in t for t in types.split("!pto.tile_buf")[1:]), line
        assert f"core_type = #pto.sync_core_type<{core_type}>" in line
    # used_cores = 4 is the last operand; the default (the launch's count) is left out.
    assert syncalls[1].split(" : ")[0].endswith("%c4_i32"), syncalls[1]
    assert "i32," not in syncalls[0].split(" : ", 1)[1].split("tile_buf")[0]


BAD = '''import pypto.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 32], pl.FP32], ws: WS) -> pl.Tensor[[16, 32], pl.FP32]:
        CALL
        y: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.adds(x, 1.0)
        return y
'''


def _refusal(tmp_path: Path, workspace: str, call: str) -> str:
    path = tmp_path / "bad.py"
    path.write_text(BAD.replace("WS", workspace).replace("CALL", call))
    rc, log = _run([str(path), "--verify-all"])
    assert rc == 1, log
    assert f"{path}:8:" in log and "internal compiler error" not in log, log
    return log


def test_a_workspace_ptoas_would_refuse_is_the_users_error(tmp_path: Path) -> None:
    # PTOAS polls i32 counters: an FP32 tensor, or fewer than 16 counters, is refused at the call.
    log = _refusal(tmp_path, "pl.Tensor[[16], pl.FP32]", 'pl.system.syncall(ws, mode="soft")')
    assert "expected an INT32 GM tensor of at least 16 elements" in log and "pl.INT32" in log, log
    log = _refusal(tmp_path, "pl.Tensor[[8], pl.INT32]", 'pl.system.syncall(ws, mode="soft")')
    assert "at least 16 elements" in log, log
    log = _refusal(tmp_path, "pl.Tensor[[16], pl.INT32]", 'pl.system.syncall(ws, pl.const(0.5, pl.FP32), mode="soft")')
    assert "expected an INT32 used_cores" in log, log
    log = _refusal(tmp_path, "pl.Tensor[[16], pl.INT32]", "pl.system.syncall(ws)")
    assert "a hard syncall takes no workspace" in log, log

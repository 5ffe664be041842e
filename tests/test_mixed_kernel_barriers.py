"""A syncall every core takes part in (core_type="mix") inside a mixed cube / vector kernel.

pto-isa's mix barrier counts the cube and the vector cores and releases none until all arrive, so
when ExpandMixedKernel splits the kernel into an AIC and an AIV kernel both take it, in program
order; PTOAS verifies a soft mix syncall's operands whatever core its function runs on (the GM
counters, a Vec and a Mat staging tile), so each kernel holds both staging tiles, the other
core's being a stand-in it allocates. The counters every core updates atomically are not a GM
race between the two kernels. (Finding f530808309: the Mat workspace was "computed on the cube
core but used on the vector core".) BarriersOnEveryCore checks the kernels of a Group take the
same mix barriers; the mutant `mix-barrier-on-vector-core-only` is what it catches.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from nanopass.node import Node, walk
from nanopass_pto.mutants import MUTANTS
from tests.references import matmul_ref
from tests.test_kernels_matmul import B910, B950, check_kernel, random_array
from tests.test_mixed_kernels import _compile
from verifiers import barriers_on_every_core

KERNEL = Path(__file__).resolve().parent / "kernels" / "ops" / "mixed_kernel_barriers.py"


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(23)
    return {"lhs": random_array((32, 48), "FP16", rng), "rhs": random_array((48, 16), "FP16", rng),
            "counters": np.zeros(16, np.int32)}


def test_barriers_leave_the_product_alone_on_both_targets(tmp_path: Path) -> None:
    inputs = _inputs()
    expected = np.abs(matmul_ref(inputs["lhs"], inputs["rhs"]) * np.float32(2.0)).astype(np.float32)
    for backend in (B910, B950):
        check_kernel(KERNEL, inputs, {"ret0": expected}, backend, tmp_path)


def _syncalls(function: Node) -> list[Node]:
    return [n for n in walk(function) if n.KIND == "Call" and getattr(n, "op") == "system.syncall"]


def test_both_kernels_take_every_mix_barrier_with_both_workspaces() -> None:
    out = _compile(KERNEL, "expand-mixed-kernel")
    kernels = {f.func_type: f for f in out.functions if f.func_type in ("AIC", "AIV")}
    assert set(kernels) == {"AIC", "AIV"}
    for kernel in kernels.values():
        syncalls = _syncalls(kernel)
        assert [dict(getattr(c, "attrs")).get("mode") for c in syncalls] == ["soft", None], kernel.name
        spaces = [getattr(a, "type").memory_space.name for a in getattr(syncalls[0], "args")[2:]]
        assert spaces == ["Vec", "Mat"], (kernel.name, spaces)
        # The counters reach both kernels (the Group passes them to each).
        assert any(p.var.name == "counters" for p in kernel.params), kernel.name
    assert barriers_on_every_core.verify(out) == []


def test_both_pto_kernels_print_the_soft_barrier_ptoas_verifies(tmp_path: Path) -> None:
    from tests.test_soft_syncall import _run

    pto = tmp_path / "k.pto"
    rc, log = _run([str(KERNEL), "--verify-all", "--backend", B910, "-o", str(pto)])
    assert rc == 0, log
    text = pto.read_text()
    for kind in ("cube", "vector"):
        body = text.split(f"#pto.kernel_kind<{kind}>", 1)[1].split("func.func", 1)[0]
        soft = [line for line in body.splitlines() if "sync_all_mode<soft>" in line]
        assert len(soft) == 1 and re.findall(r"loc=(\w+)", soft[0]) == ["vec", "mat"], (kind, soft)
        assert "core_type = #pto.sync_core_type<mix>" in soft[0]


def test_a_barrier_only_one_kernel_takes_is_reported() -> None:
    mutant = {m.name: m for m in MUTANTS}["mix-barrier-on-vector-core-only"]
    with mutant.applied():
        out = _compile(KERNEL, "expand-mixed-kernel")
    rules = [d.rule for d in barriers_on_every_core.verify(out)]
    assert rules == ["BarriersOnEveryCore"], rules

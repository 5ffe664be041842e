"""The simulator's per-instruction fast paths (backend/sim/fast_paths.py) change nothing.

Every kernel of the test corpus, the bundled examples and the benchmark programs runs with
the fast paths and without them (`fast_paths.ENABLED = False`: every instruction through its
general handler), on the same random inputs: the outputs are the same bits, and a run that
fails fails with the same message. Poison reads keep their instruction, tile and element: the
fast path declines an unwritten source before touching a byte, and the general handler
reports it (tests/test_sim_executor.py checks those reports with the fast paths on).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from backend import numerics
from backend.sim import fast_paths
from nanopass.diagnostics import CompileError
from nanopass.plugin import get_plugin
from nanopass_pto import run as runner

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted([*(ROOT / "tests" / "kernels").rglob("*.py"), *(ROOT / "examples").glob("*.py"),
                   *(ROOT / "bench" / "programs").glob("*.py")])


def _outcome(compiled: runner.Compiled, inputs: dict[str, Any]) -> object:
    try:
        outputs = runner.run(compiled, inputs)
    except CompileError as err:
        return ("error", str(err))
    return {name: numerics.to_bits(np.asarray(value)).tobytes() for name, value in sorted(outputs.items())}


# The 512^3 bench matmuls included: their general handlers run the same block moves and
# numerics.matmul (~50 ms a run), while the fast paths run the MAD on the tile windows.
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fast_paths_give_the_general_handlers_bits(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = path.read_text()
    if "@pl.program" not in text:
        pytest.skip("not a pl program file")
    plugin = get_plugin()
    try:
        source = plugin.parse(text, str(path))
        compiled = runner.compile_program(source)
    except CompileError:
        pytest.skip("does not compile (a negative case: nothing to simulate)")
    for seed in (0, 1):
        inputs = runner.random_inputs(source, seed=seed)
        fast = _outcome(compiled, inputs)
        monkeypatch.setattr(fast_paths, "ENABLED", False)
        general = _outcome(compiled, inputs)
        monkeypatch.setattr(fast_paths, "ENABLED", True)
        assert fast == general


def test_the_benchmark_kernels_take_the_fast_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """No instruction of the benchmark loop bodies reaches its general handler (a fast path
    that silently declined would still give the right bits, only slowly)."""
    from backend.sim.executor import Executor
    general: list[str] = []
    original = Executor.eval_call

    def counting(self: Executor, call: Any, target: Any, span: Any = None) -> Any:
        general.append(call.op)
        return original(self, call, target) if span is None else original(self, call, target, span)

    monkeypatch.setattr(Executor, "eval_call", counting)
    from backend.sim.machine import _MAD_TILES, Machine
    mads: list[bool] = []
    original_mad = Machine.mad_tiles

    def counting_mad(self: Machine, *args: Any, **kwargs: Any) -> bool:
        mads.append(original_mad(self, *args, **kwargs))
        return mads[-1]

    monkeypatch.setattr(Machine, "mad_tiles", counting_mad)
    plugin = get_plugin()
    for name in ("add512_f32", "exp512_f32", "matmul512_f16", "matmul512_f32"):
        path = ROOT / "bench" / "programs" / f"{name}.py"
        source = plugin.parse(path.read_text(), str(path))
        compiled = runner.compile_program(source)
        general.clear()
        mads.clear()
        runner.run(compiled, runner.random_inputs(source, seed=0))
        if name.startswith("matmul") and _MAD_TILES is not None:  # every MAD on the tiles themselves
            assert mads and all(mads), (name, mads.count(False), len(mads))
        looped = sorted({op for op in general if op not in ("arith.constant", "pto.make_tensor_view", "pto.alloc_tile")})
        # Including the matmuls' Acc -> GM store (FIXPIPE converts on the way), the FP16 one's
        # Mat -> Right move (a column-major-inner box layout: a strided copy, not a block move)
        # and the FP32 one's K-slice extracts; only its scalar `k == 0` compare is general.
        expected = ["arith.cmpi"] if name == "matmul512_f32" else []
        assert looped == expected, (name, looped)


@pytest.mark.parametrize("seed", range(4))
def test_the_nan_probe_of_binary_fast_paths_agrees_with_isnan(seed: int) -> None:
    """`_has_nan` (one min reduction) on FP32 windows of random bit patterns -- NaNs of every
    payload and sign, infinities, signed zeros, subnormals -- and on strided views."""
    from backend.sim.fast_paths import _has_nan

    rng = np.random.default_rng(seed)
    for share in (0.0, 1e-3, 0.3):
        bits = rng.integers(0, 2**32, (32, 64), dtype=np.uint64).astype(np.uint32)
        finite = (bits & 0x7F800000) != 0x7F800000
        keep = rng.random(bits.shape) >= share
        bits = np.where(keep & ~finite, bits & 0xBFFFFFFF, bits)  # most NaNs made finite
        values = bits.view(np.float32)
        for window in (values, values[::2, 1::3], values[:0]):
            assert _has_nan(window) == bool(np.isnan(window).any())


def test_a_reused_executor_keeps_no_value_of_its_last_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Launches of one kernel reuse an executor (its plans and fast paths; backend/sim/executor.py
    `_take_executor`): every launch computes from its own inputs -- a partition window, tile or
    tensor of the last launch is never read again -- and a launch that failed (a poison read)
    leaves nothing behind for the next one."""
    from backend.sim import executor as executor_module
    from languages.pl_parser import parse_program
    from nanopass_pto.run import compile_program, run

    program = parse_program((Path(__file__).resolve().parent.parent / "bench" / "programs" / "add512_f32.py")
                            .read_text(), "add512_f32.py")
    compiled = compile_program(program)
    rng = np.random.default_rng(3)
    launches = [{name: rng.standard_normal((512, 512)).astype(np.float32) for name in ("a", "b")} for _ in range(3)]
    from backend.sim.machine import Machine
    made: list[Machine] = []
    loaded_by: list[Machine] = []
    post_init, load_block = Machine.__post_init__, Machine.load_block

    def recorded_post_init(self: Machine) -> None:
        made.append(self)
        post_init(self)

    def recorded_load_block(self: Machine, *args: Any, **kwargs: Any) -> bool:
        loaded_by.append(self)
        return load_block(self, *args, **kwargs)

    monkeypatch.setattr(Machine, "__post_init__", recorded_post_init)
    monkeypatch.setattr(Machine, "load_block", recorded_load_block)
    for inputs in launches:
        made.clear()
        loaded_by.clear()
        out = run(compiled, inputs)
        assert np.array_equal(out["ret0"].view(np.uint32), (inputs["a"] + inputs["b"]).view(np.uint32))
        assert len(made) == 1 and loaded_by and all(m is made[0] for m in loaded_by)  # this launch's machine
    kernel = next(f for f in getattr(compiled.final, "functions") if f.name == "kernel")
    pooled = executor_module._EXECUTORS.get(id(kernel))
    assert pooled is not None and pooled[0] is kernel and pooled[1]  # the launches shared one
    assert not pooled[1][0].env and all(not cache for cache in pooled[1][0]._launch_caches)
    # A failing launch (an input of the wrong shape) takes the pooled executor and drops it.
    from backend.sim.machine import SimulationError
    with pytest.raises(SimulationError):
        executor_module.run_kernel(kernel, {"arg0": launches[0]["a"], "arg1": launches[0]["b"][:256]}, "Ascend910B")
    out = run(compiled, launches[1])
    assert np.array_equal(out["ret0"].view(np.uint32), (launches[1]["a"] + launches[1]["b"]).view(np.uint32))

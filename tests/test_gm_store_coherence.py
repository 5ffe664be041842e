"""GmStoreCoherence: bulk (MTE3) and scalar (D-cache) stores never meet on one GM tensor of a
kernel (spec convert_tensor_to_tile_ops.md, GM Store Coherence Restriction)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.kernel_cli import compile_kernel, program_text

def _compile(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, simulate: bool = False) -> tuple[int, str]:
    inputs = None
    if simulate:
        inputs = {"values": np.arange(32, dtype=np.int32), "dst": np.zeros(32, np.int32), "side": np.zeros(32, np.int32)}
    return compile_kernel(tmp_path, capsys, program_text(body), inputs)


def test_a_scalar_write_after_a_bulk_store_to_the_same_tensor_is_rejected_at_the_write(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, log = _compile(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, dst: pl.InOut[pl.Tensor[[32], pl.INT32]], v: pl.Scalar[pl.INT32]) -> pl.Tensor[[32], pl.INT32]:
        fill = pl.full([32], dtype=pl.INT32, value=-1)
        dst[0:32] = fill
        pl.tensor.write(dst, [3], v)
        return dst
    """)
    assert rc != 0
    assert "kernel.py:10:" in log and "[GmStoreCoherence]" in log and "`dst`" in log and "(line 9)" in log, log


def test_the_check_follows_a_loop_carry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The bulk store is into the carried value; the scalar write goes to the parameter itself.
    rc, log = _compile(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, src: pl.Tensor[[32], pl.INT32], dst: pl.InOut[pl.Tensor[[32], pl.INT32]],
               v: pl.Scalar[pl.INT32]) -> pl.Tensor[[32], pl.INT32]:
        for i, (acc,) in pl.range(2, init_values=(dst,)):
            t = pl.load(src, [0], [32])
            stored = pl.store(t, [0], acc)
            acc = pl.yield_(stored)
        pl.tensor.write(dst, [0], v)
        return acc
    """)
    assert rc != 0 and "[GmStoreCoherence]" in log and "kernel.py:13:" in log and "tile.store (line 11)" in log, log


def test_scalar_and_bulk_stores_to_different_tensors_compile_and_run(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    rc, log = _compile(tmp_path, capsys, """\
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, values: pl.Tensor[[32], pl.INT32], dst: pl.InOut[pl.Tensor[[32], pl.INT32]],
               side: pl.InOut[pl.Tensor[[32], pl.INT32]]) -> pl.Tensor[[32], pl.INT32]:
        t = pl.load(values, [0], [32])
        dst = pl.store(t, [0], dst)
        first = pl.tensor.read(values, [5])
        pl.tensor.write(side, [2], first)
        return dst
    """, simulate=True)
    assert rc == 0, log
    out = np.load(tmp_path / "out.npz")
    assert out["dst"].tolist() == list(range(32))
    assert out["side"].tolist() == [0, 0, 5] + [0] * 29


def test_the_store_paths_are_one_fact_of_the_registry() -> None:
    from languages.ops import REGISTRY
    from languages.ops.gm_store_paths import BULK, SCALAR, aliased_operand, incoherent, store_paths

    assert store_paths(REGISTRY.get("tensor.write"), 3) == ((0, SCALAR),)
    assert store_paths(REGISTRY.get("tensor.assemble"), 3) == ((0, BULK),)
    assert store_paths(REGISTRY.get("tile.store"), 3) == ((2, BULK),)
    assert store_paths(REGISTRY.get("tensor.add"), 2) == ()
    assert aliased_operand(REGISTRY.get("tensor.write"), 3) == 0  # the written tensor is its result
    assert incoherent([BULK, SCALAR]) and not incoherent([BULK, BULK])


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_the_generator_never_mixes_the_two_paths_on_one_tensor(arch: str) -> None:
    # Steered to scalar writes and bulk assembles, the generator used to draw a kernel writing
    # one GM parameter both ways in about a quarter of its programs.
    from hypothesis import HealthCheck, given, seed, settings

    from backend.fuzzing.generator import Features, GeneratedProgram, programs
    from verifiers import gm_store_coherence

    drawn: list[GeneratedProgram] = []

    @seed(1)
    @settings(max_examples=60, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(programs(Features(), arch, ("tensor.write", "tensor.assemble")))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    assert sum("tensor.write" in p.ops for p in drawn) * 6 >= len(drawn)  # the scalar writes are still drawn
    for program in drawn:
        assert gm_store_coherence.verify(program.program) == [], program.text

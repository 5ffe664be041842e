"""Kernels called from an Orchestration function on windows of GM tensors (issue 8 / 9).

An orchestration `pl.slice` of a GM tensor is a window of it (`tensor.window`): the kernel gets the
caller's memory at the window's offset and addresses it at the wider tensor's strides, which the
kernel's parameter type carries (a column block of [32, 64] is [32, 16] at strides [64, 1]). A
kernel result `pl.assemble`-d into a window is the kernel writing that window (its Out argument).
Every result is compared bit for bit with NumPy on both backends; the simulator must read the
window's offset and strides (a wrong stride, or a runner that ignores the offset, changes the
result), and bad windows are located errors.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import pytest

import _nanopass_pypto_alias
from backend.pto_text.printer import print_mlir
from backend.sim.machine import SimulationError
from languages.gen import pto as P
from languages.pl_parser import load_program
from nanopass.diagnostics import CompileError
from nanopass.node import Node
from nanopass.pipeline import main
from nanopass_pto import mutants, run

Array = npt.NDArray[Any]
F32 = np.float32
BACKENDS = ("Ascend910B", "Ascend950")
KERNEL_DIR = Path(__file__).resolve().parent / "kernels" / "ops"


def rand(seed: int, shape: tuple[int, ...]) -> Array:
    return np.random.default_rng(seed).uniform(-4.0, 4.0, shape).astype(F32)


# -- the kernels ---------------------------------------------------------------------------------------

ROW_BLOCKS_OUT = (KERNEL_DIR / "orchestration_row_blocks.py").read_text()


def row_blocks_out(x: Array, b: Array) -> dict[str, Array]:
    return {"ret0": np.concatenate([(x[i * 8:(i + 1) * 8] * b) - b for i in range(4)])}


COLUMN_BLOCKS_OUT = (KERNEL_DIR / "orchestration_column_blocks.py").read_text()


def column_blocks_out(x: Array, b: Array) -> dict[str, Array]:
    return {"ret0": np.concatenate([(x[:, j * 16:(j + 1) * 16] * x[:, j * 16:(j + 1) * 16]) + b
                                    for j in range(4)], axis=1)}


# An InOut kernel updating column blocks of the caller's tensor in place, with an explicit Out
# kernel writing a transposed placement (row block j of y from column block j of x).
INOUT_AND_EXPLICIT_OUT = (KERNEL_DIR / "orchestration_inout_blocks.py").read_text()


def inout_and_explicit_out(x: Array) -> dict[str, Array]:
    bumped = x + F32(1.5)
    return {"x": bumped, "ret0": np.concatenate([bumped[:, j * 8:(j + 1) * 8] * F32(2) for j in range(4)])}


# Windows of windows, a two-dimensional block grid, and a kernel called outside any loop.
BLOCK_GRID = (KERNEL_DIR / "orchestration_block_grid.py").read_text()


def block_grid(x: Array) -> dict[str, Array]:
    return {"ret0": -x}


# A mixed kernel (a cube matmul and a vector op: an AIC / AIV pair) on row blocks of one operand
# and column blocks of the other. Its matmul is a fused FP32 chain over K, which NumPy's matmul is
# not: it is compared with the reference interpreter (NUMERICS.md) only.
MATMUL_BLOCK_GRID = (KERNEL_DIR / "orchestration_matmul_blocks.py").read_text()


KERNELS: dict[str, tuple[str, Callable[[], dict[str, Array]], Callable[..., dict[str, Array]] | None]] = {
    "matmul_block_grid": (MATMUL_BLOCK_GRID, lambda: {"a": rand(8, (32, 32)).astype(np.float16),
                                                       "b": rand(9, (32, 48)).astype(np.float16)}, None),
    "row_blocks_out": (ROW_BLOCKS_OUT, lambda: {"x": rand(1, (32, 32)), "b": rand(2, (8, 32))}, row_blocks_out),
    "column_blocks_out": (COLUMN_BLOCKS_OUT, lambda: {"x": rand(3, (32, 64)), "b": rand(4, (32, 16))},
                          column_blocks_out),
    "inout_and_explicit_out": (INOUT_AND_EXPLICIT_OUT, lambda: {"x": rand(5, (16, 32))}, inout_and_explicit_out),
    "block_grid": (BLOCK_GRID, lambda: {"x": rand(6, (32, 48))}, block_grid),
}


def compiled(text: str, backend: str, tmp_path: Path) -> tuple[Node, run.Compiled]:
    path = tmp_path / "kernel.py"
    path.write_text(text)
    program = load_program(str(path))
    return program, run.compile_program(program, backend=backend, verify_all=True)


def bits(a: Array) -> Array:
    return np.ascontiguousarray(a).view(np.uint32 if np.asarray(a).dtype.itemsize == 4 else np.uint16)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_a_kernel_on_windows_agrees_with_numpy_bit_for_bit(name: str, backend: str, tmp_path: Path) -> None:
    text, make_inputs, expected = KERNELS[name]
    program, result = compiled(text, backend, tmp_path)
    inputs = make_inputs()
    got = run.run(result, {k: v.copy() for k, v in inputs.items()})
    # the reference interpreter runs the source as written (a slice and an assemble are copies there)
    reference = run.reference(program, {k: v.copy() for k, v in inputs.items()})
    want = expected(**{k: v.copy() for k, v in inputs.items()}) if expected is not None else \
        {"ret0": reference["ret0"]}
    for key, value in want.items():
        assert np.array_equal(bits(got[key]), bits(value)), (name, key)
        assert np.array_equal(bits(reference[key]), bits(value)), (name, key)


def test_a_column_block_kernel_addresses_its_parameters_at_the_wider_tensors_strides(tmp_path: Path) -> None:
    _, result = compiled(COLUMN_BLOCKS_OUT, "Ascend910B", tmp_path)
    kernel = next(f for f in result.host.functions if f.name == "square_plus")  # type: ignore[union-attr]
    strides = [getattr(p.var.type, "strides") for p in kernel.params]
    assert strides == [(64, 1), None, (64, 1)]  # x and the Out window; b is passed whole
    assert isinstance(result.final, P.Program)
    text = print_mlir(result.final, emit_loc=False)
    views = re.findall(r"make_tensor_view %arg(\d), shape = \[[^]]*\], strides = \[%c(\d+)_index", text)
    assert views == [("0", "64"), ("1", "16"), ("2", "64")], text


def _with_packed_view_strides(program: Node) -> Node:
    """The PTO module with every 2-D make_tensor_view at packed strides [cols, 1] (a codegen that
    forgot the window's strides)."""
    def edit(node: Node) -> Node | None:
        if getattr(node, "op", None) != "pto.make_tensor_view":
            return None
        assert isinstance(node, P.Call)
        shape, strides = node.args[1], node.args[2]
        assert isinstance(shape, P.TupleExpr) and isinstance(strides, P.TupleExpr)
        packed = replace(strides, elements=(shape.elements[1], strides.elements[1]))
        return replace(node, args=(node.args[0], shape, packed))
    return mutants.transform(program, edit)  # type: ignore[no-any-return]


def test_a_wrong_stride_in_the_kernels_tensor_view_changes_the_result(tmp_path: Path) -> None:
    _, result = compiled(COLUMN_BLOCKS_OUT, "Ascend910B", tmp_path)
    inputs = {"x": rand(3, (32, 64)), "b": rand(4, (32, 16))}
    right = run.run(result, inputs)["ret0"]
    wrong = run.run(replace(result, final=_with_packed_view_strides(result.final)), inputs, checked=False)["ret0"]
    assert np.array_equal(bits(right), bits(column_blocks_out(**inputs)["ret0"]))
    assert not np.array_equal(bits(wrong), bits(right))


@pytest.mark.parametrize("mutant", ["sim-window-offset-ignored", "sim-window-strides-ignored"])
def test_a_runner_that_misreads_a_window_changes_the_result(mutant: str, tmp_path: Path) -> None:
    _, result = compiled(ROW_BLOCKS_OUT if "offset" in mutant else COLUMN_BLOCKS_OUT, "Ascend910B", tmp_path)
    inputs = ({"x": rand(1, (32, 32)), "b": rand(2, (8, 32))} if "offset" in mutant
              else {"x": rand(3, (32, 64)), "b": rand(4, (32, 16))})
    right = run.run(result, inputs)["ret0"]
    broken = next(m for m in mutants.MUTANTS if m.name == mutant)
    with broken.applied():
        if "offset" in mutant:  # every row block reads and writes the first one
            assert not np.array_equal(bits(run.run(result, inputs, checked=False)["ret0"]), bits(right))
        else:  # a packed copy is shorter than the rows its tensor view spans
            with pytest.raises(SimulationError, match="strides"):
                run.run(result, inputs, checked=False)


# -- the @pl.jit spelling -------------------------------------------------------------------------------

JIT_BLOCKS = '''
import pypto.language as pl


@pl.jit.incore
def add_half(x: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
    t = pl.load(x, [0, 0], [16, 32])
    pl.store(pl.adds(t, 0.5), [0, 0], out)
    return out


@pl.jit
def column_pairs(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    for j in pl.range(2):
        r = pl.create_tensor([16, 32], dtype=pl.FP32)
        r = add_half(pl.slice(x, [16, 32], [0, j * 32]), r)
        y = pl.assemble(y, r, [0, j * 32])
    return y
'''


# A CORE_GROUP scope reading a window: OutlineIncoreScopes makes the window the kernel's argument.
JIT_SCOPED = '''
import pypto.language as pl


@pl.jit
def column_pairs(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    for j in pl.range(2):
        xb = pl.slice(x, [16, 32], [0, j * 32])
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(xb, [0, 0], [16, 32])
            pl.store(pl.adds(t, 0.5), [0, j * 32], y)
    return y
'''


@pytest.mark.parametrize("source", [JIT_BLOCKS, JIT_SCOPED], ids=["incore-dep", "core-group-scope"])
def test_a_jit_orchestration_runs_its_kernel_on_column_windows(source: str, tmp_path: Path) -> None:
    (tmp_path / "window_jit_kernel.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        _nanopass_pypto_alias.install()
        module = __import__("window_jit_kernel")
        x = rand(7, (16, 64))
        y = np.zeros_like(x)
        module.column_pairs(x, y)
        assert np.array_equal(bits(y), bits(x + F32(0.5)))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("window_jit_kernel", None)


# -- bad windows are located errors ---------------------------------------------------------------------


def diagnose(text: str, tmp_path: Path) -> str:
    path = tmp_path / "bad.py"
    path.write_text(text)
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main([str(path), "--verify-all", "--simulate", "-o", str(tmp_path / "k.pto")])
    log = err.getvalue()
    assert rc == 1 and "Traceback" not in log, log
    return log


def test_a_window_past_its_tensor_in_a_loop_is_refused_at_the_slice(tmp_path: Path) -> None:
    log = diagnose(ROW_BLOCKS_OUT.replace("pl.slice(x, [8, 32], [i * 8, 0])", "pl.slice(x, [8, 32], [i * 8 + 4, 0])"),
                   tmp_path)
    assert "bad.py:15:18:" in log and "StaticBounds" in log and "[28, 36)" in log, log


def test_a_window_at_a_runtime_offset_past_its_tensor_is_a_located_run_time_error(tmp_path: Path) -> None:
    text = ROW_BLOCKS_OUT.replace(
        "b: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:",
        "b: pl.Tensor[[8, 32], pl.FP32], k: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 32], pl.FP32]:").replace(
        "pl.slice(x, [8, 32], [i * 8, 0])", "pl.slice(x, [8, 32], [i * 8 + k, 0])")
    path = tmp_path / "runtime.py"
    path.write_text(text)
    program = load_program(str(path))
    result = run.compile_program(program, verify_all=True)
    with pytest.raises(CompileError) as raised:
        run.run(result, {"x": rand(1, (32, 32)), "b": rand(2, (8, 32)), "k": 9})
    assert "reaches past" in str(raised.value) and "runtime.py:15" in str(raised.value.diagnostics[0].span), \
        str(raised.value)


def test_overlapping_out_windows_of_a_parallel_loop_are_refused(tmp_path: Path) -> None:
    text = ROW_BLOCKS_OUT.replace("pl.range(4)", "pl.parallel(4)").replace(
        "out = pl.assemble(out, yb, [i * 8, 0])", "out = pl.assemble(out, yb, [i * 4, 0])")
    log = diagnose(text, tmp_path)
    assert "bad.py:17:19:" in log and "overlap" in log and "i = 0" in log and "pl.parallel" in log, log


def test_disjoint_out_windows_of_a_parallel_loop_compile(tmp_path: Path) -> None:
    program, result = compiled(ROW_BLOCKS_OUT.replace("pl.range(4)", "pl.parallel(4)"), "Ascend950", tmp_path)
    inputs = {"x": rand(1, (32, 32)), "b": rand(2, (8, 32))}
    assert np.array_equal(bits(run.run(result, inputs)["ret0"]), bits(row_blocks_out(**inputs)["ret0"]))


def test_a_kernel_called_on_windows_of_two_layouts_is_not_supported_yet(tmp_path: Path) -> None:
    text = COLUMN_BLOCKS_OUT.replace(
        "        return out\n",
        "        whole = self.square_plus(b, b)\n        return out\n")
    log = diagnose(text, tmp_path)
    assert "not supported yet" in log and "two layouts" in log and "bad.py:18:" in log, log


def test_an_assemble_of_something_else_than_a_kernel_result_is_not_supported_yet(tmp_path: Path) -> None:
    text = ROW_BLOCKS_OUT.replace("out = pl.assemble(out, yb, [i * 8, 0])", "out = pl.assemble(out, b, [i * 8, 0])")
    log = diagnose(text, tmp_path)
    assert "bad.py:17:19:" in log and "not supported yet: `tensor.assemble`" in log, log


def test_an_assembled_tensor_read_after_the_kernel_call_is_not_folded(tmp_path: Path) -> None:
    # Reading `out` between the call and the assemble would see the window already written.
    text = ROW_BLOCKS_OUT.replace(
        "            out = pl.assemble(out, yb, [i * 8, 0])",
        "            peek = self.shifted(pl.slice(out, [8, 32], [0, 0]), b)\n"
        "            out = pl.assemble(out, yb, [i * 8, 0])")
    log = diagnose(text, tmp_path)
    assert "not supported yet: `tensor.assemble`" in log, log


def test_a_kernel_left_at_packed_strides_is_caught_by_call_sites_complete(tmp_path: Path) -> None:
    dropped = next(m for m in mutants.MUTANTS if m.name == "call-site-window-strides-dropped")
    with dropped.applied(), pytest.raises(CompileError, match="CallSitesComplete") as raised:
        compiled(COLUMN_BLOCKS_OUT, "Ascend910B", tmp_path)
    assert "laid out at strides [64, 1], but parameter" in str(raised.value), str(raised.value)

"""Where this compiler follows PyPTO's own deductions for programs PyPTO accepts: a BF16 tensor
matmul is a BF16 tensor (its accumulator narrows on the way out), an alias of a converted value
is that value, a written valid shape equal to the shape is the fully valid type, and a program
without an orchestration function runs from the one function nothing calls."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from languages.functions import entry_function, root_functions
from languages.types import TileType
from nanopass.diagnostics import CompileError
from nanopass.plugin import get_plugin
from tests.kernel_cli import compile_kernel, program_text

BF16 = ml_dtypes.bfloat16


def parse(text: str) -> object:
    return get_plugin().parse(text, "<kernel>")


def test_a_bf16_tensor_matmul_is_bf16_and_runs_through_an_alias(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """No out_dtype: the product keeps the operands' BF16 (the annotation says so), and the
    value reaches the cube through `alias = window`, loaded once into Mat."""
    text = program_text("""\
        @pl.function(type=pl.FunctionType.InCore)
        def mm(self, x: pl.Tensor[[32, 64], pl.BF16], w: pl.Tensor[[64, 32], pl.BF16],
               y: pl.Out[pl.Tensor[[16, 32], pl.BF16]]) -> pl.Tensor[[16, 32], pl.BF16]:
            window: pl.Tensor[[16, 64], pl.BF16] = pl.slice(x, [16, 64], [16, 0])
            alias: pl.Tensor[[16, 64], pl.BF16] = window
            prod: pl.Tensor[[16, 32], pl.BF16] = pl.matmul(alias, w)
            y = pl.assemble(y, prod, [0, 0])
            return y
    """)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 64)).astype(BF16)
    w = rng.standard_normal((64, 32)).astype(BF16)
    rc, log = compile_kernel(tmp_path, capsys, text, {"x": x.view(np.uint16), "w": w.view(np.uint16)})
    assert rc == 0, log
    assert "y: bit-exact ([16, 32] BF16)" in log
    pto = (tmp_path / "k.pto").read_text()
    assert pto.count("pto.tload") == 2  # the window and w, each once
    assert all("loc=mat" in line for line in pto.splitlines() if "pto.tload" in line)


def test_an_explicit_out_dtype_still_widens_the_product() -> None:
    from nanopass_pto.run import compile_program

    method = """\
        @pl.function(type=pl.FunctionType.InCore)
        def mm(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16]) -> pl.Tensor[[16, 16], pl.FP32]:
            c: pl.Tensor[[16, 16], pl.FP32] = pl.matmul(a, b{kwargs})
            return c
    """
    program = parse(program_text(method.format(kwargs=", out_dtype=pl.FP32")))
    compile_program(program, verify_all=True)  # type: ignore[arg-type]
    with pytest.raises(CompileError, match=r"annotate `c` as pl.Tensor\[\[16, 16\], pl.FP16\]"):
        compile_program(parse(program_text(method.format(kwargs=""))), verify_all=True)  # type: ignore[arg-type]


def test_a_valid_shape_equal_to_the_shape_is_the_fully_valid_tile() -> None:
    program = parse(program_text("""\
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
            t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[16, 16])] = pl.load(a, [0, 0], [16, 16])
            u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[8, 16])] = pl.tile.set_validshape(t, 8, 16)
            return pl.store(u, [0, 0], o)
    """))
    assigns = [s for s in getattr(getattr(program, "functions")[0], "body") if s.KIND == "AssignStmt"]
    full, narrowed = (getattr(s.target, "type") for s in assigns[:2])
    assert isinstance(full, TileType) and full.valid_shape is None
    assert isinstance(narrowed, TileType) and tuple(narrowed.valid_shape or ()) == (8, 16)


HOST_LAUNCHES_TWO = """\
    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, x: pl.Tensor[[8, 16], pl.FP32], o: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [8, 16])
        return pl.store(pl.add(t, t), [0, 0], o)

    @pl.function(type=pl.FunctionType.InCore)
    def square(self, x: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        return pl.store(pl.mul(t, t), [0, 0], o)
"""


def test_a_host_function_launching_several_kernels_is_the_entry(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """No Orchestration function: the bare @pl.function that calls both kernels is where a run
    starts (nothing calls it), and --simulate runs it."""
    text = program_text(HOST_LAUNCHES_TWO + """
    @pl.function
    def host(self, a: pl.Tensor[[8, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[8, 16], pl.FP32]:
        oa = pl.create_tensor([8, 16], dtype=pl.FP32)
        ob = pl.create_tensor([16, 16], dtype=pl.FP32)
        ra = self.twice(a, oa)
        _rb = self.square(b, ob)
        return ra
    """)
    assert getattr(entry_function(parse(text)), "name") == "host"  # type: ignore[arg-type]
    a = np.arange(128, dtype=np.float32).reshape(8, 16)
    rc, log = compile_kernel(tmp_path, capsys, text, {"a": a, "b": np.ones((16, 16), np.float32)})
    assert rc == 0 and "ret0: bit-exact ([8, 16] FP32)" in log, log
    assert (np.load(tmp_path / "out.npz")["ret0"] == 2 * a).all()


def test_two_unrelated_kernels_name_both_roots() -> None:
    program = parse(program_text(HOST_LAUNCHES_TWO))
    assert [getattr(f, "name") for f in root_functions(program)] == ["twice", "square"]  # type: ignore[arg-type]
    with pytest.raises(CompileError, match=r"several functions no other one calls \(twice, square\); name the entry"):
        entry_function(program)  # type: ignore[arg-type]


def test_simulate_runs_each_of_several_unrelated_kernels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No host function: --simulate runs every kernel nothing calls, each on its own random
    inputs; --entry picks one."""
    from nanopass.pipeline import main

    path = tmp_path / "two.py"
    path.write_text(program_text(HOST_LAUNCHES_TWO))
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--simulate",
               "--save-outputs", str(tmp_path / "out.npz")])
    log = capsys.readouterr().err
    assert rc == 0, log
    assert "simulate Kernel.twice on Ascend910B" in log and "simulate Kernel.square on Ascend910B" in log
    assert "o: bit-exact ([8, 16] FP32)" in log and "o: bit-exact ([16, 16] FP32)" in log
    assert {"twice.o", "square.o"} <= set(np.load(tmp_path / "out.npz").files)
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), "--simulate", "--entry", "square"])
    log = capsys.readouterr().err
    assert rc == 0 and "simulate Kernel.square" in log and "Kernel.twice" not in log, log

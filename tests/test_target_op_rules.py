"""Target-dependent operator constraints (languages/ops/target_rules.py, checked by the
TargetOpRules verifier): a select, a PReLU and an atomic-add store that one Ascend target runs
and the other cannot are rejected at the user's line on the target that cannot, with what was
expected and how to fix it, and run bit-exact against NumPy on the target that can."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from backend.targets.handlers import ASCEND_910B, ASCEND_950
from languages.pl_parser import parse_program
from nanopass.pipeline import main
from verifiers import target_op_rules

Array = npt.NDArray[Any]
A2A3, A5 = "Ascend910B", "Ascend950"


def _kernel(params: str, body: str) -> str:
    return "\n".join([
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        "class Kernel:",
        "    @pl.function(type=pl.FunctionType.InCore)",
        f"    def kernel(self, {params}) -> pl.Tensor[[16, 16], pl.FP32]:",
        textwrap.indent(textwrap.dedent(body), " " * 8).rstrip(),
        "",
    ])


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, backend: str,
         inputs: dict[str, Array] | None = None) -> tuple[int, str]:
    path = tmp_path / "kernel.py"
    path.write_text(text)
    extra = ["--backend", backend]
    if inputs is not None:
        np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
        extra += ["--simulate", "--inputs", str(tmp_path / "in.npz"), "--save-outputs", str(tmp_path / "out.npz")]
    rc = main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto"), *extra])
    captured = capsys.readouterr()
    return rc, captured.out + captured.err


def _rejected(rc: int, log: str, line: int, *words: str) -> None:
    assert rc == 1 and "Traceback" not in log and "internal compiler error" not in log, log
    assert f"kernel.py:{line}:" in log and "[TargetOpRules]" in log, log
    assert "hint:" in log and "fix the pass" not in log, log
    for word in words:
        assert word in log, (word, log)


def _bits(a: Array) -> Array:
    return a.view(np.uint32)


_RNG = np.random.default_rng(7)
X = _RNG.uniform(-4, 4, (16, 16)).astype(np.float32)
SLOPE = _RNG.uniform(0, 1, (16, 16)).astype(np.float32)
WIDE = _RNG.uniform(-4, 4, (16, 32)).astype(np.float32)

# -- select with a scalar (pto.tsels) --------------------------------------------------------------

SELS = """\
x_t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
positive: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmps(x_t, 0.0, cmp_type=4)
{scratch}
picked: pl.Tile[[16, 16], pl.FP32] = pl.tile.sels(positive, x_t, {tmp}, -3.0)
return pl.store(picked, [0, 0], out)
"""
SELS_PARAMS = "x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]"
OWN_SCRATCH = "scratch: pl.Tile[[1, 32], pl.FP32] = pl.tile.create([1, 32], dtype=pl.FP32)"


def _sels_expected(x: Array) -> Array:
    return np.where(x > 0, x, np.float32(-3.0)).astype(np.float32)


@pytest.mark.parametrize("backend", [A2A3, A5])
def test_select_with_its_own_scratch_runs_on_both_targets(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          backend: str) -> None:
    text = _kernel(SELS_PARAMS, SELS.format(scratch=OWN_SCRATCH, tmp="scratch"))
    rc, log = _run(tmp_path, capsys, text, backend, {"x": X, "out": np.zeros_like(X)})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(np.load(tmp_path / "out.npz")["ret0"]) == _bits(_sels_expected(X))).all()


@pytest.mark.parametrize("tmp", ["x_t", "positive"])
def test_select_scratch_sharing_an_operand_is_rejected_on_a2a3_only(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str], tmp: str) -> None:
    text = _kernel(SELS_PARAMS, SELS.format(scratch="", tmp=tmp))
    rc, log = _run(tmp_path, capsys, text, A2A3)
    _rejected(rc, log, 11, "tile.sels on Ascend910B", f"operand 'tmp' `{tmp}` shares bytes", "buffer of its own")
    # Ascend950's TSELS never touches tmp: the same program is fine there.
    rc, log = _run(tmp_path, capsys, text, A5, {"x": X, "out": np.zeros_like(X)})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(np.load(tmp_path / "out.npz")["ret0"]) == _bits(_sels_expected(X))).all()


SELS_VIEWS = """\
base: pl.Tile[[16, 32], pl.FP32] = pl.load(w, [0, 0], [16, 32])
src_view: pl.Tile[[16, 16], pl.FP32] = pl.tile.slice(base, [16, 16], [0, 0])
tmp_view: pl.Tile[[16, 16], pl.FP32] = pl.tile.slice(base, [16, 16], [0, {col}])
positive: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmps(src_view, 0.0, cmp_type=4)
picked: pl.Tile[[16, 16], pl.FP32] = pl.tile.sels(positive, src_view, tmp_view, -3.0)
return pl.store(picked, [0, 0], out)
"""
SELS_VIEW_PARAMS = "w: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]"


def test_select_scratch_window_overlapping_the_source_window_is_rejected_on_a2a3(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, log = _run(tmp_path, capsys, _kernel(SELS_VIEW_PARAMS, SELS_VIEWS.format(col=8)), A2A3)
    _rejected(rc, log, 12, "`tmp_view` shares bytes with operand 'src' `src_view`")


def test_select_scratch_window_beside_the_source_window_is_accepted_on_a2a3(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Columns [16, 32) of the same buffer: no byte in common with columns [0, 16).
    text = _kernel(SELS_VIEW_PARAMS, SELS_VIEWS.format(col=16))
    rc, log = _run(tmp_path, capsys, text, A2A3, {"w": WIDE, "out": np.zeros_like(X)})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(np.load(tmp_path / "out.npz")["ret0"]) == _bits(_sels_expected(WIDE[:, :16]))).all()


def test_select_of_bytes_is_a5_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = """\
    x_t: pl.Tile[[16, 32], pl.INT8] = pl.load(x, [0, 0], [16, 32])
    positive: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmps(x_t, 0, cmp_type=4)
    scratch: pl.Tile[[1, 32], pl.INT8] = pl.tile.create([1, 32], dtype=pl.INT8)
    picked: pl.Tile[[16, 32], pl.INT8] = pl.tile.sels(positive, x_t, scratch, -3)
    return pl.store(picked, [0, 0], out)
    """
    text = _kernel("x: pl.Tensor[[16, 32], pl.INT8], out: pl.Out[pl.Tensor[[16, 32], pl.INT8]]", body)
    text = text.replace("-> pl.Tensor[[16, 16], pl.FP32]", "-> pl.Tensor[[16, 32], pl.INT8]")
    rc, log = _run(tmp_path, capsys, text, A2A3)
    _rejected(rc, log, 11, "operand 'src' has element type INT8", "INT16", "Ascend950")
    x = np.random.default_rng(3).integers(-100, 100, (16, 32)).astype(np.int8)
    rc, log = _run(tmp_path, capsys, text, A5, {"x": x, "out": np.zeros_like(x)})
    assert rc == 0 and "bit-exact" in log, log
    assert (np.load(tmp_path / "out.npz")["ret0"] == np.where(x > 0, x, np.int8(-3))).all()


# -- PReLU (pto.tprelu) -------------------------------------------------------------------------------

PRELU = """\
x_t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
s_t: pl.Tile[[16, 16], pl.FP32] = pl.load(slope, [0, 0], [16, 16])
tmp: pl.Tile[[{rows}, {cols}], pl.{dtype}] = pl.tile.create([{rows}, {cols}], dtype=pl.{dtype})
r: pl.Tile[[16, 16], pl.FP32] = pl.tile.prelu(x_t, s_t, tmp)
return pl.store(r, [0, 0], out)
"""
PRELU_PARAMS = ("x: pl.Tensor[[16, 16], pl.FP32], slope: pl.Tensor[[16, 16], pl.FP32], "
                "out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]")


def _prelu_expected(x: Array, slope: Array) -> Array:
    return np.where(x > 0, x, (x * slope).astype(np.float32)).astype(np.float32)


@pytest.mark.parametrize("backend", [A2A3, A5])
def test_prelu_with_a_mask_sized_byte_scratch_runs_on_both_targets(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   backend: str) -> None:
    text = _kernel(PRELU_PARAMS, PRELU.format(rows=17, cols=32, dtype="UINT8"))
    rc, log = _run(tmp_path, capsys, text, backend, {"x": X, "slope": SLOPE, "out": np.zeros_like(X)})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(np.load(tmp_path / "out.npz")["ret0"]) == _bits(_prelu_expected(X, SLOPE))).all()


@pytest.mark.parametrize("rows, cols, dtype, words", [
    (17, 32, "INT8", ("operand 'tmp' has element type INT8, expected one of UINT8", "UINT8")),
    (16, 32, "UINT8", ("valid region of [16, 32], expected at least [17, 32]", "one row taller")),
    (17, 16, "UINT8", ("valid region of [17, 16], expected at least [17, 32]",)),
    (1, 1, "UINT8", ("valid region of [1, 1]",)),
])
def test_prelu_scratch_a2a3_cannot_use_is_rejected_there_and_accepted_on_a5(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: int, cols: int, dtype: str,
        words: tuple[str, ...]) -> None:
    text = _kernel(PRELU_PARAMS, PRELU.format(rows=rows, cols=cols, dtype=dtype))
    rc, log = _run(tmp_path, capsys, text, A2A3)
    _rejected(rc, log, 11, "tile.prelu on Ascend910B", *words)
    rc, log = _run(tmp_path, capsys, text, A5, {"x": X, "slope": SLOPE, "out": np.zeros_like(X)})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(np.load(tmp_path / "out.npz")["ret0"]) == _bits(_prelu_expected(X, SLOPE))).all()


PRELU_VIEWS = """\
base: pl.Tile[[16, 32], pl.FP32] = pl.load(w, [0, 0], [16, 32])
x_view: pl.Tile[[16, 16], pl.FP32] = pl.tile.slice(base, [16, 16], [0, 0])
s_view: pl.Tile[[16, 16], pl.FP32] = pl.tile.slice(base, [16, 16], [0, {col}])
tmp: pl.Tile[[17, 32], pl.UINT8] = pl.tile.create([17, 32], dtype=pl.UINT8)
r: pl.Tile[[16, 16], pl.FP32] = pl.tile.prelu(x_view, s_view, tmp)
return pl.store(r, [0, 0], out)
"""


def test_prelu_of_overlapping_windows_is_rejected_on_a2a3_and_runs_on_a5(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _kernel(SELS_VIEW_PARAMS, PRELU_VIEWS.format(col=4))
    rc, log = _run(tmp_path, capsys, text, A2A3)
    _rejected(rc, log, 12, "operand 'x' `x_view` shares bytes with operand 'slope' `s_view`")
    rc, log = _run(tmp_path, capsys, text, A5, {"w": WIDE, "out": np.zeros_like(X)})
    assert rc == 0 and "bit-exact" in log, log
    expected = _prelu_expected(WIDE[:, :16], WIDE[:, 4:20])
    assert (_bits(np.load(tmp_path / "out.npz")["ret0"]) == _bits(expected)).all()


def test_prelu_of_side_by_side_windows_runs_on_a2a3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _kernel(SELS_VIEW_PARAMS, PRELU_VIEWS.format(col=16))
    rc, log = _run(tmp_path, capsys, text, A2A3, {"w": WIDE, "out": np.zeros_like(X)})
    assert rc == 0 and "bit-exact" in log, log
    expected = _prelu_expected(WIDE[:, :16], WIDE[:, 16:])
    assert (_bits(np.load(tmp_path / "out.npz")["ret0"]) == _bits(expected)).all()


# -- atomic-add stores ------------------------------------------------------------------------------

ATOMIC = """\
import pypto.language as pl


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[16, 16], pl.{dtype}], acc: pl.InOut[pl.Tensor[[16, 16], pl.{dtype}]]):
        t = pl.load(x, [0, 0], [16, 16])
        pl.store(t, [0, 0], acc, atomic=pl.AtomicType.Add)
"""


def test_bf16_atomic_add_is_rejected_on_a5(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, log = _run(tmp_path, capsys, ATOMIC.format(dtype="BF16"), A5)
    _rejected(rc, log, 9, "tile.store on Ascend950", "operand 'output_tensor' has element type BF16",
              "accumulate in FP32")


@pytest.mark.parametrize("dtype, backend", [("BF16", A2A3), ("FP32", A5), ("FP32", A2A3)])
def test_atomic_add_of_a_supported_type_compiles(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 dtype: str, backend: str) -> None:
    rc, log = _run(tmp_path, capsys, ATOMIC.format(dtype=dtype), backend)
    assert rc == 0 and "TargetOpRules" not in log, log


# -- the verifier on its own -----------------------------------------------------------------------

def test_the_verifier_checks_only_the_rules_of_the_target_it_is_given() -> None:
    program = parse_program(_kernel(SELS_PARAMS, SELS.format(scratch="", tmp="x_t")), "k.py")
    a2a3 = target_op_rules.verify(program, ASCEND_910B)
    assert [d.rule for d in a2a3] == ["TargetOpRules"] and "shares bytes" in a2a3[0].message
    assert target_op_rules.verify(program, ASCEND_950) == []
    assert target_op_rules.verify(program) == []  # no target, nothing to check against


SELS_RESULT_NAMED_AFTER_ITS_SCRATCH = """\
x_t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
positive: pl.Tile[[16, 32], pl.UINT8] = pl.tile.cmps(x_t, 0.0, cmp_type=4)
picked: pl.Tile[[16, 16], pl.FP32] = pl.tile.create([16, 16], dtype=pl.FP32)
picked: pl.Tile[[16, 16], pl.FP32] = pl.tile.sels(positive, x_t, picked, -3.0)
return pl.store(picked, [0, 0], out)
"""


def test_a_select_result_reassigning_its_scratchs_name_is_a_new_buffer(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # `picked = sels(..., picked, ...)` names a new value (ConvertToSSA renames it): the scratch
    # and the result share a name, not bytes (finding ffbcd3c399 was refused on Ascend910B).
    text = _kernel(SELS_PARAMS, SELS_RESULT_NAMED_AFTER_ITS_SCRATCH)
    rc, log = _run(tmp_path, capsys, text, A2A3, {"x": X, "out": np.zeros_like(X)})
    assert rc == 0 and "bit-exact" in log, log
    assert (_bits(np.load(tmp_path / "out.npz")["ret0"]) == _bits(_sels_expected(X))).all()


# -- the MemRef half: TargetOpBuffers ------------------------------------------------------------------

def _addressed_select() -> Any:
    """The select with a scratch of its own, compiled to Addressed (its buffers bound)."""
    from nanopass.pipeline import Pipeline
    from nanopass.plugin import get_plugin

    plugin = get_plugin()
    program = parse_program(_kernel(SELS_PARAMS, SELS.format(scratch=OWN_SCRATCH, tmp="scratch")), "k.py")
    return Pipeline.from_spec(plugin.default_pipeline(A2A3), plugin).until("Addressed").run(program)


def test_a_scratch_bound_to_its_operands_memref_is_caught_by_target_op_buffers_alone() -> None:
    """TargetOpRules reads no MemRef (its verdict is kept where a pass changed only MemRefs), so a
    scratch rebound to the bytes of the select's operand is TargetOpBuffers' finding."""
    import dataclasses

    from nanopass.node import walk
    from nanopass_pto.mutants import transform

    program = _addressed_select()
    assert target_op_rules.verify(program, ASCEND_910B) == []
    assert target_op_rules.verify_buffers(program, ASCEND_910B) == []
    (call,) = [n for n in walk(program) if n.KIND == "Call" and getattr(n, "op") == "tile.sels"]
    operand, scratch = getattr(call, "args")[1], getattr(call, "args")[2]
    operand_memref = getattr(operand, "type").memref
    assert operand_memref is not None and getattr(scratch, "type").memref != operand_memref

    def rebind(node: Any) -> Any:
        if node.KIND == "Var" and getattr(node, "name") == getattr(scratch, "name"):
            return dataclasses.replace(node, type=dataclasses.replace(getattr(node, "type"), memref=operand_memref))
        return None

    overlapping = transform(program, rebind)
    assert target_op_rules.verify(overlapping, ASCEND_910B) == []  # blind to MemRefs
    found = target_op_rules.verify_buffers(overlapping, ASCEND_910B)
    assert [d.rule for d in found] == ["TargetOpBuffers"] and "shares bytes" in found[0].message
    assert target_op_rules.verify_buffers(overlapping, ASCEND_950) == []  # A5's tsels has no such rule

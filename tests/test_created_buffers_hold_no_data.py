"""A `pl.create_tensor` / `pl.tile.create` buffer holds no data until an op writes it.

The registry says so ("a fresh buffer of the shape; contents undefined"), PyPTO leaves it
uninitialised, and the interpreter and the simulator fill it with the 0xFF poison. DefinedReads
used to count a created buffer as all data, so a kernel that read it -- a matmul_acc onto it
without init_cond, an element-wise op, a return, the rows of it a narrowed product never wrote
-- compiled under --verify-all and read garbage on chip (the simulator only noticed at run
time). Now each is refused at the user's line, naming the created buffer; the spellings that
write it first (init_cond on the first accumulation, the peeled `if k == 0` split-K, an
assemble, a fill, a kernel call's Out argument) compile and match NumPy bit for bit on both
targets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import numpy.typing as npt
import pytest

from languages.pl_parser import parse_program
from nanopass.pipeline import main
from nanopass_pto.run import compile_program, random_inputs, reference, run
from tests.references import matmul_ref

Array = npt.NDArray[Any]
BOTH = ("Ascend910B", "Ascend950")
HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass K:\n    @pl.function(type=pl.FunctionType.InCore)\n"
MATMUL = ("    def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 16], pl.FP16]) -> "
          "pl.Tensor[[16, 16], pl.FP32]:\n"
          "        acc: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)\n")
SPLIT_K = MATMUL + """\
        for k in pl.range(0, 64, 16):
            ak: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.slice(a, [16, 16], [0, k])
            bk: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.slice(b, [16, 16], [k, 0])
            acc = pl.tensor.matmul_acc(acc, ak, bk{init})
        return acc
"""
ELEMENTWISE = ("    def k(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
               "        t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create([16, 16], dtype=pl.FP32)\n")

REFUSED = {
    # (kernel body, the refused line:col, what the message says)
    "matmul_acc onto a create": (MATMUL + """\
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul_acc(acc, pl.tensor.slice(a, [16, 64], [0, 0]), b)
        return c
""", "9:43", "tensor.matmul_acc reads `acc` over [16, 16], but `acc` (line 8) is a tensor.create"),
    "split-K without init_cond": (SPLIT_K.format(init=""), "12:19",
                                  "tensor.matmul_acc reads `acc` over [16, 16], but `acc` (line 8) is a tensor.create"),
    "element-wise read": (ELEMENTWISE + """\
        u: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(x, t)
        return u
""", "9:43", "tensor.add reads `t` over [16, 16], but `t` (line 8) is a tensor.create"),
    "returned as created": (ELEMENTWISE + "        return t\n", "9:9",
                            "the kernel returns `t`, which is stored over its valid region [16, 16], but `t` (line 8)"),
    "rows a narrowed product never wrote": ("""\
    def k(self, a: pl.Tensor[[32, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tensor[[32, 16], pl.FP32]:
        acc: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.create([32, 16], dtype=pl.FP32)
        c: pl.Tensor[[32, 16], pl.FP32] = pl.tensor.matmul_acc(acc, pl.tensor.slice(a, [32, 16], [0, 0], [2, 16]), b, True)
        return c
""", "10:9", "tensor.matmul_acc wrote only [2, 16] of it (the rest is `acc`'s, a tensor.create at line 8"),
}

TILE_READ = """\
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a = pl.load(x, [0, 0], [16, 16])
        t = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s = pl.tile.add(a, t)
        out = pl.store(s, [0, 0], out)
        return out
"""


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str) -> str:
    path = tmp_path / "k.py"
    path.write_text(HEADER + body)
    assert main([str(path), "--verify-all", "-o", str(tmp_path / "k.pto")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal compiler error" not in err, err
    return err


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_read_of_what_no_op_wrote_is_refused_at_the_users_line(
        case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body, where, what = REFUSED[case]
    err = _refused(tmp_path, capsys, body)
    assert f"k.py:{where}: error: [DefinedReads]" in err and what in err, err
    assert "pl.full(shape, dtype, value)" in err and "init_cond=True" in err, err


def test_a_tile_create_read_as_data_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(tmp_path, capsys, TILE_READ)
    assert "k.py:10:13: error: [DefinedReads] tile.add reads `t` over [16, 16], but `t` (line 9) is a tile.create" \
        in err, err


def test_the_interpreter_reads_a_created_buffer_as_poison() -> None:
    """The reference agrees: what no op wrote is the 0xFF pattern (here returned as it is, the
    program DefinedReads refuses), not zeros or the previous run's bytes."""
    program = parse_program(HEADER + ELEMENTWISE + "        return t\n", "k.py")
    got = reference(program, {"x": np.zeros((16, 16), np.float32)})["ret0"]
    assert (np.asarray(got).view(np.uint32) == 0xFFFFFFFF).all()


# -- the spellings that write the buffer first ---------------------------------------------------------

def _split_k_ref(a: Array, b: Array) -> Array:
    return matmul_ref(a, b)  # one sequential FP32 chain over K, whatever the K blocks


VALID: dict[str, tuple[str, Callable[[Array, Array], Array]]] = {
    "init_cond on the first step": (SPLIT_K.format(init=", k == 0"), _split_k_ref),
    "init_cond True, straight line": (MATMUL + """\
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul_acc(acc, pl.tensor.slice(a, [16, 16], [0, 0]), pl.tensor.slice(b, [16, 16], [0, 0]), True)
        return c
""", lambda a, b: matmul_ref(a[:, :16], b[:16])),
    "peeled first step": (MATMUL + """\
        for k in pl.range(0, 64, 16):
            ak: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.slice(a, [16, 16], [0, k])
            bk: pl.Tensor[[16, 16], pl.FP16] = pl.tensor.slice(b, [16, 16], [k, 0])
            if k == 0:
                acc = pl.tensor.matmul(ak, bk, out_dtype=pl.FP32)
            else:
                acc = pl.tensor.matmul_acc(acc, ak, bk)
        return acc
""", _split_k_ref),
}

WRITTEN_FIRST: dict[str, tuple[str, Callable[[Array], Array]]] = {
    "assembled, then read": ("""\
        u: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(t, x, [0, 0])
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(u, x)
        return y
""", lambda x: (x + x).astype(np.float32)),
    "filled, then read": ("""\
        u: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.expands(t, 1.5)
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.add(u, x)
        return y
""", lambda x: (x + np.float32(1.5)).astype(np.float32)),
}


def _same_bits(got: Array, expected: Array) -> None:
    got32 = np.asarray(got, dtype=np.float32)
    assert got32.shape == expected.shape
    assert np.array_equal(got32.view(np.uint32), expected.astype(np.float32).view(np.uint32))


@pytest.mark.parametrize("backend", BOTH)
@pytest.mark.parametrize("case", sorted(VALID))
def test_an_accumulator_written_before_it_is_read_matches_numpy(case: str, backend: str) -> None:
    body, expected = VALID[case]
    compiled = compile_program(parse_program(HEADER + body, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 3)
    a, b = (np.asarray(inputs[n], dtype=np.float16) for n in ("a", "b"))
    _same_bits(run(compiled, inputs)["ret0"], expected(a, b))


@pytest.mark.parametrize("backend", BOTH)
@pytest.mark.parametrize("case", sorted(WRITTEN_FIRST))
def test_a_created_tensor_written_before_it_is_read_matches_numpy(case: str, backend: str) -> None:
    body, expected = WRITTEN_FIRST[case]
    compiled = compile_program(parse_program(HEADER + ELEMENTWISE + body, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 4)
    _same_bits(run(compiled, inputs)["ret0"], expected(np.asarray(inputs["x"], dtype=np.float32)))


ORCHESTRATED = """\
import pypto.language as pl


@pl.program
class K:
    @pl.function(type=pl.FunctionType.InCore)
    def block(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 32])
        out = pl.store(pl.tile.adds(t, 1.0), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def double(self, x: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[64, 32], pl.FP32]:
        return pl.add(x, x)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[64, 32], pl.FP32]:
        out = pl.create_tensor([64, 32], dtype=pl.FP32)
        for i in pl.range(4):
            piece = pl.slice(out, [16, 32], [i * 16, 0])
            self.block(pl.slice(x, [16, 32], [i * 16, 0]), piece)
        y = self.double(out)
        return y
"""


@pytest.mark.parametrize("backend", BOTH)
def test_a_created_tensor_written_through_kernel_calls_on_its_windows_is_data(
        backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A kernel call writes its Out argument -- here a window of the created tensor -- so the
    tensor holds data after the loop of calls (the caller's `pl.create_tensor` of an Out)."""
    path = tmp_path / "k.py"
    path.write_text(ORCHESTRATED)
    assert main([str(path), "--verify-all", "--simulate", "--backend", backend, "-o", str(tmp_path / "k.pto")]) == 0
    assert "ret0: bit-exact" in capsys.readouterr().err
    compiled = compile_program(parse_program(ORCHESTRATED, "k.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 5)
    x = np.asarray(inputs["x"], dtype=np.float32)
    once = (x + np.float32(1.0)).astype(np.float32)
    _same_bits(run(compiled, inputs)["ret0"], (once + once).astype(np.float32))


def test_a_write_through_a_view_makes_the_created_tensor_data_for_the_check() -> None:
    """The verifier on its own: after the kernel calls on its windows, a registry read of the
    created tensor is no finding; without them it is one (the write is what makes the data)."""
    from verifiers import defined_reads
    read_after = ORCHESTRATED.replace("y = self.double(out)", "y = pl.add(out, out)")
    assert defined_reads.verify(parse_program(read_after, "k.py")) == []
    no_call = read_after.replace("            self.block(pl.slice(x, [16, 32], [i * 16, 0]), piece)\n", "")
    [finding] = defined_reads.verify(parse_program(no_call, "k.py"))
    assert "tensor.add reads `out` over [64, 32], but `out` (line 18)" in finding.message


ZERO_SEEDED = MATMUL.replace("pl.tensor.create([16, 16], dtype=pl.FP32)", "pl.tensor.full([16, 16], pl.FP32, 0.0)")


@pytest.mark.parametrize("seeded", ["straight line", "split-K"])
def test_the_mutant_that_drops_the_seeds_init_cond_is_caught_after_the_pass(seeded: str) -> None:
    """SeedZeroAccumulators turns the +0 fill into a tensor.create: forgetting the init_cond it
    must put on the first accumulation leaves that accumulation reading the created buffer,
    which DefinedReads now refuses right after the pass (before, only a run could notice)."""
    from nanopass.instruments import PassVerificationError
    from nanopass_pto.mutants import MUTANTS

    body = ZERO_SEEDED + (SPLIT_K[len(MATMUL):].format(init="") if seeded == "split-K" else """\
        c: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.matmul_acc(acc, pl.tensor.slice(a, [16, 16], [0, 0]), pl.tensor.slice(b, [16, 16], [0, 0]))
        return c
""")
    source = parse_program(HEADER + body, "k.py")
    compile_program(source, backend="Ascend910B", verify_all=True)  # the pass itself is right
    [mutant] = [m for m in MUTANTS if m.name == "zero-seed-drops-init-cond"]
    with mutant.applied(), pytest.raises(PassVerificationError) as err:
        compile_program(source, backend="Ascend910B", verify_all=True)
    assert "SeedZeroAccumulators" in str(err.value) and "DefinedReads" in str(err.value), str(err.value)

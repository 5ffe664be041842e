"""Buffer safety: loop-carried values, nested loops, if-phis, swapped carries, in-place casts and
reshapes of boxed tiles compile to programs whose buffers never clobber a live value.

Each kernel in tests/kernels/trust/ runs the way a user runs it (`--verify-all --simulate`, on
both backends) and its outputs must equal, bit for bit, a NumPy reference written here
(float64 plus one rounding per op, sequential row sums) -- not from backend/numerics.py. The
verifiers that would have caught the old miscompiles (NoCoLiveOverlap on values rather than
MemRef names, InPlaceSafety, SemanticAliases) are each fed a hand-broken program.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from typing_extensions import override

import numpy as np
import numpy.typing as npt
import pytest

import languages.gen.addressed as A
from languages.memory_space import MemorySpace
from languages.ops import REGISTRY
from languages.types import DataType, MemRef, TileType
from nanopass.node import Node, walk
from nanopass.pipeline import main
from nanopass_pto import run as runner
from nanopass_pto.plugin import parse
from tests.references import matmul_ref
from verifiers import in_place_safety, no_co_live_overlap, semantic_aliases

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "trust"
BACKENDS = ("Ascend910B", "Ascend950")
F32, F16, F64 = np.float32, np.float16, np.float64


def _bits(array: Array) -> Array:
    a = np.ascontiguousarray(array)
    return a.view({2: np.uint16, 4: np.uint32}[a.dtype.itemsize])


def _uniform(seed: int, shape: tuple[int, ...], low: float = -3.0, high: float = 3.0, dtype: Any = F32) -> Array:
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def _exp(x: Array) -> Array:
    return np.exp(x.astype(F64)).astype(x.dtype)


def _vmax(a: Array, b: Array) -> Array:
    return np.where(b > a, b, a)


def _row_max(x: Array) -> Array:
    acc = x[:, 0].copy()
    for c in range(1, x.shape[1]):
        acc = np.where(x[:, c] > acc, x[:, c], acc)
    return acc[:, None]


def _row_sum(x: Array) -> Array:
    acc = np.zeros(x.shape[0], F32)
    for c in range(x.shape[1]):
        acc = (acc + x[:, c]).astype(F32)
    return acc[:, None]


# -- references --------------------------------------------------------------------------------------


def online_softmax(s: Array, v: Array, m0: Array) -> Array:
    m, l, o = m0 * F32(1.0), m0 * F32(0.0), v * F32(0.0)
    for i in range(4):
        blk = s[16 * i:16 * i + 16]
        m_new = _vmax(m, _row_max(blk))
        alpha = _exp((m - m_new).astype(F32))
        p = _exp((blk - m_new).astype(F32))
        l = (l * alpha).astype(F32) + _row_sum(p)
        o = ((o * alpha).astype(F32) + (p * v).astype(F32)).astype(F32)
        m = m_new
    return (o / l).astype(F32)


def nested_loops(a: Array, b: Array) -> Array:
    x, acc = (a + F32(0.5)).astype(F32), (b * F32(0.25)).astype(F32)
    for _ in range(3):
        inner = acc
        for _ in range(2):
            inner = ((inner * x).astype(F32) + F32(1.0)).astype(F32)
        acc = ((inner * F32(0.5)).astype(F32) - b).astype(F32)
    return acc


def if_phi(a: Array, b: Array) -> Array:
    x, acc = (a + F32(1.0)).astype(F32), (b * F32(1.0)).astype(F32)
    for i in range(4):
        phi = x if i == 1 else (acc * x).astype(F32)
        acc = (((phi + x).astype(F32)) * F32(0.5)).astype(F32)
    return acc


def swapped(a: Array, b: Array) -> Array:
    p, q = a, b
    for _ in range(5):
        p, q = q, (p + q).astype(F32)
    return (q - p).astype(F32)


def narrowing_cast(a: Array) -> Array:
    h = (a * F32(3.0)).astype(F32).astype(F16)  # RNE
    return (h.astype(F64) + 1.0).astype(F16)


def carry_seeded_by_matmul(a: Array, b: Array) -> Array:
    c0 = matmul_ref(a, b)
    m, acc = _row_max(c0), c0
    for _ in range(3):
        c = matmul_ref(a, b)
        m = _vmax(m, _row_max(c))
        acc = (acc + (c - m).astype(F32)).astype(F32)
    return (acc + m).astype(F32)


def if_phi_across_units(a: Array, b: Array, x: Array) -> Array:
    acc = (x * F32(1.0)).astype(F32)
    for i in range(3):
        phi = matmul_ref(a, b) if i == 1 else (acc + F32(1.0)).astype(F32)
        acc = (phi + acc).astype(F32)
    return acc


def popped_tiles_carried(a: Array, b: Array, x: Array) -> Array:
    carry = (x * F32(2.0)).astype(F32)
    for _ in range(2):
        carry = (matmul_ref(a, b) + carry).astype(F32)  # both branches pop the same product
    return (carry + x).astype(F32)


def flash_attention(q: Array, k: Array, v: Array) -> Array:
    m, l, o = np.full((16, 1), -30000.0, F32), np.zeros((16, 1), F32), np.zeros((16, 64), F32)
    for i in range(4):
        kb, vb = k[16 * i:16 * i + 16], v[16 * i:16 * i + 16]
        s = matmul_ref(q, np.ascontiguousarray(kb.T))
        m_new = _vmax(m, _row_max(s))
        alpha = _exp((m - m_new).astype(F32))
        p = _exp((s - m_new).astype(F32))
        l = ((l * alpha).astype(F32) + _row_sum(p)).astype(F32)
        pv = matmul_ref(p.astype(F16), vb)
        o = ((o * alpha).astype(F32) + pv).astype(F32)
        m = m_new
    return (o / l).astype(F32)


def decode_attention(q: Array, k: Array) -> Array:
    s = matmul_ref(q, np.ascontiguousarray(k.T))
    e = _exp((s - _row_max(s)).astype(F32))
    return (e / _row_sum(e)).astype(F32)


CASES: dict[str, tuple[Callable[[], dict[str, Array]], Callable[..., Array]]] = {
    "online_softmax_carry": (lambda: {"s": _uniform(1, (64, 32)), "v": _uniform(2, (16, 32)),
                                      "m0": np.full((16, 1), -8.0, F32)}, online_softmax),
    "nested_loop_live": (lambda: {"a": _uniform(3, (16, 32), -1.0, 1.0), "b": _uniform(4, (16, 32))}, nested_loops),
    "if_phi_live": (lambda: {"a": _uniform(5, (16, 32)), "b": _uniform(6, (16, 32))}, if_phi),
    "swapped_carries": (lambda: {"a": _uniform(7, (8, 16)), "b": _uniform(8, (8, 16))}, swapped),
    "reshape_feeds_matmul": (lambda: {"a": _uniform(9, (128, 64), -2.0, 2.0, F16),
                                      "b": _uniform(10, (128, 32), -2.0, 2.0, F16)},
                             lambda a, b: matmul_ref(a.reshape(64, 128), b)),
    "narrowing_cast_dies": (lambda: {"a": _uniform(11, (16, 64), -300.0, 300.0)}, narrowing_cast),
    "carry_seeded_by_matmul": (lambda: {"a": _uniform(14, (16, 32), -1.0, 1.0), "b": _uniform(15, (32, 32), -1.0, 1.0)},
                               carry_seeded_by_matmul),
    "if_phi_across_units": (lambda: {"a": _uniform(16, (16, 32), -1.0, 1.0), "b": _uniform(17, (32, 32), -1.0, 1.0),
                                     "x": _uniform(18, (16, 32))}, if_phi_across_units),
    "popped_tiles_carried": (lambda: {"a": _uniform(22, (16, 32), -1.0, 1.0), "b": _uniform(23, (32, 32), -1.0, 1.0),
                                      "x": _uniform(24, (16, 32))}, popped_tiles_carried),
    "flash_attention": (lambda: {"q": _uniform(19, (16, 64), -1.0, 1.0, F16), "k": _uniform(20, (64, 64), -1.0, 1.0, F16),
                                 "v": _uniform(21, (64, 64), -1.0, 1.0, F16)}, flash_attention),
    "assemble_over_dying_source": (lambda: {"x": _uniform(27, (16, 32))},
                                   lambda x: (((x + x).astype(F32)) * x).astype(F32)),
    "decode_attention": (lambda: {"q": _uniform(25, (16, 128), -1.0, 1.0, F16),
                                  "k": _uniform(26, (1152, 128), -1.0, 1.0, F16)}, decode_attention),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_runs_bit_exact_and_matches_numpy(name: str, backend: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    make_inputs, reference = CASES[name]
    inputs = make_inputs()
    np.savez(tmp_path / "in.npz", **inputs)  # type: ignore[arg-type]
    out = tmp_path / "out.npz"
    rc = main([str(KERNELS / f"{name}.py"), "--verify-all", "--simulate", "--backend", backend, "--inputs",
               str(tmp_path / "in.npz"), "--save-outputs", str(out), "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr()
    assert rc == 0, log.out + log.err
    assert "bit-exact" in log.out + log.err
    got = np.load(out)["ret0"]
    expected = reference(**inputs)
    assert got.shape == expected.shape
    differ = np.argwhere(_bits(got.astype(expected.dtype)) != _bits(expected))
    assert len(differ) == 0, f"{len(differ)} elements differ from NumPy, first at {tuple(differ[0])}"


# -- the planner's decisions ----------------------------------------------------------------------------


def _planned(name: str, backend: str = "Ascend910B") -> Node:
    return _addressed(parse((KERNELS / f"{name}.py").read_text(), f"{name}.py"), backend)


def _addressed(source: Node, backend: str) -> Node:
    """The program after the memory planner (the last Addressed snapshot)."""
    from nanopass.instruments import Instrument, PassStep

    kept: list[Node] = []

    class Keep(Instrument):
        @override
        def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
            if type(after).LANGUAGE == "Addressed":
                kept.append(after)

    runner.compile_program(source, backend=backend, verify_all=True, instruments=[Keep()])
    return kept[-1]


def _var(program: Node, name: str) -> A.Var:
    found = [n for n in walk(program) if isinstance(n, A.Var) and n.name == name]
    assert found, name
    return found[0]


def _memref(program: Node, name: str) -> MemRef:
    ty = _var(program, name).type
    assert isinstance(ty, TileType) and ty.memref is not None
    return ty.memref


def test_the_old_maximum_is_copied_before_the_yield_not_overwritten() -> None:
    program = _planned("online_softmax_carry")
    copies = [n for n in walk(program) if isinstance(n, A.AssignStmt) and isinstance(n.value, A.Call)
              and n.value.op == "tile.move" and n.target.name.startswith("m_new")]
    assert copies, "m_new must reach the carried buffer through a copy"
    assert _memref(program, "m_tile").name == copies[0].target.type.memref.name  # type: ignore[union-attr]
    assert _memref(program, "m_new_tile").name != _memref(program, "m_tile").name


def test_a_narrowing_cast_never_writes_over_its_source() -> None:
    program = _planned("narrowing_cast_dies")
    t, h = _memref(program, "t_tile"), _memref(program, "h_tile")
    assert t.offset + t.size <= h.offset or h.offset + h.size <= t.offset
    f32 = TileType((16, 64), DataType.FP32, memory_space=t.space)
    assert not REGISTRY.get("tile.cast").may_write_over(0, replace(f32, dtype=DataType.FP16), f32)
    assert REGISTRY.get("tile.cast").may_write_over(0, replace(f32, dtype=DataType.INT32), f32)
    assert not REGISTRY.get("tile.transpose").may_write_over(0, f32, f32)
    assert not REGISTRY.get("tile.move").may_write_over(0, f32, f32)
    assert REGISTRY.get("tile.exp").may_write_over(0, f32, f32)


# -- the verifiers, each fed a broken program ----------------------------------------------------------


def _rebind(program: Node, var: str, memref: MemRef) -> Node:
    """`program` with every use of variable `var` bound to `memref`."""
    from nanopass_pto.mutants import transform

    def edit(node: Node) -> Any:
        if isinstance(node, A.Var) and node.name == var and isinstance(node.type, TileType):
            return replace(node, type=replace(node.type, memref=memref))
        return None

    result: Node = transform(program, edit)
    return result


def test_no_co_live_overlap_sees_two_values_of_one_memref() -> None:
    program = _planned("online_softmax_carry")
    assert no_co_live_overlap.verify(program) == []
    # What the old MaterializeSemanticAliases produced: m_new written into m's buffer.
    broken = _rebind(program, "m_new_tile", _memref(program, "m_tile"))
    found = no_co_live_overlap.verify(broken)
    assert any("`m_new_tile`" in d.message and "`m_tile`" in d.message for d in found), found


def test_no_co_live_overlap_keeps_a_value_read_in_an_inner_loop_live_through_the_outer_one() -> None:
    program = _planned("nested_loop_live")
    assert no_co_live_overlap.verify(program) == []
    broken = _rebind(program, "y_tile", _memref(program, "x_tile"))
    found = no_co_live_overlap.verify(broken)
    assert any("`y_tile`" in d.message and "`x_tile`" in d.message for d in found), found


def test_no_co_live_overlap_sees_an_if_phi_over_a_live_value() -> None:
    program = _planned("if_phi_live")
    assert no_co_live_overlap.verify(program) == []
    broken = _rebind(program, "prod_tile", _memref(program, "x_tile"))
    assert any("`x_tile`" in d.message for d in no_co_live_overlap.verify(broken))


def test_in_place_safety_rejects_a_narrowing_cast_over_its_source() -> None:
    program = _planned("narrowing_cast_dies")
    assert in_place_safety.verify(program) == []
    broken = _rebind(program, "h_tile", replace(_memref(program, "t_tile"), size=_memref(program, "h_tile").size))
    found = in_place_safety.verify(broken)
    assert any("tile.cast" in d.message and "element width" in d.message for d in found), found
    # NoCoLiveOverlap leaves the single instruction to InPlaceSafety: t dies at the cast.
    assert no_co_live_overlap.verify(broken) == []


def test_in_place_safety_rejects_an_assemble_over_its_source() -> None:
    # tile.assemble is in place over its target only: its emitted form copies the target into
    # the result's buffer first, which would overwrite a source sharing that buffer.
    program = _planned("assemble_over_dying_source")
    assert in_place_safety.verify(program) == []
    broken = _rebind(program, "t_tile", _memref(program, "y_tile"))
    found = in_place_safety.verify(broken)
    assert any("tile.assemble" in d.message for d in found), found


def test_semantic_aliases_rejects_a_yield_outside_the_carried_buffer() -> None:
    program = _planned("swapped_carries")
    assert semantic_aliases.verify(program) == []
    yielded = [n for n in walk(program) if isinstance(n, A.ForStmt)][0].body[-1]
    assert isinstance(yielded, A.YieldStmt)
    name = getattr(yielded.values[0], "name")
    broken = _rebind(program, name, MemRef("mem_vec_elsewhere", MemorySpace.Vec, 65536, 512))
    found = semantic_aliases.verify(broken)
    assert any("yielded value" in d.message for d in found), found


def test_reshape_of_an_accumulator_reads_a_flat_copy() -> None:
    text = """\
import pypto.language as pl


@pl.program
class ReshapeAcc:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        r = pl.reshape(c, [16, 64])
        e = pl.exp(r)
        return e

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[16, 64], pl.FP32]:
        c = self.kernel(a, b)
        return c
"""

    # Ascend910B pops the accumulator into Vec through the cross-core FIFO as flat rows, and
    # Ascend950's FIXPIPE drains Acc -> Vec into a flat ND tile: both reshape a flat copy.
    inputs = {"a": _uniform(12, (32, 64), -1, 1, F16), "b": _uniform(13, (64, 32), -1, 1, F16)}
    expected = _exp(matmul_ref(inputs["a"], inputs["b"]).reshape(16, 64))
    for backend in ("Ascend910B", "Ascend950"):
        compiled = runner.compile_program(parse(text, "reshape_acc.py"), backend=backend, verify_all=True)
        got = runner.run(compiled, inputs)["ret0"]
        assert (_bits(got) == _bits(expected)).all(), backend

"""Mixed cube/vector kernels: on Ascend910B (no Acc → Vec, no Vec → Mat) InferTileMemorySpace
marks the boundary hops cross-core and ExpandMixedKernel splits the kernel into AIC + AIV
functions and a Group that launches both; the cores exchange tiles through tpush / tpop FIFOs.
On Ascend950 the same kernels keep their direct moves.

End to end through the CLI (`--verify-all --simulate`), bit for bit against the NumPy references
of tests/test_kernels_matmul.py (written from NUMERICS.md, independent of backend/numerics.py).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import languages.gen.addressed as A
import languages.gen.l0_tiled as L
from backend import cross_core
from backend.cross_core import CrossCoreError
from languages.pl_parser import parse_program
from languages.types import MemRef, TileType
from passes.analysis.memrefs import rebind_memrefs
from verifiers import group_launches_together, pipe_slot_placement
from nanopass_pto.plugin import DEFAULT_PIPELINE
from nanopass.node import walk
from nanopass.passes import PassContext
from nanopass.pipeline import Pipeline, main
from nanopass.plugin import get_plugin
from tests.test_kernels_matmul import (
    B910,
    B950,
    Array,
    assert_bits_equal,
    random_array,
    run_cli,
)
from tests.references import matmul_ref, row_softmax_ref

HERE = Path(__file__).resolve().parent
MIXED = HERE / "kernels" / "mixed"
MATMUL = HERE / "kernels" / "matmul"

Inputs = dict[str, Array]
Reference = Callable[[Inputs], Array]

# (kernel, input shapes/dtypes, reference of ret0)
KERNELS: list[tuple[Path, dict[str, tuple[tuple[int, int], str]], Reference]] = [
    (MATMUL / "mm_bias_relu.py", {"a": ((32, 64), "FP16"), "b": ((64, 64), "FP16"), "bias": ((32, 64), "FP32")},
     lambda i: np.maximum(matmul_ref(i["a"], i["b"]) + i["bias"], np.float32(0))),
    (MIXED / "mm_softmax_m64.py", {"q": ((64, 32), "FP16"), "k": ((32, 64), "FP16")},
     lambda i: row_softmax_ref(matmul_ref(i["q"], i["k"]))),
    # vector -> cube: the FP16 left operand of the second matmul is cast on the AIV.
    (MIXED / "mm_cast_mm_f16.py", {"a": ((64, 64), "FP16"), "b": ((64, 128), "FP16"), "w": ((128, 32), "FP16")},
     lambda i: matmul_ref(matmul_ref(i["a"], i["b"]).astype(np.float16), i["w"])),
    # M = 100: a boxed, compact accumulator pushed to the vector core (and a boxed row softmax).
    (MIXED / "mm_m100_relu.py", {"a": ((100, 64), "FP16"), "b": ((64, 48), "FP16")},
     lambda i: np.maximum(matmul_ref(i["a"], i["b"]), np.float32(0))),
    (MATMUL / "mm_softmax.py", {"q": ((100, 64), "FP16"), "k": ((48, 64), "FP16")},
     lambda i: row_softmax_ref(matmul_ref(i["q"], i["k"].T))),
    # a loop on both cores: the cube pushes one block per iteration, the vector pops it
    (MIXED / "loop_bias_relu.py", {"a": ((64, 32), "FP16"), "b": ((32, 32), "FP16"), "bias": ((64, 32), "FP32")},
     lambda i: np.maximum(matmul_ref(i["a"], i["b"]) + i["bias"], np.float32(0))),
]

PUSH = re.compile(r"^\s*pto\.tpush_to_(aiv|aic)\(%\w+ : !pto\.tile_buf<loc=(\w+), [^>]*>\) \{split = 0\}", re.M)
POP = re.compile(r"^\s*%\w+ = pto\.tpop_from_(aic|aiv) \{split = 0\} -> !pto\.tile_buf<loc=(\w+), ", re.M)


@pytest.mark.parametrize("kernel, shapes, reference", KERNELS, ids=lambda v: v.stem if isinstance(v, Path) else "")
@pytest.mark.parametrize("backend", [B910, B950])
def test_mixed_kernel_is_bit_exact(kernel: Path, shapes: dict[str, tuple[tuple[int, int], str]],
                                   reference: Reference, backend: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(len(kernel.stem))
    inputs = {name: random_array(shape, dtype, rng) for name, (shape, dtype) in shapes.items()}
    rc, log, outputs = run_cli(kernel, inputs, backend, tmp_path)
    assert rc == 0 and "bit-exact" in log and "MISMATCH" not in log, log
    assert_bits_equal("ret0", reference(inputs), outputs["ret0"])
    pto = (tmp_path / "out.pto").read_text()
    functions = re.findall(r"func\.func @(\w+)", pto)
    if backend == B950:
        # Direct moves: one kernel, no FIFO.
        assert "tpush" not in pto and "tpop" not in pto and len(functions) == 1, pto
        return
    stem = functions[0].rsplit("_", 1)[0]
    assert functions == [f"{stem}_aic", f"{stem}_aiv"], functions
    pushes, pops = PUSH.findall(pto), POP.findall(pto)
    assert pushes and len(pushes) == len(pops), pto
    for direction, space in pushes:
        assert (direction, space) in {("aiv", "acc"), ("aic", "vec")}, (direction, space)
    for direction, space in pops:
        assert (direction, space) in {("aic", "vec"), ("aiv", "mat")}, (direction, space)


def test_vector_to_cube_pushes_both_ways(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    inputs = {n: random_array(s, d, rng) for n, (s, d) in KERNELS[2][1].items()}
    rc, log, _ = run_cli(KERNELS[2][0], inputs, B910, tmp_path)
    assert rc == 0, log
    pto = (tmp_path / "out.pto").read_text()
    aic, aiv = pto.split("func.func @mm_aiv")
    assert "pto.tpush_to_aiv" in aic and "pto.tpop_from_aiv" in aic
    assert "pto.tpop_from_aic" in aiv and "pto.tpush_to_aic" in aiv
    # The cube pops into L1 (Mat), then the second matmul's Left operand comes from there.
    assert re.search(r"pto\.tpop_from_aiv \{split = 0\} -> !pto\.tile_buf<loc=mat, dtype=f16", aic), aic


def test_compact_accumulator_is_pushed_at_its_valid_extent(tmp_path: Path) -> None:
    kernel, shapes, _ = KERNELS[3]
    rng = np.random.default_rng(1)
    inputs = {n: random_array(s, d, rng) for n, (s, d) in shapes.items()}
    rc, log, _ = run_cli(kernel, inputs, B910, tmp_path)
    assert rc == 0, log
    pto = (tmp_path / "out.pto").read_text()
    assert re.search(r"pto\.tpush_to_aiv\(%\w+ : !pto\.tile_buf<loc=acc, dtype=f32, rows=112, cols=48, "
                     r"v_row=100, v_col=48, [^>]*compact=1>\) \{split = 0\}", pto), pto
    assert re.search(r"pto\.tpop_from_aic \{split = 0\} -> !pto\.tile_buf<loc=vec, dtype=f32, rows=112, cols=48, "
                     r"v_row=100, v_col=48, blayout=row_major, slayout=none_box", pto), pto


# -- the pipe: kernel kinds, set-up, slot release ---------------------------------------------------


def _function_texts(pto: str) -> dict[str, str]:
    parts = re.split(r"(?=^  func\.func @)", pto, flags=re.M)
    return {m.group(1): part for part in parts if (m := re.match(r"\s*func\.func @(\w+)", part))}


def test_each_side_declares_its_core_and_sets_up_the_pipe_before_its_first_transfer(tmp_path: Path) -> None:
    # mm_cast_mm_f16 moves tiles both ways: the AIV consumes cube -> vector, the AIC vector -> cube.
    kernel, shapes, _ = KERNELS[2]
    rng = np.random.default_rng(2)
    rc, log, _ = run_cli(kernel, {n: random_array(s, d, rng) for n, (s, d) in shapes.items()}, B910, tmp_path)
    assert rc == 0, log
    sides = _function_texts((tmp_path / "out.pto").read_text())
    aic, aiv = sides["mm_aic"], sides["mm_aiv"]
    assert "attributes {pto.kernel_kind = #pto.kernel_kind<cube>}" in aic.splitlines()[0]
    assert "attributes {pto.kernel_kind = #pto.kernel_kind<vector>}" in aiv.splitlines()[0]
    # Each consumer reserves its slots in its own buffer (Mat on the cube, Vec on the vector
    # core); the producer imports the peer's region by name.
    assert re.search(r'%v2c_fifo = pto\.reserve_buffer \{name = "v2c_fifo", size = \d+, '
                     r"location = #pto\.address_space<mat>, auto = false, base = \d+\} -> i32", aic), aic
    assert re.search(r'%c2v_fifo = pto\.import_reserved_buffer \{name = "c2v_fifo", peer_func = @mm_aiv\} -> i32', aic)
    assert re.search(r'%c2v_fifo = pto\.reserve_buffer \{name = "c2v_fifo", size = \d+, '
                     r"location = #pto\.address_space<vec>, auto = false, base = \d+\} -> i32", aiv), aiv
    assert re.search(r'%v2c_fifo = pto\.import_reserved_buffer \{name = "v2c_fifo", peer_func = @mm_aic\} -> i32', aiv)
    # One tile each way, none in a loop: one slot per direction (a second would never be filled).
    for side, core, text in (("aic", "aic", aic), ("aiv", "aiv", aiv)):
        init = re.search(rf"pto\.{core}_initialize_pipe \{{dir_mask = 3, slot_size = (\d+), slot_num = 1\}} "
                         r"\(gm_slot_buffer = %arg\d+ : !pto\.ptr<f32>, c2v_consumer_buf = %c2v_fifo : i32, "
                         r"v2c_consumer_buf = %v2c_fifo : i32\)", text)
        assert init, text
        # The slot holds the largest tile carried (64x128 FP32 accumulator = 32768 bytes).
        assert int(init.group(1)) == 64 * 128 * 4
        first_transfer = min(text.index(w) for w in ("pto.tpush", "pto.tpop") if w in text)
        assert init.start() < first_transfer, side


def _transfer_sequence(text: str) -> list[str]:
    return re.findall(r"pto\.(tpop_from_\w+|tfree_from_\w+|tpush_to_\w+)", text)


@pytest.mark.parametrize("kernel", [MIXED / "loop_bias_relu.py", HERE / "kernels" / "trust" / "carry_seeded_by_matmul.py",
                                    HERE / "kernels" / "trust" / "flash_attention.py"], ids=lambda p: p.stem)
def test_every_pop_is_freed_before_the_next_pop_of_its_pipe(kernel: Path, tmp_path: Path) -> None:
    """tpop -> users -> tfree -> next tpop: a popped tile still needed at the next pop (here a
    loop carry seeded by a pop) is copied out of its slot, so no side ever holds two slots."""
    out = tmp_path / "k.pto"
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        assert main([str(kernel), "--verify-all", "--simulate", "--backend", B910, "-o", str(out)]) == 0, log.getvalue()
    assert "bit-exact" in log.getvalue(), log.getvalue()
    for name, text in _function_texts(out.read_text()).items():
        held = {"aic": 0, "aiv": 0}
        for step in _transfer_sequence(text):
            kind, peer = step.split("_")[0], step.rsplit("_", 1)[1]
            if kind == "tpop":
                assert held[peer] == 0, f"{name}: a second pop from the {peer} with a slot still held"
                held[peer] += 1
            elif kind == "tfree":
                assert held[peer] == 1, f"{name}: a tfree without a pop"
                held[peer] -= 1
        assert held == {"aic": 0, "aiv": 0}, f"{name}: a popped slot is never freed"


def test_a_full_pipe_makes_the_producer_wait_for_a_free_slot() -> None:
    log: list[str] = []

    def cube() -> None:
        cross_core.configure_pipe(1, 2)
        for item in range(4):
            cross_core.push("aiv", item)
            log.append(f"push {item}")

    def vector() -> None:
        cross_core.configure_pipe(1, 2)
        for _ in range(4):
            item = cross_core.pop("aiv")
            log.append(f"pop {item}")
            cross_core.free("aiv")

    cross_core.run_group(["AIC", "AIV"], [cube, vector])
    # Two slots: the third push waits until the vector core has popped and freed one.
    assert log[:3] == ["push 0", "push 1", "pop 0"], log
    assert sorted(log) == sorted([f"push {i}" for i in range(4)] + [f"pop {i}" for i in range(4)])


def test_a_popped_slot_never_freed_deadlocks_the_producer() -> None:
    def cube() -> None:
        cross_core.configure_pipe(1, 1)
        cross_core.push("aiv", 0)
        cross_core.push("aiv", 1)

    def vector() -> None:
        cross_core.configure_pipe(1, 1)
        cross_core.pop("aiv")
        cross_core.pop("aiv")

    with pytest.raises(CrossCoreError, match=r"AIC waits for a free slot of the cube → vector FIFO \(1 popped and "
                                             r"not freed\)") as err:
        cross_core.run_group(["AIC", "AIV"], [cube, vector])
    assert "every popped slot a tfree" in str(err.value)
    with pytest.raises(CrossCoreError, match="releases no popped slot"):
        cross_core.run_group(["AIC", "AIV"], [lambda: cross_core.configure_pipe(1, 2), lambda: cross_core.free("aiv")])


# -- the pass on its own -----------------------------------------------------------------------------


def _until(pass_name: str) -> str:
    names = DEFAULT_PIPELINE.split(",")
    return ",".join(names[:names.index(pass_name) + 1])


def _compile(path: Path, pass_name: str, backend: str = B910) -> L.Program:
    plugin = get_plugin()
    program = parse_program(path.read_text(), str(path))
    pipeline = Pipeline.from_spec(_until(pass_name), plugin)
    out = pipeline.run(program, PassContext(backend, plugin.make_backend(backend)))
    assert isinstance(out, L.Program)
    return out


def test_expansion_splits_into_aic_aiv_and_group() -> None:
    out = _compile(MATMUL / "mm_bias_relu.py", "expand-mixed-kernel")
    functions = {f.name: f for f in out.functions}
    assert [f.name for f in out.functions] == ["mm_aic", "mm_aiv", "mm", "main"]
    aic, aiv, group = functions["mm_aic"], functions["mm_aiv"], functions["mm"]
    assert (aic.func_type, aiv.func_type, group.func_type) == ("AIC", "AIV", "Group")
    # Each core gets the GM parameters it uses, plus the pipe's GM slot ring (Ascend910B moves
    # the slots through GM); the Group keeps the original signature and allocates the ring.
    assert [p.var.name for p in aic.params] == ["a", "b", "gm_pipe_buffer"]
    assert [p.var.name for p in aiv.params] == ["bias", "ret0_out", "gm_pipe_buffer"]
    assert [p.var.name for p in group.params] == ["a", "b", "bias", "ret0_out"]
    ring = [n for n in walk(group) if isinstance(n, L.AssignStmt) and n.target.name == "gm_pipe_buffer"]
    assert len(ring) == 1 and isinstance(ring[0].value, L.Call) and ring[0].value.op == "tensor.create"
    ops = {side.name: [n.op for n in walk(side) if isinstance(n, L.Call)] for side in (aic, aiv)}
    assert "tile.tpush_to_aiv" in ops["mm_aic"] and "tile.add" not in ops["mm_aic"]
    assert "tile.tpop_from_aic" in ops["mm_aiv"] and "tile.matmul" not in ops["mm_aiv"]
    assert not any(isinstance(n, L.Call) and n.op == "tile.move" and dict(n.attrs).get("cross_core")
                   for n in walk(out))
    callees = [n.callee for n in walk(group) if isinstance(n, L.FuncCall)]
    assert callees == ["mm_aic", "mm_aiv"]


def test_loop_is_duplicated_and_sliced_per_core() -> None:
    out = _compile(MIXED / "loop_bias_relu.py", "expand-mixed-kernel")
    functions = {f.name: f for f in out.functions}
    aic_loops = [n for n in walk(functions["kernel_aic"]) if isinstance(n, L.ForStmt)]
    aiv_loops = [n for n in walk(functions["kernel_aiv"]) if isinstance(n, L.ForStmt)]
    assert len(aic_loops) == len(aiv_loops) == 1
    assert aic_loops[0].iter_args == () and len(aiv_loops[0].iter_args) == 1  # the GM carry stays on AIV
    assert not isinstance(aic_loops[0].body[-1], L.YieldStmt)


def test_950_program_is_untouched_by_the_expansion() -> None:
    before = _compile(MATMUL / "mm_bias_relu.py", "auto-tile-matmul-l0", B950)
    plugin = get_plugin()
    after = Pipeline.from_spec("expand-mixed-kernel", plugin).run(before, PassContext(B950, plugin.make_backend(B950)))
    assert after is before


def test_a_scalar_read_of_an_accumulator_happens_on_the_vector_core(tmp_path: Path) -> None:
    # TGETVAL reads UB only (tile.read reads Vec): the Acc tile crosses to the vector core first,
    # so the scalar is computed where it is used instead of on the cube.
    kernel = tmp_path / "bad.py"
    kernel.write_text('''import pypto.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16], x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        ta: pl.Tile[[16, 16], pl.FP16] = pl.tile.load(a, [0, 0], [16, 16])
        tb: pl.Tile[[16, 16], pl.FP16] = pl.tile.load(b, [0, 0], [16, 16])
        tx: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(x, [0, 0], [16, 16])
        c: pl.Tile[[16, 16], pl.FP32] = pl.tile.matmul(ta, tb)
        s: pl.Scalar[pl.FP32] = pl.tile.read(c, [0, 0])
        y: pl.Tile[[16, 16], pl.FP32] = pl.tile.adds(tx, s)
        z: pl.Tile[[16, 16], pl.FP32] = pl.tile.add(y, c)
        r: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(z, [0, 0], x)
        return r
''')
    out = _compile(kernel, "expand-mixed-kernel")
    functions = {f.name: f for f in out.functions}
    reads = {name for name, f in functions.items()
             for n in walk(f) if isinstance(n, L.Call) and n.op == "tile.read"}
    assert reads == {"mm_aiv"}, reads


# -- the cross-core scheduler -------------------------------------------------------------------------


def test_coroutines_exchange_both_ways_in_fifo_order() -> None:
    log: list[str] = []

    def cube() -> str:
        cross_core.push("aiv", 1)
        cross_core.push("aiv", 2)
        got = cross_core.pop("aic")  # blocks until the vector core answers
        log.append(f"aic got {got}")
        return "aic done"

    def vector() -> str:
        a, b = cross_core.pop("aiv"), cross_core.pop("aiv")
        log.append(f"aiv got {a} {b}")
        cross_core.push("aic", a + b)
        return "aiv done"

    assert cross_core.run_group(["AIC", "AIV"], [cube, vector]) == ["aic done", "aiv done"]
    assert log == ["aiv got 1 2", "aic got 3"]


def test_deadlock_and_leftover_pushes_are_reported() -> None:
    with pytest.raises(CrossCoreError, match="cross-core deadlock: AIC waits on the empty vector → cube FIFO"):
        cross_core.run_group(["AIC", "AIV"], [lambda: cross_core.pop("aic"), lambda: cross_core.pop("aiv")])
    with pytest.raises(CrossCoreError, match="never popped"):
        cross_core.run_group(["AIC", "AIV"], [lambda: cross_core.push("aiv", 1), lambda: None])
    with pytest.raises(CrossCoreError, match="outside a Group launch"):
        cross_core.pop("aiv")


def test_a_side_error_surfaces_from_the_launch() -> None:
    def failing() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        cross_core.run_group(["AIC", "AIV"], [failing, lambda: cross_core.pop("aiv")])


# -- popped tiles live in their pipe's slots; placed operands the vector core holds -----------------

SLOTS_CHAIN = MIXED / "mm128_cast_mm_in_slots.py"
VEC_OPERANDS = MIXED / "vec_operands_matmul.py"


@pytest.mark.parametrize("backend", [B910, B950])
def test_a_chain_whose_vector_side_fits_only_with_pops_in_their_slots_is_bit_exact(backend: str,
                                                                                tmp_path: Path) -> None:
    # 910B: the vector core holds the pipe's 2 x 64 KiB slot region and the 32 KiB FP16 cast; the
    # popped 64 KiB product is one of the slots (counted apart it would need 224 KiB of 184 KiB).
    rng = np.random.default_rng(11)
    inputs = {"a": random_array((128, 64), "FP16", rng), "b": random_array((64, 128), "FP16", rng),
              "w": random_array((128, 64), "FP16", rng)}
    rc, log, outputs = run_cli(SLOTS_CHAIN, inputs, backend, tmp_path)
    assert rc == 0 and "bit-exact" in log, log
    expected = matmul_ref(matmul_ref(inputs["a"], inputs["b"]).astype(np.float16), inputs["w"])
    assert_bits_equal("ret0", expected, outputs["ret0"])


def _addressed(kernel: Path) -> A.Program:
    plugin = get_plugin()
    pipeline = Pipeline.from_spec(_until("allocate-memory-addr"), plugin)
    out = pipeline.run(parse_program(kernel.read_text(), str(kernel)), PassContext(B910, plugin.make_backend(B910)))
    assert isinstance(out, A.Program)
    return out


def _defined_by(function: A.Function, op: str) -> list[MemRef]:
    """The MemRefs of the tiles `op` defines in `function`."""
    return [n.target.type.memref for n in walk(function) if isinstance(n, A.AssignStmt)
            and isinstance(n.value, A.Call) and n.value.op == op and isinstance(n.target.type, TileType)
            and n.target.type.memref is not None]


def _vector_side(program: A.Program) -> A.Function:
    return next(f for f in program.functions if f.name == "mm_aiv")


def test_each_pop_is_placed_in_a_slot_of_its_pipe_region_and_nothing_else_is() -> None:
    program = _addressed(SLOTS_CHAIN)
    aiv = _vector_side(program)
    reserve = next(n for n in walk(aiv) if isinstance(n, A.Call) and n.op == "system.reserve_buffer")
    base, size = dict(reserve.attrs)["base"], dict(reserve.attrs)["size"]
    assert isinstance(base, int) and isinstance(size, int)
    pops = _defined_by(aiv, "tile.tpop_from_aic")
    assert pops and all(base <= m.offset and m.offset + m.size <= base + size for m in pops)
    others = {n.type.memref for n in walk(aiv) if isinstance(n, A.Var) and isinstance(n.type, TileType)
              and n.type.memref is not None} - set(pops)
    assert others and all(m.offset >= base + size for m in others)
    assert pipe_slot_placement.verify(program) == []


def test_pipe_slot_placement_catches_a_pop_out_of_its_slot_and_a_buffer_over_the_region() -> None:
    program = _addressed(SLOTS_CHAIN)
    aiv = _vector_side(program)
    pop, = _defined_by(aiv, "tile.tpop_from_aic")
    cast_buffer, = _defined_by(aiv, "tile.cast")
    # The pop given a buffer of its own above the region, the cast's buffer moved into the region.
    broken = rebind_memrefs(program, {pop.name: MemRef(pop.name, pop.space, cast_buffer.offset, pop.size),
                                      cast_buffer.name: MemRef(cast_buffer.name, cast_buffer.space, 0,
                                                               cast_buffer.size)})
    messages = [d.message for d in pipe_slot_placement.verify(broken)]
    assert any("popped tile's buffer" in m and "not in a" in m for m in messages), messages
    assert any("overlaps the pipe's slot region" in m for m in messages), messages


@pytest.mark.parametrize("backend", [B910, B950])
def test_placed_matmul_operands_in_vec_are_staged_to_mat_and_tiled(backend: str, tmp_path: Path) -> None:
    rng = np.random.default_rng(12)
    inputs = {"p": random_array((16, 256), "FP16", rng), "v": random_array((256, 64), "FP16", rng),
              "w": random_array((64, 32), "FP16", rng)}
    rc, log, outputs = run_cli(VEC_OPERANDS, inputs, backend, tmp_path)
    assert rc == 0 and "bit-exact" in log, log
    assert_bits_equal("ret0", matmul_ref(inputs["p"], inputs["v"]), outputs["ret0"])
    assert_bits_equal("ret1", matmul_ref(inputs["p"][:, :64], inputs["w"]), outputs["ret1"])


def test_a_group_launches_both_kernels_before_unpacking_their_results() -> None:
    out = _compile(VEC_OPERANDS, "expand-mixed-kernel")
    group = next(f for f in out.functions if f.func_type == "Group")
    body = list(group.body)
    launches = [k for k, stmt in enumerate(body) if isinstance(stmt, (L.AssignStmt, L.EvalStmt))
                and isinstance(stmt.value, L.FuncCall)]
    assert len(launches) == 2 and launches[1] == launches[0] + 1, body
    assert group_launches_together.verify(out) == []
    # The unpacking moved between the launches is what the verifier reports.
    unpack = next(k for k, stmt in enumerate(body) if isinstance(stmt, L.AssignStmt)
                  and isinstance(stmt.value, L.TupleGetItem))
    body.insert(launches[1], body.pop(unpack))
    broken = L.Program(name=out.name, functions=tuple(
        L.Function(name=f.name, func_type=f.func_type, params=f.params, return_types=f.return_types,
                   body=tuple(body), attrs=f.attrs, span=f.span) if f is group else f for f in out.functions), span=out.span)
    assert [d.rule for d in group_launches_together.verify(broken)] == ["GroupLaunchesTogether"]


SCALAR_GM_WRITE = """
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel0(self, y: pl.Tensor[[16, 32], pl.FP32], a: pl.Tensor[[16, 32], pl.FP32],
                b: pl.Tensor[[1, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        c: pl.Tensor[[16, 1], pl.FP32] = pl.tensor.matmul(a, b, b_trans=True, out_dtype=pl.FP32)
        w: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.write(y, [0, 0], pl.const(0.5, pl.FP32))
        t: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.row_expand_add(a, c)
        return t

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, y: pl.Tensor[[16, 32], pl.FP32], a: pl.Tensor[[16, 32], pl.FP32],
             b: pl.Tensor[[1, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
        out: pl.Tensor[[16, 32], pl.FP32] = self.kernel0(y, a, b)
        return out
"""


def test_a_scalar_gm_write_in_a_mixed_kernel_runs_on_one_core(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    # tensor.write names no tile, so ExpandMixedKernel copied it to both cores as scalar code and
    # then refused the GM tensor written on two concurrent cores (a campaign's finding): the
    # write is an effect and runs on the vector core only; `y` is compared bit for bit.
    from nanopass.pipeline import main

    (tmp_path / "k.py").write_text(SCALAR_GM_WRITE)
    rc = main([str(tmp_path / "k.py"), "--verify-all", "--simulate", "--seed", "3", "-o", str(tmp_path / "k.pto")])
    log = capsys.readouterr().err
    assert rc == 0 and "y: bit-exact" in log, log
    pto = (tmp_path / "k.pto").read_text()
    assert pto.count("store_scalar") == 1, pto

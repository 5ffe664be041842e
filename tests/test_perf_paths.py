"""The fast paths behind `--verify-all` and the simulator compute exactly what the slow paths do.

- `preorder` (memoized traversal) is `tuple(walk(...))`; `summary` lists exactly the classes and
  field values of the subtree; both are shared across programs rebuilt around the same functions.
- Every verifier's summary shortcut agrees with its full walk: with the shortcut disabled (the
  summary claims everything might fail) the diagnostics are the same, on random programs of
  every language checked against every property (most of them violate several).
- `admits_type` (memoized, no list building) agrees with `matching_forms`.
- `REGISTRY.deduce`'s memo returns what deduction computes (errors included), and the
  per-node fast paths (operand table, recursive use walk) report what the plain forms do.
- `fma_f32`'s float64 -> float32 conversion after round-to-odd equals the general rounding
  path bit for bit, subnormals, overflow and signed zeros included; so does `round_float64`'s
  FP32 / RNE shortcut (the hardware conversion), NaN payloads included, and FP32 exp's split
  into saturated (+0 / +inf) and evaluated elements.
- The simulator's memoized tile accesses are read-only and give the same results run after run.
"""

from __future__ import annotations

import importlib
from typing import Any, Iterator

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typing_extensions import override

from backend import numerics
from languages.decls import FAMILY, LANGUAGES
from languages.ops import REGISTRY
from languages.memory_space import MemorySpace
from languages.type_forms import TYPE_FORMS, admits_type, matching_forms
from languages.types import DataType, MemRef, NoneType, ScalarType, TensorType, TileType, TileView, TupleType, Type
from languages.views import implicit_view
from nanopass.diagnostics import CompileError
from nanopass.instruments import Instrument, PassStep
from nanopass.node import NO_SPAN, Node, Summary, preorder, summary, walk
from nanopass.plugin import get_plugin
from tests.strategies import language_programs

# Verifier modules with a summary shortcut, and the name under which they import `summary`.
_SHORTCUT_MODULES = (
    "acc_compact_valid", "boxed_extents", "call_sites_complete", "grammar", "has_mem_refs",
    "incore_tile_ops", "l0_operands_placed", "tile_memory_placed", "tile_ops_2d",
)
_ALL_VERIFIERS = _SHORTCUT_MODULES + (
    "memory_capacity", "no_co_live_overlap", "normalized_stmt_structure", "ssa_form", "type_checked",
    "use_after_def",
)
_TARGET_AWARE = frozenset({"l0_operands_placed", "memory_capacity"})


class _Collect(Instrument):
    def __init__(self) -> None:
        self.programs: list[Node] = []

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        self.programs.append(after)


@pytest.fixture(scope="module")
def stage_programs() -> list[Node]:
    """Every intermediate program of the default pipeline on every bundled example."""
    from nanopass.passes import PassContext
    from nanopass.pipeline import Pipeline

    plugin = get_plugin()
    pipeline = Pipeline.from_spec(plugin.default_pipeline(), plugin)
    collect = _Collect()
    for path in plugin.examples():
        program = plugin.parse(path.read_text(), str(path))
        ctx = PassContext(plugin.default_backend, plugin.make_backend(plugin.default_backend))
        pipeline.run(program, ctx, [collect])
    return collect.programs


def test_preorder_and_summary_match_a_plain_walk(stage_programs: list[Node]) -> None:
    for program in stage_programs:
        nodes = tuple(walk(program))
        assert preorder(program) == nodes
        assert preorder(program) is preorder(program)  # memoized
        found = summary(program)
        assert found.classes == {type(n) for n in nodes}
        for node in nodes:
            for name in node.FIELDS:
                value = getattr(node, name)
                if name not in node.CHILD_FIELDS:
                    assert any(v is value for v in found.field_values(node.KIND, name))


def _everything_may_fail(node: Node) -> Summary:
    """A summary no shortcut can pass: a class outside every language, a non-string operator and
    callee, and types that fail every type check (1-D, unplaced and unbound; a Mat tile of a
    partial box; an Acc tile larger than L0C) -- so every verifier takes its full walk."""
    real = summary(node)
    poison_types = (
        TileType((3,), DataType.FP32),
        TileType((3, 3), DataType.FP32, None, MemorySpace.Mat, implicit_view(MemorySpace.Mat, (3, 3))),
        TileType((4096, 4096), DataType.FP32, None, MemorySpace.Acc, implicit_view(MemorySpace.Acc, (4096, 4096))),
    )
    values = dict(real.values)
    for key in (("Var", "type"), ("Call", "type"), ("TupleGetItem", "type")):
        values[key] = values.get(key, ()) + poison_types
    for key in (("Call", "op"), ("FuncCall", "callee")):
        values[key] = values.get(key, ()) + (0,)
    return Summary(real.classes | {Node}, values)


def _uses_by_walk(self: Any, expr: Any, scope: set[str]) -> None:
    """UseAfterDef's original use check: every Var of a `walk` of the expression."""
    for node in walk(expr):
        if node.KIND == "Var" and getattr(node, "name") not in scope:
            self.undefined(node)


def _deduce_without_memo(op: str, args: Any, attrs: Any = (), *, placed: bool = False, at: Any = None) -> Any:
    return REGISTRY._deduce_uncached(op, args, attrs, placed, at)


def _disable_fast_paths(patch: pytest.MonkeyPatch) -> None:
    """The per-node shortcuts (no summary involved) fall back to their plain forms."""
    patch.setattr(REGISTRY, "deduce", _deduce_without_memo)
    patch.setattr("verifiers.tile_memory_placed._operands_in_place", lambda call: False)
    patch.setattr("verifiers.use_after_def._Checker.uses", _uses_by_walk)


def _run(verify: Any, *args: object) -> tuple[object, ...]:
    try:
        return ("ok", verify(*args))
    except Exception as exc:  # a crash must be the same crash
        return ("crash", type(exc).__name__, str(exc))


def _verdicts(program: Node, target: object) -> Iterator[tuple[str, tuple[object, ...]]]:
    for name in _ALL_VERIFIERS:
        module = importlib.import_module(f"verifiers.{name}")
        args = (program, target) if name in _TARGET_AWARE else (program,)
        yield name, _run(module.verify, *args)
    grammar = importlib.import_module("verifiers.grammar")
    for lang in LANGUAGES:
        yield f"grammar:{lang.name}", _run(grammar.verify_language, program, lang.name)


def _compare_with_full_walks(program: Node, monkeypatch: pytest.MonkeyPatch, target: object) -> None:
    fast = dict(_verdicts(program, target))
    with monkeypatch.context() as patch:
        for name in _SHORTCUT_MODULES:
            patch.setattr(f"verifiers.{name}.summary", _everything_may_fail)
        patch.setattr("verifiers.type_checked._VERDICTS", {})
        _disable_fast_paths(patch)
        slow = dict(_verdicts(program, target))
    assert fast == slow


@given(language_programs())
def test_shortcuts_agree_with_full_walks_on_random_programs(lp: tuple[Any, Node]) -> None:
    _, program = lp
    plugin = get_plugin()
    with pytest.MonkeyPatch.context() as monkeypatch:
        _compare_with_full_walks(program, monkeypatch, plugin.make_backend(plugin.default_backend))


def test_shortcuts_agree_with_full_walks_on_pipeline_stages(stage_programs: list[Node],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    plugin = get_plugin()
    target = plugin.make_backend(plugin.default_backend)
    for program in stage_programs:
        _compare_with_full_walks(program, monkeypatch, target)


# -- the deduction memo --------------------------------------------------------------------------


def _deductions(program: Node, memo: bool) -> list[tuple[object, ...]]:
    placed = bool(FAMILY.by_name(type(program).LANGUAGE).type_forms & {"tile-placed", "tile-addressed"})
    out: list[tuple[object, ...]] = []
    for node in preorder(program):
        if node.KIND != "Call":
            continue
        call: Any = node
        for flag in (placed, not placed):
            deduce = REGISTRY.deduce if memo else _deduce_without_memo
            out.append(_run(lambda: deduce(call.op, call.args, call.attrs, placed=flag, at=call)))
    return out


def test_deduction_memo_agrees_with_deduction_on_pipeline_stages(stage_programs: list[Node]) -> None:
    for program in stage_programs:
        first = _deductions(program, memo=True)
        assert first == _deductions(program, memo=False)
        assert first == _deductions(program, memo=True)  # now from the memo


@given(language_programs())
def test_deduction_memo_agrees_with_deduction_on_random_programs(lp: tuple[Any, Node]) -> None:
    _, program = lp
    assert _deductions(program, memo=True) == _deductions(program, memo=False)


def test_deduction_memo_tells_attribute_values_of_different_classes_apart() -> None:
    from languages.gen import tile_placed as tp

    shape = tp.TupleExpr((tp.ConstInt(16, DataType.INDEX), tp.ConstInt(16, DataType.INDEX)))
    good = (("dtype", DataType.FP32), ("target_memory", MemorySpace.Vec))
    assert REGISTRY.deduce("tile.create", (shape,), good, placed=True) == REGISTRY.deduce(
        "tile.create", (shape,), good, placed=True)
    # 1 == True as a dict key, but a memory-space attribute given as an int is an error.
    bad = (("dtype", DataType.FP32), ("target_memory", 1))
    with pytest.raises(CompileError):
        REGISTRY.deduce("tile.create", (shape,), bad, placed=True)


# -- type forms ----------------------------------------------------------------------------------

_VIEWS = (None, TileView(), TileView("col_major", "row_major", 512), TileView("col_major", "row_major", 1024))
_MEMREFS = (None, MemRef("m", MemorySpace.Vec, 0, 8192), MemRef("a", MemorySpace.Acc, 0, 8192))


def _tiles() -> st.SearchStrategy[Type]:
    return st.builds(
        TileType, st.sampled_from(((16, 16), (32,), (1, 64))), st.sampled_from((DataType.FP32, DataType.FP16)),
        st.none(), st.sampled_from((None, MemorySpace.Vec, MemorySpace.Acc)), st.sampled_from(_VIEWS),
        st.sampled_from(_MEMREFS))


_LEAVES = st.one_of(_tiles(), st.just(ScalarType(DataType.INDEX)), st.just(NoneType()),
                    st.just(TensorType((16, 16), DataType.FP32)))
_TYPES = st.recursive(_LEAVES, lambda inner: st.builds(TupleType, st.tuples(inner, inner)), max_leaves=4)


@given(_TYPES, st.frozensets(st.sampled_from(sorted(TYPE_FORMS))))
def test_admits_type_agrees_with_matching_forms(ty: Type, forms: frozenset[str]) -> None:
    assert admits_type(ty, forms) == bool(matching_forms(ty, forms))
    assert admits_type(ty, forms) == bool(matching_forms(ty, forms))  # the memoized answer too


# -- fma fast path -------------------------------------------------------------------------------

# Bit patterns that reach the corners: zeros, subnormals, the normal boundary, huge values
# (products overflow FP32), infinities and NaNs, plus arbitrary ones.
_SPECIAL_BITS = (0x0000_0000, 0x8000_0000, 0x0000_0001, 0x807F_FFFF, 0x0080_0000, 0x3F80_0000,
                 0x7F7F_FFFF, 0xFF7F_FFFF, 0x5F80_0000, 0x7F80_0000, 0xFF80_0000, 0x7FC0_0001, 0x2000_0000)
_F32_BITS = st.one_of(st.sampled_from(_SPECIAL_BITS), st.integers(0, 2**32 - 1))


def _f32(bits: list[int]) -> np.ndarray[Any, np.dtype[np.float32]]:
    return np.array(bits, dtype=np.uint32).view(np.float32)


@given(st.lists(st.tuples(_F32_BITS, _F32_BITS, _F32_BITS), min_size=1, max_size=32))
def test_fma_fast_conversion_matches_general_rounding(triples: list[tuple[int, int, int]]) -> None:
    a, b, c = (_f32([t[i] for t in triples]) for i in range(3))
    general = numerics.round_float64(numerics._fma_round_to_odd(a, b, c), "FP32", "rint")
    fast = numerics.fma_f32(a, b, c)
    assert fast.dtype == np.float32
    assert fast.view(np.uint32).tolist() == np.asarray(general).view(np.uint32).tolist()


def test_fma_fast_path_keeps_subnormal_and_overflow_results() -> None:
    tiny = _f32([0x0000_0001])  # the least subnormal
    half = np.array([0.5], dtype=np.float32)
    # 2**-149 * 0.5 + 0 is exactly halfway between 0 and 2**-149: RNE gives +0.
    assert numerics.fma_f32(tiny, half, np.zeros(1, np.float32)).view(np.uint32).tolist() == [0]
    big = _f32([0x7F7F_FFFF])
    assert np.isinf(numerics.fma_f32(big, np.array([2.0], np.float32), np.zeros(1, np.float32))).all()


_F64_SPECIAL_BITS = (0x0000_0000_0000_0000, 0x8000_0000_0000_0000, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000,
                     0x7FF0_0000_0000_0001, 0xFFF8_0000_0000_0123, 0x7FF4_0000_0000_0000, 0x7FF0_0000_2000_0000,
                     0x36A0_0000_0000_0000,  # 2**-149, the least FP32 subnormal
                     0x3690_0000_0000_0000,  # 2**-150: halfway between 0 and it
                     0x3698_0000_0000_0000,  # 1.5 * 2**-150
                     0x47EF_FFFF_F000_0000,  # halfway between FP32 max-finite and 2**128
                     0x47EF_FFFF_EFFF_FFFF, 0x3FF0_0000_1000_0000, 0x3FF0_0000_3000_0000)


@given(st.lists(st.one_of(st.sampled_from(_F64_SPECIAL_BITS), st.integers(0, 2**64 - 1),
                          # FP32 values, their neighbours and their midpoints in float64
                          _F32_BITS.map(lambda b: int(_f32([b]).astype(np.float64).view(np.uint64)[0]) + 0x1000_0000),
                          _F32_BITS.map(lambda b: int(_f32([b]).astype(np.float64).view(np.uint64)[0]))),
                min_size=1, max_size=64))
def test_fp32_rounding_shortcut_matches_general_rounding(bits: list[int]) -> None:
    x = np.array(bits, dtype=np.uint64).view(np.float64)
    fast = numerics.round_float64(x, "FP32", "rint")
    general = numerics.round_float64_general(x, "FP32", "rint")
    assert fast.dtype == np.float32
    assert fast.view(np.uint32).tolist() == np.asarray(general).view(np.uint32).tolist()


def _exp_rule(x: np.ndarray[Any, np.dtype[np.float32]]) -> np.ndarray[Any, Any]:
    with np.errstate(all="ignore"):
        return np.asarray(numerics.round_float64_general(np.exp(numerics.widen_to_float64(x, "FP32")), "FP32", "rint"))


# Around both saturation thresholds (RNE32 gives +0 below ln(2**-150) = -103.972..., +inf above
# 88.7228...), the thresholds themselves, subnormal results, signed zeros, infinities and NaNs.
_EXP_EDGES = st.one_of(st.floats(-104.5, -103.5, width=32), st.floats(88.5, 89.5, width=32),
                       st.floats(-103.5, -87.0, width=32),
                       st.sampled_from([-104.0, 89.0, -103.97, 88.72, 0.0, -0.0, float("inf"), float("-inf"),
                                        float("nan")]),
                       st.floats(-2000, 2000, width=32))


@given(st.lists(st.one_of(_EXP_EDGES, _F32_BITS.map(lambda b: float(_f32([b])[0]))), min_size=1, max_size=600))
def test_fp32_exp_matches_the_rule_on_the_target_grid(values: list[float]) -> None:
    """FP32 exp (float64 exp, then the hardware float64 -> float32 conversion) is the rule
    with the rounding done on FP32's grid (`round_float64_general`), bit for bit."""
    x = np.array(values, dtype=np.float32).reshape(-1, 1)
    fast = numerics.unary("exp", x, "FP32")
    assert fast.dtype == np.float32 and fast.shape == x.shape
    assert fast.view(np.uint32).tolist() == _exp_rule(x).view(np.uint32).tolist()


_INT_DTYPES = ("INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64")


@pytest.mark.parametrize("dtype", ["FP32", *_INT_DTYPES])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "and", "or", "xor", "adds", "max"])
def test_exact_ufuncs_compute_the_binary_rule(op: str, dtype: str) -> None:
    """`exact_ufunc` names the ufunc the simulator computes straight into a tile; applied to
    arrays of the dtype it gives `binary`'s bits (random patterns: NaNs, infinities,
    subnormals, signed zeros and integer wrap-around included)."""
    ufunc = numerics.exact_ufunc(op, dtype)
    if ufunc is None:
        return  # the simulator takes the general path
    width = numerics.np_dtype(dtype).itemsize
    rng = np.random.default_rng(7)
    unsigned = np.dtype(f"u{width}")
    a, b = (rng.integers(0, 2 ** (8 * width), 4096, dtype=np.uint64).astype(unsigned).view(numerics.np_dtype(dtype))
            for _ in range(2))
    if dtype == "FP32":
        a[:16] = _f32(list(_SPECIAL_BITS) + [0, 0, 0])
        b[:16] = _f32([0x8000_0000, 0, 0x7F80_0000, 0xFF80_0000] * 4)
    out = np.empty_like(a)
    with np.errstate(all="ignore"):
        ufunc(a, b, out=out)
    rule = numerics.binary(op, a, b, dtype)
    assert out.dtype == rule.dtype and numerics.to_bits(out).tolist() == numerics.to_bits(rule).tolist()


# -- simulator access cache ----------------------------------------------------------------------


def test_simulator_tile_access_cache_is_read_only_and_stable() -> None:
    from backend.targets.handlers import get_backend
    from backend.sim.machine import Machine, handle_for
    machine = Machine(get_backend("Ascend910B"))
    storage = TileType((16, 16), DataType.FP32, None, MemorySpace.Vec, implicit_view(MemorySpace.Vec, (16, 16)),
                       MemRef("t", MemorySpace.Vec, 0, 1024))
    tile = handle_for("t", storage)
    values = np.arange(256, dtype=np.float32).reshape(16, 16)
    machine.write_tile(tile, values, "test.write")
    first = machine.read_tile(tile, "test.read")
    access = machine._tile_access(tile, (16, 16), "test", NO_SPAN, None, (0, 0))
    assert not access.offsets.flags.writeable
    assert access.values is not None and not np.shares_memory(first, access.values)  # reads are copies
    assert np.array_equal(access.offsets, machine.tile_offsets(tile, (16, 16), "test"))
    machine.write_tile(tile, values + 1, "test.write")
    assert np.array_equal(machine.read_tile(tile, "test.read"), values + 1)
    assert np.array_equal(first, values)


# -- the parser's language detection ------------------------------------------------------------

_DETECTION_SNIPPETS = (
    # (method body lines) each inside one class method; the two facts must agree either way.
    ["x = pl.add(a, b)", "x = pl.mul(x, b)"],  # a reassignment
    ["for i in pl.unroll(4):", "    y = pl.add(a, b)"],  # an unroll loop
    ["with pl.incore():", "    y = pl.add(a, b)"],  # a scope
    ["a[0:4] = b"],  # a subscript store into a tensor
    ["if c:", "    r = pl.yield_(a)", "else:", "    r = pl.yield_(b)"],  # yields of both branches
    ["if c:", "    r = pl.yield_(a)", "else:", "    r = pl.add(a, b)"],  # not a yield: a rebinding
    ["if c:", "    r = pl.yield_(a)", "else:", "    if d:", "        r = pl.yield_(a)", "    else:",
     "        r = pl.yield_(b)"],  # nested merged branches
    ["y = (z := pl.add(a, b))", "z = y"],  # a walrus binding, then a second one
    ["for i in pl.range(4):", "    pass", "for i in pl.range(4):", "    pass"],  # one loop variable twice
    ["y = [t for t in (a, b)]"],  # a comprehension target
    ["y = pl.add(a, b)"],  # nothing of the DSL
)


def _detection_classes() -> Iterator[Any]:
    import ast
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    for path in [*root.glob("examples/*.py"), *root.glob("tests/kernels/**/*.py"), *root.glob("bench/programs/*.py"),
                 *root.glob("tests/regressions/*.py")]:
        try:
            module = ast.parse(path.read_text())
        except SyntaxError:
            continue
        yield from (node for node in module.body if isinstance(node, ast.ClassDef))
    for body in _DETECTION_SNIPPETS:
        for decorator in ("", "    @pl.function(type=pl.FunctionType.Inline)\n"):
            lines = "\n".join("        " + line for line in body)
            text = f"class P:\n{decorator}    def f(self, a, b, c, d):\n{lines}\n        return a\n"
            yield ast.parse(text).body[0]


def test_language_detection_walks_agree_with_ast_walk() -> None:
    """`_has_scopes` / `_reassigns` (one stack walk each) decide what their `ast.walk`
    definitions do, on every program file we have and on snippets of each construct."""
    from languages import pl_parser
    classes = list(_detection_classes())
    assert len(classes) > 50
    verdicts = set()
    for cls in classes:
        scopes, reassigns = pl_parser._has_scopes(cls), pl_parser._reassigns(cls)
        assert scopes == pl_parser._has_scopes_reference(cls), cls.name
        assert reassigns == pl_parser._reassigns_reference(cls), cls.name
        verdicts.add((scopes, reassigns))
    assert len(verdicts) >= 3  # the snippets reach both answers of both facts


_STORE_SNIPPETS = (
    ["a[0:4] = b", "c[i, j] = d"],
    ["for i in pl.range(4):", "    a[i] = b", "    if c:", "        a[0] = b", "    else:", "        x = y"],
    ["with pl.incore():", "    while c:", "        a[1] = b"],
    ["try:", "    a[0] = b", "except E:", "    a[1] = b", "finally:", "    a[2] = b"],
    ["match c:", "    case 1:", "        a[0] = b", "    case _:", "        x = [t for t in b]"],
    ["def g(x):", "    x[0] = 1", "    return lambda: x"],
    ["x: pl.Tensor[[4], pl.FP32] = pl.add(a, b)", "a[0], b[1] = c, d", "a[0] = b[1] = c"],
)


def test_subscript_store_rewrite_agrees_with_the_node_transformer() -> None:
    """The statement-only walk rewrites exactly what the NodeTransformer rewrites (compared as
    ast.dump, positions included) on every program file and on stores nested in each kind of
    compound statement."""
    import ast
    from languages import pl_parser
    texts = [ast.unparse(cls) for cls in _detection_classes()]
    for body in _STORE_SNIPPETS:
        lines = "\n".join("        " + line for line in body)
        texts.append(f"class P:\n    def f(self, a, b, c, d):\n{lines}\n        return a\n")
    rewritten = 0
    for text in texts:
        fast_cls, slow_cls = (ast.parse(text).body[0] for _ in range(2))
        for fast_fn, slow_fn in zip(fast_cls.body, slow_cls.body):  # type: ignore[attr-defined]
            if not isinstance(fast_fn, ast.FunctionDef):
                continue
            before = ast.dump(fast_fn, include_attributes=True)
            fast = pl_parser._rewrite_subscript_stores(fast_fn.body)
            slow = pl_parser._rewrite_subscript_stores_reference(slow_fn.body)
            assert [ast.dump(s, include_attributes=True) for s in fast] == \
                [ast.dump(s, include_attributes=True) for s in slow], text
            fast_fn.body = fast
            rewritten += before != ast.dump(fast_fn, include_attributes=True)
    assert rewritten >= len(_STORE_SNIPPETS) - 1  # the snippets (all but the last) rewrite stores


@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
@pytest.mark.parametrize("nan_share", [0.0, 1e-4, 0.5])
def test_widening_decides_the_nan_path_by_one_reduction(dtype: str, nan_share: float) -> None:
    """`widen_to_float64` skips its NaN payload rewrite when the widened minimum is not NaN; on
    random bit patterns (NaNs of every payload and sign at several shares, infinities, zeros,
    subnormals) it equals widening with the payload rule applied element by element."""
    rng = np.random.default_rng([int(nan_share * 1e4), len(dtype)])
    width = numerics.byte_width(dtype) * 8
    bits = rng.integers(0, 2**width, 4096, dtype=np.uint64)
    x = numerics.from_bits(bits, dtype)
    is_nan = np.isnan(x.astype(np.float32))
    keep = rng.random(bits.shape) < nan_share
    x = np.where(is_nan & ~keep, np.zeros_like(x), x)  # most NaNs replaced, some kept
    fmt = numerics.float_format(dtype)
    raw = numerics.to_bits(x).astype(np.uint64)
    nan_bits = ((raw >> np.uint64(width - 1)) << np.uint64(63)) | np.uint64(0x7FF8_0000_0000_0000) | (
        (raw & np.uint64((1 << fmt.mantissa_bits) - 1)) << np.uint64(52 - fmt.mantissa_bits))
    with np.errstate(invalid="ignore"):
        plain = x.astype(np.float64)
    expected = np.where(np.isnan(plain), nan_bits, plain.view(np.uint64))
    assert numerics.widen_to_float64(x, dtype).view(np.uint64).tolist() == expected.tolist()


def test_fp32_exp_matches_the_rule_on_every_input_with_a_subnormal_or_tiny_result() -> None:
    """Exhaustively over [-105, -86] (every FP32 input whose exp is subnormal, rounds to 0 or to
    the least normals, ~2.5 M values): FP32 exp equals the rule rounded on FP32's grid."""
    lo, hi = (int(np.array(v, dtype=np.float32).view(np.uint32)) for v in (-86.0, -105.0))
    x = np.arange(lo, hi + 1, dtype=np.uint64).astype(np.uint32).view(np.float32)  # negative: bits ascend
    fast = numerics.unary("exp", x, "FP32")
    assert np.array_equal(fast.view(np.uint32), _exp_rule(x).view(np.uint32))


@pytest.mark.parametrize("op", ["exp", "log", "sin", "cos", "tanh", "rsqrt", "sqrt", "abs"])
def test_unary_into_writes_the_unary_rule(op: str) -> None:
    """`unary_into` (FP32 transcendentals evaluated in place on the widened copy and cast into
    the destination) writes `unary`'s bits -- random patterns with NaNs of every payload,
    infinities, subnormals and signed zeros -- into contiguous and strided destinations and into
    the operand itself; elsewhere it declines and writes nothing."""
    rng = np.random.default_rng(len(op))
    bits = rng.integers(0, 2**32, (32, 512), dtype=np.uint64).astype(np.uint32)
    bits[0, :16] = list(_SPECIAL_BITS) + [0, 0, 0]
    bits[1, :8] = [0x0000_0001, 0x8000_0001, 0x007F_FFFF, 0x42B1_7218, 0x42B1_7219, 0xC2CE_8ED0, 0x3F80_0000, 0x7FC0_0001]
    x = bits.view(np.float32)
    rule = numerics.to_bits(numerics.unary(op, x, "FP32"))
    applies = op in ("exp", "log", "sin", "cos", "tanh")
    for window in (np.s_[:, :], np.s_[::2, 1::3]):
        out = np.full(x.shape, np.float32(7.0))
        written = numerics.unary_into(op, x[window], "FP32", out[window])
        assert written == applies
        if applies:
            assert numerics.to_bits(out[window]).tolist() == rule[window].tolist()
        else:
            assert (out == np.float32(7.0)).all()
    in_place = x.copy()
    if numerics.unary_into(op, in_place, "FP32", in_place):
        assert numerics.to_bits(in_place).tolist() == rule.tolist()
    half = np.zeros(x.shape, np.float16)
    assert not numerics.unary_into(op, half, "FP16", np.empty(x.shape, np.float16))

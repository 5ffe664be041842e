"""The PTO compiler's fuzz target for `python -m nanopass.fuzz`: generator, oracle, blame.

    fuzz_target() -> PtoFuzzTarget          the plugin hook (see nanopass.fuzz.FuzzTarget)
    programs(features) / cases(features)    Hypothesis strategies (program; program + input seed)
    PtoFuzzTarget.check_text(text, seed)    compile (verify-all), simulate, interpret, compare
    replay(path)                            re-check a tests/regressions/fuzz_*.py file

Oracle. A program is compiled through the pipeline with every verifier on (a verifier failure
names the pass and the property; an exception names the pass and the exception; a CompileError
on a generated program names the pass that rejected it). The PTO kernels then run on the
bit-exact simulator under the interpreted orchestration function, the Tensor program runs on
the reference interpreter, same random inputs (backend.interpreter.random_inputs: ties,
subnormals, large exponents, -0.0), and the outputs' valid regions are compared bit for bit.
On a mismatch (or a poison read / simulator fault) the output of every pass up to L0Tiled is
interpreted and the first one whose result differs is blamed; when all agree, the stages after
L0Tiled (memory planning, codegen, simulator) are.

Generator. Hypothesis strategies for random, well-typed Tensor-language programs.

A generated program is one or more InCore kernels plus an Orchestration `main` that calls them
in sequence (a later kernel may consume an earlier kernel's result). Every call's type comes
from the op registry's own deduction (`REGISTRY.deduce`), so a program is valid by
construction: if the frontend rejects one, the generator has a bug, and the campaign says so.

Kernels are drawn from recipes that reach the interesting corners of the pipeline:

* vector chains: element-wise binary / scalar / unary ops, row reductions feeding
  `row_expand_*`, casts in every rounding mode, on-chip slices with partial valid shapes;
* cube chains: `matmul` (f16, bf16, f32, int8 -> int32) with M not a multiple of 16, K needing a
  peel, outputs larger than L0C, 1-row / 1-column operands, `matmul_acc` chains, an optional
  narrowing `out_dtype`, a left operand whose valid rows fall a 16-row box short (slice /
  set_validshape: the spec's compact Acc seed); int8 N unaligned to its 32-wide box;
* loops carrying a value (`pl.range` with `init_values`).

Shrinking works toward the first entry of every choice list: the smallest shapes, one kernel,
few ops. Features can be switched off one by one (`Features`) when a part of the pipeline does
not support them yet.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st
from typing_extensions import override

from backend.cli_hooks import OutputReport, compare_outputs, run_compiled, user_outputs
from backend.handlers import BackendHandler, get_backend
from backend.interpreter import entry_function, interpret, random_inputs
from backend.sim.machine import PoisonRead, SimulationError
from languages.gen import tensor as T
from languages.ops import REGISTRY
from languages.ops.tensor_ops import CAST_MODES
from languages.pl_printer import print_program
from languages.types import INDEX, AttrValue, DataType, TensorType, Type
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.fuzz import OK, Mutant, Outcome
from nanopass.instruments import Instrument, PassStep, VerifyInstrument
from nanopass.node import Node
from nanopass.passes import PassContext
from nanopass.pipeline import PassCrash, Pipeline
from nanopass.plugin import CompilerPlugin, get_plugin

Array = npt.NDArray[Any]

Draw = Callable[[st.SearchStrategy[Any]], Any]

F32, F16, BF16, I8, I32 = DataType.FP32, DataType.FP16, DataType.BF16, DataType.INT8, DataType.INT32


@dataclass(frozen=True)
class Features:
    """What the generator may use; each flag gates one family of constructs."""

    elementwise: bool = True
    reductions: bool = True
    casts: bool = True
    matmul: bool = True
    matmul_acc: bool = True
    int8: bool = True
    low_precision: bool = True  # f16 / bf16 data
    partial_valid: bool = True  # slices with a partial valid_shape
    slices: bool = True
    assemble: bool = True
    loops: bool = True
    multi_kernel: bool = True
    mixed_kernels: bool = False  # cube and vector work in one kernel (needs LowerAutoVectorSplit)
    big_shapes: bool = True  # outputs beyond L0C, long K
    small_shapes: bool = False  # only the first few (smallest) shapes: the throughput benchmark's programs
    narrowed_left: bool = True  # a matmul's left operand with valid rows >= 16 short of its rows (compact Acc)
    int8_unaligned_n: bool = True  # int8 matmul whose N is not a multiple of its 32-wide box
    nd_tensors: bool = True  # rank-1 and rank-3 vector kernels (FlattenTileNdTo2D's row packing)
    user_k_loops: bool = True  # a user-written split-K loop: sliced K blocks, matmul_acc carried by pl.range
    # Shapes the spec declines (a clear diagnostic, not a compiled program) are never generated:
    # a matmul_acc's N not a whole number of boxes (its right operand is not boxed), and any K
    # not a whole number of the operand's K box (K is never padded: 16, or 32 for int8).

    @staticmethod
    def parse(text: str) -> Features:
        """`"all"`, or a comma list of `name` / `-name` / `+name` edits of the defaults."""
        result = Features()
        names = {f.name for f in fields(Features)}
        for item in filter(None, (part.strip() for part in text.split(","))):
            if item == "all":
                result = Features(**{name: True for name in names})
                continue
            flag = not item.startswith("-")
            name = item.lstrip("+-").replace("-", "_")
            if name not in names:
                raise ValueError(f"unknown generator feature {name!r} (known: {', '.join(sorted(names))})")
            result = replace(result, **{name: flag})
        return result

    def describe(self) -> str:
        return ",".join(f.name for f in fields(self) if getattr(self, f.name))


# Choice lists are ordered simplest first: Hypothesis shrinks toward index 0.
VECTOR_ROWS = (1, 16, 8, 2, 3, 17, 32, 5)
VECTOR_COLS = (16, 32, 1, 8, 64, 24, 128, 40)
CUBE_M = (16, 1, 20, 32, 7, 64, 100, 33)
CUBE_N = (16, 32, 1, 64, 48, 128, 20)
CUBE_K = (16, 32, 64, 48, 80, 128, 272)
BIG_CUBE = ((300, 16, 128), (256, 64, 256), (200, 32, 256), (128, 512, 64), (512, 32, 128))  # (M, K, N): output beyond L0C or long K
# (M, K, N) that split K across L0 blocks (with a peeled tail), most with a row-narrowed (boxed) M.
K_SPLIT_CUBE = ((100, 272, 32), (20, 1040, 48), (64, 272, 32), (33, 528, 32), (1, 1056, 32))
BINARY_OPS = ("add", "sub", "mul", "maximum", "minimum", "div")
SCALAR_OPS = ("adds", "muls", "subs", "maxs", "mins", "divs")
UNARY_OPS = ("neg", "abs", "relu", "exp", "sqrt", "recip", "rsqrt", "log")
ROW_REDUCTIONS = ("row_sum", "row_max", "row_min")
ROW_EXPANDS = ("row_expand_add", "row_expand_sub", "row_expand_mul", "row_expand_div")
FLOAT_DTYPES = (F32, F16, BF16)
CUBE_DTYPES = (F16, F32, BF16, I8)
# Where a cast loses precision, so its rounding mode is observable.
NARROWING = {F32: F16, F16: BF16, BF16: F16}
# Directed modes differ from nearest on every inexact value; rint / round only on ties.
CAST_MODES_BY_INTEREST = ("floor", "ceil", "trunc", "odd", "round", "rint", "none")
assert set(CAST_MODES_BY_INTEREST) == set(CAST_MODES)
SCALARS = (0.5, 2.0, -1.5, 3.0, 0.1, -0.0, 1e-3, 65504.0)
# Leading axes of a rank-3 vector tensor (row packing multiplies them into the rows).
ND_LEADING = (2, 3, 4)
# (K, K block) of a user-written split-K loop: at least two blocks, so the loop runs.
USER_K_SPLITS = ((64, 32), (64, 16), (96, 32), (128, 64), (128, 32))


@dataclass
class _Value:
    var: T.Var

    @property
    def type(self) -> TensorType:
        ty = self.var.type
        assert isinstance(ty, TensorType)
        return ty


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def _index(value: int) -> T.ConstInt:
    return T.ConstInt(value, INDEX.dtype)


def _dims(values: Sequence[int]) -> T.TupleExpr:
    return T.TupleExpr(tuple(_index(v) for v in values))


@dataclass
class _KernelBuilder:
    """Draws one InCore kernel: parameters, a straight-line (or looped) body, one result."""

    draw: Draw
    features: Features
    name: str
    params: list[T.Param] = field(default_factory=list)
    body: list[T.Stmt] = field(default_factory=list)
    values: list[_Value] = field(default_factory=list)
    ops: set[str] = field(default_factory=set)
    counter: int = 0

    def pick(self, options: Sequence[Any]) -> Any:
        # An index draw: `st.integers` strategies are cached by Hypothesis, `sampled_from` over a
        # fresh list is rebuilt and validated on every call (it was half the generation time).
        return options[self.draw(st.integers(0, len(options) - 1))]

    def pick_common(self, options: Sequence[Any], common: int = 3, percent: int = 80) -> Any:
        """Usually one of the first `common` options (small, fast to simulate), sometimes any."""
        if self.features.small_shapes:
            return self.pick(options[:common])
        return self.pick(options[:common] if self.chance(percent) else options)

    def chance(self, percent: int) -> bool:
        return bool(self.draw(st.integers(0, 99)) < percent)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def param(self, ty: TensorType, prefix: str = "x") -> _Value:
        var = T.Var(self.fresh(prefix), ty)
        self.params.append(T.Param(var, "In"))
        value = _Value(var)
        self.values.append(value)
        return value

    def call(self, op: str, args: Sequence[T.Expr], attrs: tuple[tuple[str, AttrValue], ...] = (),
             prefix: str = "t", block: list[T.Stmt] | None = None) -> _Value:
        ty = REGISTRY.deduce(op, tuple(args), attrs)
        assert isinstance(ty, TensorType), f"{op} deduced {ty}"
        var = T.Var(self.fresh(prefix), ty)
        (self.body if block is None else block).append(T.AssignStmt(var, T.Call(op, tuple(args), attrs, ty)))
        self.ops.add(op)
        value = _Value(var)
        self.values.append(value)
        return value

    def same_type(self, ty: TensorType) -> list[_Value]:
        return [v for v in self.values if v.type == ty]

    # -- vector recipes ---------------------------------------------------------------------

    def vector_dtype(self) -> DataType:
        dtype: DataType = self.pick(FLOAT_DTYPES if self.features.low_precision else (F32,))
        return dtype

    def vector_step(self, x: _Value, block: list[T.Stmt] | None = None, pool: list[_Value] | None = None) -> _Value:
        """One op applied to `x` (a float tensor); `pool` lists same-scope operands."""
        choices = ["scalar", "unary"]
        if self.features.elementwise:
            choices.append("binary")
        if self.features.reductions and x.type.shape[-1] > 1:
            choices.append("reduce")
        if self.features.casts:
            choices.append("cast")
        if self.features.slices and block is None and len(x.type.shape) == 2:
            choices.append("slice")
        kind = self.pick(choices)
        if x.type.valid_shape is not None and "reduce" in choices and self.chance(50):
            kind = "reduce"  # a reduction is what observes the valid extent
        candidates = [v for v in (pool if pool is not None else self.values) if v.type == x.type]
        # x - x, x / x: a swapped-operand miscompile would be invisible, so prefer another value.
        candidates = [v for v in candidates if v.var is not x.var] or candidates
        if kind == "binary" and candidates:
            other = self.pick(candidates)
            return self.call(f"tensor.{self.pick(BINARY_OPS)}", (x.var, other.var), block=block)
        if kind == "reduce":
            row = self.call(f"tensor.{self.pick(ROW_REDUCTIONS)}", (x.var,), prefix="r", block=block)
            return self.call(f"tensor.{self.pick(ROW_EXPANDS)}", (x.var, row.var), block=block)
        if kind == "cast":
            return self.cast(x, block)
        if kind == "slice":
            return self.slice(x)
        if kind == "unary":
            return self.call(f"tensor.{self.pick(UNARY_OPS)}", (x.var,), block=block)
        scalar = T.ConstFloat(self.pick(SCALARS), x.type.dtype)
        return self.call(f"tensor.{self.pick(SCALAR_OPS)}", (x.var, scalar), block=block)

    def cast(self, x: _Value, block: list[T.Stmt] | None = None) -> _Value:
        """A cast, usually narrowing (where the rounding mode shows) in a non-default mode."""
        source = x.type.dtype
        if not self.features.low_precision:
            target = source
        elif self.chance(75):
            target = NARROWING[source]
        else:
            target = self.pick([d for d in FLOAT_DTYPES if d != source])
        mode = self.pick(CAST_MODES_BY_INTEREST)
        self.ops.add(f"cast:{mode}")
        return self.call("tensor.cast", (x.var,), (("target_type", target), ("mode", mode)), prefix="c", block=block)

    def slice(self, x: _Value) -> _Value:
        rows, cols = x.type.shape
        valid_rows, valid_cols = x.type.valid
        sub_rows = self.draw(st.integers(1, rows))
        sub_cols = self.draw(st.integers(1, cols))
        row0 = self.draw(st.integers(0, rows - sub_rows))
        col0 = self.draw(st.integers(0, cols - sub_cols))
        args: list[T.Expr] = [x.var, _dims((sub_rows, sub_cols)), _dims((row0, col0))]
        if self.features.partial_valid and self.chance(40):
            args.append(_dims((self.draw(st.integers(1, sub_rows)), self.draw(st.integers(1, sub_cols)))))
            self.ops.add("valid:partial")
        # Reading outside the source's valid region would read undefined data: stay inside it.
        bound_rows = min(sub_rows, valid_rows - row0) if row0 < valid_rows else 0
        bound_cols = min(sub_cols, valid_cols - col0) if col0 < valid_cols else 0
        if bound_rows <= 0 or bound_cols <= 0:
            return x
        if len(args) == 3 and (bound_rows, bound_cols) != (sub_rows, sub_cols):
            args.append(_dims((bound_rows, bound_cols)))
        elif len(args) == 4:
            assert isinstance(args[3], T.TupleExpr)
            v = [min(int(getattr(e, "value")), b) for e, b in zip(args[3].elements, (bound_rows, bound_cols))]
            args[3] = _dims(v)
        return self.call("tensor.slice", args, prefix="s")

    def vector_shape(self) -> tuple[int, ...]:
        """Usually 2-D; sometimes rank 1 ([n] packs to one row) or rank 3 (rows packed across the
        leading axis), the shapes FlattenTileNdTo2D rewrites."""
        shape: tuple[int, ...] = (self.pick_common(VECTOR_ROWS), self.pick_common(VECTOR_COLS))
        if self.features.nd_tensors and not self.features.small_shapes and self.chance(15):
            if self.chance(30):
                shape = shape[1:]
            else:
                shape = (self.pick(ND_LEADING), *shape)
            self.ops.add(f"shape:rank-{len(shape)}")
        return shape

    def vector_kernel(self) -> _Value:
        dtype = self.vector_dtype()
        shape = self.vector_shape()
        ty = TensorType(shape, dtype)
        self.ops.update(tag for tag, on in (("shape:1-row", shape[0] == 1), ("shape:1-col", shape[-1] == 1),
                                            (f"dtype:{dtype.pl_name}", True)) if on)
        inputs = [self.param(ty) for _ in range(self.draw(st.integers(1, 3)))]
        x = inputs[0]
        if len(shape) != 2:
            pass  # slices and assembles are drawn on 2-D values only
        elif self.features.slices and self.features.partial_valid and self.chance(25):
            x = self.slice(x)
        elif self.features.casts and self.chance(25):
            x = self.cast(x)
        for _ in range(self.draw(st.integers(1, 5))):
            x = self.vector_step(x)
        if self.features.assemble and self.chance(20):
            x = self.assemble(x)
        return x

    def assemble(self, x: _Value) -> _Value:
        if x.type.valid_shape is not None or len(x.type.shape) != 2:
            return x
        rows, cols = x.type.shape
        big = (rows + self.draw(st.integers(0, 8)), cols + self.pick((0, 8, 16)))
        target = self.param(TensorType(big, x.type.dtype), "big")
        offsets = (self.draw(st.integers(0, big[0] - rows)), self.draw(st.integers(0, big[1] - cols)))
        written = self.call("tensor.assemble", (target.var, x.var, _dims(offsets)), prefix="asm")
        if not self.chance(50):
            return written
        # Read the parameter again after the write: the read must see the assembled window, so a
        # written parameter may not share the one load at function entry that read-only ones do.
        self.ops.add("param:read-after-write")
        scalar = T.ConstFloat(self.pick(SCALARS), x.type.dtype)
        return self.call(f"tensor.{self.pick(SCALAR_OPS)}", (target.var, scalar))

    def loop_kernel(self) -> _Value:
        dtype = self.vector_dtype()
        ty = TensorType(self.vector_shape(), dtype)
        seed = self.param(ty)
        step_input = self.param(ty, "y")
        # The carry must start on chip (a computed value), not as a GM tensor.
        init = self.call(f"tensor.{self.pick(SCALAR_OPS)}", (seed.var, T.ConstFloat(self.pick(SCALARS), dtype)))
        trips = self.draw(st.integers(1, 3))
        loop_var = T.Var(self.fresh("i"), INDEX)
        carried = T.Var(self.fresh("acc"), ty)
        body: list[T.Stmt] = []
        pool = [_Value(carried), step_input]
        x = _Value(carried)
        for _ in range(self.draw(st.integers(1, 3))):
            nxt = self.vector_step(x, block=body, pool=pool)
            if nxt.type.shape == ty.shape and nxt.type.dtype == dtype and nxt.type.valid_shape is None:
                x = nxt
                pool.append(nxt)
        if x.var is carried:
            x = self.call("tensor.add", (carried, step_input.var), block=body)
        body.append(T.YieldStmt((x.var,)))
        result = T.Var(self.fresh("out"), ty)
        self.body.append(T.ForStmt(loop_var, _index(0), _index(trips), _index(1), (T.IterArg(carried, init.var),),
                                   tuple(body), (result,), "range", ()))
        self.ops.add("for")
        value = _Value(result)
        self.values.append(value)
        return value

    # -- cube recipes -----------------------------------------------------------------------

    def cube_kernel(self) -> _Value:
        dtypes = [d for d in CUBE_DTYPES if (self.features.int8 or d != I8)
                  and (self.features.low_precision or d in (F32, I8))]
        dtype = self.pick(dtypes)
        big = self.features.big_shapes and not self.features.small_shapes and self.chance(12)
        if big:
            m, k, n = self.pick(BIG_CUBE)
        elif not self.features.small_shapes and self.chance(20):
            m, k, n = self.pick(K_SPLIT_CUBE)
        else:
            m, k, n = self.pick_common(CUBE_M), self.pick_common(CUBE_K), self.pick_common(CUBE_N)
        n_box = 32 if dtype is I8 else 16
        if dtype is I8:
            k = _round_up(k, 32)
            if not self.features.int8_unaligned_n:
                n = _round_up(n, 32)
        self.tag_cube_shape(m, k, n, big, dtype)
        if self.features.user_k_loops and self.features.matmul_acc and n % n_box == 0 and not big \
                and self.chance(20):
            return self.user_k_loop(dtype, m, n)
        a = self.param(TensorType((m, k), dtype), "a")
        b = self.param(TensorType((k, n), dtype), "b")
        lhs = self.narrowed_left(a)
        attrs: tuple[tuple[str, AttrValue], ...] = ()
        # A matmul_acc chain keeps the whole accumulator (and each operand) resident in L0:
        # only K is tiled, so the chain is drawn only where it fits.
        chain = (self.features.matmul_acc and not big and k <= 256 and n % n_box == 0
                 and lhs is a and self.chance(30))
        if dtype.is_float and not chain and self.chance(25):
            attrs = (("out_dtype", self.pick((F16, BF16))),)
        c = self.call("tensor.matmul", (lhs.var, b.var), attrs, prefix="c")
        if chain:
            for _ in range(self.draw(st.integers(1, 2))):
                k2 = self.pick(CUBE_K[:4])
                if dtype is I8:
                    k2 = _round_up(k2, 32)
                a2 = self.param(TensorType((m, k2), dtype), "a")
                b2 = self.param(TensorType((k2, n), dtype), "b")
                c = self.call("tensor.matmul_acc", (c.var, a2.var, b2.var), prefix="c")
        if self.features.mixed_kernels and c.type.dtype.is_float and self.chance(30):
            c = self.vector_step(c)
        return c

    def user_k_loop(self, dtype: DataType, m: int, n: int) -> _Value:
        """A split-K reduction written by the user: K blocks sliced at the loop variable, the
        accumulator carried by a `pl.range` with a non-unit step. Seeded by the first block's
        matmul (the loop starts at the second block), or by a +0.0 `tensor.full` (the spelling
        SeedZeroAccumulators turns into a predicated matmul_acc chain)."""
        k, block = self.pick(USER_K_SPLITS)
        if dtype is I8:
            k, block = _round_up(k, 64), 32
        a = self.param(TensorType((m, k), dtype), "a")
        b = self.param(TensorType((k, n), dtype), "b")
        acc_dtype = I32 if dtype is I8 else F32
        zero_seed = self.chance(50)
        if zero_seed:
            zero: T.Expr = T.ConstInt(0, acc_dtype) if acc_dtype is I32 else T.ConstFloat(0.0, acc_dtype)
            seed = self.call("tensor.full", (_dims((m, n)), zero), (("dtype", acc_dtype),), prefix="z")
            start = 0
        else:
            a0 = self.call("tensor.slice", (a.var, _dims((m, block)), _dims((0, 0))), prefix="s")
            b0 = self.call("tensor.slice", (b.var, _dims((block, n)), _dims((0, 0))), prefix="s")
            seed = self.call("tensor.matmul", (a0.var, b0.var), prefix="c")
            start = block
        self.ops.add("cube:user-k-loop" + (":zero-seed" if zero_seed else ""))
        loop_var = T.Var(self.fresh("k"), INDEX)
        carried = T.Var(self.fresh("acc"), seed.type)
        body: list[T.Stmt] = []
        origin = _index(0)
        ak = self.call("tensor.slice", (a.var, _dims((m, block)), T.TupleExpr((origin, loop_var))), prefix="s", block=body)
        bk = self.call("tensor.slice", (b.var, _dims((block, n)), T.TupleExpr((loop_var, origin))), prefix="s", block=body)
        nxt = self.call("tensor.matmul_acc", (carried, ak.var, bk.var), prefix="c", block=body)
        body.append(T.YieldStmt((nxt.var,)))
        result = T.Var(self.fresh("out"), seed.type)
        self.body.append(T.ForStmt(loop_var, _index(start), _index(k), _index(block), (T.IterArg(carried, seed.var),),
                                   tuple(body), (result,), "range", ()))
        value = _Value(result)
        self.values.append(value)
        return value

    def narrowed_left(self, a: _Value) -> _Value:
        """The spec's compact-seed path: a left operand whose valid rows fall at least one
        16-row box short of its physical rows, so the accumulator's MAD pitch
        (ceil(valid/16)*16) differs from its row count and only a compact seed reads it right."""
        m, k = a.type.shape
        if not (self.features.narrowed_left and self.features.partial_valid and m >= 17 and self.chance(30)):
            return a
        valid = self.draw(st.integers(1, m - 16))
        self.ops.add("cube:narrowed-left")
        if self.chance(50):
            return self.call("tensor.slice", (a.var, _dims((m, k)), _dims((0, 0)), _dims((valid, k))), prefix="s")
        return self.call("tensor.set_validshape", (a.var, _index(valid), _index(k)), prefix="s")

    def tag_cube_shape(self, m: int, k: int, n: int, big: bool, dtype: DataType) -> None:
        """Coverage tags: the campaign's coverage line shows which corners were really drawn."""
        tags = {"shape:m-unaligned": m % 16 != 0, "shape:1-row-lhs": m == 1, "shape:1-col-rhs": n == 1,
                "shape:k-split": k > 256, "shape:big": big, f"dtype:{dtype.pl_name}": True,
                "shape:n-unaligned-int8": dtype is I8 and n % 32 != 0}
        self.ops.update(tag for tag, on in tags.items() if on)

    def kernel(self, inputs_from: Sequence[TensorType]) -> T.Function:
        kinds = ["vector"]
        if self.features.matmul:
            kinds.append("cube")
        if self.features.loops:
            kinds.append("loop")
        kind = self.pick(kinds)
        result = {"vector": self.vector_kernel, "cube": self.cube_kernel, "loop": self.loop_kernel}[kind]()
        self.body.append(T.ReturnStmt((result.var,)))
        return T.Function(self.name, "InCore", tuple(self.params), (result.type,), tuple(self.body))


@dataclass(frozen=True)
class GeneratedProgram:
    """A generated program, its text, and the op kinds it uses (for coverage)."""

    program: T.Program
    text: str
    ops: frozenset[str]


def _orchestration(kernels: Sequence[T.Function], draw: Draw) -> T.Function:
    """`main` calls the kernels in order; a kernel parameter is fed, when the draw says so, by an
    earlier kernel's result of the same type, otherwise by a fresh `main` parameter."""
    params: list[T.Param] = []
    body: list[T.Stmt] = []
    results: list[T.Var] = []
    consumed: set[str] = set()
    for kernel in kernels:
        args: list[T.Expr] = []
        for p in kernel.params:
            earlier = [r for r in results if r.type == p.var.type and r.name not in consumed]
            if earlier and draw(st.booleans()):
                chosen = earlier[0]
                consumed.add(chosen.name)
                args.append(chosen)
                continue
            var = T.Var(f"{kernel.name}_{p.var.name}", p.var.type)
            params.append(T.Param(var, "In"))
            args.append(var)
        ret = kernel.return_types[0]
        out = T.Var(f"{kernel.name}_out", ret)
        body.append(T.AssignStmt(out, T.FuncCall(kernel.name, tuple(args), ret)))
        results.append(out)
    returned = [r for r in results if r.name not in consumed] or results[-1:]
    body.append(T.ReturnStmt(tuple(returned)))
    return T.Function("main", "Orchestration", tuple(params), tuple(r.type for r in returned), tuple(body))


def programs(features: Features = Features()) -> st.SearchStrategy[GeneratedProgram]:
    """Random well-typed Tensor programs (an Orchestration `main` over 1-3 InCore kernels)."""

    @st.composite
    def build(draw: Draw) -> GeneratedProgram:
        count = draw(st.integers(1, 3)) if features.multi_kernel else 1
        kernels: list[T.Function] = []
        ops: set[str] = set()
        for index in range(count):
            builder = _KernelBuilder(draw, features, f"kernel{index}")
            kernels.append(builder.kernel([]))
            ops |= builder.ops
        main = _orchestration(kernels, draw)
        ops.add(f"kernels:{count}")
        program = T.Program("Fuzz", (*kernels, main))
        return GeneratedProgram(program, print_program(program), frozenset(ops))

    return build()


def returned_types(program: T.Program) -> tuple[Type, ...]:
    main = next(f for f in program.functions if f.func_type == "Orchestration")
    return main.return_types


# =============================================================================================
# The oracle: compile with every verifier on, simulate, interpret, compare bits, blame.
# =============================================================================================

VALUE_LEVEL_BLAME_LANGUAGES = frozenset({"Tensor", "TileUnplaced", "TilePlaced", "L0Tiled"})
HOST_LANGUAGES = frozenset({"Tensor", "TileUnplaced", "TilePlaced", "L0Tiled", "Addressed"})
# The stages after L0Tiled have no value-level meaning of their own (addresses, PTO text, the
# machine), so interpretation cannot tell them apart: a mismatch no interpreted stage shows is
# blamed on all of them together.
POST_L0_BLAME = "memory planning / codegen / simulator (after L0Tiled)"
TEXT_BLAME = "PTO-ISA text printer / parser (backend.pto_mlir)"



@dataclass(frozen=True)
class FuzzCase:
    """One generated program and the seed of its random inputs."""

    generated: GeneratedProgram
    input_seed: int

    @property
    def text(self) -> str:
        return self.generated.text


def cases(features: Features = Features()) -> st.SearchStrategy[FuzzCase]:
    # Seeds shrink toward 0 too, so a minimal failure usually replays with `--seed 0`.
    return st.builds(FuzzCase, programs(features), st.integers(0, 2**16))


class _Recorder(Instrument):
    """Keeps every pass's output (for blame), notes which passes changed the program, and runs
    the verify-all checks itself so their time and their failures are told apart from the
    passes' own."""

    def __init__(self, verify: VerifyInstrument | None) -> None:
        self.verify = verify
        self.snapshots: list[tuple[str, Node]] = []
        self.changed: set[str] = set()
        self.verify_seconds = 0.0
        self.verify_failure: tuple[str, CompileError] | None = None
        self.current = ""

    @override
    def before_pass(self, step: PassStep, program: Node) -> None:
        self.current = type(step.pass_).name

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        name = type(step.pass_).name
        self.snapshots.append((name, after))
        if after is not before:  # copy-on-write: an untouched program is the same object
            self.changed.add(name)
        if self.verify is None:
            return
        start = time.perf_counter()
        try:
            self.verify.after_pass(step, before, after)
        except CompileError as err:
            self.verify_failure = (name, err)
            raise
        finally:
            self.verify_seconds += time.perf_counter() - start


def _first_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[:count] + (["..."] if len(lines) > count else []))


def _error_text(err: BaseException) -> str:
    return _first_lines(str(err))


def _mismatch_text(reports: Sequence[OutputReport]) -> str:
    return "\n".join(r.line for r in reports if not r.ok)


@dataclass
class _Run:
    """Everything one check learns, in the order it learns it."""

    timings: dict[str, float] = field(default_factory=dict)

    def add(self, phase: str, seconds: float) -> None:
        self.timings[phase] = self.timings.get(phase, 0.0) + seconds


class PtoFuzzTarget:
    """The PTO compiler's fuzz target for `nanopass.fuzz` (generator, oracle, blame, mutants)."""

    name = "pto"

    def __init__(self) -> None:
        self.features = Features()
        self.backend_name = ""
        self.pipeline_spec: str | None = None
        self._pipeline: Pipeline | None = None
        self.verify_all = True

    # -- configuration ---------------------------------------------------------------------------

    def configure(self, pipeline: str | None, backend: str | None, features: str | None) -> None:
        plugin = get_plugin()
        self.backend_name = backend or plugin.default_backend
        self.pipeline_spec = pipeline
        self.features = Features.parse(features or "")
        self._pipeline = build_pipeline(pipeline, self.backend_name)

    @property
    def plugin(self) -> CompilerPlugin:
        return get_plugin()

    @property
    def pipeline(self) -> Pipeline:
        if self._pipeline is None:
            self._pipeline = build_pipeline(self.pipeline_spec, self.backend_name or self.plugin.default_backend)
        return self._pipeline

    @property
    def passes_total(self) -> int:
        return len(self.pipeline.passes)

    @property
    def handler(self) -> BackendHandler:
        return get_backend(self.backend_name or self.plugin.default_backend)

    # -- the FuzzTarget protocol --------------------------------------------------------------------

    def strategy(self) -> st.SearchStrategy[FuzzCase]:
        return cases(self.features)

    def describe(self, case: FuzzCase) -> str:
        return case.text

    def check(self, case: FuzzCase, blame: bool = True) -> Outcome:
        return self.check_text(case.text, case.input_seed, "<fuzz>", case.generated.ops, blame)

    def regression_file(self, case: FuzzCase, outcome: Outcome) -> tuple[str, str]:
        return regression_file(case.text, case.input_seed, outcome, self.backend_name, self.pipeline_spec)

    def mutants(self) -> Sequence[Mutant]:
        from backend.mutants import MUTANTS

        return tuple(MUTANTS)

    # -- the oracle ----------------------------------------------------------------------------------

    def check_text(self, text: str, seed: int, filename: str = "<fuzz>", coverage: frozenset[str] = frozenset(),
                   blame: bool = True) -> Outcome:
        # NaN / inf operands are part of the input distribution: numpy's floating-point warnings
        # (e.g. a NaN compared in minimum) are expected there, not findings, and would garble the
        # campaign's progress line.
        with np.errstate(all="ignore"):
            return self._check_text(text, seed, filename, coverage, blame)

    def _check_text(self, text: str, seed: int, filename: str, coverage: frozenset[str], blame: bool) -> Outcome:
        run = _Run()

        def outcome(status: str, check: str, blamed: str, detail: str, recorder: _Recorder | None = None) -> Outcome:
            changed = frozenset(recorder.changed) if recorder is not None else frozenset()
            return Outcome(status, check, blamed, detail, coverage, changed, tuple(run.timings.items()))

        start = time.perf_counter()
        try:
            source = self.plugin.parse(text, filename)
        except CompileError as err:
            run.add("compilation", time.perf_counter() - start)
            return outcome("generator", "frontend rejected a generated program", "generator", _error_text(err))
        plugin = self.plugin
        # The target-dependent verifiers (capacities, L0C footprints) check against the handler
        # the program is compiled and simulated for.
        recorder = _Recorder(VerifyInstrument(plugin, target=self.handler) if self.verify_all else None)
        ctx = PassContext(self.backend_name, plugin.make_backend(self.backend_name))
        try:
            final = self.pipeline.run(source, ctx, [recorder])
        except PassCrash as crash:
            run.add("compilation", time.perf_counter() - start - recorder.verify_seconds)
            run.add("verification", recorder.verify_seconds)
            return outcome("crash", "crash", type(crash.step.pass_).name,
                           f"{type(crash.error).__name__}: {crash.error}", recorder)
        except CompileError as err:
            run.add("compilation", time.perf_counter() - start - recorder.verify_seconds)
            run.add("verification", recorder.verify_seconds)
            if recorder.verify_failure is not None:
                return outcome("verifier", "verifier", recorder.verify_failure[0], _error_text(err), recorder)
            if not recorder.current:
                return outcome("generator", "input verification", "generator", _error_text(err), recorder)
            return outcome("rejected", "compile error", recorder.current, _error_text(err), recorder)
        run.add("compilation", time.perf_counter() - start - recorder.verify_seconds)
        run.add("verification", recorder.verify_seconds)

        start = time.perf_counter()
        shipped, problem = self.round_trip(final)
        run.add("compilation", time.perf_counter() - start)
        if problem is not None:
            return outcome("verifier", "PTO text round trip", TEXT_BLAME, problem, recorder)

        start = time.perf_counter()
        try:
            inputs = random_inputs(source, seed)
            reference = interpret(source, inputs)
        except Exception as exc:
            run.add("interpretation", time.perf_counter() - start)
            return outcome("interpreter-error", "interpreter fault", "interpreter",
                           f"{type(exc).__name__}: {_error_text(exc)}", recorder)
        run.add("interpretation", time.perf_counter() - start)

        start = time.perf_counter()
        host = next((p for _, p in reversed(recorder.snapshots) if type(p).LANGUAGE in HOST_LANGUAGES), source)
        failure: tuple[str, str, str] | None = None
        try:
            compiled = user_outputs(run_compiled(shipped, host, inputs, self.handler, checked=True),
                                    entry_function(source))
            reports = compare_valid(source, reference, compiled)
            if not all(r.ok for r in reports):
                failure = ("mismatch", "simulator mismatch", _mismatch_text(reports))
        except PoisonRead as err:
            failure = ("poison", "poison read", _error_text(err))
        except SimulationError as err:
            failure = ("simulator-error", "simulator fault", _error_text(err))
        except CompileError as err:
            failure = ("simulator-error", "simulator fault", _error_text(err))
        except Exception as exc:
            failure = ("crash", "crash", f"{type(exc).__name__}: {_error_text(exc)}")
        run.add("simulation", time.perf_counter() - start)
        if failure is None:
            return outcome(OK, "", "", "", recorder)
        status, check, detail = failure
        blamed = POST_L0_BLAME if status != "crash" else "simulator"
        if blame:
            start = time.perf_counter()
            blamed_pass, note = blame_pass(recorder.snapshots, source, inputs, reference)
            run.add("blame", time.perf_counter() - start)
            if blamed_pass is not None:
                blamed, detail = blamed_pass, detail + "\n" + note
        return outcome(status, check, blamed, detail, recorder)


    def round_trip(self, final: Node) -> tuple[Node, str | None]:
        """The program as users get it: `final` printed as PTO-ISA text and parsed back. The text
        must be a fixpoint (printing the parsed program gives the same text), and the parsed
        program is what gets simulated, so a printer that drops or garbles a field (a view, a
        pad, a loop bound) is caught like a codegen bug."""
        plugin = self.plugin
        if plugin.print_final is None:
            return final, None
        text = plugin.print_final(final)
        try:
            shipped = plugin.parse(text, "<fuzz>" + plugin.final_suffix)
        except CompileError as err:
            return final, "the printed PTO text does not parse:\n" + _error_text(err)
        again = plugin.print_final(shipped)
        if again != text:
            first = next((i for i, (a, b) in enumerate(zip(text.splitlines(), again.splitlines())) if a != b), 0)
            return shipped, (f"printing the parsed PTO text changes line {first + 1}:\n"
                             f"  printed:   {text.splitlines()[first].strip() if text.splitlines() else ''}\n"
                             f"  reprinted: {again.splitlines()[first].strip() if again.splitlines() else ''}")
        return shipped, None


def _output_types(source: Node) -> dict[str, Type]:
    """Declared type of every user-visible output: `ret<i>` and the entry's parameters."""
    entry: Any = entry_function(source)
    types: dict[str, Type] = {f"ret{i}": ty for i, ty in enumerate(entry.return_types)}
    types.update({p.var.name: p.var.type for p in entry.params})
    return types


def _valid_region(array: Array, ty: Type | None) -> Array:
    if isinstance(ty, TensorType) and ty.valid_shape is not None and array.ndim == len(ty.valid_shape):
        return array[tuple(slice(0, v) for v in ty.valid_shape)]
    return array


def compare_valid(source: Node, reference: Mapping[str, Array], compiled: Mapping[str, Array]) -> list[OutputReport]:
    """Bit comparison of each output's valid region: elements outside a tensor's valid_shape
    are undefined (a store writes only the valid region)."""
    types = _output_types(source)
    return compare_outputs({k: _valid_region(v, types.get(k)) for k, v in reference.items()},
                           {k: _valid_region(v, types.get(k)) for k, v in compiled.items()})


def blame_pass(snapshots: Sequence[tuple[str, Node]], source: Node, inputs: Mapping[str, object],
               reference: Mapping[str, Array]) -> tuple[str | None, str]:
    """The first pass whose output, interpreted, differs from the source program's result.

    A pass whose output cannot be interpreted on its own (e.g. kernels gained Out parameters
    whose call sites a later pass updates) is skipped; if the next interpretable output
    differs, both are named ("a..b")."""
    entry = entry_function(source)
    skipped: list[str] = []
    for name, program in snapshots:
        if type(program).LANGUAGE not in VALUE_LEVEL_BLAME_LANGUAGES:
            break
        try:
            outputs = user_outputs(interpret(program, inputs), entry)
        except Exception:
            skipped.append(name)
            continue
        reports = compare_valid(source, reference, outputs)
        if not all(r.ok for r in reports):
            blamed = f"{skipped[0]}..{name}" if skipped else name
            return blamed, f"the output of {name}, interpreted, already differs:\n{_mismatch_text(reports)}"
        skipped = []
    return None, ""


def build_pipeline(spec: str | None, backend: str) -> Pipeline:
    """The pipeline under test: `spec`, else the plugin's default pipeline for `backend`."""
    plugin = get_plugin()
    pipeline = Pipeline.from_spec(spec or plugin.default_pipeline(backend), plugin)
    final = plugin.family.languages[-1].name
    if not pipeline.passes or type(pipeline.passes[-1]).target.name != final:
        raise CompileError(Diagnostic("fuzz", f"the pipeline `{pipeline.spec()}` does not reach {final}",
                                      hint="the fuzzer simulates the final program: give a pipeline ending in "
                                           f"a pass that produces {final}"))
    return pipeline


# -- regression files ------------------------------------------------------------------------------------

REGRESSION_MARK = "# fuzz-regression:"


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")[:40] or "unknown"


def regression_file(text: str, seed: int, outcome: Outcome, backend: str, pipeline: str | None) -> tuple[str, str]:
    """(file stem, contents): the program in the pl DSL under a header the collector reads."""
    digest = hashlib.sha256(f"{seed}\n{text}".encode()).hexdigest()[:10]
    stem = f"fuzz_{_slug(outcome.status)}_{_slug(outcome.blamed)}_{digest}"
    detail = "\n".join(f"#   {line}" for line in outcome.detail.splitlines())
    header = [
        f"{REGRESSION_MARK} {outcome.status} ({outcome.check})",
        f"# blamed: {outcome.blamed}",
        f"# input-seed: {seed}",
        f"# backend: {backend}",
        f"# pipeline: {pipeline or 'default'}",
        "# verdict when found:",
        detail,
        f"# replay: python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed {seed}",
        "# (collected by tests/regressions/conftest.py; fails until the bug is fixed)",
    ]
    return stem, "\n".join(line for line in header if line) + "\n" + text


@dataclass(frozen=True)
class RegressionSpec:
    text: str
    input_seed: int
    backend: str
    pipeline: str | None
    status: str
    blamed: str


def read_regression(path: str | Path) -> RegressionSpec:
    text = Path(path).read_text()
    fields_: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].strip().partition(":")
        if sep and key in ("fuzz-regression", "blamed", "input-seed", "backend", "pipeline"):
            fields_[key] = value.strip()
    pipeline = fields_.get("pipeline", "default")
    return RegressionSpec(text, int(fields_.get("input-seed", "0")), fields_.get("backend", ""),
                          None if pipeline == "default" else pipeline,
                          fields_.get("fuzz-regression", "").split(" ")[0], fields_.get("blamed", ""))


def replay(path: str | Path) -> Outcome:
    """Re-check a regression file with today's compiler (the outcome is `ok` once fixed)."""
    spec = read_regression(path)
    target = PtoFuzzTarget()
    target.configure(spec.pipeline, spec.backend or None, None)
    return target.check_text(spec.text, spec.input_seed, str(path))


def fuzz_target() -> PtoFuzzTarget:
    """The plugin hook: `CompilerPlugin.fuzz_target` (see nanopass.fuzz)."""
    return PtoFuzzTarget()

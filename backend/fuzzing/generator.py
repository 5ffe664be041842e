"""Random well-typed Tensor-language programs for fuzzing campaigns (Hypothesis strategies).

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

from dataclasses import dataclass, field, fields, replace
from typing import Any, Callable, Sequence

from hypothesis import strategies as st

from languages.gen import tensor as T
from languages.ops import REGISTRY
from languages.ops.tensor_ops import CAST_MODES
from languages.pl_printer import print_program
from languages.types import INDEX, AttrValue, DataType, TensorType, Type

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
SCALAR_OPS = ("adds", "muls", "subs", "maximum", "minimum", "divs")  # maximum / minimum with a scalar rhs: tile.maximums / minimums
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

"""Hypothesis strategies: random well-formed IR programs of a chosen language.

    from tests.strategies import programs, language_programs
    @given(programs("TilePlaced"))            # a Program of that language
    @given(language_programs())               # (Language, Program) for any non-PTO language

Programs are built directly as IR with the language's generated classes: scalar index math,
comparisons, `for` loops (range / pipeline) with carried values, `if`s with phis, tensor / tile
operator calls with plausible (annotated) types, calls between functions and multiple returns.
Types follow the text format's re-derivation rules (languages.pl_parser docstring), so
parse(print(p)) == p holds; the programs are *not* guaranteed to pass TypeCheck.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from types import ModuleType
from typing import Any, Callable

from hypothesis import strategies as st

from languages.decls import LANGUAGES
from languages.memory_space import MemorySpace
from languages.pl_parser import binop_type, language_named
from languages.pl_printer import implicit_view_of
from languages.types import (
    BLAYOUTS,
    PADS,
    DataType,
    MemRef,
    NoneType,
    ScalarType,
    TensorType,
    TileType,
    TupleType,
    Type,
)
from nanopass.langdef import Language
from nanopass.node import Node

INDEX = ScalarType(DataType.INDEX)
BOOL = ScalarType(DataType.BOOL)
TEXT_LANGUAGES = tuple(lang for lang in LANGUAGES if lang.name != "PTO")

_SHAPES = ((16, 32), (32,), (64, 16), (16, 1))
_ELEMENT_DTYPES = (DataType.FP32, DataType.FP16, DataType.BF16, DataType.INT32)
_ARITH = ("+", "-", "*", "//", "%")
_COMPARE = ("==", "!=", "<", "<=", ">", ">=")
_SPACES = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc)


class _Builder:
    """Draws one program; `env` lists the variables visible at the current point."""

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any], language: Language) -> None:
        self.draw = draw
        self.language = language
        self.m: ModuleType = importlib.import_module(language.module)
        self.counter = 0
        self.functions: list[Any] = []
        self.memref_count = 0

    # helpers

    def pick(self, options: Any) -> Any:
        return self.draw(st.sampled_from(list(options)))

    def flag(self, p_true: float = 0.5) -> bool:
        return bool(self.draw(st.integers(0, 99)) < int(p_true * 100))

    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def var(self, ty: Type, prefix: str = "v") -> Any:
        return self.m.Var(name=self.fresh(prefix), type=ty)

    @property
    def tile_ops(self) -> bool:
        return self.language.name != "Tensor"

    # types

    def tensor_type(self) -> TensorType:
        shape = self.pick(_SHAPES)
        valid = None
        if self.flag(0.2):
            valid = tuple(max(1, d - self.draw(st.integers(0, 3))) for d in shape)
        return TensorType(shape, self.pick(_ELEMENT_DTYPES), valid)

    def tile_type_like(self, tensor: TensorType) -> TileType:
        forms = self.language.type_forms
        space: MemorySpace | None = None
        if "tile-unplaced" not in forms or (self.language.name == "TileUnplaced" and self.flag(0.3)):
            space = self.pick(_SPACES)
        view = None
        if space is not None:
            view = implicit_view_of(space, tensor.shape)
            if self.flag(0.3):
                view = replace(view, pad=self.pick(PADS), compact=self.flag(), blayout=self.pick(BLAYOUTS))
        memref = None
        if "tile-addressed" in forms and space is not None:
            self.memref_count += 1
            size = self.draw(st.integers(1, 1 << 16))
            memref = MemRef(f"mem_{space.name.lower()}_{self.memref_count}", space,
                            self.draw(st.integers(0, 1 << 17)), size)
        return TileType(tensor.shape, tensor.dtype, tensor.valid_shape, space, view, memref)

    # expressions

    def index_literal(self) -> Any:
        return self.m.ConstInt(value=self.draw(st.integers(-5, 300)), dtype=DataType.INDEX)

    def index_atom(self, env: list[Any]) -> Any:
        index_vars = [v for v in env if v.type == INDEX]
        if index_vars and self.flag(0.6):
            return self.pick(index_vars)
        return self.index_literal()

    def index_expr(self, env: list[Any], depth: int = 2) -> Any:
        if depth == 0 or self.flag(0.4):
            return self.index_atom(env)
        if self.flag(0.15):
            operand = self.index_expr(env, depth - 1)
            return self.m.UnaryOp(op="-", operand=operand, type=_type(operand))
        lhs, rhs = self.index_expr(env, depth - 1), self.index_expr(env, depth - 1)
        op = self.pick(_ARITH)
        return self.binop(op, lhs, rhs)

    def binop(self, op: str, lhs: Any, rhs: Any) -> Any:
        literal = lhs.KIND == "ConstInt" and lhs.dtype is DataType.INDEX
        return self.m.BinOp(op=op, lhs=lhs, rhs=rhs, type=binop_type(op, _type(lhs), _type(rhs), literal))

    def bool_expr(self, env: list[Any], depth: int = 2) -> Any:
        bool_vars = [v for v in env if v.type == BOOL]
        choice = self.draw(st.integers(0, 4 if depth else 1))
        if choice == 0:
            return self.pick(bool_vars) if bool_vars else self.m.ConstBool(value=self.flag())
        if choice == 1:
            return self.binop(self.pick(_COMPARE), self.index_expr(env, 1), self.index_expr(env, 1))
        if choice == 2:
            operand = self.bool_expr(env, depth - 1)
            return self.m.UnaryOp(op="not", operand=operand, type=BOOL)
        return self.binop(self.pick(("and", "or")), self.bool_expr(env, depth - 1), self.bool_expr(env, depth - 1))

    def scalar_const(self) -> Any:
        if self.flag():
            dtype = self.pick((DataType.FP32, DataType.FP16, DataType.BF16))
            value = self.draw(st.floats(allow_nan=False, width=32))
            return self.m.ConstFloat(value=value, dtype=dtype)
        return self.m.ConstInt(value=self.draw(st.integers(-(1 << 31), (1 << 31) - 1)), dtype=DataType.INT32)

    # statements

    def assign(self, ty: Type, value: Any, env: list[Any], prefix: str = "v") -> Any:
        target = self.var(ty, prefix)
        env.append(target)
        return self.m.AssignStmt(target=target, value=value)

    def call(self, op: str, args: list[Any], ty: Type, attrs: tuple[tuple[str, Any], ...] = ()) -> Any:
        return self.m.Call(op=op, args=tuple(args), attrs=attrs, type=ty)

    def offsets(self, rank: int, env: list[Any]) -> Any:
        return self.m.TupleExpr(elements=tuple(self.index_atom(env) for _ in range(rank)))

    def dims_expr(self, dims: tuple[int, ...]) -> Any:
        return self.m.TupleExpr(elements=tuple(self.m.ConstInt(value=d, dtype=DataType.INDEX) for d in dims))

    def op_stmt(self, env: list[Any]) -> Any | None:
        tensors = [v for v in env if isinstance(v.type, TensorType)]
        tiles = [v for v in env if isinstance(v.type, TileType)]
        options = ["scalar", "bool", "create"]
        if tensors:
            options += ["tensor_binary", "tensor_unary", "tensor_scalar"] if not self.tile_ops else ["load"]
        if tiles:
            options += ["tile_binary", "tile_unary", "tile_scalar"]
            if tensors:
                options.append("store")
        if self.functions:
            options.append("func_call")
        kind = self.pick(options)
        if kind == "scalar":
            return self.assign(INDEX, self.index_expr(env), env, "n")
        if kind == "bool":
            return self.assign(BOOL, self.bool_expr(env), env, "b")
        if kind == "create":
            ty = self.tensor_type()
            if self.tile_ops and self.flag():
                tile = self.tile_type_like(ty)
                attrs: tuple[tuple[str, Any], ...] = (("dtype", tile.dtype),)
                if tile.memory_space is not None:
                    attrs += (("target_memory", tile.memory_space),)
                return self.assign(tile, self.call("tile.create", [self.dims_expr(tile.shape)], tile, attrs), env, "t")
            return self.assign(ty, self.call("tensor.create", [self.dims_expr(ty.shape)], ty,
                                             (("dtype", ty.dtype),)), env, "x")
        if kind.startswith("tensor_") or kind.startswith("tile_"):
            pool = tensors if kind.startswith("tensor_") else tiles
            namespace = "tensor" if kind.startswith("tensor_") else "tile"
            a = self.pick(pool)
            if kind.endswith("binary"):
                same = [v for v in pool if v.type == a.type]
                args = [a, self.pick(same)]
                op = self.pick(("add", "sub", "mul", "div", "maximum"))
            elif kind.endswith("unary"):
                args, op = [a], self.pick(("exp", "neg", "sqrt", "abs"))
            else:
                args, op = [a, self.scalar_const()], self.pick(("adds", "muls"))
            return self.assign(a.type, self.call(f"{namespace}.{op}", args, a.type), env, "t")
        if kind == "load":
            src = self.pick(tensors)
            tile = self.tile_type_like(src.type)
            args = [src, self.offsets(len(src.type.shape), env), self.dims_expr(src.type.shape)]
            attrs = (("target_memory", tile.memory_space),) if tile.memory_space is not None else ()
            return self.assign(tile, self.call("tile.load", args, tile, attrs), env, "t")
        if kind == "store":
            tile, dst = self.pick(tiles), self.pick(tensors)
            args = [tile, self.offsets(len(tile.type.shape), env), dst]
            return self.assign(dst.type, self.call("tile.store", args, dst.type), env, "x")
        return self.func_call(env)

    def func_call(self, env: list[Any]) -> Any | None:
        callee = self.pick(self.functions)
        args = []
        for param in callee.params:
            candidates = [v for v in env if v.type == param.var.type]
            if not candidates:
                return None
            args.append(self.pick(candidates))
        returns = callee.return_types
        ty: Type = returns[0] if len(returns) == 1 else (TupleType(tuple(returns)) if returns else NoneType())
        call = self.m.FuncCall(callee=callee.name, args=tuple(args), type=ty)
        if not returns:
            return self.m.EvalStmt(value=call)
        if isinstance(ty, TupleType) and self.flag():
            index = self.draw(st.integers(0, len(returns) - 1))
            item = self.m.TupleGetItem(value=call, index=index, type=returns[index])
            return self.assign(returns[index], item, env, "r")
        return self.assign(ty, call, env, "r")

    def yielded(self, env: list[Any], types: list[Type]) -> list[Any]:
        values = []
        for ty in types:
            candidates = [v for v in env if v.type == ty]
            values.append(self.pick(candidates))
        return values

    def for_stmt(self, env: list[Any], depth: int) -> Any:
        carried_candidates = [v for v in env if not isinstance(v.type, (TupleType, NoneType))]
        carry_count = self.draw(st.integers(0, min(2, len(carried_candidates))))
        inits = [self.pick(carried_candidates) for _ in range(carry_count)]
        body_env = list(env)
        loop_var = self.var(INDEX, "i")
        body_env.append(loop_var)
        iter_args = []
        for init in inits:
            var = self.var(init.type, "c")
            body_env.append(var)
            iter_args.append(self.m.IterArg(var=var, init=init))
        if self.flag(0.5):
            start, stop, step = (self.m.ConstInt(value=0, dtype=DataType.INDEX), self.index_atom(env),
                                 self.m.ConstInt(value=1, dtype=DataType.INDEX))
        else:
            start, stop, step = self.index_expr(env, 1), self.index_expr(env, 1), self.index_atom(env)
        body = self.stmts(body_env, depth - 1, self.draw(st.integers(0, 3)))
        results: list[Any] = []
        if iter_args:
            values = self.yielded(body_env, [a.var.type for a in iter_args])
            body.append(self.m.YieldStmt(values=tuple(values)))
            results = [self.var(_type(v), "y") for v in values]
            env.extend(results)
        kind = self.pick(("range", "pipeline", "parallel"))
        attrs: tuple[tuple[str, Any], ...] = (("stage", self.draw(st.integers(1, 4))),) if kind == "pipeline" else ()
        return self.m.ForStmt(loop_var=loop_var, start=start, stop=stop, step=step, iter_args=tuple(iter_args),
                              body=tuple(body), results=tuple(results), kind=kind, attrs=attrs)

    def if_stmt(self, env: list[Any], depth: int) -> Any:
        cond = self.bool_expr(env)
        candidates = [v for v in env if not isinstance(v.type, (TupleType, NoneType))]
        phi_count = self.draw(st.integers(0, min(2, len(candidates))))
        types = [self.pick(candidates).type for _ in range(phi_count)]
        then_env, else_env = list(env), list(env)
        then_body = self.stmts(then_env, depth - 1, self.draw(st.integers(0, 2)))
        else_body = self.stmts(else_env, depth - 1, self.draw(st.integers(0 if not types else 0, 2)))
        results: list[Any] = []
        if types:
            then_values = self.yielded(then_env, types)
            then_body.append(self.m.YieldStmt(values=tuple(then_values)))
            else_body.append(self.m.YieldStmt(values=tuple(self.yielded(else_env, types))))
            results = [self.var(_type(v), "p") for v in then_values]
            env.extend(results)
        return self.m.IfStmt(cond=cond, then_body=tuple(then_body), else_body=tuple(else_body),
                             results=tuple(results))

    def stmts(self, env: list[Any], depth: int, count: int) -> list[Any]:
        out = []
        for _ in range(count):
            choice = self.draw(st.integers(0, 9))
            stmt = None
            if depth > 0 and choice == 0:
                stmt = self.for_stmt(env, depth)
            elif depth > 0 and choice == 1:
                stmt = self.if_stmt(env, depth)
            else:
                stmt = self.op_stmt(env)
            if stmt is not None:
                out.append(stmt)
        return out

    def function(self, index: int) -> Any:
        env: list[Any] = []
        params = []
        for _ in range(self.draw(st.integers(1, 3))):
            ty: Type = INDEX if self.flag(0.25) else self.tensor_type()
            var = self.var(ty, "a")
            env.append(var)
            direction = self.pick(("In", "Out", "InOut")) if isinstance(ty, TensorType) else "In"
            params.append(self.m.Param(var=var, direction=direction))
        body = self.stmts(env, 2, self.draw(st.integers(1, 5)))
        returned = [self.pick(env) for _ in range(self.draw(st.integers(0, 2)))]
        returned = [v for v in returned if not isinstance(v.type, (TupleType, NoneType))]
        body.append(self.m.ReturnStmt(values=tuple(returned)))
        func_type = self.pick(("InCore", "Orchestration", "Opaque", "AIC", "AIV"))
        return self.m.Function(name=f"f{index}", func_type=func_type, params=tuple(params),
                               return_types=tuple(v.type for v in returned), body=tuple(body), attrs=())

    def program(self) -> Any:
        for index in range(self.draw(st.integers(1, 3))):
            self.functions.append(self.function(index))
        return self.m.Program(name=f"P{self.draw(st.integers(0, 99))}", functions=tuple(self.functions))


def _type(node: Any) -> Type:
    if node.KIND in ("ConstInt", "ConstFloat"):
        return ScalarType(node.dtype)
    if node.KIND == "ConstBool":
        return BOOL
    ty: Type = node.type
    return ty


def programs(language: Language | str = "Tensor") -> st.SearchStrategy[Node]:
    """Random well-formed Programs of `language` (a Language or its name; not PTO)."""
    lang = language_named(language) if isinstance(language, str) else language

    @st.composite
    def build(draw: Callable[[st.SearchStrategy[Any]], Any]) -> Node:
        program: Node = _Builder(draw, lang).program()
        return program

    return build()


def language_programs() -> st.SearchStrategy[tuple[Language, Node]]:
    """(language, Program) pairs over every language with a `pl` text form."""
    return st.sampled_from(TEXT_LANGUAGES).flatmap(lambda lang: programs(lang).map(lambda p: (lang, p)))

"""The generator never draws a `tensor.read` of an unsigned value the kernel computed (finding
f1e4d8becd): such a value lives in a tile, ConvertTensorToTileOps lowers the read to tile.read
(pto.tgetval), and PTOAS's tgetval reads no unsigned tile, so the pass refuses it ("not supported
yet", `languages.ops.assembler_element_types.tile_element_unreadable`). An unsigned element of a GM
tensor (pto.load_scalar) is still read; the generator asks the same fact
(`registry_calls.on_chip_read_gap`) for its registry steps and for its recipes' own reads."""

from __future__ import annotations

from typing import Iterator

from hypothesis import HealthCheck, given, settings

from backend.fuzzing.generator import Features, GeneratedProgram, programs
from backend.fuzzing.registry_calls import on_chip_read_gap
from languages.gen import tensor as T
from languages.ops import REGISTRY
from languages.ops.assembler_element_types import tile_element_unreadable
from languages.types import DataType, TensorType
from nanopass.diagnostics import CompileError
from nanopass.node import Node
from nanopass.pipeline import Pipeline
from nanopass.plugin import get_plugin

# The passes up to the one refusing the read (the default pipeline's head).
THROUGH_CONVERSION = ("convert-to-ssa,inline-functions,unroll-loops,outline-incore-scopes,outline-cluster-scopes,"
                      "normalize-stmt-structure,simplify-index-arith,dead-code-elimination,seed-zero-accumulators,"
                      "convert-tensor-to-tile-ops")


def _drawn(arch: str, focus: tuple[str, ...], count: int) -> list[GeneratedProgram]:
    drawn: list[GeneratedProgram] = []

    @settings(max_examples=count, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(programs(Features(), arch, focus))
    def draw(program: GeneratedProgram) -> None:
        drawn.append(program)

    draw()
    assert drawn
    return drawn


def _statements(stmts: object) -> Iterator[Node]:
    for stmt in stmts if isinstance(stmts, (list, tuple)) else ():
        yield stmt
        for field in ("body", "then_body", "else_body"):
            yield from _statements(getattr(stmt, field, None))


def _unsigned_reads(program: GeneratedProgram) -> Iterator[tuple[str, T.Var, bool]]:
    """(kernel, operand, whether it is a GM tensor) of every tensor.read of an unsigned value: a
    GM tensor is a kernel parameter or a tensor.view / tensor.slice of one (a slice of a GM
    parameter is read at mapped indices of the parameter)."""
    for function in program.program.functions:
        gm = {param.var.name for param in function.params}
        for stmt in _statements(function.body):
            value = getattr(stmt, "value", None)
            target = getattr(stmt, "target", None)
            op = str(getattr(value, "op", ""))
            args = tuple(getattr(value, "args", ()))
            if op in ("tensor.view", "tensor.slice") and args and getattr(args[0], "name", None) in gm \
                    and target is not None:
                gm.add(target.name)
            if op == "tensor.read" and isinstance(args[0], T.Var) and isinstance(args[0].type, TensorType) \
                    and tile_element_unreadable(args[0].type.dtype):
                yield function.name, args[0], args[0].name in gm


def test_the_fact_the_generator_asks_is_the_passes() -> None:
    read = REGISTRY.get("tensor.read")
    computed = TensorType((1, 16), DataType.UINT8)
    assert on_chip_read_gap(read, 0, computed, in_gm=False)
    assert not on_chip_read_gap(read, 0, computed, in_gm=True)  # pto.load_scalar reads it
    assert not on_chip_read_gap(read, 0, TensorType((1, 16), DataType.INT8), in_gm=False)
    assert not on_chip_read_gap(REGISTRY.get("tensor.adds"), 0, computed, in_gm=False)


def test_no_computed_unsigned_value_is_read_as_an_element() -> None:
    # The finding's shape: tensor.divs of a UINT8 parameter, read on chip. Drawn for both targets,
    # steered toward the read and the op that made the value; every program reading an unsigned
    # element is also run through ConvertTensorToTileOps, which must take the read.
    pipeline = Pipeline.from_spec(THROUGH_CONVERSION, get_plugin())
    unsigned_gm_reads = 0
    for arch in ("a5", "a2a3"):
        for program in _drawn(arch, ("tensor.read", "tensor.divs"), 120):
            reads = list(_unsigned_reads(program))
            for kernel, operand, in_gm in reads:
                assert in_gm, f"{kernel} reads an element of `{operand.name}`, a computed " \
                              f"{getattr(operand.type, 'dtype', None)} value:\n{program.text}"
            if not reads:
                continue
            unsigned_gm_reads += len(reads)
            try:
                pipeline.run(program.program)
            except CompileError as err:
                assert "tgetval" not in str(err), f"{err}\n{program.text}"
    # The unsigned reads of GM are still drawn: only the on-chip ones are kept off.
    assert unsigned_gm_reads

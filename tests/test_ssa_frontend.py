"""ConvertToSSA: PyPTO-style reassignment (`acc = f(acc)`, reassigning an outer name in a loop
body or an if branch), parsed as written into the DSL language, converts to the same IR as the
hand-written explicit form (`init_values=` / `pl.yield_` / if-phis), keeps the user's spans,
compiles with every verifier, simulates bit-exact, and reports the values Python would have but
the IR cannot with file:line:col (the parser) and a carried value changing type (the pass).
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from languages.decls import DSL
from languages.pl_parser import parse_program
from languages.pl_printer import print_program
from nanopass.diagnostics import CompileError
from nanopass.node import Node, walk
from nanopass.pipeline import main
from tests import frontend

Array = npt.NDArray[Any]

T16 = "pl.Tensor[[16, 32], pl.FP32]"
SIGNATURE = f"self, x: {T16}, y: {T16}, n: pl.Scalar[pl.INDEX]"


def program(body: str, signature: str = SIGNATURE, returns: str = T16, name: str = "Kernel") -> str:
    """A one-function program whose body is `body` (written without indentation)."""
    return (
        "import pypto.language as pl\n\n\n"
        "@pl.program\n"
        f"class {name}:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def kernel({signature}) -> {returns}:\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8) + "\n"
    )


def to_ssa(text: str) -> Node:
    """The text parsed as the DSL language (as written), then converted by ConvertToSSA."""
    return frontend.to_ssa(parse_program(text, "kernel.py", DSL))


def printed(text: str) -> str:
    return print_program(to_ssa(text))


def assert_same_ir(implicit: str, explicit: str) -> None:
    """The PyPTO-style text parses to exactly the explicit SSA text's IR, and that IR is a
    print/parse fixpoint."""
    implicit_ir = to_ssa(program(implicit))
    explicit_ir = to_ssa(program(explicit))
    assert print_program(implicit_ir) == print_program(explicit_ir)
    assert implicit_ir == explicit_ir
    assert parse_program(print_program(implicit_ir)) == implicit_ir
    assert parse_program(program(explicit), "kernel.py", DSL) == explicit_ir  # explicit SSA is kept


def parse_error(body: str, signature: str = SIGNATURE) -> CompileError:
    with pytest.raises(CompileError) as info:
        to_ssa(program(body, signature))
    return info.value


# --- the split: the parser keeps the names, the pass converts ------------------------------------


def test_the_parser_keeps_reassignment_as_written_and_the_pass_makes_it_ssa() -> None:
    from verifiers.ssa_form import verify as ssa_form
    from verifiers.use_after_def import verify as use_after_def

    text = program("""
        for k in pl.range(4):
            x = pl.add(x, y)
        if n == 0:
            z = pl.mul(x, x)
        else:
            z = x
        return z
        """)
    parsed = parse_program(text, "kernel.py")
    assert parsed.LANGUAGE == "DSL"  # reassignment: only the DSL language admits it
    loop = next(n for n in walk(parsed) if n.KIND == "ForStmt")
    assert getattr(loop, "iter_args") == () and getattr(loop, "results") == ()
    assert [d.rule for d in ssa_form(parsed)] == ["SSAForm", "SSAForm"]  # x and z are defined twice
    converted = to_ssa(text)
    assert ssa_form(converted) == [] and use_after_def(converted) == []
    names = sorted(_var_definitions(converted))
    assert {"x_iter", "x_1", "x_2", "z", "z_1", "z_2"} <= set(names)
    # The program as written means what its SSA form means (the reference interpreter runs both).
    from nanopass_pto.run import random_inputs, reference
    inputs = random_inputs(parsed, 5)
    before, after = reference(parsed, inputs), reference(converted, inputs)
    assert all(np.array_equal(before[k].view(np.uint32), after[k].view(np.uint32)) for k in before)


def test_a_later_language_is_in_ssa_form_and_says_so_where_a_name_is_redefined() -> None:
    text = "# nanopass.language: Tensor\n" + program("""
        x = pl.add(x, y)
        return x
        """)
    with pytest.raises(CompileError) as info:
        parse_program(text, "kernel.py")
    message = str(info.value)
    assert "kernel.py:9:9" in message and "`x` is defined twice" in message and "SSA form" in message
    assert "drop the `# nanopass.language: Tensor` header" in message


def test_user_text_of_a_later_language_that_reassigns_is_converted_when_parsed() -> None:
    """A hand-written tile kernel (placed tiles: TilePlaced) reassigns as PyPTO users do; its
    language admits no redefinition, so the parser converts it with the conversion ConvertToSSA
    runs, and the result is the explicit form's IR."""
    from verifiers.ssa_form import verify as ssa_form

    tile = "pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec]"
    implicit = program(f"""
        t: {tile} = pl.load(x, [0, 0], [16, 32])
        for k in pl.range(4):
            t: {tile} = pl.tile.add(t, t)
        return pl.store(t, [0, 0], y)
        """)
    explicit = program(f"""
        t: {tile} = pl.load(x, [0, 0], [16, 32])
        for k, (t_iter,) in pl.range(4, init_values=(t,)):
            t_1: {tile} = pl.tile.add(t_iter, t_iter)
            t_2 = pl.yield_(t_1)
        return pl.store(t_2, [0, 0], y)
        """)
    parsed = parse_program(implicit, "kernel.py")
    assert parsed.LANGUAGE == "TilePlaced" and ssa_form(parsed) == []
    assert print_program(parsed) == print_program(parse_program(explicit, "kernel.py"))


def test_convert_to_ssa_runs_first_in_the_default_pipeline(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--dump-pass-pipeline"]) == 0
    assert capsys.readouterr().out.split(",")[0] == "convert-to-ssa"


def test_a_pass_that_needs_ssa_form_is_refused_on_dsl_as_written(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    kernel = tmp_path / "k.py"
    kernel.write_text(program("""
        x = pl.add(x, y)
        return x
        """))
    assert main([str(kernel), "-p", "inline-functions", "--verify-all"]) != 0
    assert "SSAForm" in capsys.readouterr().err
    assert main([str(kernel), "-p", "convert-to-ssa,inline-functions", "--verify-all", "-o", "-"]) == 0


# --- the patterns, against their hand-written explicit form -----------------------------------


def test_straight_line_reassignment_takes_fresh_names() -> None:
    assert_same_ir(
        """
        x = pl.add(x, y)
        x = pl.mul(x, x)
        return x
        """,
        """
        x_1 = pl.add(x, y)
        x_2 = pl.mul(x_1, x_1)
        return x_2
        """)


def test_accumulator_reassigned_in_a_loop_becomes_an_iter_arg() -> None:
    assert_same_ir(
        """
        acc = pl.tensor.full([16, 32], pl.FP32, 0.0)
        for k in pl.range(0, 64, 16):
            acc = pl.add(acc, x)
        return acc
        """,
        """
        acc = pl.tensor.full([16, 32], pl.FP32, 0.0)
        for k, (acc_iter,) in pl.range(0, 64, 16, init_values=(acc,)):
            acc_1 = pl.add(acc_iter, x)
            acc_2 = pl.yield_(acc_1)
        return acc_2
        """)


def test_matmul_acc_k_loop_in_a_pipeline_loop() -> None:
    signature = "self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16]"
    returns = "pl.Tensor[[64, 64], pl.FP32]"
    implicit = """
        acc = pl.create_tensor([64, 64], dtype=pl.FP32)
        for k in pl.pipeline(0, 256, 64, stage=2):
            a_k = pl.slice(a, [64, 64], [0, k])
            b_k = pl.slice(b, [64, 64], [k, 0])
            acc = pl.matmul_acc(acc, a_k, b_k)
        return acc
        """
    explicit = """
        acc = pl.create_tensor([64, 64], dtype=pl.FP32)
        for k, (acc_iter,) in pl.pipeline(0, 256, 64, init_values=(acc,), stage=2):
            a_k = pl.slice(a, [64, 64], [0, k])
            b_k = pl.slice(b, [64, 64], [k, 0])
            acc_1 = pl.matmul_acc(acc_iter, a_k, b_k)
            acc_2 = pl.yield_(acc_1)
        return acc_2
        """
    assert printed(program(implicit, signature, returns)) == printed(program(explicit, signature, returns))


def test_if_else_reassigning_an_outer_name_becomes_a_phi() -> None:
    assert_same_ir(
        """
        x = pl.add(x, y)
        if n > 0:
            y = pl.mul(x, 2.0)
        else:
            y = pl.add(x, 1.0)
        return y
        """,
        """
        x_1 = pl.add(x, y)
        if n > 0:
            y_1 = pl.mul(x_1, 2.0)
            y_3 = pl.yield_(y_1)
        else:
            y_2 = pl.add(x_1, 1.0)
            y_3 = pl.yield_(y_2)
        return y_3
        """)


def test_a_name_assigned_in_one_branch_takes_the_outer_value_in_the_other() -> None:
    assert_same_ir(
        """
        if n == 0:
            x = pl.neg(x)
        if n > 1:
            pass
        else:
            y = pl.exp(y)
        return pl.add(x, y)
        """,
        """
        if n == 0:
            x_1 = pl.neg(x)
            x_2 = pl.yield_(x_1)
        else:
            x_2 = pl.yield_(x)
        if n > 1:
            y_2 = pl.yield_(y)
        else:
            y_1 = pl.exp(y)
            y_2 = pl.yield_(y_1)
        return pl.add(x_2, y_2)
        """)


def test_a_new_name_assigned_in_both_branches_is_defined_after_the_if() -> None:
    assert_same_ir(
        """
        if n > 0:
            t = pl.add(x, y)
        else:
            t = pl.sub(x, y)
        return t
        """,
        """
        if n > 0:
            t = pl.add(x, y)
            t_2 = pl.yield_(t)
        else:
            t_1 = pl.sub(x, y)
            t_2 = pl.yield_(t_1)
        return t_2
        """)


def test_assemble_into_an_out_parameter_inside_a_loop() -> None:
    signature = "self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]"
    returns = "pl.Tensor[[64, 32], pl.FP32]"
    implicit = """
        for i in pl.range(0, 64, 16):
            tile = pl.exp(pl.slice(x, [16, 32], [i, 0]))
            out = pl.assemble(out, tile, [i, 0])
        return out
        """
    explicit = """
        for i, (out_iter,) in pl.range(0, 64, 16, init_values=(out,)):
            tile = pl.exp(pl.slice(x, [16, 32], [i, 0]))
            out_1 = pl.assemble(out_iter, tile, [i, 0])
            out_2 = pl.yield_(out_1)
        return out_2
        """
    assert printed(program(implicit, signature, returns)) == printed(program(explicit, signature, returns))


def test_several_names_carried_by_one_loop_in_order_of_assignment() -> None:
    assert_same_ir(
        """
        for i in pl.range(n):
            y = pl.mul(y, x)
            x = pl.add(x, y)
        return pl.sub(x, y)
        """,
        """
        for i, (y_iter, x_iter) in pl.range(n, init_values=(y, x)):
            y_1 = pl.mul(y_iter, x_iter)
            x_1 = pl.add(x_iter, y_1)
            y_2, x_2 = pl.yield_(y_1, x_1)
        return pl.sub(x_2, y_2)
        """)


def test_nested_loops_carry_through_both_levels() -> None:
    assert_same_ir(
        """
        for i in pl.range(2):
            for j in pl.range(3):
                x = pl.add(x, y)
            y = pl.mul(y, 0.5)
        return x
        """,
        """
        for i, (x_iter, y_iter) in pl.range(2, init_values=(x, y)):
            for j, (x_iter_1,) in pl.range(3, init_values=(x_iter,)):
                x_1 = pl.add(x_iter_1, y_iter)
                x_2 = pl.yield_(x_1)
            y_1 = pl.mul(y_iter, 0.5)
            x_3, y_2 = pl.yield_(x_2, y_1)
        return x_3
        """)


def test_reassigned_only_inside_an_if_inside_a_loop() -> None:
    assert_same_ir(
        """
        for i in pl.range(4):
            if i == 2:
                x = pl.add(x, y)
        return x
        """,
        """
        for i, (x_iter,) in pl.range(4, init_values=(x,)):
            if i == 2:
                x_1 = pl.add(x_iter, y)
                x_2 = pl.yield_(x_1)
            else:
                x_2 = pl.yield_(x_iter)
            x_3 = pl.yield_(x_2)
        return x_3
        """)


def test_implicit_values_follow_the_explicit_ones() -> None:
    assert_same_ir(
        """
        for i, (c,) in pl.range(4, init_values=(x,)):
            y = pl.add(y, c)
            d = pl.mul(c, 2.0)
            r = pl.yield_(d)
        return pl.add(r, y)
        """,
        """
        for i, (c, y_iter) in pl.range(4, init_values=(x, y)):
            y_1 = pl.add(y_iter, c)
            d = pl.mul(c, 2.0)
            r, y_2 = pl.yield_(d, y_1)
        return pl.add(r, y_2)
        """)


def test_explicit_results_may_reuse_the_outer_name() -> None:
    assert_same_ir(
        """
        for i, (x_iter,) in pl.range(4, init_values=(x,)):
            x_next = pl.add(x_iter, y)
            x = pl.yield_(x_next)
        return x
        """,
        """
        for i, (x_iter,) in pl.range(4, init_values=(x,)):
            x_next = pl.add(x_iter, y)
            x_1 = pl.yield_(x_next)
        return x_1
        """)


def test_values_nobody_reads_later_are_not_carried() -> None:
    # `t` is rebound before every read in the body and never read after the loop; the branch
    # temporaries `u` are read only inside their branches.
    assert_same_ir(
        """
        t = pl.add(x, y)
        for i in pl.range(4):
            t = pl.mul(x, y)
            if i == 0:
                u = pl.exp(t)
            else:
                u = pl.neg(t)
        return x
        """,
        """
        t = pl.add(x, y)
        for i in pl.range(4):
            t_1 = pl.mul(x, y)
            if i == 0:
                u = pl.exp(t_1)
            else:
                u_1 = pl.neg(t_1)
        return x
        """)


def test_branch_temporaries_inside_a_loop_are_not_merged() -> None:
    # `t` is rebound in each branch before it is read, so no phi; `y` is carried although each
    # iteration overwrites it: after a loop that runs zero times it is still the parameter.
    assert_same_ir(
        """
        for i in pl.range(4):
            if i == 0:
                t = pl.exp(x)
                y = pl.add(t, t)
            else:
                t = pl.neg(x)
                y = pl.mul(t, t)
        return y
        """,
        """
        for i, (y_iter,) in pl.range(4, init_values=(y,)):
            if i == 0:
                t = pl.exp(x)
                y_1 = pl.add(t, t)
                y_3 = pl.yield_(y_1)
            else:
                t_1 = pl.neg(x)
                y_2 = pl.mul(t_1, t_1)
                y_3 = pl.yield_(y_2)
            y_4 = pl.yield_(y_3)
        return y_4
        """)


def test_sibling_loops_may_reuse_the_loop_variable_name() -> None:
    assert_same_ir(
        """
        for i in pl.range(2):
            x = pl.add(x, y)
        for i in pl.range(3):
            x = pl.mul(x, y)
        return x
        """,
        """
        for i, (x_iter,) in pl.range(2, init_values=(x,)):
            x_1 = pl.add(x_iter, y)
            x_2 = pl.yield_(x_1)
        for i_1, (x_iter_1,) in pl.range(3, init_values=(x_2,)):
            x_3 = pl.mul(x_iter_1, y)
            x_4 = pl.yield_(x_3)
        return x_4
        """)


def test_scalar_counters_are_carried_too() -> None:
    implicit = """
        m = n
        for i in pl.range(4):
            m = m + i
        return m
        """
    explicit = """
        m = n
        for i, (m_iter,) in pl.range(4, init_values=(m,)):
            m_1 = m_iter + i
            m_2 = pl.yield_(m_1)
        return m_2
        """
    returns = "pl.Scalar[pl.INDEX]"
    assert printed(program(implicit, returns=returns)) == printed(program(explicit, returns=returns))


# --- spans ----------------------------------------------------------------------------------------


def _var_definitions(node: Node) -> dict[str, Node]:
    return {getattr(n, "name"): n for n in walk(node) if n.KIND == "Var"}


def test_new_variables_keep_the_users_spans() -> None:
    text = program("""
        for k in pl.range(4):
            x = pl.add(x, y)
        return x
        """)
    ir = to_ssa(text)
    found = _var_definitions(ir)
    # The body starts on line 8 (the loop); `x = pl.add(x, y)` is line 9.
    assert str(found["x_1"].node_span) == "kernel.py:9:13"
    assert str(found["x_iter"].node_span) == "kernel.py:9:13"
    assert str(found["x_2"].node_span) == "kernel.py:8:9"  # the loop that produces it


# --- compile and simulate -------------------------------------------------------------------------


def _compile_and_simulate(text: str, tmp: Path, name: str) -> tuple[int, str, dict[str, Array]]:
    kernel = tmp / f"{name}.py"
    kernel.write_text(text)
    outputs = tmp / f"{name}.npz"
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), contextlib.chdir(tmp):
        rc = main([str(kernel), "--verify-all", "--simulate", "--save-outputs", str(outputs),
                   "-o", str(tmp / f"{name}.pto")])
    return rc, log.getvalue(), dict(np.load(outputs)) if outputs.exists() else {}


MATMUL_IMPLICIT = """\
import pypto.language as pl


@pl.program
class KLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc = pl.matmul(pl.slice(a, [64, 64], [0, 0]), pl.slice(b, [64, 64], [0, 0]), out_dtype=pl.FP32)
        for k in pl.pipeline(64, 256, 64, stage=2):
            a_k = pl.slice(a, [64, 64], [0, k])
            b_k = pl.slice(b, [64, 64], [k, 0])
            acc = pl.matmul_acc(acc, a_k, b_k)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16]) -> pl.Tensor[[64, 64], pl.FP32]:
        c = self.mm(a, b)
        return c
"""
MATMUL_EXPLICIT = MATMUL_IMPLICIT.replace(
    "for k in pl.pipeline(64, 256, 64, stage=2):",
    "for k, (acc_iter,) in pl.pipeline(64, 256, 64, init_values=(acc,), stage=2):",
).replace(
    "acc = pl.matmul_acc(acc, a_k, b_k)\n        return acc",
    "acc_next = pl.matmul_acc(acc_iter, a_k, b_k)\n            acc_out = pl.yield_(acc_next)\n        return acc_out",
)

VECTOR_IMPLICIT = """\
import pypto.language as pl


@pl.program
class RowBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        for i in pl.range(0, 64, 16):
            blk = pl.slice(x, [16, 32], [i, 0])
            blk = pl.add(blk, y)
            if i == 16:
                blk = pl.mul(blk, 2.0)
            if i < 32:
                z = pl.add(blk, 1.0)
            else:
                z = pl.mul(blk, blk)
            out = pl.assemble(out, z, [i, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[64, 32], pl.FP32]:
        out = pl.create_tensor([64, 32], dtype=pl.FP32)
        out = self.kernel(x, y, out)
        return out
"""
VECTOR_EXPLICIT = """\
import pypto.language as pl


@pl.program
class RowBlocks:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[64, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32],
               out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        for i, (acc,) in pl.range(0, 64, 16, init_values=(out,)):
            blk = pl.slice(x, [16, 32], [i, 0])
            shifted = pl.add(blk, y)
            if i == 16:
                doubled = pl.mul(shifted, 2.0)
                scaled = pl.yield_(doubled)
            else:
                scaled = pl.yield_(shifted)
            if i < 32:
                plus = pl.add(scaled, 1.0)
                z = pl.yield_(plus)
            else:
                squared = pl.mul(scaled, scaled)
                z = pl.yield_(squared)
            acc_next = pl.assemble(acc, z, [i, 0])
            res = pl.yield_(acc_next)
        return res

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[64, 32], pl.FP32]:
        buffer = pl.create_tensor([64, 32], dtype=pl.FP32)
        result = self.kernel(x, y, buffer)
        return result
"""


@pytest.mark.parametrize("implicit, explicit", [(MATMUL_IMPLICIT, MATMUL_EXPLICIT), (VECTOR_IMPLICIT, VECTOR_EXPLICIT)],
                         ids=["matmul_k_pipeline", "vector_loop_if_assemble"])
def test_compiles_with_every_verifier_and_simulates_like_the_explicit_form(
        implicit: str, explicit: str, tmp_path: Path) -> None:
    rc, log, outputs = _compile_and_simulate(implicit, tmp_path, "implicit")
    assert rc == 0, log
    assert "bit-exact" in log and "differ" not in log
    rc_explicit, log_explicit, explicit_outputs = _compile_and_simulate(explicit, tmp_path, "explicit")
    assert rc_explicit == 0, log_explicit
    assert outputs.keys() == explicit_outputs.keys() and outputs
    for key, value in outputs.items():
        assert value.tobytes().hex() == explicit_outputs[key].tobytes().hex(), key


def test_vector_kernel_matches_numpy_bit_for_bit(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y = rng.standard_normal((16, 32)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x, y=y)
    kernel = tmp_path / "k.py"
    kernel.write_text(VECTOR_IMPLICIT)
    log = io.StringIO()
    with contextlib.redirect_stdout(log), contextlib.redirect_stderr(log), contextlib.chdir(tmp_path):
        rc = main([str(kernel), "--verify-all", "--simulate", "--inputs", str(tmp_path / "in.npz"),
                   "--save-outputs", str(tmp_path / "out.npz"), "-o", str(tmp_path / "k.pto")])
    assert rc == 0, log.getvalue()
    (got,) = dict(np.load(tmp_path / "out.npz")).values()
    expected = np.empty_like(x)
    for i in range(0, 64, 16):
        blk = x[i:i + 16] + y  # FP32 ops round exactly like the vector unit (NUMERICS.md)
        if i == 16:
            blk = blk * np.float32(2.0)
        expected[i:i + 16] = blk + np.float32(1.0) if i < 32 else blk * blk
    assert got.view(np.uint32).tobytes().hex() == expected.view(np.uint32).tobytes().hex()


# --- what Python would read but the IR cannot express --------------------------------------------


def test_use_before_definition_points_at_the_use() -> None:
    error = parse_error("""
        z = pl.add(x, w)
        w = pl.add(x, y)
        return z
        """)
    text = str(error)
    assert "kernel.py:8:23" in text and "`w` is used before it is defined" in text and "kernel.py:9:9" in text


def test_a_name_defined_only_inside_a_loop_cannot_be_read_after_it() -> None:
    error = str(parse_error("""
        for i in pl.range(4):
            t = pl.add(x, y)
        return t
        """))
    assert "kernel.py:10:16" in error and "defined only inside the loop at line 8" in error
    assert "may run zero times" in error and "define `t` before the loop, so that the loop carries it" in error


def test_a_name_defined_in_one_branch_only_cannot_be_read_after_the_if() -> None:
    error = str(parse_error("""
        if n > 0:
            t = pl.add(x, y)
        return t
        """))
    assert "kernel.py:10:16" in error and "defined only in the then-branch of the if at line 8" in error


def test_the_loop_variable_is_not_visible_after_the_loop() -> None:
    error = str(parse_error("""
        for i in pl.range(4):
            x = pl.add(x, y)
        z = pl.muls(x, i)
        return z
        """))
    assert "kernel.py:10:24" in error and "`i` is the variable of the loop at line 8" in error


def test_a_carried_value_must_keep_its_type() -> None:
    error = str(parse_error("""
        for i in pl.range(4):
            x = pl.cast(x, pl.FP16)
        return pl.add(y, pl.cast(x, pl.FP32))
        """))
    assert "kernel.py:9:13" in error and "pl.Tensor[[16, 32], pl.FP32] before the loop" in error
    assert "pl.Tensor[[16, 32], pl.FP16] at the end of its body" in error


def test_both_branches_must_leave_the_same_type() -> None:
    error = str(parse_error("""
        if n > 0:
            x = pl.cast(x, pl.FP16)
        return pl.add(y, pl.cast(x, pl.FP32))
        """))
    assert "kernel.py:9:13" in error and "after the then-branch" in error


def test_a_name_from_a_sibling_branch_is_not_defined_here() -> None:
    error = str(parse_error("""
        if n > 0:
            t = pl.add(x, y)
            z = pl.yield_(t)
        else:
            z = pl.yield_(t)
        return z
        """))
    assert "kernel.py:12:27" in error and "`t` is not defined here" in error

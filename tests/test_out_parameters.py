"""An Out parameter is the kernel's to write: bound over an earlier value (a tensor an earlier
kernel filled), its contents are not the kernel's input. The simulator keeps them out of reach
(a read is reported at the kernel's line, naming the fix: pl.InOut), lets an atomic store
accumulate into them, and a partial write replaces only the elements it writes. This is what
makes a parameter declared Out where it must be InOut (a miscompile of UpgradeParamDirections)
visible to a campaign."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from backend.sim.machine import PoisonRead
from languages.pl_parser import parse_program
from nanopass_pto.run import compare, compile_program, random_inputs, reference, run

Array = npt.NDArray[Any]

PROGRAM = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 16])
        r = pl.store(t, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.InCore)
    def second(self, y: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        BODY
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], y: pl.Tensor[[8, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        a = pl.create_tensor([16, 16], dtype=pl.FP32)
        a1 = self.fill(x, a)
        a2 = self.second(y, a1)
        return a2
"""

WRITE_BOTTOM = "t = pl.load(y, [0, 0], [8, 16])\n        r = pl.store(t, [8, 0], out)"
ADD_TO_BOTTOM = "t = pl.load(y, [0, 0], [8, 16])\n        r = pl.store(t, [8, 0], out, atomic=pl.AtomicType.Add)"
READ_TOP = "t = pl.load(out, [0, 0], [8, 16])\n        r = pl.store(t, [8, 0], out)"


def _outputs(body: str, backend: str) -> tuple[dict[str, Array], dict[str, Array]]:
    compiled = compile_program(parse_program(PROGRAM.replace("BODY", body), "p.py"), backend=backend, verify_all=True)
    inputs = random_inputs(compiled.source, 2)
    outputs = run(compiled, inputs)
    reports = compare(reference(compiled.source, inputs), outputs)
    assert reports and all(r.ok for r in reports), reports
    return outputs, inputs


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_partial_write_keeps_the_rest_of_the_earlier_value(backend: str) -> None:
    outputs, inputs = _outputs(WRITE_BOTTOM, backend)
    x, y = (np.asarray(inputs[n], dtype=np.float32) for n in ("x", "y"))
    got = np.asarray(outputs["ret0"], dtype=np.float32)
    assert got[:8].view(np.uint32).tolist() == x[:8].view(np.uint32).tolist()
    assert got[8:].view(np.uint32).tolist() == y.view(np.uint32).tolist()


def test_an_atomic_store_accumulates_into_the_earlier_value() -> None:
    outputs, inputs = _outputs(ADD_TO_BOTTOM, "Ascend910B")
    x, y = (np.asarray(inputs[n], dtype=np.float32) for n in ("x", "y"))
    got = np.asarray(outputs["ret0"], dtype=np.float32)
    assert got[:8].view(np.uint32).tolist() == x[:8].view(np.uint32).tolist()
    assert got[8:].view(np.uint32).tolist() == (x[8:] + y).view(np.uint32).tolist()


def test_reading_an_out_parameter_is_reported_at_the_kernels_line() -> None:
    compiled = compile_program(parse_program(PROGRAM.replace("BODY", READ_TOP), "p.py"), verify_all=True)
    with pytest.raises(PoisonRead, match="an Out parameter this kernel has not written") as err:
        run(compiled, random_inputs(compiled.source, 2))
    assert "pl.InOut" in str(err.value) and str(err.value).startswith("p.py:14:")

"""Unsigned scalars reach PTO as MLIR wants them: integer scalars, constants and GM pointers
are signless (`'arith.constant' op integer return type must be signless`, `'pto.load_scalar' op
expects result type to match ptr element type`), the operation says how the bits are read
(divui / remui / cmpi ult ...), and tiles keep their `uiN` element type. The simulator reads the
text the same way: a signless GM integer loads into a uiN tile bit for bit, and divui / cmpi
ugt read their operands unsigned, so values at and above 2**15 compare and divide as the
interpreter's UINT16 arithmetic does."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from backend.pto_text.parser import parse_mlir
from backend.pto_text.printer import print_mlir
from languages.pl_parser import parse_program
from nanopass_pto.run import compare, compile_program, reference, run
from tests.test_ptoas import ARCH, PTOAS, needs_ptoas

KERNEL = '''import pypto.language as pl


@pl.program
class UnsignedScalars:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.UINT16], n: pl.Tensor[[1, 16], pl.UINT16]) -> pl.Tensor[[16, 16], pl.UINT16]:
        s = pl.tensor.read(n, [0, 0])
        d = pl.tensor.read(n, [0, 1])
        q = s // d
        r = s % d
        y = pl.add(x, 40000)
        if q > r:
            y = pl.add(y, q)
        else:
            y = pl.add(y, r)
        return y
'''


@pytest.mark.parametrize("backend", list(ARCH))
def test_unsigned_scalars_print_signless_and_read_unsigned(backend: str) -> None:
    compiled = compile_program(parse_program(KERNEL, "k.py"), backend=backend, verify_all=True)
    text = print_mlir(compiled.final, emit_loc=False)  # type: ignore[arg-type]
    assert "arith.constant 40000 : i16" in text and "!pto.ptr<i16>" in text
    assert re.search(r"arith\.divui .*: i16", text) and re.search(r"arith\.remui .*: i16", text)
    assert "arith.cmpi ugt" in text and "dtype=ui16" in text
    assert not re.search(r"(: |, |ptr<|x)ui16\b(?!,)", text.replace("dtype=ui16", "")), text
    shipped = parse_mlir(text, "k.pto")
    x = (np.arange(256, dtype=np.uint32) * 997 % 65536).astype(np.uint16).reshape(16, 16)
    for s, d in ((50000, 7), (7, 50000), (65535, 2), (3, 3)):
        inputs = {"x": x, "n": np.array([[s, d] + [1] * 14], dtype=np.uint16)}
        reports = compare(reference(compiled.source, inputs), run(compiled.shipping(shipped), inputs))
        assert all(r.ok for r in reports), (s, d, [r.line for r in reports])


@needs_ptoas
@pytest.mark.parametrize("backend", list(ARCH))
def test_ptoas_accepts_unsigned_scalar_arithmetic(backend: str, tmp_path: Path) -> None:
    compiled = compile_program(parse_program(KERNEL, "k.py"), backend=backend)
    pto = tmp_path / "k.pto"
    pto.write_text(print_mlir(compiled.final, emit_loc=False))  # type: ignore[arg-type]
    assert PTOAS is not None
    result = subprocess.run([str(PTOAS), f"--pto-arch={ARCH[backend]}", "--pto-level=level3", str(pto), "-o",
                             str(tmp_path / "k.cpp")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr

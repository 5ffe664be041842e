"""The bundled @pl.jit examples, called from Python on NumPy arrays as a user would: each example's
`__main__` block runs the kernel (compiled and simulated) and asserts against NumPy."""

from __future__ import annotations

import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import _nanopass_pypto_alias

ROOT = Path(__file__).resolve().parent.parent
JIT_EXAMPLES = sorted((ROOT / "examples").glob("jit_*.py"))


def test_there_are_jit_examples() -> None:
    assert len(JIT_EXAMPLES) >= 8


@pytest.mark.parametrize("path", JIT_EXAMPLES, ids=lambda p: p.stem)
def test_example_called_from_python_agrees_with_numpy(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _nanopass_pypto_alias.install()  # what the installed .pth does at interpreter start
    runpy.run_path(str(path), run_name="__main__")
    assert ": ok" in capsys.readouterr().out


def test_a_kernel_file_imports_and_its_kernel_writes_the_out_array(tmp_path: Path) -> None:
    kernel = tmp_path / "my_kernel.py"
    kernel.write_text(textwrap.dedent('''
        import pypto.language as pl

        @pl.jit
        def scale(x: pl.Tensor, y: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.mul(pl.load(x, [0, 0], [16, 64]), 3.0), [0, 0], y)
            return y
    '''))
    sys.path.insert(0, str(tmp_path))
    try:
        _nanopass_pypto_alias.install()
        module = __import__("my_kernel")
        x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
        y = np.zeros_like(x)
        assert module.scale(x, y) is None
        assert np.array_equal(y, x * np.float32(3.0))
        module.scale(x, y)  # the same shapes: the cached compile
        assert len(module.scale._cache) == 1
        with pytest.raises(TypeError, match="missing a required argument"):
            module.scale(x)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("my_kernel", None)


def test_an_installed_pypto_is_never_shadowed(tmp_path: Path) -> None:
    fake = tmp_path / "pypto" / "language"
    fake.mkdir(parents=True)
    (tmp_path / "pypto" / "__init__.py").write_text("REAL = True\n")
    (fake / "__init__.py").write_text("")
    code = "import _nanopass_pypto_alias, pypto; print(getattr(pypto, 'REAL', False))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={"PYTHONPATH": f"{tmp_path}:{ROOT}", "PATH": ""})
    assert result.stdout.strip() == "True", result.stderr
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert result.stdout.strip() == "False", result.stderr

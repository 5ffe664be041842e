"""Build hooks (pyproject.toml says everything else):

- the one compiled extension, `backend._mad` (the cube MAD chain and block moves at machine
  speed; see backend/_mad.c). It is optional: where no C compiler is available the install
  still succeeds and `backend.numerics` / `backend.sim` run their NumPy paths (same bits, slower);
- `nanopass_pto_pypto.pth` shipped into site-packages, in regular and editable installs: the
  line it holds makes `import pypto.language as pl` find this compiler's `pl` module when PyPTO
  itself is not installed (see `_nanopass_pypto_alias.py`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

PTH = "nanopass_pto_pypto.pth"
HERE = Path(__file__).resolve().parent


class BuildWithPth(build_py):
    """A regular wheel: the .pth sits at the root of build_lib, i.e. of site-packages."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            shutil.copyfile(HERE / PTH, Path(self.build_lib) / PTH)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not getattr(self, "editable_mode", False):
            outputs.append(str(Path(self.build_lib) / PTH))
        return outputs


class EditableWithPth(editable_wheel):
    """An editable wheel holds only the finder and its .pth: add ours beside them."""

    def _select_strategy(self, *args: Any, **kwargs: Any) -> Any:
        strategy = super()._select_strategy(*args, **kwargs)

        class WithPth:
            def __call__(self, wheel: Any, files: Any, mapping: Any) -> None:
                strategy(wheel, files, mapping)
                wheel.writestr(PTH, (HERE / PTH).read_bytes())

            def __enter__(self) -> Any:
                strategy.__enter__()
                return self

            def __exit__(self, *exc: Any) -> Any:
                return strategy.__exit__(*exc)

        return WithPth()


MAD_EXTENSION = Extension(
    "backend._mad",
    ["backend/_mad.c"],
    # Never -ffast-math / -Ofast: subnormals and IEEE fma are the semantics.
    extra_compile_args=["-O2", "-fno-fast-math", "-fno-finite-math-only"],
    optional=True,
)

setup(ext_modules=[MAD_EXTENSION], cmdclass={"build_py": BuildWithPth, "editable_wheel": EditableWithPth})

"""Provides the import name `pypto` (PyPTO's `import pypto.language as pl`) for kernel files when
the real PyPTO is not installed, so a kernel written for PyPTO runs on this compiler unchanged.

Installed by `nanopass_pto_pypto.pth`, which the interpreter runs at start-up: it appends a
finder at the *end* of `sys.meta_path`, after the regular path finder, so an installed PyPTO is
always found first and never shadowed. The finder answers `pypto` and its submodules from
`nanopass_pto.pypto` (`pypto.language`, the `pl` module, is `nanopass_pto.language`), importing nothing until a
kernel file asks for `pypto`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Sequence

from typing_extensions import override

ALIASED = "pypto"
# Longest prefix first: `pypto.language` is the `pl` module itself, the rest lives in nanopass_pto.pypto.
TARGETS = (("pypto.language", "nanopass_pto.language"), ("pypto", "nanopass_pto.pypto"))


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    @override
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    @override
    def exec_module(self, module: ModuleType) -> None:
        """The target module is already executed by its own import."""


class PyptoAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves `pypto[.x.y]` to `nanopass_pto.pypto[.x.y]` (consulted only after every other
    finder came back empty)."""

    @override
    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != ALIASED and not fullname.startswith(ALIASED + "."):
            return None
        prefix, home = next((p, t) for p, t in TARGETS if fullname == p or fullname.startswith(p + "."))
        real = home + fullname[len(prefix):]
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(real), is_package=True)


def install() -> None:
    if not any(isinstance(finder, PyptoAliasFinder) for finder in sys.meta_path):
        sys.meta_path.append(PyptoAliasFinder())


install()

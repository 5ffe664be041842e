"""Collects the fuzzer's regression files: every `fuzz_*.py` here is a shrunk failing program in
the pl DSL under a `# fuzz-regression:` header (verdict, blamed pass, input seed, backend,
pipeline). Each becomes one test that re-checks the program with today's compiler (verify-all,
simulate, interpret, compare bits) and fails until the bug is fixed.

Replay one by hand:  python -m nanopass.pipeline FILE --verify-all --simulate --seed SEED
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from typing_extensions import override

MARK = "# fuzz-regression:"


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.suffix == ".py" and file_path.name.startswith("fuzz_"):
        with file_path.open() as handle:
            if handle.readline().startswith(MARK):
                return RegressionFile.from_parent(parent, path=file_path)
    return None


class RegressionFile(pytest.File):
    @override
    def collect(self) -> Iterator[pytest.Item]:
        yield RegressionItem.from_parent(self, name=self.path.stem)


class RegressionItem(pytest.Item):
    @override
    def runtest(self) -> None:
        from nanopass_pto.fuzz_target import replay

        outcome = replay(self.path)
        if outcome.failed:
            raise RegressionFailure(outcome)

    @override
    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, RegressionFailure):
            outcome = excinfo.value.outcome
            return f"{self.path.name}: still fails: {outcome.headline()}\n{outcome.detail}"
        return str(super().repr_failure(excinfo))

    @override
    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"fuzz regression {self.name}"


class RegressionFailure(Exception):
    def __init__(self, outcome: Any) -> None:
        super().__init__(outcome.headline())
        self.outcome = outcome

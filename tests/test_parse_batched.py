"""A large `pl` file is parsed a batch of methods at a time (languages/pl_parser.py
`_parse_batched`: the whole file's Python AST was the peak of a 10^5-op compile). The batched
parse must give exactly the program, spans included, that the whole-file parse gives, and must
step aside (parse whole) wherever the file's layout is not the plain one it relies on."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import languages.pl_parser as pl_parser
from nanopass.diagnostics import CompileError
from nanopass.node import Node, walk

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import _common  # noqa: E402  (bench/_common.py: the synthetic chains of the growth rows)

FILES = sorted([*ROOT.glob("examples/*.py"), *ROOT.glob("tests/kernels/*/*.py")])


def _spans(program: Node) -> list[tuple[str, object]]:
    return [(type(n).__name__, getattr(n, "span", None)) for n in walk(program)]


def _whole(text: str, name: str, monkeypatch: pytest.MonkeyPatch) -> Node | str:
    monkeypatch.setattr(pl_parser, "_BATCHED_FROM_BYTES", 1 << 62)
    try:
        return pl_parser.parse_program(text, name)
    except CompileError as err:
        return str(err)


def _batched(text: str, name: str, monkeypatch: pytest.MonkeyPatch) -> Node | str:
    monkeypatch.setattr(pl_parser, "_BATCHED_FROM_BYTES", 0)
    monkeypatch.setattr(pl_parser, "_BATCH_LINES", 7)  # several batches even in small files
    try:
        return pl_parser.parse_program(text, name)
    except CompileError as err:
        return str(err)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_batched_parse_equals_the_whole_file_parse(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = path.read_text()
    whole, batched = _whole(text, str(path), monkeypatch), _batched(text, str(path), monkeypatch)
    assert type(whole) is type(batched)
    if isinstance(whole, Node):
        assert isinstance(batched, Node)
        assert whole == batched and _spans(whole) == _spans(batched)
    else:
        assert whole == batched


def test_the_synthetic_chains_take_the_batched_path_and_match(monkeypatch: pytest.MonkeyPatch) -> None:
    source = _common.synthetic_source(6, 40)
    lines = source.text.splitlines(keepends=True)
    monkeypatch.setattr(pl_parser, "_BATCH_LINES", 50)
    assert pl_parser._parse_batched(source.text, source.filename, None, None) is not None
    whole, batched = _whole(source.text, source.filename, monkeypatch), _batched(source.text, source.filename, monkeypatch)
    assert isinstance(whole, Node) and isinstance(batched, Node)
    assert whole == batched and _spans(whole) == _spans(batched)
    assert len(lines) > 50


@pytest.mark.parametrize("layout", [
    "a method-level string with a class-level line",
    "module code after the class",
    "a class attribute between methods",
])
def test_the_batched_parse_steps_aside_for_layouts_it_does_not_know(layout: str,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    text = _common.synthetic_source(2, 3).text
    if layout == "a method-level string with a class-level line":
        text = text.replace("        return t2\n", '        """doc\n    def fake(self):\n"""\n        return t2\n', 1)
    elif layout == "module code after the class":
        text += "\nprint('driver')\n"
    else:
        text = text.replace("    @pl.function(type=pl.FunctionType.Orchestration)",
                            "    limit = 3\n\n    @pl.function(type=pl.FunctionType.Orchestration)")
    assert pl_parser._parse_batched(text, "f.py", None, None) is None
    whole, batched = _whole(text, "f.py", monkeypatch), _batched(text, "f.py", monkeypatch)
    assert (whole == batched) if isinstance(whole, str) else (isinstance(batched, Node) and _spans(whole) == _spans(batched))

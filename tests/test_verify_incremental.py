"""--verify-all re-checks only what a pass changed, and every shortcut it takes is sound.

- The traversal memos keep every function of a large program between verifiers (counted: each
  function is walked once when a 1000-function program is loaded and verified), and
  TypeChecked's per-function verdicts hit on a program larger than its old fixed memo.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import nanopass.node as node_module
import verifiers.type_checked as type_checked
from nanopass.node import Node
from nanopass.plugin import CompilerPlugin, get_plugin

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from _common import synthetic_source  # noqa: E402


@pytest.fixture(scope="module")
def plugin() -> CompilerPlugin:
    return get_plugin()


def test_each_function_of_a_large_program_is_walked_once_when_loaded(plugin: CompilerPlugin,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    program = plugin.parse(synthetic_source(600, 4).text, "<large>")
    walks: dict[int, int] = {}
    flat = node_module._flat_preorder

    def counted(node: Node) -> tuple[Node, ...]:
        if node.KIND == "Function":
            walks[id(node)] = walks.get(id(node), 0) + 1
        return flat(node)

    monkeypatch.setattr(node_module, "_flat_preorder", counted)
    plugin.verify_loaded(program, target=plugin.make_backend(plugin.default_backend))
    assert len(walks) == 601 and max(walks.values()) == 1


def test_type_checked_reuses_its_verdicts_on_a_large_program(plugin: CompilerPlugin,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    program = plugin.parse(synthetic_source(600, 4).text, "<large>")
    checked: list[Node] = []
    check_nodes = type_checked._check_nodes

    def counted(nodes: object, *rest: object) -> object:
        checked.append(nodes)  # type: ignore[arg-type]
        return check_nodes(nodes, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(type_checked, "_check_nodes", counted)
    assert type_checked.verify(program) == []
    assert len(checked) == 601
    assert type_checked.verify(program) == []  # the same functions again: every verdict is kept
    assert len(checked) == 601

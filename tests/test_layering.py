"""The house follows the pipeline (ARCHITECTURE.md section 9), read from the imports themselves.

Every `import` and `from ... import` of every module is checked, including the lazy ones inside
functions and relative imports:

    floor 1  nanopass/        the framework: imports none of the others
    floor 2  languages/       declarations, op registry, layout and function facts
    floor 3  verifiers/       read languages; never passes, never the back end
             backend/         rooms with one job each; never passes, never verifiers
    floor 4  passes/          may use everything below
    floor 5  nanopass_pto/    the composition root, the run API, the CLI and fuzz drivers

A module imports its own package or a package on a lower floor, never one above it and never
its neighbour on the same floor; passes and verifiers share facts, never code, so passes import
no verifier either.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from languages.decls import LANGUAGES
from languages.operand_forms import OPERAND_FORMS
from languages.type_forms import TYPE_FORMS

ROOT = Path(__file__).resolve().parent.parent
FLOORS = {"nanopass": 1, "languages": 2, "verifiers": 3, "backend": 3, "passes": 4, "nanopass_pto": 5}

# Packages that never import each other whatever their floors: a check that shares code with
# what it checks agrees with it when both are wrong.
APART = frozenset({("passes", "verifiers")})

# Rooms of the back end that must stay apart: the reference interpreter and the simulator are
# compared with each other, so neither may run on the other's code.
BACKEND_APART = (("backend.interpreter", "backend.sim"), ("backend.sim", "backend.interpreter"))


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, imported module) for every import statement in the file, at any depth."""
    module = _module_name(path, root)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                found.append((node.lineno, ".".join(base + ([node.module] if node.module else []))))
            elif node.module:
                found.append((node.lineno, node.module))
    return found


def _violations(root: Path = ROOT) -> list[str]:
    problems: list[str] = []
    for path in sorted(p for top in FLOORS for p in (root / top).rglob("*.py")):
        importer = _module_name(path, root)
        home = importer.split(".")[0]
        where = f"{path.relative_to(root)}"
        for line, imported in _imports(path, root):
            target = imported.split(".")[0]
            if target not in FLOORS or target == home:
                if target == home == "backend":
                    problems.extend(_backend_room_violation(importer, imported, f"{where}:{line}"))
                continue
            if (home, target) in APART:
                problems.append(f"{where}:{line}: {importer} imports {imported}: {home} and {target} share "
                                "facts (languages/, the target handlers), never code")
            elif FLOORS[target] >= FLOORS[home]:
                side = "above" if FLOORS[target] > FLOORS[home] else "beside"
                problems.append(f"{where}:{line}: {importer} imports {imported}, which sits {side} it "
                                f"(floor {FLOORS[target]} vs {FLOORS[home]})")
    return problems


def _backend_room_violation(importer: str, imported: str, where: str) -> list[str]:
    for room, forbidden in BACKEND_APART:
        if (importer == room or importer.startswith(room + ".")) and (
                imported == forbidden or imported.startswith(forbidden + ".")):
            return [f"{where}: {importer} imports {imported}: the interpreter and the simulator are "
                    "compared with each other and must not share code"]
    return []


def test_no_import_runs_up_the_floors() -> None:
    assert _violations() == []


def test_the_check_finds_lazy_relative_and_sideways_imports(tmp_path: Path) -> None:
    planted = {
        "languages/facts.py": "def f():\n    from passes.registry import PASSES\n    return PASSES\n",
        "verifiers/check.py": "import backend.numerics\n",
        "backend/sim/run.py": "from ..interpreter import interpret\n",
        "passes/uses_check.py": "from verifiers import grammar\n",
        "passes/ok.py": "from languages import layout\nfrom . import ok\n",
    }
    for name, text in planted.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = _violations(tmp_path)
    assert len(found) == 4, found
    assert found[0].startswith("backend/sim/run.py:1: backend.sim.run imports backend.interpreter")
    assert found[1].startswith("languages/facts.py:2: languages.facts imports passes.registry, which sits above")
    assert found[2].startswith("passes/uses_check.py:1: passes.uses_check imports verifiers: passes and verifiers")
    assert found[3].startswith("verifiers/check.py:1: verifiers.check imports backend.numerics, which sits beside")


def test_the_framework_names_no_client_module() -> None:
    """nanopass/ finds the compiler by entry point; the only name it spells is the source-checkout
    fallback, as a string."""
    for path in (ROOT / "nanopass").rglob("*.py"):
        for _, imported in _imports(path):
            assert imported.split(".")[0] not in FLOORS or imported.startswith("nanopass"), (path, imported)


@pytest.mark.parametrize("room", sorted(
    p for p in (ROOT / "backend").iterdir()
    if (p.suffix == ".py" and p.name != "__init__.py") or (p.is_dir() and (p / "__init__.py").exists())))
def test_every_backend_room_says_its_job(room: Path) -> None:
    module = room / "__init__.py" if room.is_dir() else room
    doc = ast.get_docstring(ast.parse(module.read_text()))
    assert doc, f"{room.relative_to(ROOT)} has no docstring saying its job"
    assert len(doc.splitlines()[0]) <= 100, "the job fits one line"


def test_every_form_a_language_names_has_a_meaning() -> None:
    for lang in LANGUAGES:
        assert lang.type_forms <= TYPE_FORMS.keys(), lang.name
        assert lang.operand_forms <= OPERAND_FORMS.keys(), lang.name


def test_languages_differ_by_declaration() -> None:
    """A language that differs from its parent only by an invariant says so in its declaration
    (a type form, operand form, op or kind) -- never an identical grammar under a new name."""
    for lang in LANGUAGES:
        parent = lang.parent
        if parent is None:
            continue
        same = (lang.kinds == parent.kinds and lang.type_forms == parent.type_forms
                and lang.op_patterns == parent.op_patterns and lang.operand_forms == parent.operand_forms)
        assert not same, f"{lang.name} declares nothing its parent {parent.name} does not"

"""The README's commands work as written: every block marked `<!-- runnable -->` is run line by
line, in order, from a scratch directory holding a copy of `examples/` (what a new user types
after cloning). Lines of one block share the directory (a later line may read an earlier one's
output, as `--dump-dir D` then a dump)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARK = "<!-- runnable -->"


def runnable_blocks() -> list[list[str]]:
    text = README.read_text()
    blocks: list[list[str]] = []
    for match in re.finditer(r"^" + re.escape(MARK) + r"\n```(?:sh|bash)\n(.*?)```", text, re.S | re.M):
        lines = [line for line in match.group(1).splitlines() if line.strip() and not line.lstrip().startswith("#")]
        blocks.append(lines)
    return blocks


BLOCKS = runnable_blocks()


def test_the_readme_has_runnable_blocks() -> None:
    assert text_count() == len(BLOCKS) >= 3, "every runnable mark is followed by a ```sh block"
    assert all(BLOCKS)
    commands = [line.split("  #")[0] for block in BLOCKS for line in block]  # a trailing comment may say "..."
    assert not any("..." in command or "KERNEL" in command for command in commands), "no placeholder in a runnable command"


def text_count() -> int:
    return len(re.findall(rf"^{re.escape(MARK)}$", README.read_text(), re.M))


@pytest.mark.parametrize("index", range(len(BLOCKS)), ids=lambda i: f"block{i}")
def test_readme_block_runs_as_written(index: int, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    bindir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if k not in ("NANOPASS_PLUGIN",)}
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    for line in BLOCKS[index]:
        result = subprocess.run(["bash", "-c", f"set -euo pipefail; python() {{ {shlex_quote(sys.executable)} \"$@\"; }}; {line}"],
                                cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
                                stdin=subprocess.DEVNULL)
        assert result.returncode == 0, f"README command failed: {line}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
        assert "Traceback" not in result.stderr, line
    assert not (tmp_path / "nanopass_repro").exists()


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)

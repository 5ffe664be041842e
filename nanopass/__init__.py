"""nanopass: a framework for compilers built from many tiny passes between typed languages.

`nanopass.parse(text)` / `nanopass.load(path)` read a program with the installed compiler
plugin (see `nanopass.plugin`); `nanopass.pipeline.Pipeline` runs passes on it.
"""

from __future__ import annotations

from pathlib import Path

from nanopass.node import Node


def parse(text: str, filename: str = "<string>") -> Node:
    """Parse program text with the installed compiler plugin (its first language or whichever
    language the text is written in)."""
    from nanopass.plugin import get_plugin

    return get_plugin().parse(text, filename)


def load(path: str | Path) -> Node:
    """Read and parse a program file."""
    return parse(Path(path).read_text(), str(path))


__all__ = ["parse", "load", "Node"]

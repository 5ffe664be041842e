"""What every `python -m nanopass.*` entry point shares."""

from __future__ import annotations

import gc
import os
import sys
from typing import Callable, NoReturn

# IR nodes are immutable trees (no reference cycles), so the cyclic collector finds nothing in
# them; at the default gen-0 threshold of 700 it still re-scans every young node many times per
# pass. Collecting rarely makes a compile ~30% faster (ANCHORS.md measures the same effect).
COMPILER_GC_THRESHOLD = (50_000, 20, 20)


def tune_gc_for_compilation() -> None:
    gc.set_threshold(*COMPILER_GC_THRESHOLD)


def run_main(main: Callable[[], int]) -> NoReturn:
    """Exit with `main()`'s status. A reader that closes the pipe early (`... | head`) ends the
    program quietly, as Unix tools do, instead of with a BrokenPipeError traceback."""
    tune_gc_for_compilation()
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python flushes stdout again at exit and would report the same broken pipe there.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = 1
    sys.exit(status)

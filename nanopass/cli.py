"""What every `python -m nanopass.*` entry point shares."""

from __future__ import annotations

import os
import sys
from typing import Callable, NoReturn


def run_main(main: Callable[[], int]) -> NoReturn:
    """Exit with `main()`'s status. A reader that closes the pipe early (`... | head`) ends the
    program quietly, as Unix tools do, instead of with a BrokenPipeError traceback."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python flushes stdout again at exit and would report the same broken pipe there.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = 1
    sys.exit(status)

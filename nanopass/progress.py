"""Progress of long work: a live line on a terminal, periodic plain lines in a log.

On a TTY the line is rewritten in place (`\\r`) at most `refresh` times a second; anywhere else
(CI logs, files, pipes) a full line is written every `interval` seconds and once at the end, so
a log shows the run's pace without a carriage-return smear.
"""

from __future__ import annotations

import time
from typing import TextIO


class Progress:
    def __init__(self, stream: TextIO, interval: float = 10.0, refresh: float = 0.2, live: bool | None = None) -> None:
        self.stream = stream
        isatty = getattr(stream, "isatty", None)
        self.live = bool(isatty and isatty()) if live is None else live
        self.interval = interval
        self.refresh = refresh
        self._last = 0.0
        self._width = 0
        self._text = ""

    def update(self, text: str, force: bool = False) -> None:
        self._text = text
        now = time.monotonic()
        if not force and now - self._last < (self.refresh if self.live else self.interval):
            return
        self._last = now
        if self.live:
            self.stream.write("\r" + text.ljust(self._width))
            self._width = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Show the final state (always) and end the live line."""
        if self._text:
            self.update(self._text, force=True)
        if self.live and self._width:
            self.stream.write("\n")
        self.stream.flush()

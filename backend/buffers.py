"""Big per-run buffers kept for the next run.

Every simulated launch starts a fresh machine (1-2 MB of on-chip spaces and written flags) and
every host run copies its inputs. Allocated anew, such arrays are fresh pages once the
allocator has returned the last run's to the system (glibc trims a freed heap top, and the
pattern "allocate a few MB, free them all" triggers it): a page fault per 4 KB, ~3 us each
on a loaded machine -- a [512, 512] FP32 add spent 3 of its 4 ms in them. The pool keeps the
buffers whose owner says they are dead (`give`) and hands them out again (`take`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]


class BufferPool:
    """1-D C-contiguous buffers by (size, dtype). A buffer given back must be referenced by no
    one else (its next owner overwrites it)."""

    KEEP = 4  # buffers kept per (size, dtype)

    def __init__(self) -> None:
        self._free: dict[tuple[int, np.dtype[Any]], list[Array]] = {}

    def take(self, size: int, dtype: npt.DTypeLike, fill: int | None = None) -> Array:
        """A writable 1-D array of `size` elements, every one `fill` (None: any contents)."""
        free = self._free.get((size, np.dtype(dtype)))
        try:
            buffer = free.pop() if free else None  # (a run in another thread may take the last)
        except IndexError:
            buffer = None
        if buffer is None:
            return np.empty(size, dtype=dtype) if fill is None else np.full(size, fill, dtype=dtype)
        if fill is not None:
            buffer.fill(fill)
        return buffer

    def give(self, buffer: Array) -> None:
        """Keep `buffer` for a later `take` (only whole 1-D arrays, not views)."""
        if buffer.ndim != 1 or not buffer.flags.c_contiguous or not buffer.flags.writeable or buffer.base is not None:
            return
        free = self._free.setdefault((buffer.size, buffer.dtype), [])
        if len(free) < self.KEEP and all(kept is not buffer for kept in free):
            free.append(buffer)

    def copy_of(self, array: Array) -> Array:
        """A copy of `array` (C order, same shape and dtype) in a pooled buffer; `give_back`
        returns it."""
        out = self.take(array.size, array.dtype).reshape(array.shape)
        np.copyto(out, array)
        return out

    def give_back(self, array: Array) -> None:
        """Return the buffer under a `copy_of` result (whose every view is dead)."""
        owner = array.base if array.base is not None else array
        if isinstance(owner, np.ndarray) and owner.size == array.size:
            self.give(owner)


POOL = BufferPool()

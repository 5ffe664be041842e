"""Cross-core FIFOs and the scheduler that runs the cores of one Group launch.

A Group function launches its AIC and AIV kernels together; they exchange tiles through one FIFO
per direction (`tpush_*` appends, `tpop_*` takes the oldest entry). Once a side initialises its
pipe, the FIFO has that many slots: a slot is taken from its push until the consumer frees it
(`tfree`) after the pop, and a push into a full FIFO waits, as on the hardware.  Both the reference
interpreter and the simulator run the sides through `run_group`: each side is a coroutine that
runs until it finishes or pops an empty FIFO, then hands control to the next side that can make
progress, in launch order (AIC first).  An all-core barrier (a mix syncall) holds a side until
every side has arrived at it.  Only one side runs at a time, so a run is deterministic; when
every unfinished side waits on an empty FIFO (or at a barrier) the launch deadlocks and that is
reported.

What travels through a FIFO is opaque here: the interpreter pushes values, the simulator pushes
slot contents (the compacted valid rectangle, NUMERICS.md §5).  The coroutines are carried by
threads that hand a single turn to each other (the interpreter and the simulator are ordinary
recursive code that cannot itself yield).
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from nanopass.diagnostics import CompileError, Diagnostic

RULE = "CrossCore"
# FIFO names: the core that pops from it (the tile ops' semantics key: ("tpush", "aiv") pushes
# into the FIFO the AIV pops with ("tpop", "aiv")).
FIFO_WORDS = {"aiv": "cube → vector", "aic": "vector → cube"}


class CrossCoreError(CompileError):
    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(Diagnostic(RULE, message, hint=hint))
        self.message = message


class _Aborted(BaseException):
    """Raised in a waiting side when another side failed: the launch is over."""


@dataclass
class _Launch:
    names: Sequence[str]
    fifos: dict[str, deque[Any]] = field(default_factory=lambda: {"aiv": deque(), "aic": deque()})
    cond: threading.Condition = field(default_factory=threading.Condition)
    turn: int = -1
    waiting: list[str | None] = field(default_factory=list)
    # The FIFO a side waits to push into (all its slots taken), per side.
    full: list[str | None] = field(default_factory=list)
    done: list[bool] = field(default_factory=list)
    aborted: bool = False
    # A FIFO whose pipe was initialised has `slots` slots; a slot is taken from its push until
    # the consumer frees it (tfree) after its pop. Unconfigured FIFOs are unbounded.
    slots: dict[str, int] = field(default_factory=dict)
    held: dict[str, int] = field(default_factory=lambda: {"aiv": 0, "aic": 0})
    # All-core barriers each side has arrived at, and the one a side waits at (its count).
    arrived: list[int] = field(default_factory=list)
    at_barrier: list[int | None] = field(default_factory=list)

    def has_room(self, fifo: str) -> bool:
        capacity = self.slots.get(fifo)
        return capacity is None or len(self.fifos[fifo]) + self.held[fifo] < capacity

    def runnable(self, index: int) -> bool:
        if self.done[index]:
            return False
        fifo, full = self.waiting[index], self.full[index]
        barrier = self.at_barrier[index]
        if barrier is not None:
            return all(count >= barrier for count in self.arrived)
        if full is not None:
            return self.has_room(full)
        return fifo is None or bool(self.fifos[fifo])

    def pass_turn(self, index: int) -> bool:
        """Give the turn to the next side (after `index`) that can run; False if none can."""
        count = len(self.names)
        for step in range(1, count + 1):
            other = (index + step) % count
            if self.runnable(other):
                self.turn = other
                self.cond.notify_all()
                return True
        return False

    def wait_turn(self, index: int) -> None:
        while self.turn != index and not self.aborted:
            self.cond.wait()
        if self.aborted:
            raise _Aborted()

    def deadlock(self) -> CrossCoreError:
        stuck = [f"{name} waits at all-core barrier #{barrier} the other core does not reach" if barrier is not None
                 else f"{name} waits on the empty {FIFO_WORDS.get(fifo or '', fifo)} FIFO" if full is None else
                 f"{name} waits for a free slot of the {FIFO_WORDS.get(full, full)} FIFO "
                 f"({self.held[full]} popped and not freed)"
                 for name, fifo, full, barrier, done in zip(self.names, self.waiting, self.full, self.at_barrier,
                                                            self.done) if not done]
        return CrossCoreError("cross-core deadlock: " + "; ".join(stuck),
                              "every tpop needs a matching tpush on the other core, in the same order, "
                              "every popped slot a tfree once the popped tile is dead, and every core the "
                              "same all-core barriers")


_current = threading.local()


def _side() -> tuple[_Launch, int]:
    launch: _Launch | None = getattr(_current, "launch", None)
    if launch is None:
        raise CrossCoreError("a cross-core tpush / tpop ran outside a Group launch",
                             "run the AIC and AIV kernels through their Group function")
    return launch, int(_current.index)


def configure(fifo: str, slots: int) -> None:
    """The pipe of FIFO `fifo` was initialised with `slots` slots."""
    launch, _ = _side()
    with launch.cond:
        launch.slots[fifo] = slots


# pto-isa's pipe directions (dir_mask bits) and the FIFO each fills: cube -> vector is popped on
# the vector core ("aiv"), vector -> cube on the cube core ("aic").
_DIRECTION_FIFOS = {1: "aiv", 2: "aic"}


def configure_pipe(dir_mask: object, slot_num: object) -> None:
    """An initialize_pipe: every direction of `dir_mask` gets `slot_num` slots."""
    if not isinstance(dir_mask, int) or not isinstance(slot_num, int) or slot_num <= 0:
        return
    for bit, fifo in _DIRECTION_FIFOS.items():
        if dir_mask & bit:
            configure(fifo, slot_num)


# The tensors of the Group launch in progress that no one had written when it started (ids of
# their arrays): an Out parameter's input is not bound, so only such a buffer is one the
# launch's kernels share in place before one of them writes it (nanopass_pto/run.py).
_FRESH_AT_LAUNCH: set[int] = set()


@contextlib.contextmanager
def launch_with_fresh(arrays: Iterable[object]) -> Iterator[None]:
    """While a Group launch runs: `arrays` are the ones it found unwritten at its start."""
    _FRESH_AT_LAUNCH.update(id(a) for a in arrays)
    try:
        yield
    finally:
        _FRESH_AT_LAUNCH.clear()


def fresh_at_launch(array: object) -> bool:
    """Whether `array` was unwritten when the Group launch in progress started (False outside one)."""
    return id(array) in _FRESH_AT_LAUNCH


def _wait_for_another_side(launch: _Launch, index: int) -> None:
    """Hand the turn to another side that can go on (this one waits, under `launch.cond`); with
    none left, the launch is a deadlock: every side is told, and this one raises it."""
    if not launch.pass_turn(index):
        launch.aborted = True
        launch.cond.notify_all()
        raise launch.deadlock()
    launch.wait_turn(index)


def push(fifo: str, item: Any) -> None:
    """Append `item` to the FIFO popped by core `fifo` ("aiv" or "aic"); with every slot taken
    (pushed, or popped and not yet freed) this side waits until the consumer frees one."""
    launch, index = _side()
    with launch.cond:
        while not launch.has_room(fifo):
            launch.full[index] = fifo
            _wait_for_another_side(launch, index)
        launch.full[index] = None
        launch.fifos[fifo].append(item)


def free(fifo: str) -> None:
    """The consumer of FIFO `fifo` releases the oldest slot it popped."""
    launch, _ = _side()
    with launch.cond:
        if fifo not in launch.slots:
            return  # an unconfigured pipe has no slots to account for
        if launch.held[fifo] <= 0:
            raise CrossCoreError(f"a tfree on the {FIFO_WORDS[fifo]} FIFO releases no popped slot",
                                 "free each popped tile once, after its tpop")
        launch.held[fifo] -= 1


def pop(fifo: str) -> Any:
    """The oldest item of FIFO `fifo`; an empty FIFO suspends this side until it is filled."""
    launch, index = _side()
    with launch.cond:
        while not launch.fifos[fifo]:
            launch.waiting[index] = fifo
            _wait_for_another_side(launch, index)
        launch.waiting[index] = None
        if fifo in launch.slots:
            launch.held[fifo] += 1
        return launch.fifos[fifo].popleft()


def barrier() -> None:
    """An all-core barrier (a mix syncall): this side waits until every side of the launch has
    arrived at as many barriers as it has. Outside a Group launch (one kernel on one core) it
    orders nothing."""
    launch: _Launch | None = getattr(_current, "launch", None)
    if launch is None:
        return
    index = int(_current.index)
    with launch.cond:
        launch.arrived[index] += 1
        mine = launch.arrived[index]
        while not all(count >= mine for count in launch.arrived):
            launch.at_barrier[index] = mine
            _wait_for_another_side(launch, index)
        launch.at_barrier[index] = None


def run_group(names: Sequence[str], tasks: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run `tasks` (one per core, named `names`) as coroutines sharing the cross-core FIFOs;
    returns their results in order, or raises the first side's error."""
    launch = _Launch(names, waiting=[None] * len(tasks), full=[None] * len(tasks), done=[False] * len(tasks),
                     arrived=[0] * len(tasks), at_barrier=[None] * len(tasks))
    results: list[Any] = [None] * len(tasks)
    errors: list[BaseException] = []

    def body(index: int) -> None:
        _current.launch, _current.index = launch, index
        try:
            with launch.cond:
                launch.wait_turn(index)
            results[index] = tasks[index]()
        except _Aborted:
            pass
        except BaseException as err:  # noqa: BLE001 - re-raised in the launching thread
            with launch.cond:
                errors.append(err)
                launch.aborted = True
                launch.cond.notify_all()
        finally:
            with launch.cond:
                launch.done[index] = True
                if not launch.aborted and not all(launch.done) and not launch.pass_turn(index):
                    errors.append(launch.deadlock())
                    launch.aborted = True
                launch.cond.notify_all()

    threads = [threading.Thread(target=body, args=(i,), name=f"core-{n}", daemon=True) for i, n in enumerate(names)]
    for thread in threads:
        thread.start()
    with launch.cond:
        launch.turn = 0
        launch.cond.notify_all()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    leftover = {fifo: len(items) for fifo, items in launch.fifos.items() if items}
    if leftover:
        fifo, count = next(iter(leftover.items()))
        raise CrossCoreError(f"{count} tile(s) pushed into the {FIFO_WORDS[fifo]} FIFO were never popped",
                             "every tpush needs a matching tpop on the other core")
    return results


__all__ = ["CrossCoreError", "barrier", "configure", "configure_pipe", "free", "pop", "push", "run_group"]

"""Pass instruments: hooks around every pass (MLIR / TVM style).

The runner calls, in order, `before_pipeline`, then per pass `before_pass`, the pass, and
`after_pass` (or `pass_failed` when the pass or an after-hook raised), then `after_pipeline`.
Instruments implement verification, IR printing, dump directories, timing, statistics and
reproducers; none of them changes the IR.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence, TextIO

from typing_extensions import override

from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node
from nanopass.passes import Pass, PassContext, _is_dataclass
from nanopass.properties import grammar_property

if TYPE_CHECKING:
    from nanopass.plugin import CompilerPlugin


@dataclass(frozen=True)
class PassStep:
    """One planned pass of a pipeline run."""

    index: int  # 1-based position in the pipeline
    pass_: Pass[Any, Any]
    available_before: frozenset[str]
    claimed: frozenset[str]  # properties that must hold after this pass
    remaining_spec: str  # this pass and every later one, as pipeline text

    @property
    def label(self) -> str:
        return f"{type(self.pass_).spec_name} ({type(self.pass_).name})"


class Instrument:
    """Base: every hook does nothing."""

    def before_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        pass

    def before_pass(self, step: PassStep, program: Node) -> None:
        pass

    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        pass

    def pass_failed(self, step: PassStep, program: Node, error: BaseException) -> None:
        pass

    def after_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        pass


class KeepLastBeforeFinal(Instrument):
    """Keeps the last program of the pipeline that is not yet in the final language: the final
    language may drop what only the host needs (e.g. PTO keeps kernels, not orchestration), and
    post-compile steps such as simulation need both."""

    def __init__(self, final_language: str, store: dict[str, Any], key: str) -> None:
        self.final_language = final_language
        self.store = store
        self.key = key

    @override
    def before_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        if type(program).LANGUAGE != self.final_language:
            self.store[self.key] = program

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        if type(after).LANGUAGE != self.final_language:
            self.store[self.key] = after


# -- verification --------------------------------------------------------------------------


def _functions(program: Node) -> tuple[Node, ...]:
    functions = getattr(program, "functions", ())
    return tuple(functions) if isinstance(functions, tuple) else ()


def _signature(function: Node) -> tuple[object, ...]:
    return (getattr(function, "name", None), getattr(function, "params", None), getattr(function, "return_types", None))


class VerifyInstrument(Instrument):
    """--verify-all: after every pass, the target language's grammar check, then the verifier
    of every property claimed after the pass. Incremental: copy-on-write returns an untouched
    function as the same object, so function-scoped verifiers re-check only rebuilt functions
    (all of them when some function's signature changed, since callers depend on it)."""

    def __init__(self, plugin: CompilerPlugin, incremental: bool = True, target: object = None) -> None:
        self.plugin = plugin
        self.target = target
        self.incremental = incremental
        self.verified_functions = 0
        self.skipped_functions = 0

    def changed_part(self, before: Node, after: Node) -> Node:
        """The program restricted to the functions the pass rebuilt (or all of it)."""
        if not self.incremental or type(before) is not type(after) or not _is_dataclass(after):
            return after
        old = _functions(before)
        new = _functions(after)
        if [_signature(f) for f in old] != [_signature(f) for f in new]:
            return after
        old_ids = {id(f) for f in old}
        changed = tuple(f for f in new if id(f) not in old_ids)
        self.skipped_functions += len(new) - len(changed)
        replaced: Node = dataclasses.replace(after, functions=changed)  # type: ignore[type-var]
        return replaced

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        unchanged = after is before
        part = after if unchanged else self.changed_part(before, after)
        if unchanged:
            self.skipped_functions += len(_functions(after))
        else:
            self.verified_functions += len(_functions(part))
        registry = self.plugin.property_registry
        grammar = grammar_property(type(step.pass_).target.name)
        order = [grammar] + sorted(p for p in step.claimed if p != grammar)
        failures: dict[str, list[Diagnostic]] = {}
        for name in order:
            if name not in registry:
                continue
            prop = registry[name]
            held_before = name in step.available_before
            if unchanged and held_before:
                continue  # the same program still has every property it had
            # A property the pass newly claims was never checked on the functions it left
            # alone, so those are verified too; a preserved one only where something changed.
            subject = part if prop.scope == "function" and held_before else after
            found = _run_verifier(name, prop.verify, subject, self.target)
            if found:
                failures[name] = found
                if name == grammar:
                    break  # semantic verifiers assume a well-formed program
        if failures:
            # The blame line comes first: with many findings, the one-screen cap keeps it.
            raise CompileError(
                [_blame(step, failures)] + [d for ds in failures.values() for d in ds],
                headline=f"Verification failed after '{type(step.pass_).spec_name}' for properties "
                f"{{{', '.join(failures)}}}",
            )


def _run_verifier(name: str, verify: Any, program: Node, target: object = None) -> list[Diagnostic]:
    try:
        found = verify(program, target)
    except CompileError as err:
        return list(err.diagnostics)
    except Exception as exc:  # a verifier crashing on malformed IR is itself a finding
        return [Diagnostic(name, f"verifier crashed: {type(exc).__name__}: {exc}")]
    return [d for d in found if d.severity == "error"]


def _blame(step: PassStep, failures: dict[str, list[Diagnostic]]) -> Diagnostic:
    cls = type(step.pass_)
    notes: list[str] = []
    for name in failures:
        if name in cls.produces:
            notes.append(f"`{cls.name}` claims to produce {name}, but its output violates it")
        elif name == grammar_property(cls.target.name):
            notes.append(f"`{cls.name}` produced a program that is not valid {cls.target.name}")
        else:
            notes.append(
                f"`{cls.name}` broke {name}, which it does not declare in `invalidates` "
                f"(it held before the pass)"
            )
    return Diagnostic(
        cls.spec_name or cls.name,
        "; ".join(notes),
        hint="fix the pass, or declare the property in its `invalidates` so later passes re-establish it",
    )


# -- printing and dumping ------------------------------------------------------------------


class PrintIRInstrument(Instrument):
    """--print-ir-after-all / --print-ir-after-change (the latter compares printed text)."""

    def __init__(self, plugin: CompilerPlugin, stream: TextIO | None = None, only_changes: bool = False) -> None:
        self.plugin = plugin
        self.stream = stream
        self.only_changes = only_changes
        self.last_text = ""

    def emit(self, header: str, text: str) -> None:
        out = self.stream or sys.stderr
        out.write(f"// -----// IR Dump {header} //----- //\n{text}")
        if not text.endswith("\n"):
            out.write("\n")

    @override
    def before_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        self.last_text = self.plugin.text_of(program)[0]

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        text = self.last_text if after is before else self.plugin.text_of(after)[0]
        if self.only_changes and text == self.last_text:
            return
        self.last_text = text
        self.emit(f"After {step.label}", text)


class DumpDirInstrument(Instrument):
    """--dump-dir D: `00_input.py`, `01_after_<SpecName>.py`, ... (a final-language program
    is written in its own text, e.g. `.pto`). Every file parses back."""

    def __init__(self, plugin: CompilerPlugin, directory: Path) -> None:
        self.plugin = plugin
        self.directory = directory
        self.written: list[Path] = []

    def write(self, stem: str, program: Node) -> None:
        text, suffix = self.plugin.text_of(program)
        path = self.directory / (stem + suffix)
        path.write_text(text)
        self.written.append(path)

    @override
    def before_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        for stale in self.directory.glob("[0-9][0-9]_*"):
            if stale.is_file():
                stale.unlink()
        self.write("00_input", program)

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        self.write(f"{step.index:02d}_after_{type(step.pass_).spec_name}", after)


# -- timing and statistics -----------------------------------------------------------------


class TimingInstrument(Instrument):
    """--timing: per-pass wall time, printed as a table with the total."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self.rows: list[tuple[str, float]] = []
        self._start = 0.0
        self._pipeline_start = 0.0

    @override
    def before_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        self._pipeline_start = time.perf_counter()

    @override
    def before_pass(self, step: PassStep, program: Node) -> None:
        self._start = time.perf_counter()

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        self.rows.append((step.label, time.perf_counter() - self._start))

    @override
    def pass_failed(self, step: PassStep, program: Node, error: BaseException) -> None:
        self.rows.append((step.label + " [failed]", time.perf_counter() - self._start))
        self.report()

    @override
    def after_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        self.report()

    def report(self) -> None:
        total = time.perf_counter() - self._pipeline_start
        out = self.stream or sys.stderr
        out.write("===- Pass execution timing report -===\n")
        out.write(f"  Total wall time: {total * 1e3:.3f} ms\n")
        out.write(f"  {'Wall (ms)':>10}  {'%':>6}  Name\n")
        for label, seconds in self.rows:
            share = 100.0 * seconds / total if total > 0 else 0.0
            out.write(f"  {seconds * 1e3:>10.3f}  {share:>5.1f}%  {label}\n")
        other = total - sum(s for _, s in self.rows)
        out.write(f"  {other * 1e3:>10.3f}  {100.0 * other / total if total > 0 else 0.0:>5.1f}%  (instruments, verification)\n")
        out.write(f"  {total * 1e3:>10.3f}  100.0%  Total\n")


class StatisticsInstrument(Instrument):
    """--statistics: the counters each pass incremented (`ctx.bump`, rewriter `bump`)."""

    def __init__(self, ctx: PassContext, stream: TextIO | None = None) -> None:
        self.ctx = ctx
        self.stream = stream

    @override
    def after_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        out = self.stream or sys.stderr
        out.write("===- Pass statistics report -===\n")
        for step in steps:
            name = type(step.pass_).name
            prefix = name + "."
            counters = sorted((k[len(prefix):], v) for k, v in self.ctx.statistics.items() if k.startswith(prefix))
            out.write(f"{step.label}\n")
            if not counters:
                out.write("  (no statistics)\n")
            for key, value in counters:
                out.write(f"  {value:>8}  {key}\n")


# -- reproducers ---------------------------------------------------------------------------


class ReproducerInstrument(Instrument):
    """On failure: write the IR just before the failing pass to `repro_<pass>.py` and record the
    one-line command that re-runs the rest of the pipeline on it."""

    def __init__(self, plugin: CompilerPlugin, directory: Path | None = None, extra_args: Sequence[str] = ()) -> None:
        self.plugin = plugin
        self.directory = directory or Path("nanopass_repro")
        # Options the failing run depended on besides the pipeline (e.g. a non-default backend),
        # so that the printed command fails the same way.
        self.extra_args = tuple(extra_args)
        self.path: Path | None = None
        self.command = ""

    @override
    def pass_failed(self, step: PassStep, program: Node, error: BaseException) -> None:
        text, suffix = self.plugin.text_of(program)
        name = type(step.pass_).name.replace("-", "_")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / f"repro_{name}{suffix}"
            words = ["python", "-m", "nanopass.pipeline", str(path), "-p", step.remaining_spec, "--verify-all", *self.extra_args]
            self.command = shlex.join(words)
            comment = "#" if suffix == ".py" else "//"
            header = f"{comment} reproducer: {type(step.pass_).name} failed on this program; re-run with\n{comment}   {self.command}\n"
            path.write_text(header + text)
            self.path = path
        except OSError:
            self.path = None

    def message(self) -> str:
        if self.path is None:
            return ""
        return f"reproducer written to {self.path}; re-run with:\n  {self.command}"

"""Pass instruments: hooks around every pass (MLIR / TVM style).

The runner calls, in order, `before_pipeline`, then per pass `before_pass`, the pass, and
`after_pass` (or `pass_failed` when the pass or an after-hook raised), then `after_pipeline`.
Instruments implement verification, IR printing, dump directories, timing, statistics and
reproducers; none of them changes the IR.
"""

from __future__ import annotations

import dataclasses
import operator
import shlex
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, TextIO

from typing_extensions import override

from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.node import Node, same_but, terminal_fields
from nanopass.passes import Pass, PassContext, _is_dataclass
from nanopass.properties import LANGUAGE_ASPECT, SHARING_ASPECT, grammar_property

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
        # (property, function) verdicts kept because the pass changed the function only in an
        # aspect the property's verifier never reads (`Property.blind_to`).
        self.carried_verdicts = 0
        # (property, pass) checks left out because no function was left to check (see after_pass).
        self.carried_empty = 0

    def rebuilt_pairs(self, before: Node, after: Node) -> list[tuple[Node, Node]] | None:
        """(input function, output function) for each function the pass rebuilt, or None when
        every function must be checked (not incremental, another program shape, or a changed
        signature: callers depend on it). A pass into the next language rebuilds every
        function; they pair up when the program keeps its functions and their signatures."""
        if not self.incremental or not _is_dataclass(after) or before.KIND != after.KIND:
            return None
        old = _functions(before)
        new = _functions(after)
        if len(old) != len(new):
            return None
        if type(before) is type(after):
            if [_signature(f) for f in old] != [_signature(f) for f in new]:
                return None
        elif not (_same_terminals(before, after) and all(f is not g and _same_signature(f, g) for f, g in zip(old, new))):
            # (A function object kept across a change of language is a node of the old
            # language inside the new program: never left out of the grammar check.)
            return None
        return [(f, g) for f, g in zip(old, new) if f is not g]

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        unchanged = after is before
        pairs = None if unchanged else self.rebuilt_pairs(before, after)
        part = after
        if unchanged:
            self.skipped_functions += len(_functions(after))
        elif pairs is not None:
            self.skipped_functions += len(_functions(after)) - len(pairs)
            part = _with_functions(after, tuple(g for _, g in pairs))
        if not unchanged:
            self.verified_functions += len(_functions(part))
        registry = self.plugin.property_registry
        grammar = grammar_property(type(step.pass_).target.name)
        order = [grammar] + sorted(p for p in step.claimed if p != grammar)
        failures: dict[str, list[Diagnostic]] = {}
        # Per set of aspects (and whether language and sharing may differ), the rebuilt
        # functions that differ from their input only there (computed once per pass, for the
        # first property blind to that set).
        alike: dict[tuple[tuple[str, ...], bool, bool], frozenset[int]] = {}
        program_alike = pairs is not None and type(before) is type(after) and _same_terminals(before, after)
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
            if subject is part and pairs and prop.blind_to:
                subject = self._unseen_part(prop.blind_to, pairs, part, alike)
            if subject is not after and not _functions(subject) and program_alike:
                # A function-scoped verdict is the conjunction of its functions' verdicts: with
                # every function left out (unchanged, or changed only where the verifier is
                # blind) and the program's own fields as they were, there is nothing to judge.
                self.carried_empty += 1
                continue
            found = _run_verifier(name, prop.verify, subject, self.target)
            if found:
                failures[name] = found
                if name == grammar:
                    break  # semantic verifiers assume a well-formed program
        if failures:
            # The blame line comes first: with many findings, the one-screen cap keeps it.
            raise PassVerificationError(
                [_blame(step, failures)] + [d for ds in failures.values() for d in ds],
                headline=f"internal compiler error: Verification failed after '{type(step.pass_).spec_name}' "
                f"for properties {{{', '.join(failures)}}}",
                output=after,
            )

    def _unseen_part(self, blind_to: frozenset[str], pairs: list[tuple[Node, Node]], part: Node,
                     alike: dict[tuple[tuple[str, ...], bool, bool], frozenset[int]]) -> Node:
        """`part` without the functions that differ from their input only in aspects the
        property's verifier never reads: it held on the input (it was verified there, or when
        the program was loaded), so it holds on them."""
        aspects = tuple(sorted(a for a in blind_to if a in self.plugin.aspects))
        # A pass changes the language of every function or of none (rebuilt_pairs).
        changes_language = type(pairs[0][0]) is not type(pairs[0][1])
        if changes_language and LANGUAGE_ASPECT not in blind_to:
            return part  # no function of another language's classes is alike for this verifier
        any_sharing = SHARING_ASPECT in blind_to
        if not (aspects or changes_language or any_sharing):
            return part  # only aspects the plugin does not define: nothing is carried over
        # Within one language, blindness to it changes nothing: one comparison serves both.
        key = (aspects, changes_language, any_sharing)
        if key not in alike:
            agree = _agreement(tuple(self.plugin.aspects[a] for a in aspects))
            alike[key] = frozenset(id(g) for f, g in pairs if same_but(f, g, agree, changes_language, any_sharing))
        carried = alike[key]
        if not carried:
            return part
        self.carried_verdicts += len(carried)
        return _with_functions(part, tuple(g for _, g in pairs if id(g) not in carried))


def _agreement(aspects: tuple[Callable[[object, object], bool], ...]) -> Callable[[object, object], bool]:
    """Whether two terminal values agree but for one of `aspects` (or are equal)."""
    if not aspects:
        return operator.eq
    if len(aspects) == 1:
        return aspects[0]
    return lambda a, b: any(agree(a, b) for agree in aspects)


def _same_terminals(a: Node, b: Node) -> bool:
    return all(getattr(a, name) == getattr(b, name) for name in terminal_fields(type(a)))


def _same_signature(f: Node, g: Node) -> bool:
    """`_signature(f) == _signature(g)` for functions of two languages: the parameters are nodes
    of each language's classes, the same in kind and value."""
    if getattr(f, "name", None) != getattr(g, "name", None) or \
            getattr(f, "return_types", None) != getattr(g, "return_types", None):
        return False
    old: object = getattr(f, "params", ())
    new: object = getattr(g, "params", ())
    if not (isinstance(old, tuple) and isinstance(new, tuple) and len(old) == len(new)):
        return False
    return all(isinstance(p, Node) and isinstance(q, Node) and same_but(p, q, operator.eq, any_language=True)
               for p, q in zip(old, new))


def _with_functions(program: Node, functions: tuple[Node, ...]) -> Node:
    replaced: Node = dataclasses.replace(program, functions=functions)  # type: ignore[type-var]
    return replaced


class PassVerificationError(CompileError):
    """A pass's output breaks a property the pass claims or keeps: the compiler's fault (the
    input was verified when it was loaded), so the CLI exits 2 and writes a reproducer.
    `output` is the offending program (for --print-ir-after-failure)."""

    internal = True

    def __init__(self, diagnostics: Sequence[Diagnostic], headline: str, output: Node | None = None) -> None:
        super().__init__(diagnostics, headline)
        self.output = output


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
        "; ".join(notes) + " (the input was verified when it was loaded: this is a compiler bug)",
        hint="for pass authors: fix the pass, or declare the property in its `invalidates` so later "
             "passes re-establish it",
    )


# -- printing and dumping ------------------------------------------------------------------


def _matches(step: PassStep, names: frozenset[str] | None) -> bool:
    """`names` None means every pass; otherwise a pass is named by its pipeline name or spec name."""
    cls = type(step.pass_)
    return names is None or cls.name in names or cls.spec_name in names


class PrintIRInstrument(Instrument):
    """--print-ir-before[-all] / --print-ir-after[-all] / --print-ir-after-change /
    --print-ir-after-failure, mlir-opt style: `// -----// IR Dump After X //----- //` blocks on
    stderr. `before` / `after` are None for every pass, a set of pass names, or empty for none."""

    def __init__(self, plugin: CompilerPlugin, stream: TextIO | None = None, only_changes: bool = False,
                 before: frozenset[str] | None = frozenset(), after: frozenset[str] | None = None,
                 on_failure: bool = False, debuginfo: bool = False) -> None:
        self.plugin = plugin
        self.stream = stream
        self.only_changes = only_changes
        self.before = before
        self.after = after
        self.on_failure = on_failure
        self.debuginfo = debuginfo
        self.last_text = ""

    def text(self, program: Node) -> str:
        return self.plugin.text_of(program, debuginfo=self.debuginfo)[0]

    def emit(self, header: str, text: str) -> None:
        out = self.stream or sys.stderr
        out.write(f"// -----// IR Dump {header} //----- //\n{text}")
        if not text.endswith("\n"):
            out.write("\n")

    @override
    def before_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        if self.only_changes:
            self.last_text = self.text(program)

    @override
    def before_pass(self, step: PassStep, program: Node) -> None:
        if self.before != frozenset() and _matches(step, self.before):
            self.emit(f"Before {step.label}", self.text(program))

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        if self.after == frozenset() or not _matches(step, self.after):
            return
        if self.only_changes:
            text = self.last_text if after is before else self.text(after)
            if text == self.last_text:
                return
            self.last_text = text
        else:
            text = self.text(after)
        self.emit(f"After {step.label}", text)

    @override
    def pass_failed(self, step: PassStep, program: Node, error: BaseException) -> None:
        if not self.on_failure:
            return
        output = getattr(error, "output", None)
        if isinstance(output, Node):  # the pass finished; its output broke a property
            self.emit(f"After {step.label} Failed", self.text(output))
        else:  # the pass raised: its input is what there is
            self.emit(f"Before {step.label} (it failed)", self.text(program))


# A dump or reproducer says where in the pipeline it was taken, so that running it again (no -p)
# resumes there and its loader checks exactly what held at that point (e.g. a dump taken
# between ConvertTensorToTileOps and UpdateOrchestrationCallSites has incomplete call sites).
HOLDS_TAG = "nanopass-holds:"
REST_TAG = "nanopass-rest:"


def _comment(suffix: str) -> str:
    return "#" if suffix == ".py" else "//"


def position_header(suffix: str, holds: frozenset[str], rest: str) -> str:
    mark = _comment(suffix)
    return f"{mark} {HOLDS_TAG} {','.join(sorted(holds))}\n{mark} {REST_TAG} {rest}\n"


@dataclass(frozen=True)
class Position:
    holds: frozenset[str]
    rest: str


def read_position(text: str) -> Position | None:
    """The position header of a dump / reproducer (in its leading comment lines), or None."""
    holds: frozenset[str] | None = None
    rest: str | None = None
    for line in text.splitlines()[:8]:
        body = line.lstrip("#/ ").strip()
        if body.startswith(HOLDS_TAG):
            holds = frozenset(p for p in body[len(HOLDS_TAG):].strip().split(",") if p)
        elif body.startswith(REST_TAG):
            rest = body[len(REST_TAG):].strip()
    if holds is None or rest is None:
        return None
    return Position(holds, rest)


class DumpDirInstrument(Instrument):
    """--dump-dir D: `00_input.py`, `01_after_<SpecName>.py`, ... (a final-language program
    is written in its own text, e.g. `.pto`). Every file parses back and, run with no -p,
    resumes the pipeline after the pass that wrote it (see `position_header`)."""

    def __init__(self, plugin: CompilerPlugin, directory: Path, debuginfo: bool = False) -> None:
        self.plugin = plugin
        self.directory = directory
        self.debuginfo = debuginfo
        self.written: list[Path] = []
        self._rests: list[str] = []

    def write(self, stem: str, program: Node, holds: frozenset[str], rest: str) -> None:
        text, suffix = self.plugin.text_of(program, debuginfo=self.debuginfo)
        path = self.directory / (stem + suffix)
        path.write_text(position_header(suffix, holds, rest) + text)
        self.written.append(path)

    @override
    def before_pipeline(self, steps: Sequence[PassStep], program: Node) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        for stale in self.directory.glob("[0-9][0-9]_*"):
            if stale.is_file():
                stale.unlink()
        self._rests = [s.remaining_spec for s in steps[1:]] + [""]
        first = steps[0] if steps else None
        holds = first.available_before if first is not None else frozenset()
        self.write("00_input", program, holds, first.remaining_spec if first is not None else "")

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        rest = self._rests[step.index - 1] if step.index - 1 < len(self._rests) else ""
        self.write(f"{step.index:02d}_after_{type(step.pass_).spec_name}", after, step.claimed, rest)


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


def default_reproducer_dir() -> Path:
    """A fresh directory under the system temp dir (never the cwd: a reproducer is a bug report,
    not an output of the compile)."""
    return Path(tempfile.mkdtemp(prefix="nanopass-repro-"))


def is_compiler_bug(error: BaseException) -> bool:
    """A crash, or a pass breaking a property; a CompileError a pass raises on purpose (a
    hardware limit the input exceeds, an unsupported construct) is the input's fault."""
    if isinstance(error, CompileError):
        return error.internal
    return isinstance(error, Exception)


class ReproducerInstrument(Instrument):
    """On a compiler bug: write the IR just before the failing pass to `repro_<pass>.py` (with
    its pipeline position) and record the one-line command that re-runs the rest of the
    pipeline on it. The directory is `directory`, or a fresh one under the system temp dir."""

    def __init__(self, plugin: CompilerPlugin, directory: Path | None = None, extra_args: Sequence[str] = ()) -> None:
        self.plugin = plugin
        self.directory = directory
        # Options the failing run depended on besides the pipeline (e.g. a non-default backend),
        # so that the printed command fails the same way.
        self.extra_args = tuple(extra_args)
        self.path: Path | None = None
        self.command = ""
        self.error = ""

    @override
    def pass_failed(self, step: PassStep, program: Node, error: BaseException) -> None:
        if not is_compiler_bug(error):
            return
        text, suffix = self.plugin.text_of(program, debuginfo=True)
        name = type(step.pass_).name.replace("-", "_")
        try:
            directory = self.directory or default_reproducer_dir()
            directory.mkdir(parents=True, exist_ok=True)
            path = directory / f"repro_{name}{suffix}"
            words = ["python", "-m", "nanopass.pipeline", str(path), "-p", step.remaining_spec, "--verify-all", *self.extra_args]
            self.command = shlex.join(words)
            comment = _comment(suffix)
            header = (f"{comment} reproducer: {type(step.pass_).name} failed on this program; re-run with\n"
                      f"{comment}   {self.command}\n")
            path.write_text(header + position_header(suffix, step.available_before, step.remaining_spec) + text)
            self.path = path
        except OSError as exc:
            self.path = None
            self.error = f"could not write a reproducer: {exc}"

    def message(self) -> str:
        if self.path is None:
            return self.error
        return f"reproducer written to {self.path}; re-run with:\n  {self.command}"


def strip_position(text: str) -> str:
    """`text` without the position header of a dump / reproducer."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.lstrip("#/ ").startswith((HOLDS_TAG, REST_TAG)))

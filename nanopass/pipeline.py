"""Pipelines: a checked sequence of passes, and the `python -m nanopass.pipeline` CLI.

A pipeline is built from a string (`a,b{opt=1 other=x,y},c`) or from a list of pass objects.
Before any IR is touched, `plan` checks that adjacent languages chain and that every pass's
`requires` is available under GCC semantics; a failure names the pass, what is missing and
which registered pass could provide it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import stat
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from nanopass.cli import run_main
from nanopass.diagnostics import CompileError, Diagnostic, remember_source, use_color
from nanopass.instruments import (
    DumpDirInstrument,
    Instrument,
    KeepLastBeforeFinal,
    PassStep,
    PrintIRInstrument,
    ReproducerInstrument,
    StatisticsInstrument,
    TimingInstrument,
    VerifyInstrument,
    read_position,
)
from nanopass.node import Node, Span
from nanopass.passes import Pass, PassContext
from nanopass.pipeline_spec import parse_pipeline
from nanopass.plugin import CompilerPlugin, get_plugin
from nanopass.properties import available_after, grammar_property


class PassCrash(Exception):
    """An unexpected exception inside a pass (an internal compiler error, not a user error)."""

    def __init__(self, step: PassStep, error: BaseException) -> None:
        self.step = step
        self.error = error
        super().__init__(f"internal compiler error in pass {type(step.pass_).name}: {type(error).__name__}: {error}")


class Pipeline:
    def __init__(self, passes: Sequence[Pass[Any, Any]], plugin: CompilerPlugin | None = None) -> None:
        self.passes: list[Pass[Any, Any]] = list(passes)
        self._plugin = plugin

    @property
    def plugin(self) -> CompilerPlugin:
        if self._plugin is None:
            self._plugin = get_plugin()
        return self._plugin

    @staticmethod
    def from_spec(text: str, plugin: CompilerPlugin | None = None) -> Pipeline:
        plugin = plugin or get_plugin()
        passes: list[Pass[Any, Any]] = []
        for element in parse_pipeline(text):
            cls = plugin.pass_registry.get(element.name, element.col)
            passes.append(cls.from_options(element.options, where=f" (pipeline column {element.col})"))
        return Pipeline(passes, plugin)

    def spec(self, start: int = 0) -> str:
        """The pipeline as text (from pass `start` on); `from_spec(p.spec()).spec() == p.spec()`."""
        return ",".join(p.spec() for p in self.passes[start:])

    def until(self, language: str) -> Pipeline:
        """Truncate after the last pass whose target is `language`."""
        try:
            lang = self.plugin.language(language).name
        except KeyError as err:
            raise CompileError(Diagnostic("pipeline", f"--until: {err.args[0]}", hint="--list-languages lists them")) from None
        last = max((i for i, p in enumerate(self.passes) if type(p).target.name == lang), default=-1)
        if last < 0 and self.passes and type(self.passes[0]).source.name != lang:
            raise CompileError(
                Diagnostic("pipeline", f"no pass of the pipeline produces {lang}", hint="--list-languages shows which languages passes reach")
            )
        return Pipeline(self.passes[: last + 1], self._plugin)

    def starting_at(self, language: str) -> Pipeline:
        """Drop the leading passes that lower *to* `language`: the default pipeline picks up a
        program written at a later stage (a hand-written TilePlaced kernel, a .pto file) where
        that stage begins, instead of rejecting it for not being Tensor."""
        for index, p in enumerate(self.passes):
            if type(p).source.name == language:
                return Pipeline(self.passes[index:], self._plugin)
        if self.passes and type(self.passes[-1]).target.name == language:
            return Pipeline([], self._plugin)
        return self

    def _starts_before(self, language: str) -> bool:
        """Whether the first pass takes a language that comes before `language` in the family."""
        if not self.passes:
            return False
        order = [lang.name for lang in self.plugin.family.languages]
        first = type(self.passes[0]).source.name
        return first in order and language in order and order.index(first) < order.index(language) \
            and self.starting_at(language) is not self

    # -- static check -------------------------------------------------------------------

    def plan(self, input_language: str, available: frozenset[str]) -> list[PassStep]:
        """Check the pipeline against the input language and properties; no IR is read."""
        registry = self.plugin.property_registry
        problems: list[Diagnostic] = []
        steps: list[PassStep] = []
        language = input_language
        history: list[tuple[str, frozenset[str], frozenset[str]]] = []  # (pass, produced, invalidated)
        # Each step's remaining pipeline text, every pass's spec made once (joining `self.spec(i)`
        # per step made a spec per pass and step: quadratic, ~10 % of a small kernel's compile).
        specs = [p.spec() for p in self.passes]
        for index, p in enumerate(self.passes, start=1):
            cls = type(p)
            if cls.source.name != language:
                problems.append(self._language_mismatch(index, cls, language))
            missing = sorted(cls.requires - available)
            for prop in missing:
                problems.append(self._missing_property(index, cls, prop, cls.source.name, history))
            after = available_after(available, cls.produces, cls.invalidates, cls.target.name, registry)
            steps.append(PassStep(index, p, available, after, ",".join(specs[index - 1:])))
            history.append((cls.name, cls.produces | {grammar_property(cls.target.name)}, cls.invalidates))
            available = after
            language = cls.target.name
        if problems:
            raise CompileError(problems, headline=f"error: invalid pipeline `{self.spec()}` (no pass was run)")
        return steps

    def _language_mismatch(self, index: int, cls: type[Pass[Any, Any]], language: str) -> Diagnostic:
        producer = f"`{type(self.passes[index - 2]).name}` (#{index - 1}) produces" if index > 1 else "the input program is"
        bridge = self._bridge(language, cls.source.name)
        if bridge:
            in_order = " (in this order)" if len(bridge) > 1 else ""
            hint = f"insert {', '.join('`' + b + '`' for b in bridge)}{in_order} before `{cls.name}`"
        else:
            order = [lang.name for lang in self.plugin.family.languages]
            hint = f"passes must chain languages in order: {' → '.join(order)}"
        return Diagnostic(
            "pipeline",
            f"pass `{cls.name}` (#{index}) takes {cls.source.name} programs, but {producer} {language}",
            hint=hint,
        )

    def _missing_property(
        self,
        index: int,
        cls: type[Pass[Any, Any]],
        prop: str,
        language: str,
        history: list[tuple[str, frozenset[str], frozenset[str]]],
    ) -> Diagnostic:
        registry = self.plugin.property_registry
        message = f"pass `{cls.name}` (#{index}) requires {prop}"
        if prop not in registry:
            return Diagnostic("pipeline", message + ", which is not a registered property", hint="--list-properties lists them")
        if not registry.meaningful(prop, language):
            return Diagnostic("pipeline", message + f", which is not meaningful in {language}", hint="fix the pass declaration")
        killers = [name for name, _, invalidated in history if prop in invalidated]
        earlier = [name for name, produced, _ in history if prop in produced]
        providers = sorted(name for name, other in self._all_passes().items() if prop in other.produces and other.target.name == language)
        if earlier and killers:
            message += f", which `{earlier[-1]}` produced but `{killers[-1]}` invalidated"
        elif providers:
            message += f", which is produced by {', '.join('`' + p + '`' for p in providers)}"
        else:
            message += ", which no registered pass produces"
        hint = f"add `{providers[0]}` before `{cls.name}`" if providers else "add a pass that establishes it"
        return Diagnostic("pipeline", message, hint=hint)

    def _bridge(self, start: str, goal: str) -> list[str]:
        """The shortest chain of registered language-changing passes from `start` to `goal`
        (breadth-first over languages; empty when there is none)."""
        edges = [(name, other.source.name, other.target.name)
                 for name, other in self._all_passes().items() if other.source != other.target]
        chains: dict[str, list[str]] = {start: []}
        frontier = [start]
        while frontier and goal not in chains:
            reached: list[str] = []
            for language in frontier:
                for name, source, target in edges:
                    if source == language and target not in chains:
                        chains[target] = chains[language] + [name]
                        reached.append(target)
            frontier = reached
        return chains.get(goal, [])

    def _all_passes(self) -> dict[str, type[Pass[Any, Any]]]:
        try:
            return self.plugin.pass_registry.all_classes()
        except Exception:  # a broken registry entry must not hide the real pipeline error
            return {}

    # -- running -------------------------------------------------------------------------

    def run(
        self,
        program: Node,
        ctx: PassContext | None = None,
        instruments: Sequence[Instrument] = (),
        verify_input: bool = True,
        claimed: frozenset[str] | None = None,
    ) -> Node:
        """Check the pipeline, verify the input's guaranteed properties (or, for a dump or a
        reproducer, the `claimed` ones that held where it was taken), run every pass."""
        plugin = self.plugin
        language = type(program).LANGUAGE
        if self._starts_before(language):
            # A program written at a later stage (a Tensor program given to a pipeline that starts
            # with the frontend) is picked up where its language begins.
            return self.starting_at(language).run(program, ctx, instruments, verify_input)
        # Languages first, with every property assumed: a pipeline that does not chain is
        # rejected before the input is even verified.
        self.plan(language, frozenset(plugin.property_registry.names()) | frozenset(
            prop for p in self.passes for prop in type(p).requires))
        if ctx is None:
            ctx = PassContext(plugin.default_backend, plugin.make_backend(plugin.default_backend))
        if verify_input:
            needed = {prop for p in self.passes for prop in type(p).requires}
            available = plugin.verify_loaded(program, also=needed, target=ctx.backend, claimed=claimed)
        elif claimed is not None:
            available = claimed
        else:
            available = plugin.initial_properties(language)
        try:
            steps = self.plan(language, available)
        except CompileError as err:
            if verify_input:
                raise self._input_faults(program, ctx, available, err) from None
            raise
        for inst in instruments:
            inst.before_pipeline(steps, program)
        for step in steps:
            program = self._run_step(step, program, ctx, instruments)
        for inst in instruments:
            inst.after_pipeline(steps, program)
        return program

    def _input_faults(self, program: Node, ctx: PassContext, available: frozenset[str],
                      refusal: CompileError) -> CompileError:
        """A pipeline refused because the input program lacks a property its first passes need
        (a hand-written later-stage program): the verifiers' own located diagnostics say why,
        ahead of the pipeline's account."""
        registry = self.plugin.property_registry
        language = type(program).LANGUAGE
        needed = sorted({prop for p in self.passes for prop in type(p).requires} - available)
        faults: list[Diagnostic] = []
        failed: list[str] = []
        for name in needed:
            if name not in registry or not registry.meaningful(name, language):
                continue
            errors = [d for d in registry[name].verify(program, ctx.backend) if d.severity == "error"]
            if errors:
                failed.append(name)
                faults.extend(errors)
        if not faults:
            return refusal
        return CompileError(faults + list(refusal.diagnostics), headline=(
            f"error: the input program does not satisfy {', '.join(failed)}, which pipeline "
            f"`{self.spec()}` needs (no pass was run)"))

    @staticmethod
    def _run_step(step: PassStep, program: Node, ctx: PassContext, instruments: Sequence[Instrument]) -> Node:
        for inst in instruments:
            inst.before_pass(step, program)
        ctx.current_pass = type(step.pass_).name
        try:
            try:
                result: Node = step.pass_.run(program, ctx)
            except CompileError:
                raise
            except Exception as exc:
                raise PassCrash(step, exc) from exc
            for inst in instruments:
                inst.after_pass(step, program, result)
        except BaseException as err:
            for inst in instruments:
                inst.pass_failed(step, program, err)
            raise
        finally:
            ctx.current_pass = ""
        return result


# -- CLI ---------------------------------------------------------------------------------
#
# Conventions follow mlir-opt / xdsl-opt: the IR goes to stdout (or -o FILE, `-o -` is stdout),
# every report (diagnostics, timing, statistics, IR dumps, simulation results) to stderr, `-`
# or piped input is read from stdin, exit status 0 / 1 (the input is wrong) / 2 (the compiler
# is wrong: a crash or a pass breaking a property, always with a reproducer).

# An input larger than this is not a kernel: refuse it before parsing (a located diagnostic,
# not an out-of-memory). Generous: the largest bundled example is a few KiB.
MAX_INPUT_BYTES = 64 * 1024 * 1024
STDIN_NAME = "<stdin>"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"nanopass {version('nanopass-pto')}"
    except PackageNotFoundError:
        return "nanopass (source checkout, not installed)"


def _pass_names(text: str) -> frozenset[str]:
    return frozenset(name.strip() for name in text.split(",") if name.strip())


def build_arg_parser(plugin: CompilerPlugin) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m nanopass.pipeline",
        description="Run a pass pipeline on a program (FILE, `-` or piped stdin), or on every bundled example "
                    "when there is no input. The IR goes to stdout (or -o), every report to stderr.",
        epilog="Exit status: 0 compiled, 1 the input is wrong (a diagnostic says where and how to fix it), "
               "2 internal compiler error (a reproducer is written and the command that re-runs it printed).",
    )
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="input program (`-` reads stdin; piped stdin is read when FILE is absent); "
                             "without input, every bundled example is compiled")
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("-p", "--pipeline", metavar="SPEC", help='pass pipeline, e.g. "a,b{opt=1 other=x,y},c"')
    parser.add_argument("--dump-pass-pipeline", action="store_true",
                        help="print the pipeline that would run as a -p string (stdout without FILE, else stderr)")
    parser.add_argument("--verify-all", action="store_true", help="verify grammar and every claimed property after every pass")
    parser.add_argument("--until", metavar="LANG", help="stop after the last pass producing LANG")
    parser.add_argument("-o", "--output", metavar="OUT", help="write the final program's text to OUT (`-`: stdout)")
    parser.add_argument("--print-debuginfo", action="store_true",
                        help="print source locations (PTO `loc(...)`) in the output, dumps and printed IR")
    printing = parser.add_argument_group("IR printing (stderr, mlir-opt style)")
    printing.add_argument("--print-ir-before", metavar="PASSES", type=_pass_names,
                          help="print the IR before these passes (comma-separated pass or spec names)")
    printing.add_argument("--print-ir-before-all", action="store_true", help="print the IR before every pass")
    printing.add_argument("--print-ir-after", metavar="PASSES", type=_pass_names,
                          help="print the IR after these passes (comma-separated pass or spec names)")
    printing.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass")
    printing.add_argument("--print-ir-after-change", action="store_true", help="print the IR after every pass that changed it")
    printing.add_argument("--print-ir-after-failure", action="store_true",
                          help="print the IR of a failing pass (its output when a verifier rejected it, else its input)")
    printing.add_argument("--dump-dir", metavar="D", type=Path,
                          help="write 00_input.py, 01_after_<Pass>.py, ... into D (each re-runs from its position)")
    reports = parser.add_argument_group("reports (stderr)")
    reports.add_argument("--timing", action="store_true", help="print a per-pass wall-time table")
    reports.add_argument("--statistics", action="store_true", help="print per-pass counters")
    reports.add_argument("--reproducer-dir", metavar="D", type=Path,
                         help="where an internal error writes its reproducer (default: a new directory under "
                              "the system temp dir)")
    reports.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                         help="colour diagnostics (auto: on a terminal, unless NO_COLOR is set)")
    listing = parser.add_argument_group("listing")
    listing.add_argument("--list-passes", action="store_true", help="list registered passes")
    listing.add_argument("--list-languages", action="store_true", help="list the languages in order")
    listing.add_argument("--list-properties", action="store_true", help="list registered properties")
    for name, (help_text, _) in plugin.listings.items():
        listing.add_argument(f"--list-{name}", action="store_true", dest=_listing_dest(name), help=help_text)
    if plugin.add_arguments is not None:
        plugin.add_arguments(parser)
    return parser


def _listing_dest(name: str) -> str:
    return "list_plugin_" + name.replace("-", "_")


def list_passes(plugin: CompilerPlugin) -> str:
    lines = []
    for name, cls in plugin.pass_registry.all_classes().items():
        lines.append(f"{name:<32} {cls.source.name} → {cls.target.name}  ({cls.spec_name}) {cls.describe()}")
        for label, props in (("requires", cls.requires), ("produces", cls.produces), ("invalidates", cls.invalidates)):
            if props:
                lines.append(f"{'':<34}{label}: {', '.join(sorted(props))}")
        for opt, kind in cls.option_types().items():
            default = cls.option_defaults().get(opt, "(required)")
            lines.append(f"{'':<34}option {opt.replace('_', '-')}: {kind.__name__} = {default}")
    return "\n".join(lines)


def list_languages(plugin: CompilerPlugin) -> str:
    reached = {cls.target.name for cls in plugin.pass_registry.all_classes().values()}
    lines = []
    for i, lang in enumerate(plugin.family.languages):
        mark = "" if i == 0 or lang.name in reached else "  (no passes yet)"
        lines.append(f"{i}. {lang.name:<13} {lang.doc}{mark}")
    return "\n".join(lines)


def list_properties(plugin: CompilerPlugin) -> str:
    lines = []
    for prop in plugin.properties:
        order = [lang.name for lang in plugin.family.languages if lang.name in prop.languages]
        lines.append(f"{prop.name:<28} [{', '.join(order)}] {prop.doc}")
    return "\n".join(lines)


@dataclass
class _Outcome:
    program: Node | None
    passes_run: int
    seconds: float
    input_language: str = ""


def _printing_instrument(args: argparse.Namespace, plugin: CompilerPlugin) -> Instrument | None:
    before: frozenset[str] | None = None if getattr(args, "print_ir_before_all", False) else (
        getattr(args, "print_ir_before", None) or frozenset())
    after: frozenset[str] | None
    if getattr(args, "print_ir_after_all", False) or getattr(args, "print_ir_after_change", False):
        after = None
    else:
        after = getattr(args, "print_ir_after", None) or frozenset()
    on_failure = bool(getattr(args, "print_ir_after_failure", False))
    if before == frozenset() and after == frozenset() and not on_failure:
        return None
    only_changes = bool(getattr(args, "print_ir_after_change", False)) and not getattr(args, "print_ir_after_all", False)
    return PrintIRInstrument(plugin, only_changes=only_changes, before=before, after=after, on_failure=on_failure,
                             debuginfo=bool(getattr(args, "print_debuginfo", False)))


def _instruments(args: argparse.Namespace, plugin: CompilerPlugin, ctx: PassContext, dump_dir: Path | None) -> list[Instrument]:
    out: list[Instrument] = []
    if getattr(args, "timing", False):
        out.append(TimingInstrument())
    printing = _printing_instrument(args, plugin)
    if getattr(args, "verify_all", False):
        out.append(VerifyInstrument(plugin, target=ctx.backend))
    if printing is not None:
        out.append(printing)
    if dump_dir is not None:
        out.append(DumpDirInstrument(plugin, dump_dir, debuginfo=bool(getattr(args, "print_debuginfo", False))))
    if getattr(args, "statistics", False):
        out.append(StatisticsInstrument(ctx))
    return out


def _located(name: str, data: bytes, offset: int) -> Span:
    """The line and (character) column of byte `offset`."""
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    col = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return Span(name, line, col)


def decode_source(data: bytes, name: str) -> str:
    """The text of an input file, or a located diagnostic for one that is not UTF-8 text."""
    if len(data) > MAX_INPUT_BYTES:
        raise CompileError(Diagnostic("input", f"{name} is {len(data)} bytes; inputs are limited to "
                                               f"{MAX_INPUT_BYTES} bytes", Span(name, 1, 1),
                                      hint="pass a kernel source file (.py) or a PTO file (.pto)"))
    nul = data.find(b"\0")
    if nul >= 0:
        raise CompileError(Diagnostic("input", f"{name} is a binary file (a NUL byte at offset {nul}), not program text",
                                      _located(name, data, nul),
                                      hint="pass a kernel source file (.py) or a PTO file (.pto)"))
    if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark is not part of the text
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start:exc.start + 1].hex()
        raise CompileError(Diagnostic("input", f"{name} is not UTF-8 text: byte 0x{bad} cannot be decoded ({exc.reason})",
                                      _located(name, data, exc.start),
                                      hint="save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)")) from None


def read_source(path: Path) -> str:
    try:
        if path.is_dir():
            raise CompileError(Diagnostic("input", f"{path} is a directory, not a program file"))
        with path.open("rb") as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise CompileError(Diagnostic("input", f"cannot read {path}: {exc.strerror or exc}")) from None
    return decode_source(data, str(path))


def _stdin_has_input() -> bool:
    """Piped or redirected stdin (a FIFO or a file), not a terminal and not /dev/null."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or (stat.S_ISREG(mode) and os.fstat(sys.stdin.fileno()).st_size > 0)


def read_stdin() -> str:
    data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
    return decode_source(data, STDIN_NAME)


class _Session:
    """What one CLI run keeps for its error reports: the input text (an internal error outside
    any pass still gets a reproducer) and the reproducer directory."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.input_name = ""
        self.input_text = ""

    def reproducer_dir(self) -> Path | None:
        directory: Path | None = getattr(self.args, "reproducer_dir", None)
        return directory if directory is not None else getattr(self.args, "dump_dir", None)

    def input_reproducer(self, extra: Sequence[str]) -> str:
        """Write the input itself as the reproducer of a crash outside any pass (parser,
        verifier or post-compile step)."""
        if not self.input_text:
            return ""
        from nanopass.instruments import default_reproducer_dir

        try:
            directory = self.reproducer_dir() or default_reproducer_dir()
            directory.mkdir(parents=True, exist_ok=True)
            suffix = Path(self.input_name).suffix if self.input_name != STDIN_NAME else ""
            path = directory / f"repro_input{suffix or '.txt'}"
            path.write_text(self.input_text)
        except OSError as exc:
            return f"could not write a reproducer: {exc}"
        words = ["python", "-m", "nanopass.pipeline", str(path), *extra]
        return f"reproducer written to {path}; re-run with:\n  {shlex.join(words)}"


def compile_source(
    name: str, text: str, pipeline: Pipeline, args: argparse.Namespace, plugin: CompilerPlugin,
    dump_dir: Path | None, explicit_pipeline: bool | None = None,
) -> _Outcome:
    start = time.perf_counter()
    remember_source(name, text)
    program = plugin.parse_with_args(text, name, args) if plugin.parse_with_args is not None \
        else plugin.parse(text, name)
    explicit = getattr(args, "pipeline", None) is not None if explicit_pipeline is None else explicit_pipeline
    position = read_position(text)
    claimed = position.holds if position is not None else None
    if not explicit:
        if position is not None:  # a dump or reproducer resumes where it was taken
            pipeline = Pipeline.from_spec(position.rest, plugin)
            if getattr(args, "until", None):
                pipeline = pipeline.until(args.until)
        else:
            pipeline = pipeline.starting_at(type(program).LANGUAGE)
    backend = getattr(args, "backend", None) or plugin.default_backend
    try:
        handler = plugin.make_backend(backend)
    except (KeyError, ValueError) as exc:
        raise CompileError(Diagnostic("backend", str(exc.args[0]) if exc.args else f"unknown backend {backend}")) from None
    ctx = PassContext(backend, handler)
    # Post-compile hooks (e.g. simulate-and-compare) need the program as the user wrote it, and
    # the last program before the final language (the host side the final language drops).
    ctx.options["source_program"] = program
    keep_host = KeepLastBeforeFinal(plugin.family.languages[-1].name, ctx.options, "host_program")
    reproducer_dir = getattr(args, "reproducer_dir", None) or dump_dir
    reproducer = ReproducerInstrument(plugin, reproducer_dir, _backend_args(backend, plugin))
    instruments = _instruments(args, plugin, ctx, dump_dir) + [keep_host, reproducer]
    try:
        final = pipeline.run(program, ctx, instruments, claimed=claimed)
    except (CompileError, PassCrash) as err:
        note = reproducer.message()
        if note:
            err.add_note(note)
        raise
    for diag in ctx.diagnostics:
        print(diag.format(_COLOR[0]), file=sys.stderr)
    if plugin.post_compile is not None:
        status = plugin.post_compile(args, final, ctx)
        if status:
            raise CompileError(Diagnostic("post-compile", f"post-compile step failed with status {status}"))
    return _Outcome(final, len(pipeline.passes), time.perf_counter() - start, type(program).LANGUAGE)


def compile_file(
    path: Path, pipeline: Pipeline, args: argparse.Namespace, plugin: CompilerPlugin, dump_dir: Path | None
) -> _Outcome:
    return compile_source(str(path), read_source(path), pipeline, args, plugin, dump_dir)


def _backend_args(backend: str, plugin: CompilerPlugin) -> tuple[str, ...]:
    """The `--backend` option a reproducer needs to target the same hardware (the option
    exists when the plugin added it; the default backend needs no option)."""
    return () if backend == plugin.default_backend else ("--backend", backend)


def _reached(pipeline: Pipeline, language: str) -> str:
    chain = [language]
    for p in pipeline.passes:
        if type(p).target.name != chain[-1]:
            chain.append(type(p).target.name)
    return "→".join(chain)


# Whether diagnostics are coloured (set once per run by `main`).
_COLOR = [False]


def _format_failure(err: BaseException) -> str:
    text = err.render(_COLOR[0]) if isinstance(err, CompileError) else str(err)
    for note in getattr(err, "__notes__", []):
        text += "\n" + note
    return text


def _exit_status(err: BaseException) -> int:
    return 2 if isinstance(err, PassCrash) or (isinstance(err, CompileError) and err.internal) else 1


def run_examples(pipeline: Pipeline, args: argparse.Namespace, plugin: CompilerPlugin) -> int:
    examples = plugin.examples()
    if not examples:
        print("no bundled examples found", file=sys.stderr)
        return 1
    worst = 0
    width = max(len(p.stem) for p in examples)
    for path in examples:
        dump = args.dump_dir / path.stem if args.dump_dir is not None else None
        lang = plugin.family.languages[0].name
        try:
            outcome = compile_file(path, pipeline, args, plugin, dump)
            assert outcome.program is not None
            lang = type(outcome.program).LANGUAGE
            reached = _reached(pipeline.starting_at(outcome.input_language), outcome.input_language)
            print(f"{path.stem:<{width}}  {reached:<28} "
                  f"{outcome.passes_run:>3} passes  {outcome.seconds * 1e3:>8.1f} ms  ok")
        except (CompileError, PassCrash) as err:
            worst = max(worst, _exit_status(err))
            print(f"{path.stem:<{width}}  {lang:<28} {'':>3}         {'':>8}     FAILED")
            print("    " + _format_failure(err).replace("\n", "\n    "), file=sys.stderr)
    return worst


def _write_output(args: argparse.Namespace, text: str) -> None:
    text = text if text.endswith("\n") else text + "\n"
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)


def main(argv: list[str] | None = None) -> int:
    try:
        plugin = get_plugin()
    except Exception as exc:
        print(f"error: cannot load the compiler plugin: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    args = build_arg_parser(plugin).parse_args(argv)
    _COLOR[0] = args.color == "always" or (args.color == "auto" and use_color(sys.stderr))
    session = _Session(args)
    try:
        if args.version:
            print(_version())
            return 0
        plugin_listings = [listing for name, (_, listing) in plugin.listings.items()
                           if getattr(args, _listing_dest(name), False)]
        if args.list_passes or args.list_languages or args.list_properties or plugin_listings:
            sections = [
                fn(plugin)
                for flag, fn in ((args.list_languages, list_languages), (args.list_passes, list_passes), (args.list_properties, list_properties))
                if flag
            ] + [listing() for listing in plugin_listings]
            print("\n\n".join(sections))
            return 0
        backend = getattr(args, "backend", None) or plugin.default_backend
        spec = args.pipeline if args.pipeline is not None else plugin.default_pipeline(
            backend, plugin.selected_variant(args))
        pipeline = Pipeline.from_spec(spec, plugin)
        if args.until:
            pipeline = pipeline.until(args.until)
        reads_stdin = args.file == "-" or (args.file is None and _stdin_has_input())
        if args.dump_pass_pipeline and args.file is None and not reads_stdin:
            print(pipeline.spec())
            return 0
        if args.file is None and not reads_stdin:
            return run_examples(pipeline, args, plugin)
        if reads_stdin:
            session.input_name, session.input_text = STDIN_NAME, read_stdin()
        else:
            session.input_name = args.file
            session.input_text = read_source(Path(args.file))
        if args.dump_pass_pipeline:
            print(f"-p {shlex.quote(pipeline.spec())}", file=sys.stderr)
        outcome = compile_source(session.input_name, session.input_text, pipeline, args, plugin, args.dump_dir)
        assert outcome.program is not None
        text, _ = plugin.text_of(outcome.program, debuginfo=args.print_debuginfo)
        _write_output(args, text)
        return 0
    except (CompileError, PassCrash) as err:
        print(_format_failure(err), file=sys.stderr)
        if isinstance(err, PassCrash) and os.environ.get("NANOPASS_TRACEBACK"):
            traceback.print_exception(err.error)
        return _exit_status(err)
    except BrokenPipeError:
        raise  # the reader closed stdout early: not a compiler error (see run_main)
    except OSError as exc:  # -o / --dump-dir into a path that cannot be written
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot write{where}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        print(f"internal compiler error: {type(exc).__name__}: {exc}", file=sys.stderr)
        given = list(argv) if argv is not None else sys.argv[1:]
        note = session.input_reproducer([a for a in given if a != args.file])
        if note:
            print(note, file=sys.stderr)
        if os.environ.get("NANOPASS_TRACEBACK"):
            traceback.print_exc()
        else:
            print("(set NANOPASS_TRACEBACK=1 to see the Python traceback)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    run_main(main)

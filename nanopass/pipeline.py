"""Pipelines: a checked sequence of passes, and the `python -m nanopass.pipeline` CLI.

A pipeline is built from a string (`a,b{opt=1 other=x,y},c`) or from a list of pass objects.
Before any IR is touched, `plan` checks that adjacent languages chain and that every pass's
`requires` is available under GCC semantics; a failure names the pass, what is missing and
which registered pass could provide it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from nanopass.cli import run_main
from nanopass.diagnostics import CompileError, Diagnostic
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
)
from nanopass.node import Node
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

    # -- static check -------------------------------------------------------------------

    def plan(self, input_language: str, available: frozenset[str]) -> list[PassStep]:
        """Check the pipeline against the input language and properties; no IR is read."""
        registry = self.plugin.property_registry
        problems: list[Diagnostic] = []
        steps: list[PassStep] = []
        language = input_language
        history: list[tuple[str, frozenset[str], frozenset[str]]] = []  # (pass, produced, invalidated)
        for index, p in enumerate(self.passes, start=1):
            cls = type(p)
            if cls.source.name != language:
                problems.append(self._language_mismatch(index, cls, language))
            missing = sorted(cls.requires - available)
            for prop in missing:
                problems.append(self._missing_property(index, cls, prop, cls.source.name, history))
            after = available_after(available, cls.produces, cls.invalidates, cls.target.name, registry)
            steps.append(PassStep(index, p, available, after, self.spec(index - 1)))
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
    ) -> Node:
        """Check the pipeline, verify the input's guaranteed properties, run every pass."""
        plugin = self.plugin
        language = type(program).LANGUAGE
        # Languages first, with every property assumed: a pipeline that does not chain is
        # rejected before the input is even verified.
        self.plan(language, frozenset(plugin.property_registry.names()) | frozenset(
            prop for p in self.passes for prop in type(p).requires))
        if ctx is None:
            ctx = PassContext(plugin.default_backend, plugin.make_backend(plugin.default_backend))
        if verify_input:
            needed = {prop for p in self.passes for prop in type(p).requires}
            available = plugin.verify_loaded(program, also=needed, target=ctx.backend)
        else:
            available = plugin.initial_properties(language)
        steps = self.plan(language, available)
        for inst in instruments:
            inst.before_pipeline(steps, program)
        for step in steps:
            program = self._run_step(step, program, ctx, instruments)
        for inst in instruments:
            inst.after_pipeline(steps, program)
        return program

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


def build_arg_parser(plugin: CompilerPlugin) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m nanopass.pipeline",
        description="Run a pass pipeline on a program (or on every bundled example).",
    )
    parser.add_argument("file", nargs="?", help="input program; without it, every bundled example is compiled")
    parser.add_argument("-p", "--pipeline", metavar="SPEC", help='pass pipeline, e.g. "a,b{opt=1 other=x,y},c"')
    parser.add_argument("--verify-all", action="store_true", help="verify grammar and every claimed property after every pass")
    parser.add_argument("--until", metavar="LANG", help="stop after the last pass producing LANG")
    parser.add_argument("--print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    parser.add_argument("--print-ir-after-change", action="store_true", help="print the IR after every pass that changed it")
    parser.add_argument("--dump-dir", metavar="D", type=Path, help="write 00_input.py, 01_after_<Pass>.py, ... into D")
    parser.add_argument("--timing", action="store_true", help="print a per-pass wall-time table")
    parser.add_argument("--statistics", action="store_true", help="print per-pass counters")
    parser.add_argument("--list-passes", action="store_true", help="list registered passes")
    parser.add_argument("--list-languages", action="store_true", help="list the languages in order")
    parser.add_argument("--list-properties", action="store_true", help="list registered properties")
    parser.add_argument("-o", "--output", metavar="OUT", type=Path, help="write the final program's text to OUT")
    if plugin.add_arguments is not None:
        plugin.add_arguments(parser)
    return parser


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


def _instruments(args: argparse.Namespace, plugin: CompilerPlugin, ctx: PassContext, dump_dir: Path | None) -> list[Instrument]:
    out: list[Instrument] = []
    if args.timing:
        out.append(TimingInstrument())
    if args.verify_all:
        out.append(VerifyInstrument(plugin, target=ctx.backend))
    if args.print_ir_after_all or args.print_ir_after_change:
        out.append(PrintIRInstrument(plugin, only_changes=args.print_ir_after_change and not args.print_ir_after_all))
    if dump_dir is not None:
        out.append(DumpDirInstrument(plugin, dump_dir))
    if args.statistics:
        out.append(StatisticsInstrument(ctx))
    return out


def compile_file(
    path: Path, pipeline: Pipeline, args: argparse.Namespace, plugin: CompilerPlugin, dump_dir: Path | None
) -> _Outcome:
    start = time.perf_counter()
    try:
        text = path.read_text()
    except OSError as exc:
        raise CompileError(Diagnostic("input", f"cannot read {path}: {exc.strerror}")) from None
    program = plugin.parse(text, str(path))
    if getattr(args, "pipeline", None) is None:
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
    reproducer = ReproducerInstrument(plugin, dump_dir, _backend_args(backend, plugin))
    instruments = _instruments(args, plugin, ctx, dump_dir) + [keep_host, reproducer]
    try:
        final = pipeline.run(program, ctx, instruments)
    except (CompileError, PassCrash) as err:
        note = reproducer.message()
        if note:
            err.add_note(note)
        raise
    for diag in ctx.diagnostics:
        print(diag.format(), file=sys.stderr)
    if plugin.post_compile is not None:
        status = plugin.post_compile(args, final, ctx)
        if status:
            raise CompileError(Diagnostic("post-compile", f"post-compile step failed with status {status}"))
    return _Outcome(final, len(pipeline.passes), time.perf_counter() - start)


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


def _format_failure(err: BaseException) -> str:
    text = str(err)
    for note in getattr(err, "__notes__", []):
        text += "\n" + note
    return text


def run_examples(pipeline: Pipeline, args: argparse.Namespace, plugin: CompilerPlugin) -> int:
    examples = plugin.examples()
    if not examples:
        print("no bundled examples found", file=sys.stderr)
        return 1
    failed = 0
    width = max(len(p.stem) for p in examples)
    for path in examples:
        dump = args.dump_dir / path.stem if args.dump_dir is not None else None
        lang = plugin.family.languages[0].name
        try:
            outcome = compile_file(path, pipeline, args, plugin, dump)
            assert outcome.program is not None
            lang = type(outcome.program).LANGUAGE
            print(f"{path.stem:<{width}}  {_reached(pipeline, plugin.family.languages[0].name):<28} "
                  f"{outcome.passes_run:>3} passes  {outcome.seconds * 1e3:>8.1f} ms  ok")
        except (CompileError, PassCrash) as err:
            failed += 1
            print(f"{path.stem:<{width}}  {lang:<28} {'':>3}         {'':>8}     FAILED")
            print("    " + _format_failure(err).replace("\n", "\n    "))
    return 0 if failed == 0 else 1


def main(argv: list[str] | None = None) -> int:
    try:
        plugin = get_plugin()
    except Exception as exc:
        print(f"error: cannot load the compiler plugin: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    args = build_arg_parser(plugin).parse_args(argv)
    try:
        if args.list_passes or args.list_languages or args.list_properties:
            sections = [
                fn(plugin)
                for flag, fn in ((args.list_languages, list_languages), (args.list_passes, list_passes), (args.list_properties, list_properties))
                if flag
            ]
            print("\n\n".join(sections))
            return 0
        backend = getattr(args, "backend", None) or plugin.default_backend
        spec = args.pipeline if args.pipeline is not None else plugin.default_pipeline(backend)
        pipeline = Pipeline.from_spec(spec, plugin)
        if args.until:
            pipeline = pipeline.until(args.until)
        if args.file is None:
            return run_examples(pipeline, args, plugin)
        outcome = compile_file(Path(args.file), pipeline, args, plugin, args.dump_dir)
        assert outcome.program is not None
        text, _ = plugin.text_of(outcome.program)
        if args.output is not None:
            args.output.write_text(text)
        else:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return 0
    except CompileError as err:
        print(_format_failure(err), file=sys.stderr)
        return 1
    except PassCrash as crash:
        print(_format_failure(crash), file=sys.stderr)
        if os.environ.get("NANOPASS_TRACEBACK"):
            traceback.print_exception(crash.error)
        return 2
    except BrokenPipeError:
        raise  # the reader closed stdout early: not a compiler error (see run_main)
    except OSError as exc:  # -o / --dump-dir into a path that cannot be written
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot write{where}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        print(f"internal compiler error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if os.environ.get("NANOPASS_TRACEBACK"):
            traceback.print_exc()
        else:
            print("(set NANOPASS_TRACEBACK=1 to see the Python traceback)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    run_main(main)

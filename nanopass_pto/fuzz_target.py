"""The PTO compiler's fuzz target for `python -m nanopass.fuzz`: the oracle, blame and regression
files around the program generator of `backend.fuzzing`.

    fuzz_target() -> PtoFuzzTarget          the plugin hook (see nanopass.fuzz.FuzzTarget)
    cases(features)                         Hypothesis strategy: program + input seed
    PtoFuzzTarget.check_text(text, seed)    compile (verify-all), simulate, interpret, compare
    replay(path)                            re-check a tests/regressions/fuzz_*.py file

Oracle. A program is compiled through the pipeline with every verifier on (a verifier failure
names the pass and the property; an exception names the pass and the exception; a CompileError
on a generated program names the pass that rejected it). The PTO kernels then run on the
bit-exact simulator under the interpreted orchestration function, the Tensor program runs on
the reference interpreter, same random inputs (backend.arrays.random_inputs: ties,
subnormals, large exponents, -0.0, and in BF16 signalling / quiet NaNs and infinities), and the
outputs' valid regions are compared bit for bit,
all through the run API (`nanopass_pto.run`). With `--ptoas` (`check_with_assembler`) a kernel
that ran bit-exact is also handed to the real PTO assembler, whose rejection outside the known-open
classes (nanopass_pto.ptoas.KNOWN_OPEN) is a failure of its own (status `ptoas`).
On a mismatch (or a poison read / simulator fault) the output of every pass up to L0Tiled is
interpreted and the first one whose result differs is blamed; when all agree, the stages after
L0Tiled (memory planning, codegen, simulator) are.
"""

from __future__ import annotations

import hashlib
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st
from typing_extensions import override

from backend.fuzzing.generator import Features, GeneratedProgram, programs
from backend.fuzzing.registry_calls import steering_focus
from backend.fuzzing.numerics_check import self_check as numerics_self_check
from backend.fuzzing.sim_arith_check import self_check as sim_arith_self_check
from backend.sim.machine import PoisonRead, SimulationError
from backend.targets.handlers import BackendHandler, get_backend
from languages.functions import entry_function
from nanopass.diagnostics import CompileError, Diagnostic
from nanopass.fuzz import OK, Mutant, Outcome
from nanopass.instruments import Instrument, PassStep, VerifyInstrument
from nanopass.node import Node, summary, walk
from nanopass.pipeline import PassCrash, Pipeline
from nanopass.plugin import CompilerPlugin, get_plugin
from backend.pto_text.printer import print_mlir
from nanopass_pto import ptoas
from nanopass_pto import run as runner
from nanopass_pto.run import OutputReport
from nanopass_pto.hand_placed import hand_placed_text

Array = npt.NDArray[Any]

VALUE_LEVEL_BLAME_LANGUAGES = frozenset({"Tensor", "TileUnplaced", "TilePlaced", "L0Tiled"})
# The stages after L0Tiled have no value-level meaning of their own (addresses, PTO text, the
# machine), so interpretation cannot tell them apart: a mismatch no interpreted stage shows is
# blamed on all of them together.
POST_L0_BLAME = "memory planning / codegen / simulator (after L0Tiled)"
TEXT_BLAME = "PTO-ISA text printer / parser (backend.pto_text)"
NUMERICS_BLAME = "shared arithmetic (backend.numerics)"
SIM_ARITH_BLAME = "simulator scalar arithmetic (backend.sim.executor)"
ASSEMBLER_BLAME = "pto-codegen (the PTO assembler rejects what it emits)"


@dataclass(frozen=True)
class FuzzCase:
    """One generated program, the seed of its random inputs and the backend it is compiled and
    simulated for ("": the target's configured one)."""

    generated: GeneratedProgram
    input_seed: int
    backend: str = ""

    @property
    def text(self) -> str:
        return self.generated.text


def cases(features: Features = Features(), arch: str = "", focus: Sequence[str] = (),
          backend: str = "") -> st.SearchStrategy[FuzzCase]:
    # Seeds shrink toward 0 too, so a minimal failure usually replays with `--seed 0`.
    return st.builds(FuzzCase, programs(features, arch, focus, hand_placed_text), st.integers(0, 2**16),
                     st.just(backend))


# The targets a campaign compiles for when none is named: each case draws one (shrinking toward
# the first), so the Ascend950-only instructions, cross-core paths and its BF16 forms are fuzzed
# in every campaign, not only in one run with --backend.
CAMPAIGN_BACKENDS: tuple[str, ...] = ("Ascend910B", "Ascend950")


class _Recorder(Instrument):
    """Keeps every pass's output (for blame), notes which passes changed the program, and runs
    the verify-all checks itself so their time and their failures are told apart from the
    passes' own."""

    def __init__(self, verify: VerifyInstrument | None) -> None:
        self.verify = verify
        self.snapshots: list[tuple[str, Node]] = []
        self.changed: set[str] = set()
        self.verify_seconds = 0.0
        self.verify_failure: tuple[str, CompileError] | None = None
        self.current = ""

    @override
    def before_pass(self, step: PassStep, program: Node) -> None:
        self.current = type(step.pass_).name

    @override
    def after_pass(self, step: PassStep, before: Node, after: Node) -> None:
        name = type(step.pass_).name
        self.snapshots.append((name, after))
        if after is not before:  # copy-on-write: an untouched program is the same object
            self.changed.add(name)
        if self.verify is None:
            return
        start = time.perf_counter()
        try:
            self.verify.after_pass(step, before, after)
        except CompileError as err:
            self.verify_failure = (name, err)
            raise
        finally:
            self.verify_seconds += time.perf_counter() - start


@dataclass(frozen=True)
class CoverageUniverse:
    """Everything coverage is measured against: every registered op, every construct the
    generator knows, every pass of the pipeline under test; `gaps` names ops no program can reach
    yet (and why), `triggers` what each pass rewrites (for a pass that never changed anything)."""

    ops: tuple[str, ...]
    constructs: tuple[str, ...]
    passes: tuple[str, ...]
    gaps: Mapping[str, str]
    triggers: Mapping[str, str]


def _first_doc_line(cls: type) -> str:
    doc = (cls.__doc__ or "").strip().splitlines()
    return doc[0] if doc else ""


def _first_lines(text: str, count: int = 6) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return "\n".join(lines[:count] + (["..."] if len(lines) > count else []))


def _error_text(err: BaseException) -> str:
    return _first_lines(str(err))


def _mismatch_text(reports: Sequence[OutputReport]) -> str:
    return "\n".join(r.line for r in reports if not r.ok)


@dataclass
class _Run:
    """Everything one check learns, in the order it learns it."""

    timings: dict[str, float] = field(default_factory=dict)

    def add(self, phase: str, seconds: float) -> None:
        self.timings[phase] = self.timings.get(phase, 0.0) + seconds


class PtoFuzzTarget:
    """The PTO compiler's fuzz target for `nanopass.fuzz` (generator, oracle, blame, mutants)."""

    name = "pto"

    def __init__(self) -> None:
        self.features = Features()
        self.backend_name = ""
        self.backends: tuple[str, ...] = ()  # what the cases draw from (configure: all, or the named one)
        self.pipeline_spec: str | None = None
        self._pipelines: dict[str, Pipeline] = {}
        self.verify_all = True
        self.assembler: Path | None = None  # PTOAS, when every kernel is also assembled (--ptoas)

    # -- configuration ---------------------------------------------------------------------------

    def configure(self, pipeline: str | None, backend: str | None, features: str | None) -> None:
        plugin = get_plugin()
        self.backend_name = backend or plugin.default_backend
        self.backends = (self.backend_name,) if backend else CAMPAIGN_BACKENDS
        self.pipeline_spec = pipeline
        self.features = Features.parse(features or "")
        self._pipelines = {self.backend_name: build_pipeline(pipeline, self.backend_name)}

    def check_with_assembler(self) -> None:
        """Hand every kernel that simulates bit-exact to PTOAS too (`python -m nanopass.fuzz
        --ptoas`): a rejection outside the known-open classes (nanopass_pto.ptoas.KNOWN_OPEN) is a
        failure, blamed on the codegen."""
        self.assembler = ptoas.find_ptoas()
        if self.assembler is None:
            raise RuntimeError("PTOAS is not built: bash ../shared/external/build-ptoas.sh, or set PTOAS=")

    @property
    def plugin(self) -> CompilerPlugin:
        return get_plugin()

    @property
    def pipeline(self) -> Pipeline:
        return self.pipeline_for("")

    def pipeline_for(self, backend: str) -> Pipeline:
        """The pipeline under test for `backend` ("": the configured one), built once."""
        name = backend or self.backend_name or self.plugin.default_backend
        if name not in self._pipelines:
            self._pipelines[name] = build_pipeline(self.pipeline_spec, name)
        return self._pipelines[name]

    @property
    def passes_total(self) -> int:
        return len(self.pipeline.passes)

    @property
    def handler(self) -> BackendHandler:
        return get_backend(self.backend_name or self.plugin.default_backend)

    def _backends(self) -> tuple[str, ...]:
        return self.backends or (self.backend_name or self.plugin.default_backend,)

    def _per_backend(self, make: Callable[[str], st.SearchStrategy[FuzzCase] | None]) -> st.SearchStrategy[FuzzCase] | None:
        drawn = [strategy for strategy in (make(name) for name in self._backends()) if strategy is not None]
        if not drawn:
            return None
        return drawn[0] if len(drawn) == 1 else st.one_of(drawn)

    # -- the FuzzTarget protocol --------------------------------------------------------------------

    def strategy(self) -> st.SearchStrategy[FuzzCase]:
        single = len(self._backends()) == 1
        made = self._per_backend(lambda name: cases(self.features, get_backend(name).arch,
                                                    backend="" if single else name))
        assert made is not None
        return made

    def steered_strategy(self, exercised: frozenset[str], worker: int, workers: int, chunk: int,
                         size: int, seed: int = 0) -> st.SearchStrategy[FuzzCase] | None:
        """Cases drawn toward the registered ops this worker has not exercised yet: this worker's
        share of them (every `workers`-th), the others' once its own are reached; a window of at
        most `size` of them (a chunk's worth), moving on every chunk so an op that is hard to
        reach does not hold the window, and starting where the seed says (campaigns with other
        seeds, a mutation run's each, begin elsewhere)."""
        from languages.ops import REGISTRY

        single = len(self._backends()) == 1

        def steered(name: str) -> st.SearchStrategy[FuzzCase] | None:
            arch = get_backend(name).arch
            focus = steering_focus(sorted(op.name for op in REGISTRY), exercised, arch)
            if not focus:
                return None
            share = focus[worker % workers::workers] or focus
            width = max(1, min(size, len(share)))
            start = (chunk * width + seed * 7919) % len(share)
            window = (share + share)[start:start + width]
            return cases(self.features, arch, tuple(window), "" if single else name)

        return self._per_backend(steered)

    def describe(self, case: FuzzCase) -> str:
        return case.text

    def check(self, case: FuzzCase, blame: bool = True) -> Outcome:
        return self.check_text(case.text, case.input_seed, "<fuzz>", case.generated.ops, blame, case.backend)

    def regression_file(self, case: FuzzCase, outcome: Outcome) -> tuple[str, str]:
        return regression_file(case.text, case.input_seed, outcome, case.backend or self.backend_name,
                               self.pipeline_spec)

    def mutants(self) -> Sequence[Mutant]:
        from nanopass_pto.mutants import MUTANTS

        return tuple(MUTANTS)

    def coverage_universe(self) -> CoverageUniverse:
        """What a campaign could cover, for the summary's coverage table."""
        from backend.fuzzing.generator import CONSTRUCTS
        from backend.fuzzing.registry_calls import generatable, not_generated_reason
        from languages.ops import REGISTRY

        # Ops a step never draws on any of the campaign's backends, with the stated reason (those
        # not reached through lowering show it).
        arches = [get_backend(name).arch for name in self._backends()]
        gaps = {op.name: not_generated_reason(op, arches[0]) for op in REGISTRY
                if not any(generatable(op, arch) for arch in arches)}
        passes = tuple(type(p).name for p in self.pipeline.passes)
        triggers = {type(p).name: _first_doc_line(type(p)) for p in self.pipeline.passes}
        return CoverageUniverse(tuple(sorted(op.name for op in REGISTRY)), CONSTRUCTS, passes, gaps, triggers)

    # -- the oracle ----------------------------------------------------------------------------------

    def check_text(self, text: str, seed: int, filename: str = "<fuzz>", coverage: frozenset[str] = frozenset(),
                   blame: bool = True, backend: str = "") -> Outcome:
        # NaN / inf operands are part of the input distribution: numpy's floating-point warnings
        # (e.g. a NaN compared in minimum) are expected there, not findings, and would garble the
        # campaign's progress line.
        with np.errstate(all="ignore"):
            return self._check_text(text, seed, filename, coverage, blame, backend)

    def _check_text(self, text: str, seed: int, filename: str, coverage: frozenset[str], blame: bool,
                    backend: str = "") -> Outcome:
        backend_name = backend or self.backend_name or self.plugin.default_backend
        run = _Run()
        reached: set[str] = set()

        def outcome(status: str, check: str, blamed: str, detail: str, recorder: _Recorder | None = None) -> Outcome:
            changed = frozenset(recorder.changed) if recorder is not None else frozenset()
            return Outcome(status, check, blamed, detail, coverage | reached, changed, tuple(run.timings.items()))

        # The arithmetic both sides of the comparison share, checked against an exact reference
        # (a bug there makes the simulator and the interpreter agree on the wrong bits).
        start = time.perf_counter()
        problem = numerics_self_check(seed)
        run.add("numerics check", time.perf_counter() - start)
        if problem is not None:
            return outcome("numerics", "numerics self-check", NUMERICS_BLAME, problem)
        # The simulator's scalar arith ops, which no interpreter computes alongside.
        problem = sim_arith_self_check(seed)
        if problem is not None:
            return outcome("numerics", "simulator scalar arithmetic self-check", SIM_ARITH_BLAME, problem)

        start = time.perf_counter()
        try:
            source = self.plugin.parse(text, filename)
        except CompileError as err:
            run.add("compilation", time.perf_counter() - start)
            return outcome("generator", "frontend rejected a generated program", "generator", _error_text(err))
        plugin = self.plugin
        # The target-dependent verifiers (capacities, L0C footprints) check against the handler
        # the program is compiled and simulated for.
        recorder = _Recorder(VerifyInstrument(plugin, target=get_backend(backend_name)) if self.verify_all else None)
        try:
            compiled = runner.compile_program(source, pipeline=self.pipeline_for(backend_name), backend=backend_name,
                                              instruments=[recorder])
        except PassCrash as crash:
            run.add("compilation", time.perf_counter() - start - recorder.verify_seconds)
            run.add("verification", recorder.verify_seconds)
            return outcome("crash", "crash", type(crash.step.pass_).name,
                           f"{type(crash.error).__name__}: {crash.error}", recorder)
        except CompileError as err:
            run.add("compilation", time.perf_counter() - start - recorder.verify_seconds)
            run.add("verification", recorder.verify_seconds)
            if recorder.verify_failure is not None:
                return outcome("verifier", "verifier", recorder.verify_failure[0], _error_text(err), recorder)
            if not recorder.current:
                return outcome("generator", "input verification", "generator", _error_text(err), recorder)
            return outcome("rejected", "compile error", recorder.current, _error_text(err), recorder)
        run.add("compilation", time.perf_counter() - start - recorder.verify_seconds)
        run.add("verification", recorder.verify_seconds)
        reached.update(stage_ops(source, recorder.snapshots, compiled.final))

        start = time.perf_counter()
        shipped, problem = self.round_trip(compiled.final)
        run.add("compilation", time.perf_counter() - start)
        if problem is not None:
            return outcome("verifier", "PTO text round trip", TEXT_BLAME, problem, recorder)

        start = time.perf_counter()
        try:
            inputs = signed_scalars(source, runner.random_inputs(source, seed), seed)
            inputs = valid_extents(inputs, seed)
            expected = runner.reference(source, inputs)
        except Exception as exc:
            run.add("interpretation", time.perf_counter() - start)
            return outcome("interpreter-error", "interpreter fault", "interpreter",
                           f"{type(exc).__name__}: {_error_text(exc)}", recorder)
        run.add("interpretation", time.perf_counter() - start)

        start = time.perf_counter()
        failure: tuple[str, str, str] | None = None
        try:
            outputs = runner.run(compiled.shipping(shipped), inputs, checked=True)
            reports = runner.compare_valid(source, expected, outputs)
            if not all(r.ok for r in reports):
                failure = ("mismatch", "simulator mismatch", _mismatch_text(reports))
        except PoisonRead as err:
            failure = ("poison", "poison read", _error_text(err))
        except SimulationError as err:
            failure = ("simulator-error", "simulator fault", _error_text(err))
        except CompileError as err:
            failure = ("simulator-error", "simulator fault", _error_text(err))
        except Exception as exc:
            failure = ("crash", "crash", f"{type(exc).__name__}: {_error_text(exc)}")
        run.add("simulation", time.perf_counter() - start)
        if failure is None:
            start = time.perf_counter()
            refusal = self.assembler_refusal(compiled.final, backend_name)
            run.add("assembly", time.perf_counter() - start)
            if refusal is not None:
                return outcome("ptoas", "PTO assembler", ASSEMBLER_BLAME, refusal, recorder)
            return outcome(OK, "", "", "", recorder)
        status, check, detail = failure
        blamed = POST_L0_BLAME if status != "crash" else "simulator"
        if blame:
            start = time.perf_counter()
            blamed_pass, note = blame_pass(recorder.snapshots, source, inputs, expected)
            run.add("blame", time.perf_counter() - start)
            if blamed_pass is not None:
                blamed, detail = blamed_pass, detail + "\n" + note
        return outcome(status, check, blamed, detail, recorder)


    def assembler_refusal(self, final: Node, backend: str) -> str | None:
        """PTOAS's refusal of the compiled kernels (None: accepted, a known-open class, or no
        assembler oracle)."""
        arch = ptoas.ARCH.get(backend)
        if self.assembler is None or arch is None:
            return None
        with tempfile.TemporaryDirectory(prefix="fuzz-ptoas-") as work:
            pto = Path(work) / "k.pto"
            pto.write_text(print_mlir(final, emit_loc=False))  # type: ignore[arg-type]
            result = ptoas.assemble(self.assembler, pto, arch, Path(work) / "k.cpp")
        if result.returncode == 0 or ptoas.known_open_class(result.stderr) is not None:
            return None
        return f"PTOAS (--pto-arch={arch}) rejects the kernel:\n{_first_lines(result.stderr, 12)}"

    def round_trip(self, final: Node) -> tuple[Node, str | None]:
        """The program as users get it: `final` printed as PTO-ISA text and parsed back. The text
        must be a fixpoint (printing the parsed program gives the same text), and the parsed
        program is what gets simulated, so a printer that drops or garbles a field (a view, a
        pad, a loop bound) is caught like a codegen bug."""
        plugin = self.plugin
        if plugin.print_final is None:
            return final, None
        text = plugin.print_final(final)
        try:
            shipped = plugin.parse(text, "<fuzz>" + plugin.final_suffix)
        except CompileError as err:
            return final, "the printed PTO text does not parse:\n" + _error_text(err)
        shipped = _with_pop_addresses(shipped, final)
        again = plugin.print_final(shipped)
        if again != text:
            first = next((i for i, (a, b) in enumerate(zip(text.splitlines(), again.splitlines())) if a != b), 0)
            return shipped, (f"printing the parsed PTO text changes line {first + 1}:\n"
                             f"  printed:   {text.splitlines()[first].strip() if text.splitlines() else ''}\n"
                             f"  reprinted: {again.splitlines()[first].strip() if again.splitlines() else ''}")
        return shipped, None


def signed_scalars(source: Node, inputs: dict[str, Any], seed: int) -> dict[str, Any]:
    """Inputs with the generator's arithmetic-only scalar parameters (named `k<n>`) drawn with
    either sign: random_inputs keeps scalars small and positive (they are usually extents), which
    would hide floor division / modulo and sign handling. An unsigned one (random_inputs gives
    it its uintN dtype) is drawn either small (0 .. 9) or near its type's max (max - 9 .. max),
    so a cast of it to a narrower or a signed type, or to a float, wraps or rounds."""
    from backend.fuzzing.generator import SIGNED_SCALAR_PREFIX

    rng = np.random.default_rng(seed + 7919)
    out = dict(inputs)
    for name, value in inputs.items():
        rest = name.split("_")[-1]
        if rest[:1] == SIGNED_SCALAR_PREFIX and rest[1:].isdigit() and np.ndim(value) == 0:
            dtype = np.asarray(value).dtype
            if dtype.kind == "u":
                top = int(np.iinfo(dtype).max)
                small = int(rng.integers(0, 2)) == 0
                drawn = int(rng.integers(0, 10)) if small else top - int(rng.integers(0, 10))
            else:
                drawn = int(rng.integers(-9, 10))
            out[name] = np.asarray(drawn, dtype=dtype)
    return out


def valid_extents(inputs: dict[str, Any], seed: int) -> dict[str, Any]:
    """Inputs with the generator's runtime valid extents (INDEX parameters named
    `ve<bound>n<counter>`, `backend.fuzzing.generator.valid_extent_bound`) drawn in 1..bound,
    every extent of the tile being as likely (random_inputs' 1..4 would miss the larger ones and
    run past a bound below 4)."""
    from backend.fuzzing.generator import valid_extent_bound

    rng = np.random.default_rng(seed + 104729)
    out = dict(inputs)
    for name, value in inputs.items():
        bound = valid_extent_bound(name.split("_")[-1])
        if bound is not None and np.ndim(value) == 0:
            out[name] = np.asarray(int(rng.integers(1, bound + 1)), dtype=np.asarray(value).dtype)
    return out


def _ops_of(program: Node) -> set[str]:
    # From the memoized summary (the grammar check of every stage has made it), not a new walk.
    return {str(op) for op in summary(program).field_values("Call", "op")}


def stage_ops(source: Node, snapshots: Sequence[tuple[str, Node]], final: Node) -> set[str]:
    """The registered ops a compiled program uses at some stage (coverage: a tile op appears
    after ConvertTensorToTileOps, a PTO instruction after PTOCodegen): the source, the last
    program of each language, and the final one."""
    last: dict[str, Node] = {}
    for _, program in snapshots:
        last[type(program).LANGUAGE] = program
    ops = _ops_of(source) | _ops_of(final)
    for program in last.values():
        ops |= _ops_of(program)
    return ops


def _pop_memrefs(program: Node) -> dict[tuple[str, int], Any]:
    """(function, n) -> the MemRef the n-th FIFO pop of that function binds."""
    found: dict[tuple[str, int], Any] = {}
    for function in getattr(program, "functions", ()):
        count = 0
        for node in walk(function):
            if node.KIND == "AssignStmt" and getattr(getattr(node, "value"), "KIND", "") == "Call" \
                    and str(getattr(getattr(node, "value"), "op")).startswith("pto.tpop_"):
                found[(getattr(function, "name"), count)] = getattr(getattr(node, "target"), "type")
                count += 1
    return found


def _with_pop_addresses(shipped: Node, compiled: Node) -> Node:
    """`shipped` with each FIFO pop's consumer buffer at the address the compiled program gave
    it: PTO text has no syntax for a pop slot's address (PTOAS places it from the pipe set-up),
    so it is the one field the round trip carries over instead of printing."""
    from dataclasses import replace as _replace

    from nanopass_pto.mutants import transform

    wanted = _pop_memrefs(compiled)
    if not wanted:
        return shipped
    functions = []
    for function in getattr(shipped, "functions"):
        name = getattr(function, "name")
        count = 0
        renames: dict[str, Any] = {}
        for node in walk(function):
            if node.KIND == "AssignStmt" and getattr(getattr(node, "value"), "KIND", "") == "Call" \
                    and str(getattr(getattr(node, "value"), "op")).startswith("pto.tpop_"):
                ty = wanted.get((name, count))
                if ty is not None:
                    renames[str(getattr(getattr(node, "target"), "name"))] = ty
                count += 1

        def edit(node: Node) -> Any:
            if node.KIND == "Var" and str(getattr(node, "name")) in renames:
                return _replace(node, type=renames[str(getattr(node, "name"))])  # type: ignore[type-var]
            return None

        functions.append(transform(function, edit) if renames else function)
    return _replace(shipped, functions=tuple(functions))  # type: ignore[type-var]


def blame_pass(snapshots: Sequence[tuple[str, Node]], source: Node, inputs: Mapping[str, object],
               expected: Mapping[str, Array]) -> tuple[str | None, str]:
    """The first pass whose output, interpreted, differs from the source program's result.

    A pass whose output cannot be interpreted on its own (e.g. kernels gained Out parameters
    whose call sites a later pass updates) is skipped; if the next interpretable output
    differs, both are named ("a..b")."""
    entry = entry_function(source)
    skipped: list[str] = []
    # A pass that changed nothing returns its input object (copy-on-write; IR nodes are
    # immutable): the interpreter is deterministic, so its output is the one already found to
    # agree (or to be uninterpretable) and is not interpreted again.
    previous: Node | None = None
    for name, program in snapshots:
        if type(program).LANGUAGE not in VALUE_LEVEL_BLAME_LANGUAGES:
            break
        if program is previous:
            if skipped:
                skipped.append(name)
            continue
        previous = program
        try:
            outputs = runner.user_outputs(runner.reference(program, inputs), entry)
        except Exception:
            skipped.append(name)
            continue
        reports = runner.compare_valid(source, expected, outputs)
        if not all(r.ok for r in reports):
            blamed = f"{skipped[0]}..{name}" if skipped else name
            return blamed, f"the output of {name}, interpreted, already differs:\n{_mismatch_text(reports)}"
        skipped = []
    return None, ""


def build_pipeline(spec: str | None, backend: str) -> Pipeline:
    """The pipeline under test: `spec`, else the plugin's default pipeline for `backend`."""
    plugin = get_plugin()
    pipeline = Pipeline.from_spec(spec or plugin.default_pipeline(backend), plugin)
    final = plugin.family.languages[-1].name
    if not pipeline.passes or type(pipeline.passes[-1]).target.name != final:
        raise CompileError(Diagnostic("fuzz", f"the pipeline `{pipeline.spec()}` does not reach {final}",
                                      hint="the fuzzer simulates the final program: give a pipeline ending in "
                                           f"a pass that produces {final}"))
    return pipeline


# -- regression files ------------------------------------------------------------------------------------

REGRESSION_MARK = "# fuzz-regression:"


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in text.lower()).strip("_")[:40] or "unknown"


def replay_command(seed: int, backend: str, pipeline: str | None) -> str:
    """The command that reproduces a finding by hand: the found backend and pass list are part of it
    (a replay on the default backend of an Ascend950 finding reports another verdict)."""
    passes = f' -p "{pipeline}"' if pipeline else ""
    return f"python -m nanopass.pipeline THIS_FILE --verify-all --simulate --seed {seed} --backend {backend}{passes}"


def regression_file(text: str, seed: int, outcome: Outcome, backend: str, pipeline: str | None) -> tuple[str, str]:
    """(file stem, contents): the program in the pl DSL under a header the collector reads."""
    digest = hashlib.sha256(f"{seed}\n{text}".encode()).hexdigest()[:10]
    stem = f"fuzz_{_slug(outcome.status)}_{_slug(outcome.blamed)}_{digest}"
    detail = "\n".join(f"#   {line}" for line in outcome.detail.splitlines())
    header = [
        f"{REGRESSION_MARK} {outcome.status} ({outcome.check})",
        f"# blamed: {outcome.blamed}",
        f"# input-seed: {seed}",
        f"# backend: {backend}",
        f"# pipeline: {pipeline or 'default'}",
        "# verdict when found:",
        detail,
        f"# replay: {replay_command(seed, backend, pipeline)}",
        "# (collected by tests/regressions/conftest.py; fails until the bug is fixed)",
    ]
    return stem, "\n".join(line for line in header if line) + "\n" + text


@dataclass(frozen=True)
class RegressionSpec:
    text: str
    input_seed: int
    backend: str
    pipeline: str | None
    status: str
    blamed: str


def read_regression(path: str | Path) -> RegressionSpec:
    text = Path(path).read_text()
    fields_: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].strip().partition(":")
        if sep and key in ("fuzz-regression", "blamed", "input-seed", "backend", "pipeline"):
            fields_[key] = value.strip()
    pipeline = fields_.get("pipeline", "default")
    return RegressionSpec(text, int(fields_.get("input-seed", "0")), fields_.get("backend", ""),
                          None if pipeline == "default" else pipeline,
                          fields_.get("fuzz-regression", "").split(" ")[0], fields_.get("blamed", ""))


def replay(path: str | Path) -> Outcome:
    """Re-check a regression file with today's compiler (the outcome is `ok` once fixed)."""
    spec = read_regression(path)
    target = PtoFuzzTarget()
    target.configure(spec.pipeline, spec.backend or None, None)
    if spec.status == "ptoas":
        # Found by the assembler oracle: replayed with it (skipped by the collector without PTOAS).
        target.check_with_assembler()
    return target.check_text(spec.text, spec.input_seed, str(path))


def fuzz_target() -> PtoFuzzTarget:
    """The plugin hook: `CompilerPlugin.fuzz_target` (see nanopass.fuzz)."""
    return PtoFuzzTarget()

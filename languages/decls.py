"""The languages of the PTO compiler, each declared from a neighbour by what changes.

DSL, the first, is PyPTO's `pl` DSL as the user wrote it; it is declared from Tensor by what it
adds (scopes, inline functions, compute left in orchestration bodies) and the frontend passes
lower it to Tensor.  Every later language is declared from its predecessor.

The typed modules in `languages/gen/` are generated from this file:
`python -m nanopass.gen_languages languages.decls:FAMILY` (a test fails when they are stale).
"""

from __future__ import annotations

from nanopass.langdef import LanguageFamily
from nanopass.langdef import define_language, kind

_CORE_KINDS = (
    kind("Program", "Program", "A program: its functions, callees before callers.",
         name="str", functions="tuple[Function, ...]"),
    # attrs: PyPTO's `@pl.function(attrs={...})` (languages/functions.py FUNCTION_ATTRS names the
    # keys this compiler gives a meaning: how the function is launched).
    kind("Function", "Function", "A function: InCore kernel, Orchestration host code, ...",
         name="str", func_type="str", params="tuple[Param, ...]", return_types="tuple[Type, ...]",
         body="tuple[Stmt, ...]", attrs="Attrs"),
    kind("Param", "Param", "A parameter and its direction (In, Out, InOut).", var="Var", direction="str"),
    kind("IterArg", "IterArg", "A loop-carried value and its initial value.", var="Var", init="Expr"),
    kind("AssignStmt", "Stmt", "`target: T = value`", target="Var", value="Expr"),
    kind("EvalStmt", "Stmt", "A call evaluated for its effect only.", value="Expr"),
    kind("ForStmt", "Stmt", "`for v, (iters,) in pl.range|pl.pipeline(start, stop, step, init_values=...)`",
         loop_var="Var", start="Expr", stop="Expr", step="Expr", iter_args="tuple[IterArg, ...]",
         body="tuple[Stmt, ...]", results="tuple[Var, ...]", kind="str", attrs="Attrs"),
    kind("IfStmt", "Stmt", "`if cond:` with if-phis named by `results` (each branch ends in a yield).",
         cond="Expr", then_body="tuple[Stmt, ...]", else_body="tuple[Stmt, ...]", results="tuple[Var, ...]"),
    kind("YieldStmt", "Stmt", "`pl.yield_(values)`: ends a loop body or an if branch.", values="tuple[Expr, ...]"),
    kind("ReturnStmt", "Stmt", "`return values`", values="tuple[Expr, ...]"),
    kind("Var", "Expr", "An SSA variable.", name="str", type="Type"),
    kind("ConstInt", "Expr", "An integer literal.", value="int", dtype="DataType"),
    kind("ConstFloat", "Expr", "A float literal.", value="float", dtype="DataType"),
    kind("ConstBool", "Expr", "`True` / `False`.", value="bool"),
    kind("Call", "Expr", "An operator call `pl.tensor.add(a, b)`; the op is looked up in the registry.",
         op="str", args="tuple[Expr, ...]", attrs="Attrs", type="Type"),
    kind("FuncCall", "Expr", "`self.f(args)`: a call to another function of the program.",
         callee="str", args="tuple[Expr, ...]", type="Type"),
    kind("BinOp", "Expr", "Scalar arithmetic or comparison: + - * / // % == != < <= > >= and or (`/` on floats only).",
         op="str", lhs="Expr", rhs="Expr", type="Type"),
    kind("UnaryOp", "Expr", "Scalar `-x` or `not x`.", op="str", operand="Expr", type="Type"),
    kind("TupleExpr", "Expr", "A list / tuple literal of scalars, e.g. offsets `[0, 0]`.",
         elements="tuple[Expr, ...]"),
    kind("TupleGetItem", "Expr", "`t[i]` on a tuple-valued call.", value="Expr", index="int", type="Type"),
)

# A while loop (JIT_FRONTEND.md section 6): `cond` is evaluated before every iteration over the
# carried values (the iter args' vars); the body ends in a yield of their next values and the
# results are their values when `cond` first fails. `while c:` (natural form) has no iter args
# until ConvertToSSA adds them. No later language has it yet: ConvertTensorToTileOps says so.
_WHILE_KINDS = (
    kind("WhileStmt", "Stmt",
         "`for (a, b) in pl.while_(init_values=(a0, b0)):` with `pl.cond(c)` first, or `while c:`",
         cond="Expr", iter_args="tuple[IterArg, ...]", body="tuple[Stmt, ...]", results="tuple[Var, ...]"),
)

Tensor = define_language(
    "Tensor",
    doc="outlined InCore and Orchestration functions over GM tensors, tensor.* ops (and hand-written tile.* code)",
    module="languages.gen.tensor",
    add=_CORE_KINDS + _WHILE_KINDS,
    add_type_forms={"scalar", "tensor", "tuple", "none", "tile-unplaced"},
    add_ops={"tensor.*", "tile.*", "system.*"},
)

# PyPTO's user DSL as written: `with pl.at(level=...)` / `pl.cluster()` / `pl.spmd(n)` scopes whose
# bodies are not outlined yet (so orchestration bodies hold compute), `Inline` functions spliced
# by InlineFunctions, and `self.f(...)` calls into them.  A scope's definitions stay visible after
# it (PyPTO parses scope bodies with leak_vars=True); OutlineIncoreScopes turns each CORE_GROUP
# scope into an InCore function and a call.
# The DSL is the one language that is not in SSA form: a name may be assigned again
# (`x = pl.add(x, y)`), and a loop body or an if branch may assign the function's variables
# without init_values / pl.yield_ (SSAForm and UseAfterDef are not DSL load guarantees);
# ConvertToSSA establishes both, and every later language requires them.
_SCOPE_KINDS = (
    kind("ScopeStmt", "Stmt",
         "`with pl.at(level=pl.Level.CORE_GROUP, name_hint=...)` (kind incore), `pl.at(level=other)` "
         "(hierarchy), `pl.cluster()` (cluster), `pl.spmd(n)` (spmd): its body runs in place",
         scope_kind="str", name_hint="str", attrs="Attrs", body="tuple[Stmt, ...]"),
)

DSL = define_language(
    "DSL",
    extends=Tensor,
    doc="PyPTO's pl DSL as written: pl.at / pl.cluster / pl.spmd scopes, compute in orchestration "
        "bodies, Inline functions, reassignment (not in SSA form until ConvertToSSA)",
    module="languages.gen.dsl",
    add=_SCOPE_KINDS,
)

TileUnplaced = define_language(
    "TileUnplaced",
    extends=Tensor,
    doc="InCore bodies compute on tiles with tile.* ops; tile.load/tile.store bridge GM; spaces may be unset",
    module="languages.gen.tile_unplaced",
    remove={"WhileStmt"},
    remove_ops={"tensor.*"},
    # tensor.dump_tag: an Orchestration-only marker, kept as it is (no kernel sees it).
    # tensor.window: an Orchestration function's view of a GM tensor that a kernel is called on;
    # tensor.assemble: an Orchestration function's write of a kernel's result into a window, until
    # update-orchestration-call-sites makes it the kernel's Out window (CallSitesComplete).
    add_ops={"tensor.create", "tensor.read", "tensor.write", "tensor.dim", "tensor.view", "tensor.dump_tag",
             "tensor.window", "tensor.assemble"},
    # ConvertTensorToTileOps, which makes TileUnplaced, expands or completes some calls
    # (OpDef.completed_by): a program entering here or later has skipped it.
    add_operand_forms={"completed-calls"},
)

TilePlaced = define_language(
    "TilePlaced",
    extends=TileUnplaced,
    doc="every tile has a memory space and its canonical TileView; tile.move hops inserted",
    module="languages.gen.tile_placed",
    remove_type_forms={"tile-unplaced"},
    add_type_forms={"tile-placed"},
)

L0Tiled = define_language(
    "L0Tiled",
    extends=TilePlaced,
    doc="every matmul reads Left/Right and writes Acc (operand form cube-operands-in-l0); "
        "fitting L0A/L0B/L0C is target-dependent: the L0TiledFit verifier",
    module="languages.gen.l0_tiled",
    add_operand_forms={"cube-operands-in-l0"},
)

Addressed = define_language(
    "Addressed",
    extends=L0Tiled,
    doc="every tile bound to a MemRef (space, byte offset, size); semantic aliases share one MemRef",
    module="languages.gen.addressed",
    remove_type_forms={"tile-placed"},
    add_type_forms={"tile-addressed"},
)

PTO = define_language(
    "PTO",
    extends=Addressed,
    doc="PTO-ISA MLIR dialect kernels (pto.alloc_tile, pto.tload, pto.tmatmul, scf.for): InCore functions only",
    module="languages.gen.pto",
    remove={"FuncCall", "Program"},
    # The module names the architecture PTOAS verifies it for (`module attributes
    # {pto.target_arch = "a5"}`; "" for PTOAS's default, A2/A3): its parser checks target-only
    # instructions (pto.mgather) against the module's attribute, not the command line's.
    add=(kind("Program", "Program", "A PTO-ISA module: its kernels, and the target architecture it is for.",
              name="str", functions="tuple[Function, ...]", target_arch="str"),),
    remove_ops={"tile.*", "system.*", "tensor.create", "tensor.read", "tensor.write", "tensor.dim", "tensor.view",
                "tensor.dump_tag", "tensor.window", "tensor.assemble"},
    add_ops={"pto.*", "arith.*"},
    add_type_forms={"pto-view"},
)

LANGUAGES = (DSL, Tensor, TileUnplaced, TilePlaced, L0Tiled, Addressed, PTO)

# The languages whose programs mean values (the reference interpreter runs them); PTO is machine
# code for the simulator, and keeps only the kernels.
VALUE_LEVEL = frozenset({"DSL", "Tensor", "TileUnplaced", "TilePlaced", "L0Tiled", "Addressed"})

FAMILY = LanguageFamily(
    name="pto",
    languages=LANGUAGES,
    terminals_module="languages.types",
    terminal_names=("Attrs", "DataType", "Type"),
    expanding=frozenset({"Stmt"}),
    output_dir="languages/gen",
)

"""`from pypto.runtime import RunConfig, run` in kernel files (PyPTO's run API, the parts that
mean something on this compiler's simulator)."""

from __future__ import annotations

from typing import Any

from nanopass_pto.jit import RunConfig


def run(program: Any, *arrays: Any, config: RunConfig | None = None) -> Any:
    """Compile a program (`@pl.program` result) and run it on `arrays` (entry parameters in
    order); Out / InOut arrays are written in place. Returns the compiled program."""
    import numpy as np

    from nanopass_pto.jit import _as_numpy, _write_back
    from nanopass_pto.run import compile_program, run as run_compiled

    compiled = compile_program(program, backend=config.backend if config is not None else None)
    params = list(getattr(compiled.entry, "params"))
    if len(arrays) != len(params):
        raise TypeError(f"{getattr(compiled.entry, 'name')} takes {len(params)} arguments, got {len(arrays)}")
    inputs = {p.var.name: (_as_numpy(a) if _as_numpy(a) is not None else a) for p, a in zip(params, arrays)}
    outputs = run_compiled(compiled, inputs)
    for param, array in zip(params, arrays):
        if param.direction in ("Out", "InOut") and param.var.name in outputs:
            _write_back(array, np.asarray(outputs[param.var.name]))
    return compiled


__all__ = ["RunConfig", "run"]

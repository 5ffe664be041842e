"""Kernels over the operator catalog, run through the CLI as a user runs them
(`--verify-all --simulate --inputs --save-outputs`) and compared bit for bit with NumPy
references written here (independently of backend/numerics.py) from NUMERICS.md and the rules
the op-family tests pin (tests/test_op_families.py).

Hand-written kernels live in tests/kernels/ops/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tests.references import matmul_ref
from tests.test_kernels_matmul import B910, check_kernel

Array = npt.NDArray[Any]
KERNELS = Path(__file__).resolve().parent / "kernels" / "ops"


def test_matmul_bias_starts_the_chain_from_the_bias_row(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    lhs = rng.standard_normal((16, 64)).astype(np.float16)
    rhs = rng.standard_normal((64, 32)).astype(np.float16)
    bias = rng.standard_normal((1, 32)).astype(np.float32)
    reference = matmul_ref(lhs, rhs, start=np.broadcast_to(bias, (16, 32)))
    check_kernel(KERNELS / "matmul_bias_f16.py", {"lhs": lhs, "rhs": rhs, "bias": bias},
                 {"out": reference}, B910, tmp_path)

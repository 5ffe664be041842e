"""Build hook for the one compiled extension, `backend._mad` (the cube MAD chain at machine
speed; see backend/_mad.c).  Everything else is declared in pyproject.toml.

The extension is optional: where no C compiler is available the install still succeeds and
`backend.numerics` runs its NumPy paths (same bits, slower)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "backend._mad",
            ["backend/_mad.c"],
            # Never -ffast-math / -Ofast: subnormals and IEEE fma are the semantics.
            extra_compile_args=["-O2", "-fno-fast-math", "-fno-finite-math-only"],
            optional=True,
        )
    ]
)

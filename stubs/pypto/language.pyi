# `import pypto.language as pl` type-checks against the compiler's `pl` module.
from nanopass_pto.language import *

"""Array type aliases shared by every layer, defined once (the package's bottom layer).

>>> import numpy as np
>>> from cueshift._types import F64
>>> values: F64 = np.zeros(3)
>>> values.dtype
dtype('float64')
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray

#: A float64 array (values, estimates, replicates).
F64: TypeAlias = NDArray[np.float64]
#: An int64 array (codes, counts, indices).
I64: TypeAlias = NDArray[np.int64]
#: A uint64 array (random bits, seeds).
U64: TypeAlias = NDArray[np.uint64]

__all__ = ["F64", "I64", "U64"]

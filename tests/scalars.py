"""Typed numbers for comparisons in tests: one real number out of a polars aggregate or a numpy
scalar, and the tolerance keywords of ``np.testing.assert_allclose``.

polars types ``Series.max()``/``.item()`` as any Python literal or None and ``.mean()`` as float or
None; :func:`real` fails the test on None or a non-number instead of comparing it.

>>> import polars as pl
>>> real(pl.Series([0.5, 2.0]).max())
2.0
"""

from __future__ import annotations

import numbers
from typing import TypedDict


class Tolerance(TypedDict):
    """``rtol`` and ``atol`` of ``np.testing.assert_allclose(actual, desired, **tolerance)``."""

    rtol: float
    atol: float


def real(value: object) -> float:
    """``value`` as a float, asserting it is a real number (int, float, numpy number; not None)."""
    assert isinstance(value, numbers.Real), f"expected a real number, got {value!r}"
    return float(value)

r"""Batch sizes that follow throughput, bounded by time.

A batch is asked, parsed and written in one transaction, so the batch in flight is what a
kill loses, and each batch pays fixed costs (a backend call, a commit). A fixed size is wrong
for both ends at once: 5,000 rows is minutes of a GPU model's work but milliseconds of the
simulated judge's, whose fixed costs then dominate. :class:`BatchSizer` sizes each batch so
that it takes about ``target_seconds`` at the throughput measured so far:

.. math::

    n_{k+1} = \min\Bigl(n_\text{max},\; \max\bigl(n_\text{min},\;
    \operatorname{clip}(\hat r_k T,\; n_k / g,\; n_k g)\bigr)\Bigr),
    \qquad \hat r_k = \frac{\sum_{j \le k} w^{k-j} n_j}{\sum_{j \le k} w^{k-j} t_j}

with :math:`T` the target, :math:`t_j` the seconds batch :math:`j` took (ask + parse + write),
:math:`w` the weight of older batches and :math:`g` the largest step up or down. The first
batch has :data:`START_ROWS` rows (or the study's ``batch_size``, the largest batch, if that
is smaller), so a slow backend learns its rate from one small batch and a fast one grows by
:math:`g` per batch. A kill loses at most the batch in flight: about :math:`T` seconds once
the rate is known.

A size of at least one DuckDB row group (:data:`~cueshift.store.writes.ROW_GROUP_ROWS`) is
rounded down to whole row groups (``align``): DuckDB writes an insert of whole row groups
compressed straight into the file, while each batch's partial row group is merged with its
neighbours and rewritten at a checkpoint (the study default ``batch_size`` 250,000 becomes
245,760 rows; ``benchmarks/bench_ingest.py``: the paper-scale store 127 instead of 148 MB, and
faster in the same run). Rounding down never lengthens a batch beyond :math:`T` or the largest
batch, so the bound on what a kill loses holds; smaller batches are left as they are.

The local executor cuts the smaller batches between images (:meth:`BatchSizer.batches`'
``group``): the transformers backend scores the prompts of one image in one call together, and
its float32 scores depend on which prompts share the call, so an image split at a batch edge
that follows the measured rate would score differently from run to run (D50).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from cueshift.execution.work_units import group_ends
from cueshift.store.writes import ROW_GROUP_ROWS

#: seconds one batch (ask + parse + write) should take: what a kill loses at most, about
TARGET_SECONDS = 2.0
#: rows of the first batch (fewer when the study's ``batch_size`` is smaller)
START_ROWS = 500


@dataclass
class BatchSizer:
    """Sizes of consecutive batches, adapted to the measured rate (see the module docstring).

    Parameters
    ----------
    max_rows
        The largest batch (the study's ``batch_size``).
    target_seconds
        Seconds a batch should take.
    initial
        Rows of the first batch (default ``min(START_ROWS, max_rows)``).
    min_rows
        The smallest batch after the first.
    step
        Largest factor between two consecutive sizes (:math:`g`).
    memory
        Weight of the previous batches in the rate (:math:`w`; 0 = the last batch only).
    align
        Sizes of at least this many rows are rounded down to a multiple of it (1 = none).
    """

    max_rows: int
    target_seconds: float = TARGET_SECONDS
    initial: int | None = None
    min_rows: int = 1
    step: float = 4.0
    memory: float = 0.5
    align: int = ROW_GROUP_ROWS
    size: int = field(init=False)
    _rows: float = field(default=0.0, init=False, repr=False)
    _seconds: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        initial = min(START_ROWS, self.max_rows) if self.initial is None else self.initial
        if initial < 1 or self.min_rows < 1 or self.max_rows < self.min_rows or initial > self.max_rows:
            raise ValueError("batch sizes must be positive, min_rows <= max_rows and initial <= max_rows")
        if self.target_seconds <= 0 or self.step <= 1 or not 0 <= self.memory < 1 or self.align < 1:
            raise ValueError("target_seconds > 0, step > 1, 0 <= memory < 1 and align >= 1 are needed")
        self.size = self._aligned(initial)

    @property
    def rate(self) -> float | None:
        """Rows per second measured so far (weighted), None before the first batch."""
        return self._rows / self._seconds if self._seconds > 0 else None

    def record(self, rows: int, seconds: float) -> None:
        """Account a finished batch of ``rows`` that took ``seconds``; sets the next :attr:`size`."""
        if rows <= 0:
            return
        self._rows = self.memory * self._rows + rows
        self._seconds = self.memory * self._seconds + max(seconds, 1e-6)
        rate = self.rate
        assert rate is not None
        wanted = rate * self.target_seconds
        low, high = self.size / self.step, self.size * self.step
        size = int(min(max(wanted, low, self.min_rows), high, self.max_rows))
        self.size = max(self._aligned(size), self.min_rows)

    def _aligned(self, size: int) -> int:
        """``size`` rounded down to whole row groups when it holds at least one."""
        return size - size % self.align if size >= self.align else size

    def batches(
        self, pending: pl.DataFrame, budget: int, *, group: str | None = None
    ) -> Iterator[pl.DataFrame]:
        """Consecutive slices of ``pending`` of the current :attr:`size`, until ``budget`` rows in all.

        Call :meth:`record` after each slice is handled: the next slice is cut after that.
        With ``group`` (a column of ``pending``), a slice cut by its size ends before the first
        row of the last run of equal ``group`` values it reaches, so each run (an image's prompts)
        is asked in one call unless it alone is longer than the slice, ``budget`` ends it, or the
        slice is whole DuckDB row groups (``align``; only a backend as fast as the simulated
        judge gets there). The transformers backend scores an image's prompts of one call
        together, and its float32 scores depend on which (D50).

        >>> plan = pl.DataFrame({"image_id": ["a", "a", "a", "b", "b", "c"]})
        >>> [b.height for b in BatchSizer(max_rows=4, align=1).batches(plan, 6, group="image_id")]
        [3, 3]
        """
        limit = min(pending.height, budget)
        ends = group_ends(pending, group, max(limit, 0)) if group in pending.columns else None
        start = 0
        while start < limit:
            end = start + min(self.size, budget - start)
            whole_row_groups = self.align > 1 and end - start >= self.align  # kept whole: see above
            if ends is not None and end < limit and not whole_row_groups:
                at = int(np.searchsorted(ends, end, side="right")) - 1  # the last run ending by `end`
                end = int(ends[at]) if at >= 0 and ends[at] > start else end
            batch = pending.slice(start, end - start)
            start += batch.height
            yield batch


__all__ = ["START_ROWS", "TARGET_SECONDS", "BatchSizer"]

"""Frames that several analyses of one run read from the study database, read once per run.

The missing-answer analyses all read the ``invalid_answers`` view (a scan of every judgment) and
two of them ``invalid_texts``; both noise-floor analyses read the placebo Δ rows. At paper scale
(29 M judgments) each such read costs seconds, so within one run (one
:class:`~cueshift.stats.AnalysisContext`) the first read is kept and handed to the later ones.
So are the Δ rows summed per face (:func:`summed_rows`), which SBS and Tables 3 and 11 (pooled,
per model, crossed) regroup instead of each grouping the rows again. The frames are not changed
by their readers (polars frames are immutable), and they go with the run's context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from cueshift.designs.stylisticbias.inputs import Context
from cueshift.designs.stylisticbias.stats import ModelCells, SummedDelta, model_cells, summed_delta

T = TypeVar("T")


def read_once(ctx: Context, key: str, read: Callable[[], T]) -> T:
    """``read()`` the first time ``key`` is asked for in the run of ``ctx``, its frame after that
    (kept in the run's context: :meth:`~cueshift.stats.AnalysisContext.once`).

    The first reader holds the run's database lock (``ctx.database_lock``) while it reads: two
    analyses running at once never use the connection together nor read the same frame twice."""
    return ctx.once(key, read)


def summed_rows(ctx: Context) -> SummedDelta | None:
    """The run's Δ rows summed per face once (:func:`summed_delta`), shared by SBS and Tables 3 and
    11 with their per-model and crossed versions; ``None`` without Δ rows."""
    delta = ctx.inputs.delta
    return read_once(ctx, "summed delta", lambda: summed_delta(delta) if delta.height else None)


def model_cells_once(ctx: Context) -> ModelCells:
    """The run's Δ rows laid out per model × face × fine cell once (:func:`model_cells`), shared by
    the model comparisons, the cross-model agreement and the category ranking."""
    delta = ctx.inputs.delta
    return read_once(ctx, "model cells", lambda: model_cells(delta))

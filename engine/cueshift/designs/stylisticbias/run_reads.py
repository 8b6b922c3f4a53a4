"""Frames that several analyses of one run read from the study database, read once per run.

The missing-answer analyses all read the ``invalid_answers`` view (a scan of every judgment) and
two of them ``invalid_texts``; both noise-floor analyses read the placebo Δ rows. At paper scale
(29 M judgments) each such read costs seconds, so within one run (one
:class:`~cueshift.stats.AnalysisContext`) the first read is kept and handed to the later ones.
The frames are not changed by their readers (polars frames are immutable), and the memo is
dropped with its context.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

import polars as pl

from cueshift.designs.stylisticbias.inputs import Context

#: Frames read in a run, by ``id`` of its context, then by what was read.
_READS: dict[int, dict[str, pl.DataFrame | None]] = {}


def read_once(ctx: Context, key: str, read: Callable[[], pl.DataFrame | None]) -> pl.DataFrame | None:
    """``read()`` the first time ``key`` is asked for in the run of ``ctx``, its frame after that."""
    reads = _READS.get(id(ctx))
    if reads is None:
        reads = _READS[id(ctx)] = {}
        weakref.finalize(ctx, _READS.pop, id(ctx), None)
    if key not in reads:
        reads[key] = read()
    return reads[key]

r"""Invalid answers by ordering × the letter they would have named (issue 11, defect 3).

A strict parser that accepted one letter, or one pole, more readily than the other would make the
invalid rate depend on the ordering, and so on which pole a letter names: φ would then average a
different selection of answers in each ordering. :func:`missing_by_ordering` lays the invalid
answers out by ordering and by the letter each would have named
(:func:`cueshift.infer.parser.named_letter`), with the pole that letter holds in the ordering, so
a reviewer sees whether refusals lean to a letter or a pole. Rates are face-level shares (every
face weighs the same) with face-level cluster bootstrap intervals, as in :mod:`._missing`.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.stats._checked import returns
from cueshift.stats._constants import POOLED
from cueshift.stats._missing import cell_counts, dense, face_interval
from cueshift.stats._resample import CIMethod
from cueshift.study.scenarios import ORDERING_BY_ID

#: What an invalid answer would have named: one letter, both options, or neither.
NAMED_LETTERS = ("a", "b", "both", "none")


@returns("missing_by_ordering")
def missing_by_ordering(
    counts: pl.DataFrame,
    named: pl.DataFrame,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    ci_method: CIMethod = "bca",
) -> pl.DataFrame:
    r"""Invalid answers per model (and pooled) × ordering × the letter they would have named.

    For face :math:`f`, ordering :math:`o` and letter :math:`L`, the share of the face's answers in
    :math:`o` that are invalid and name :math:`L` (``both``/``none``: both or neither option), and
    ``pole``, the pole :math:`L` holds in :math:`o`. A parser (or a model) that refuses answers
    naming one letter or one pole more often shows here as rates that differ between the orderings
    where that letter is favorable and where it is not; rates equal across orderings cannot bias φ.

    Parameters
    ----------
    counts : polars.DataFrame
        Rows of the ``invalid_answers`` view (the answers per model × face × ordering).
    named : polars.DataFrame
        ``model_id, face_id, ordering, named_letter, n_invalid``: invalid answers by the letter
        they name (:func:`cueshift.infer.parser.named_letter`).
    n_resamples, seed, confidence_level, ci_method
        Face-level bootstrap settings.
    """
    keys = ["model_id", "ordering", "named_letter"]
    face_keys = ["model_id", "face_id", "ordering"]

    def pooled(frame: pl.DataFrame) -> pl.DataFrame:
        return pl.concat([frame, frame.with_columns(pl.lit(POOLED).alias("model_id"))])

    totals = pooled(counts.select(*face_keys, "n_answers")).group_by(face_keys).agg(pl.col("n_answers").sum())
    events = pooled(named.select(*face_keys, "named_letter", "n_invalid"))
    events = events.group_by([*face_keys, "named_letter"]).agg(pl.col("n_invalid").sum().alias("n_events"))
    grid = totals.join(pl.DataFrame({"named_letter": list(NAMED_LETTERS)}), how="cross")
    rows = grid.join(events, on=[*face_keys, "named_letter"], how="left").with_columns(
        pl.col("ordering").cast(pl.Int32), pl.col("n_events").fill_null(0)
    )
    rows = rows.with_columns((pl.col("n_events") / pl.col("n_answers")).alias("share"))
    faces = sorted(rows["face_id"].unique().to_list())
    cells, values = dense(rows, keys, "share", faces)
    estimate, low, high, n = face_interval(values, n_resamples, seed, confidence_level, ci_method)
    favorable = {o: ORDERING_BY_ID[o].favorable_letter for o in ORDERING_BY_ID}
    pole = [
        None if letter not in ("a", "b") else "favorable" if favorable[o] == letter else "unfavorable"
        for o, letter in cells.select("ordering", "named_letter").iter_rows()
    ]
    out = cells.with_columns(
        pl.Series("pole", pole, dtype=pl.String),
        pl.Series("estimate", estimate),
        pl.Series("ci_low", low),
        pl.Series("ci_high", high),
        pl.lit(ci_method).alias("ci_method"),
        pl.Series("n", n.astype(np.int64)),
    ).join(cell_counts(rows, keys, "n_answers", "n_events"), on=keys, how="left")
    return out.select(
        *keys, "pole", "estimate", "ci_low", "ci_high", "ci_method", "n_answers", "n_events", "n"
    ).with_columns(pl.col(pl.Float64).fill_nan(None))

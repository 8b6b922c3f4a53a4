r"""Invalid answers by ordering × the letter they would have named (docs/decisions.md#d5).

A strict parser that accepted one letter, or one pole, more readily than the other would make the
invalid rate depend on the ordering, and so on which pole a letter names: φ would then average a
different selection of answers in each ordering. :func:`missing_by_ordering` lays the invalid
answers out by ordering and by the letter each would have named
(:func:`cueshift.inference.parser.named_letter`), with the pole that letter holds in the ordering, so
a reviewer sees whether refusals lean to a letter or a pole. Rates are face-level shares (every
face weighs the same) with face-level cluster bootstrap intervals, as in :mod:`._missing`.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.stats._missing import cell_counts, dense, face_interval
from cueshift.stats import (
    POOLED,
    Resampling,
    bh_by_family,
    one_sample_test,
    returns,
)
from cueshift.study.scenarios import ORDERING_BY_ID

#: What an invalid answer would have named: one letter, both options, or neither.
NAMED_LETTERS = ("a", "b", "both", "none")


def _face_rows(counts: pl.DataFrame, named: pl.DataFrame) -> pl.DataFrame:
    """Per model (and pooled) × face × ordering × named letter: the ordering's answers of the face
    and its invalid answers naming that letter (0 where none)."""
    face_keys = ["model_id", "face_id", "ordering"]

    def pooled(frame: pl.DataFrame) -> pl.DataFrame:
        return pl.concat([frame, frame.with_columns(pl.lit(POOLED).alias("model_id"))])

    def summed(frame: pl.DataFrame, keys: list[str], count: str) -> pl.DataFrame:
        # per model first, then the few summed rows again with their pooled copy (integers: exact)
        per_model = frame.group_by(keys).agg(pl.col(count).sum())
        return pooled(per_model).group_by(keys).agg(pl.col(count).sum())

    totals = summed(counts, face_keys, "n_answers")
    events = summed(named, [*face_keys, "named_letter"], "n_invalid").rename({"n_invalid": "n_events"})
    grid = totals.join(pl.DataFrame({"named_letter": list(NAMED_LETTERS)}), how="cross")
    return grid.join(events, on=[*face_keys, "named_letter"], how="left").with_columns(
        pl.col("ordering").cast(pl.Int32), pl.col("n_events").fill_null(0)
    )


@returns("missing_by_ordering")
def missing_by_ordering(
    counts: pl.DataFrame,
    named: pl.DataFrame,
    *,
    resampling: Resampling = Resampling(),
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
        they name (:func:`cueshift.inference.parser.named_letter`).
    resampling : Resampling
        Face-level bootstrap settings (its ``test`` is not used).
    """
    keys = ["model_id", "ordering", "named_letter"]
    rows = _face_rows(counts, named)
    rows = rows.with_columns((pl.col("n_events") / pl.col("n_answers")).alias("share"))
    faces = sorted(rows["face_id"].unique().to_list())
    cells, values = dense(rows, keys, "share", faces)
    estimate, low, high, n = face_interval(values, resampling)
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
        pl.lit(resampling.ci_method).alias("ci_method"),
        pl.Series("n", n.astype(np.int64)),
    ).join(cell_counts(rows, keys, "n_answers", "n_events"), on=keys, how="left")
    return out.select(
        *keys, "pole", "estimate", "ci_low", "ci_high", "ci_method", "n_answers", "n_events", "n"
    ).with_columns(pl.col(pl.Float64).fill_nan(None))


@returns("missing_lean")
def missing_lean(
    counts: pl.DataFrame,
    named: pl.DataFrame,
    *,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Do the invalid answers lean to a pole? Per model (and pooled), over all orderings.

    For face :math:`f` with :math:`n_f` answers, of which :math:`k^{+}_f` are invalid but name the
    letter of the favorable pole and :math:`k^{-}_f` the letter of the unfavorable one,

    .. math::

        \ell_f = \frac{k^{+}_f - k^{-}_f}{n_f},

    exact from integer counts. If invalid answers that would have named a letter are as often the
    favorable as the unfavorable one, :math:`\ell_f` is centred at 0 and leaving them out of φ
    (seed 000 Eq. 1) does not bias it; a lean :math:`\bar\ell > 0` means the answers φ leaves out
    favor the favorable pole, so φ (valid answers only) understates it: counting them would move φ by
    :math:`(k^{+} - \varphi K) / (n_{\text{valid}} + K)`, :math:`K = k^{+} + k^{-}` (at
    :math:`\varphi = 1/2`, :math:`\ell_f n_f / (2 (n_{\text{valid}} + K))`); :math:`\bar\ell < 0`: the
    reverse. ``estimate`` is :math:`\bar\ell` over faces with a face-level cluster bootstrap interval,
    tested against 0 with the WSRT (or sign flips), BH over the rows;
    ``share_favorable`` and ``share_unfavorable`` are the face-level means of the two shares.

    Parameters
    ----------
    counts, named
        As :func:`missing_by_ordering`.
    resampling : Resampling
        Face-level bootstrap and test settings.
    """
    rows = _face_rows(counts, named)
    favorable = {o: ORDERING_BY_ID[o].favorable_letter for o in ORDERING_BY_ID}
    fav = pl.col("ordering").replace_strict(favorable, return_dtype=pl.String)
    letter = pl.col("named_letter")
    per_face = rows.group_by(["model_id", "face_id"]).agg(
        (pl.col("n_answers").filter(letter == "a")).sum().cast(pl.Int64).alias("n_answers"),
        pl.col("n_events").filter(letter == fav).sum().cast(pl.Int64).alias("k_favorable"),
        pl.col("n_events")
        .filter(letter.is_in(["a", "b"]) & (letter != fav))
        .sum()
        .cast(pl.Int64)
        .alias("k_unfavorable"),
    )
    per_face = per_face.with_columns(
        ((pl.col("k_favorable") - pl.col("k_unfavorable")) / pl.col("n_answers")).alias("lean"),
        (pl.col("k_favorable") / pl.col("n_answers")).alias("share_favorable"),
        (pl.col("k_unfavorable") / pl.col("n_answers")).alias("share_unfavorable"),
    )
    faces = sorted(per_face["face_id"].unique().to_list())
    cells, values = dense(per_face, ["model_id"], "lean", faces)
    estimate, low, high, n = face_interval(values, resampling)
    statistic, p_value, effect, name = one_sample_test(
        values, test=resampling.test, n_resamples=resampling.resamples, seed=resampling.seed
    )
    with np.errstate(invalid="ignore"):
        shares = {
            c: np.nanmean(dense(per_face, ["model_id"], c, faces)[1], axis=0)
            for c in ("share_favorable", "share_unfavorable")
        }
    out = cells.with_columns(
        pl.Series("estimate", estimate),
        pl.Series("ci_low", low),
        pl.Series("ci_high", high),
        pl.Series("statistic", statistic),
        pl.Series("p", p_value),
        pl.Series("effect_size", effect),
        pl.Series("share_favorable", shares["share_favorable"]),
        pl.Series("share_unfavorable", shares["share_unfavorable"]),
        pl.lit(name).alias("test"),
        pl.lit(resampling.ci_method).alias("ci_method"),
        pl.Series("n", n.astype(np.int64)),
    ).join(per_face.group_by("model_id").agg(pl.col("n_answers").sum()), on="model_id", how="left")
    out = bh_by_family(out.with_columns(pl.col(pl.Float64).fill_nan(None)), [])
    return out.select(
        "model_id", "estimate", "ci_low", "ci_high", "statistic", "p", "p_adj", "share_favorable",
        "share_unfavorable", "effect_size", "test", "ci_method", "n", "n_answers",
    ).with_columns(pl.col(pl.Float64).fill_nan(None))  # fmt: skip

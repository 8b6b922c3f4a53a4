r"""Statistics on a frame: reliability of a rating panel per group, split-half with the
Spearman–Brown correction (:func:`split_half`) and Krippendorff's :math:`\alpha`
(:func:`krippendorff`), over :func:`~cueshift.stats._reliability.split_half_reliability` and
:func:`~cueshift.stats._reliability.krippendorff_alpha`."""

from __future__ import annotations

from typing import Literal

import numpy as np
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.stats._frame_input import By, by_columns, checked_rows, finish, groups_of
from cueshift.stats._reliability import Level, krippendorff_alpha, split_half_reliability


def _ratings(
    data: pl.DataFrame, name: str, dv: str, subject: str, rater: str, keys: list[str]
) -> pl.DataFrame:
    rows = checked_rows(data, name, dv, [subject, rater, *keys])
    if rows[subject].null_count() or rows[rater].null_count():
        raise CueshiftError(f"{name}: columns {subject!r} and {rater!r} must not hold nulls")
    return rows


def split_half(
    data: pl.DataFrame,
    dv: str,
    subject: str,
    rater: str,
    by: By = None,
    *,
    n_splits: int = 100,
    seed: int = 0,
    method: Literal["pearson", "spearman"] = "pearson",
) -> pl.DataFrame:
    r"""Split-half reliability of the per-subject mean rating, Spearman–Brown corrected, per group.

    Each of ``n_splits`` random splits of the raters into halves averages each subject's ratings
    in each half, correlates the two mean vectors over the subjects rated in both (:math:`r`) and
    corrects to the full panel, :math:`r_{SB} = 2r/(1 + r)`; ``estimate`` is the mean
    :math:`r_{SB}` (no sampling interval: ``ci_low``/``ci_high`` null), ``n`` the subjects rated.
    Fewer than two raters or three subjects, or a split whose halves correlate at exactly −1
    (:math:`r_{SB} = -\infty`): null estimate.

    References
    ----------
    .. [1] Spearman, C. (1910); Brown, W. (1910). *Br. J. Psychol.* 3, 271–295 and 296–322.

    Examples
    --------
    >>> frame = pl.DataFrame({"judge": list("wxyz") * 4, "item": [i for i in "abcd" for _ in "1234"],
    ...                       "rating": [1.0, 2, 1, 2, 3, 3, 4, 4, 5, 6, 5, 5, 8, 7, 8, 9]})
    >>> out = split_half(frame, "rating", "item", "judge", n_splits=20)
    >>> bool(out["estimate"][0] > 0.9), out["n"][0]
    (True, 4)
    """
    keys = by_columns(by)
    if n_splits < 1:
        raise CueshiftError(f"split_half: n_splits must be at least 1, not {n_splits!r}")
    rows = _ratings(data, "split_half", dv, subject, rater, keys)
    idx, groups = groups_of(rows, keys)
    ratings = rows.select(
        pl.col(rater).alias("rater_id"), pl.col(subject).alias("image_id"), pl.col(dv).alias("rating")
    )
    estimates, n = [], []
    for g in range(groups.height):
        part = ratings.filter(pl.Series(idx == g))
        result = split_half_reliability(part, n_splits=n_splits, seed=seed, method=method)
        estimates.append(result["estimate"])
        n.append(part["image_id"].n_unique())
    columns = {"estimate": estimates, "n": n}
    return finish(groups, keys, columns, method=f"split-half spearman-brown ({method})", name="split_half")


def krippendorff(
    data: pl.DataFrame, dv: str, subject: str, rater: str, level: Level = "interval", by: By = None
) -> pl.DataFrame:
    r"""Krippendorff's :math:`\alpha` of the raters' ratings of the subjects, per group.

    .. math::

        \alpha = 1 - (n - 1) \frac{\sum_{c,k} o_{ck}\, \delta^2_{ck}}{\sum_{c,k} n_c n_k\, \delta^2_{ck}},

    :math:`o_{ck}` the coincidences of values within subjects rated at least twice, :math:`n_c`
    their margins, :math:`\delta^2` the metric of ``level`` (nominal, ordinal, interval, ratio);
    ``n`` the pairable ratings. One rating per rater and subject; no variation at all: null.

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg
       School for Communication, Departmental Papers 43.

    Examples
    --------
    >>> frame = pl.DataFrame({"judge": ["j1"] * 4 + ["j2"] * 4, "item": list("abcd") * 2,
    ...                       "rating": [1.0, 2, 3, 3, 1, 2, 3, 4]})
    >>> round(krippendorff(frame, "rating", "item", "judge")["estimate"][0], 4)
    0.8889
    """
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise CueshiftError(f"krippendorff: level must be nominal, ordinal, interval or ratio, not {level!r}")
    keys = by_columns(by)
    rows = _ratings(data, "krippendorff", dv, subject, rater, keys)
    if rows.select([*keys, subject, rater]).is_duplicated().any():
        raise CueshiftError(f"krippendorff: a rater rates a subject more than once ({rater!r} × {subject!r})")
    idx, groups = groups_of(rows, keys)
    estimates, n = [], []
    for g in range(groups.height):
        part = rows.filter(pl.Series(idx == g)).sort(rater, subject)  # row order: same sums
        wide = part.pivot(on=subject, index=rater, values=dv).drop(rater)
        matrix = wide.to_numpy().astype(np.float64)
        estimates.append(krippendorff_alpha(matrix, level))
        rated = ~np.isnan(matrix)
        n.append(int(rated[:, rated.sum(axis=0) >= 2].sum()))
    return finish(
        groups,
        keys,
        {"estimate": estimates, "n": n},
        method=f"krippendorff alpha ({level})",
        name="krippendorff",
    )

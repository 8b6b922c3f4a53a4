"""Crossed demographic subgroups (e.g. age × gender) of seed 000 Tables 2, 3 and 11, composed from
the marginal tables' own functions: a crossed dimension is one more face label column
(``age_x_gender`` = ``age || ' × ' || gender``) passed as a dimension. Table 9's crossed version
is in :mod:`cueshift.designs.stylisticbias.stats._subgroup_tests`."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Final

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS
from cueshift.designs.stylisticbias.stats._attributes import (
    MEAN_OF_GROUPS,
    category_demographic_table,
    demographic_variation_table,
)
from cueshift.designs.stylisticbias.stats._group_cells import GROUP_CELL_COLUMNS
from cueshift.designs.stylisticbias.stats._pooling import POOLED_COLUMNS
from cueshift.designs.stylisticbias.stats._summed import SummedDelta
from cueshift.designs.stylisticbias.stats._variation_strength import variation_strength
from cueshift.errors import CueshiftError
from cueshift.stats import ALPHA, Resampling, bh_by_family, returns

Pair = tuple[str, str]

#: Separator of the two labels in a crossed group (``"elderly × female"``).
CROSS_SEPARATOR: Final = " × "
#: Crossed pairs of Tables 3 and 11 by default: age × gender (what reviewers ask for first; at paper
#: scale every further pair adds about a third of the pooled table's time, see :data:`ALL_PAIRS`).
DEFAULT_PAIRS: Final[tuple[Pair, ...]] = (("age", "gender"),)
#: Every pair of the four dimensions (6 pairs, 61 crossed groups in the paper's population).
ALL_PAIRS: Final[tuple[Pair, ...]] = tuple(itertools.combinations(DIMENSIONS, 2))


def crossed_name(pair: Pair) -> str:
    """Column name of a crossed dimension: ``"age_x_gender"`` for ``("age", "gender")``."""
    return f"{pair[0]}_x_{pair[1]}"


def add_crossed_dimensions(frame: pl.DataFrame, pairs: Sequence[Pair] = DEFAULT_PAIRS) -> pl.DataFrame:
    """Add one label column per pair (:func:`crossed_name`): ``a || ' × ' || b``, null when either
    label is null, so a face without both labels belongs to no crossed group.

    Raises
    ------
    CueshiftError
        A dimension of ``pairs`` is not a column of ``frame``.
    """
    missing = sorted({d for pair in pairs for d in pair} - set(frame.columns))
    if missing:
        raise CueshiftError(
            f"crossed subgroups: no column {missing[0]!r} (columns: {', '.join(frame.columns)})"
        )
    return frame.with_columns(
        pl.concat_str([pl.col(a), pl.col(b)], separator=CROSS_SEPARATOR).alias(crossed_name((a, b)))
        for a, b in pairs
    )


def min_signed_rank_faces(alpha: float = ALPHA) -> int:
    r"""Fewest faces with which a two-sided one-sample test on per-face means can reach ``p < alpha``.

    The most extreme of the :math:`2^n` sign patterns of :math:`n` non-zero face means has the
    exact two-sided signed-rank (and sign-flip) p-value :math:`2/2^n`, so a cell needs
    :math:`n > 1 + \log_2(1/\alpha)` faces: 6 at :math:`\alpha = 0.05` (:math:`2^{-5} = 0.031`;
    with 5 faces the smallest p is 0.0625).

    References
    ----------
    .. [1] Hollander, M., Wolfe, D. A. & Chicken, E. (2014). *Nonparametric Statistical Methods*,
       3rd ed., §3.1 (null distribution of the signed-rank statistic). Wiley.
    """
    return math.floor(1.0 + math.log2(1.0 / alpha)) + 1


def untested_small_cells(
    table: pl.DataFrame, *, alpha: float = ALPHA, family: Sequence[str] = ()
) -> pl.DataFrame:
    """Withdraw the test and interval of cells with fewer than :func:`min_signed_rank_faces` faces
    (``statistic, p, effect_size, ci_low, ci_high`` null, ``untested_reason`` says why) and
    recompute ``p_adj`` by BH within ``family`` over the cells left (empty: the whole table)."""
    min_faces = min_signed_rank_faces(alpha)
    small = pl.col("n") < min_faces
    reason = f"fewer than {min_faces} faces: a two-sided signed-rank test cannot reach p < {alpha}"
    withdrawn = ("statistic", "p", "effect_size", "ci_low", "ci_high")
    out = table.with_columns(
        *[pl.when(small).then(None).otherwise(pl.col(c)).alias(c) for c in withdrawn],
        untested_reason=pl.when(small).then(pl.lit(reason)),
    )
    return bh_by_family(out.drop("p_adj"), list(family))


def _crossed_names(frame: pl.DataFrame, pairs: Sequence[Pair]) -> list[str]:
    """The crossed dimensions of ``pairs`` that at least one row of ``frame`` has."""
    return [crossed_name(p) for p in pairs if frame[crossed_name(p)].null_count() < frame.height]


def _crossed_input(
    delta: pl.DataFrame, pairs: Sequence[Pair], summed: SummedDelta | None
) -> tuple[pl.DataFrame, list[str], SummedDelta | None]:
    """The rows with the crossed dimensions (:func:`add_crossed_dimensions`) and the names some row
    has; from ``summed`` instead (the rows as they are, and each face's crossed labels), if given."""
    if summed is None:
        data = add_crossed_dimensions(delta, pairs)
        return data, _crossed_names(data, pairs), None
    missing = sorted({d for pair in pairs for d in pair} - set(summed.labels))
    if missing:
        raise CueshiftError(f"crossed subgroups: no column {missing[0]!r}")
    crossed = {
        crossed_name((a, b)): np.array(
            [
                None if x is None or y is None else f"{x}{CROSS_SEPARATOR}{y}"
                for x, y in zip(summed.labels[a], summed.labels[b], strict=True)
            ],
            dtype=object,
        )
        for a, b in pairs
    }
    names = [name for name, labels in crossed.items() if any(g is not None for g in labels)]
    return delta, names, summed.with_labels(crossed)


@returns("table11_crossed")
def crossed_variation_table(
    delta: pl.DataFrame,
    *,
    pairs: Sequence[Pair] = DEFAULT_PAIRS,
    alpha: float = ALPHA,
    resampling: Resampling = Resampling(),
    summed: SummedDelta | None = None,
) -> pl.DataFrame:
    r"""Table 11 per crossed subgroup: mean Δ per variation value × crossed group (e.g. elderly ×
    female), pooled over models and scenarios, by :func:`demographic_variation_table` with the
    crossed dimensions (:func:`add_crossed_dimensions`) as its dimensions.

    Cell estimate :math:`\frac{1}{|F_g|}\sum_{f\in F_g}\bar\Delta_{f,v}` over the faces of the
    crossed group, face-level bootstrap CI, WSRT (or sign flips) on the face means. A cell with
    too few faces for the test (:func:`min_signed_rank_faces`) keeps its estimate and ``n`` but
    no test (``untested_reason``). ``p_adj``: BH over **every tested cell of every crossed pair**,
    a larger family than Table 11's (one per table, all marginal cells). The marginal table's
    sign-reversal flags are not carried (they belong to Table 11). The partially pooled columns
    (``pooled_estimate``, ``pooled_ci_low``/``high``, ``shrinkage``) shrink each crossed group
    towards the value's estimate over the pair's groups and are kept for untested cells too:
    the sparse cells are the ones they are for. ``summed``: ``delta`` already summed
    (:func:`summed_delta`); the rows are not read again.
    """
    data, names, crossed = _crossed_input(delta, pairs, summed)
    table = demographic_variation_table(
        data,
        summed=crossed,
        dimensions=names,
        alpha=alpha,
        resampling=resampling,
    )
    out = untested_small_cells(table, alpha=alpha)
    return out.select(
        "variation_category",
        "variation_value",
        *GROUP_CELL_COLUMNS,
        "n_obs",
        "untested_reason",
        *POOLED_COLUMNS,
    ).sort("variation_category", "variation_value", "dimension", "group")


@returns("table3_crossed")
def crossed_category_table(
    delta: pl.DataFrame,
    *,
    pairs: Sequence[Pair] = DEFAULT_PAIRS,
    alpha: float = ALPHA,
    resampling: Resampling = Resampling(),
    summed: SummedDelta | None = None,
) -> pl.DataFrame:
    r"""Table 3 per crossed subgroup: SBS per attribute category (Table 3's merged categories) ×
    crossed group, by :func:`category_demographic_table` with the crossed dimensions.

    Only the group rows are kept: Table 3's ``"(mean of groups)"`` row is tested on all faces,
    the same test as the marginal table's, and would enter the family once per pair. Cells with
    too few faces have no test (``untested_reason``); ``p_adj``: BH over every tested cell of
    every crossed pair (Table 3: within each dimension). ``summed``: as
    :func:`crossed_variation_table`.
    """
    data, names, crossed = _crossed_input(delta, pairs, summed)
    table = category_demographic_table(
        data,
        summed=crossed,
        dimensions=names,
        resampling=resampling,
    ).filter(pl.col("group") != MEAN_OF_GROUPS)
    out = untested_small_cells(table, alpha=alpha)
    return out.select("variation_category", *GROUP_CELL_COLUMNS, "n_obs", "untested_reason").sort(
        "variation_category", "dimension", "group"
    )


@returns("table2_crossed")
def crossed_variation_strength(
    base_phi: pl.DataFrame,
    *,
    pairs: Sequence[Pair] = DEFAULT_PAIRS,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Variation Strength (Table 2, Eq. 3) per model × crossed dimension: the mean over scenarios
    of the std of the crossed groups' mean base-face φ, by :func:`variation_strength` with the
    crossed dimensions (its columns, estimator and interval). ``n_faces_min`` is the smallest
    crossed group's face count: a group mean
    of few faces is noisy, and VS (a std of noisy means) is biased upward by that noise, so
    compare crossed and marginal VS with it in mind.
    """
    data = add_crossed_dimensions(base_phi.filter(pl.col("phi").is_not_null()), pairs)
    names = _crossed_names(data, pairs)
    vs = variation_strength(data, dimensions=names, resampling=resampling)
    sizes = pl.concat(
        [
            data.filter(pl.col(d).is_not_null())
            .group_by(pl.col(d).alias("group"))
            .agg(pl.col("face_id").n_unique().alias("faces"))
            .select(pl.lit(d).alias("dimension"), pl.col("faces").min().cast(pl.Int64).alias("n_faces_min"))
            for d in names
        ]
    )
    return vs.join(sizes, on="dimension", how="left", maintain_order="left")

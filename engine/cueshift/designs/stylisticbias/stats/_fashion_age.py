"""Seed 000 Table 4: SBS per fashion style × age group, and the elderly − young contrast per style
with its face-level bootstrap interval."""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import ELDERLY, FASHION_CATEGORY, YOUNG
from cueshift.designs.stylisticbias.stats._group_cells import (
    GROUP_CELL_COLUMNS,
    FaceLevelTest,
    group_cells,
    valid_delta,
)
from cueshift.stats import (
    Resampling,
    bh_by_family,
    face_matrix,
    group_difference_interval,
    label_permutation_test,
    mann_whitney_columns,
    returns,
    study_faces,
)


@returns("table4")
def fashion_age_table(
    delta: pl.DataFrame,
    *,
    category: str = FASHION_CATEGORY,
    young: str = YOUNG,
    elderly: str = ELDERLY,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""SBS per fashion style × age group, and elderly − young per style (seed 000 Table 4).

    Age rows: face-level mean Δ (WSRT, BH over the style × age cells). Contrast rows
    (``group = "elderly - young"``): the difference of the two groups' estimates, tested by
    Mann–Whitney U on per-face mean Δ of elderly vs young faces (``test='permutation'``: label
    permutation of the mean difference), BH over styles ("all Young vs. Elderly contrasts
    p < 0.001, MWU, BH-corrected"); its CI is the face-level bootstrap of the difference on the
    age cells' replicates (:func:`cueshift.stats._contrast.group_difference_interval`, of
    ``resampling.ci_method``).
    """
    data = valid_delta(delta).filter(pl.col("variation_category") == category)
    faces = study_faces(data)
    cells, values = group_cells(data, ["variation_value"], ["age"], faces)
    ages = FaceLevelTest(resampling)(cells, values)
    ages = bh_by_family(ages, [])
    fm = face_matrix(data, ["variation_value"], faces=faces)
    age_of = dict(data.select("face_id", "age").unique().iter_rows())
    codes = np.array([0 if age_of.get(f) == elderly else 1 if age_of.get(f) == young else -1 for f in faces])
    if resampling.test == "permutation":
        _, p = label_permutation_test(
            fm.values, codes, 2, n_resamples=resampling.resamples, seed=resampling.seed
        )
        statistic, effect, name = (
            np.full(fm.n_cells, np.nan),
            np.full(fm.n_cells, np.nan),
            "label-permutation",
        )
    else:
        res = mann_whitney_columns(fm.values, codes)
        statistic, p, effect, name = res.statistic, res.p_value, res.effect_size, "mann-whitney"
    est = ages.pivot(on="group", index="variation_value", values="estimate")
    diff = (
        (est[elderly] - est[young])
        if {elderly, young} <= set(est.columns)
        else pl.Series([None] * est.height)
    )
    _, ci_low, ci_high = group_difference_interval(
        fm.values,
        codes,
        n_resamples=resampling.resamples,
        seed=resampling.seed,
        confidence_level=resampling.confidence_level,
        method=resampling.ci_method,
    )
    contrast = fm.cells.with_columns(
        ci_low=pl.Series(ci_low),
        ci_high=pl.Series(ci_high),
        statistic=pl.Series(statistic),
        p=pl.Series(p),
        effect_size=pl.Series(effect),
        test=pl.lit(name),
        n=pl.Series(((codes >= 0)[:, None] & ~np.isnan(fm.values)).sum(axis=0).astype(np.int64)),
    ).join(est.select("variation_value", diff.alias("estimate")), on="variation_value")
    contrast = bh_by_family(contrast, []).with_columns(
        group=pl.lit(f"{elderly} - {young}"),
        dimension=pl.lit("age"),
    )
    cols = ["variation_value", *GROUP_CELL_COLUMNS, "n_obs"]
    return pl.concat([ages.select(cols), contrast.select(cols)], how="vertical_relaxed").with_columns(
        pl.col("n").cast(pl.Int64), pl.col("n_obs").cast(pl.Int64), pl.col(pl.Float64).fill_nan(None)
    )

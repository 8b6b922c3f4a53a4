"""Demographic sensitivity of base faces (seed 000 Table 9) and face-level one-way ANOVAs
(Table 10, rows "ANOVA")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS, MANN_WHITNEY_DIMENSIONS
from cueshift.stats import (
    ALPHA,
    MEAN_OF_MODELS,
    Resampling,
    bh_by_family,
    eta_squared_replicates,
    face_matrix,
    face_multiplicities,
    group_means,
    kruskal_columns,
    label_permutation_test,
    mann_whitney_columns,
    one_way_anova,
    refit_interval,
    returns,
    study_faces,
)


@returns("demographic_tests")
def demographic_tests(
    base_phi: pl.DataFrame,
    *,
    dimensions: Sequence[str] = DIMENSIONS,
    two_group_dimensions: Sequence[str] = MANN_WHITNEY_DIMENSIONS,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Do base-face φ differ between demographic groups? One test per model × scenario × dimension.

    Each base face contributes its φ in the scenario (one value per face). ``resampling.test``
    ``'rank'``:
    Kruskal–Wallis H for age, body type and ethnicity, Mann–Whitney U for gender (seed 000
    §4.4, Table 9); ``'permutation'``: label permutation of the group means (between-group sum
    of squares for k > 2, mean difference for two groups). ``p_adj`` is BH within each
    model × dimension pair (over its scenarios), as in Table 9's caption. ``effect_size``: ε²
    (KW), rank-biserial r (MWU), or NaN (permutation).

    Returns
    -------
    polars.DataFrame
        ``model_id, dimension, scenario_category, scenario_id, test, statistic, df, p,
        p_adj, effect_size, n``.
    """
    data = base_phi.filter(pl.col("phi").is_not_null())
    faces = study_faces(data)
    parts = []
    for dim in dimensions:
        sub = data.filter(pl.col(dim).is_not_null())
        fm = face_matrix(sub, ["model_id", "scenario_category", "scenario_id"], faces=faces, value="phi")
        face_group = sub.select("face_id", dim).unique()
        label = dict(zip(face_group["face_id"], face_group[dim], strict=True))
        groups = sorted(set(label.values()))
        codes = np.array([groups.index(label[f]) if f in label else -1 for f in faces], dtype=np.int64)
        df = np.full(fm.n_cells, float(len(groups) - 1))
        if resampling.test == "permutation":
            statistic, p = label_permutation_test(
                fm.values, codes, len(groups), n_resamples=resampling.resamples, seed=resampling.seed
            )
            effect = np.full(fm.n_cells, np.nan)
            name = "label-permutation"
        elif dim in two_group_dimensions and len(groups) == 2:
            res = mann_whitney_columns(fm.values, codes)
            statistic, p, effect, name = res.statistic, res.p_value, res.effect_size, "mann-whitney"
        else:
            res = kruskal_columns(fm.values, codes, len(groups))
            statistic, p, effect, df, name = (
                res.statistic,
                res.p_value,
                res.effect_size,
                res.z,
                "kruskal-wallis",
            )
        n = (~np.isnan(fm.values) & (codes >= 0)[:, None]).sum(axis=0)
        parts.append(
            fm.cells.drop("n_obs").with_columns(
                dimension=pl.lit(dim),
                test=pl.lit(name),
                statistic=pl.Series(statistic),
                df=pl.Series(df),
                p=pl.Series(p),
                effect_size=pl.Series(effect),
                n=pl.Series(n.astype(np.int64)),
            )
        )
    out = bh_by_family(pl.concat(parts), ["model_id", "dimension"])
    return out.select(
        "model_id",
        "dimension",
        "scenario_category",
        "scenario_id",
        "test",
        "statistic",
        "df",
        "p",
        "p_adj",
        "effect_size",
        "n",
    ).with_columns(pl.col(pl.Float64).fill_nan(None))


@returns("table9")
def significance_share(tests: pl.DataFrame, *, alpha: float = ALPHA) -> pl.DataFrame:
    """Share of scenarios with ``p_adj < alpha`` per model × dimension (seed 000 Table 9), plus the
    ``"(mean of models)"`` row.

    ``n`` counts the scenarios that could be tested (a p-value exists: at least two groups with
    data); a model × dimension without any is left out rather than reported as 0 %.
    """
    tested = pl.col("p_adj").is_not_null() & pl.col("p_adj").is_not_nan()
    share = (
        tests.group_by("model_id", "dimension", maintain_order=True)
        .agg(
            (tested & (pl.col("p_adj") < alpha)).sum().cast(pl.Int64).alias("n_significant"),
            tested.sum().cast(pl.Int64).alias("n"),
            pl.col("test").first(),
        )
        .filter(pl.col("n") > 0)
        .with_columns((pl.col("n_significant") / pl.col("n")).alias("estimate"))
        .select("model_id", "dimension", "estimate", "n_significant", "n", "test")
    )
    avg = (
        share.group_by("dimension", maintain_order=True)
        .agg(
            pl.col("estimate").mean(),
            pl.col("n_significant").sum(),
            pl.col("n").sum(),
            pl.col("test").first(),
        )
        .with_columns(model_id=pl.lit(MEAN_OF_MODELS))
    )
    return pl.concat([share, avg.select(share.columns)]).with_columns(alpha=pl.lit(alpha))


@returns("face_anova")
def face_anova(
    delta: pl.DataFrame,
    base_phi: pl.DataFrame | None = None,
    *,
    dimensions: Sequence[str] = DIMENSIONS,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""One-way between-subject ANOVAs at the face level (seed 000 Table 10, "ANOVA" rows).

    The outcome of face :math:`f` is its mean over every model, variation and scenario of
    Δ (``outcome='delta'``; Table 10: "all analyses are pooled across all six models by
    averaging Δ"), and — because §5.1 reads the same ANOVAs as confirming the VS hierarchy of
    base faces — also of base φ (``outcome='base_phi'``) when ``base_phi`` is given. Both are
    reported; which the paper used is ambiguous. F, df = k − 1 and N − k, p, and
    :math:`\eta^2_p = SS_b/(SS_b+SS_w)` per dimension (see :func:`one_way_anova`).

    ``ci_low``, ``ci_high``: face-level bootstrap of η²p (``resampling.resamples`` replicates of
    the faces, drawn by its seed; ``0``: none), the percentile interval (at its confidence level;
    its ``ci_method`` is not used) re-centred on the bias-corrected η²,
    clamped to [0, 1] and holding the estimate — η² is biased upward, and near zero a plain
    percentile interval lies above it (:func:`cueshift.stats._effect_intervals.bias_shifted_interval`).
    A draw whose faces all have one mean has no η² and is left out; ``n_resamples`` counts the
    draws the interval rests on, and there is none where more than α/2 of them were left out
    (:func:`cueshift.stats.refit_interval`, D62).
    """
    sources = [("delta", delta.filter(pl.col("delta").is_not_null()), "delta")]
    if base_phi is not None:
        sources.append(("base_phi", base_phi.filter(pl.col("phi").is_not_null()), "phi"))
    rows = []
    for outcome, data, value in sources:
        demographics = data.group_by("face_id").agg(*[pl.col(d).first() for d in dimensions])
        per_face = (  # exact per-face means in a fixed order: the ANOVA is reproducible to the bit
            group_means(data, ["face_id"], value).drop("n").join(demographics, on="face_id").sort("face_id")
        )
        draws = (
            face_multiplicities(per_face.height, resampling.resamples, resampling.seed)
            if resampling.resamples and per_face.height
            else None
        )
        for dim in dimensions:
            res = one_way_anova(per_face[value].to_numpy(), per_face[dim].to_numpy())
            low = high = np.nan
            n_drawn = 0
            if draws is not None:
                labels = per_face[dim].cast(pl.String)
                levels = sorted(labels.drop_nulls().unique().to_list())
                codes = np.array([levels.index(g) if g is not None else -1 for g in labels], dtype=np.int64)
                replicates = eta_squared_replicates(per_face[value].to_numpy(), codes, draws)
                lows, highs, n_drawn = refit_interval(
                    np.array([res.eta_sq_partial]), replicates[None, :], resampling.confidence_level
                )
                low, high = float(lows[0]), float(highs[0])
            rows.append(
                {
                    "outcome": outcome,
                    "dimension": dim,
                    "test": "anova-F",
                    "statistic": res.statistic,
                    "df": res.df_between,
                    "df_resid": res.df_within,
                    "p": res.p_value,
                    "estimate": res.eta_sq_partial,
                    "ci_low": low,
                    "ci_high": high,
                    "n": res.n,
                    "n_resamples": n_drawn,
                }
            )
    return pl.DataFrame(
        rows,
        schema={
            "outcome": pl.String,
            "dimension": pl.String,
            "test": pl.String,
            "statistic": pl.Float64,
            "df": pl.Float64,
            "df_resid": pl.Float64,
            "p": pl.Float64,
            "estimate": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
            "n": pl.Int64,
            "n_resamples": pl.Int64,
        },
    ).with_columns(pl.col(pl.Float64).fill_nan(None))

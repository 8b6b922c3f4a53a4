"""SBS and |SBS| at every level seed 000 reports, with face-level bootstrap CIs and WSRT.

Levels (each per model and pooled over models, ``model_id = "(pooled)"``): the model, the
variation category, the variation value, the scenario category, the scenario, the
model × variation × scenario cell, and the demographic group of the face.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift.stats._checked import returns
from cueshift.stats._constants import DIMENSIONS, POOLED
from cueshift.stats._faces import (
    FaceMatrix,
    FaceSums,
    coarsen,
    face_labels,
    face_sums,
    group_means,
    row_means,
    study_faces,
)
from cueshift.stats._folded import mean_abs_interval
from cueshift.stats._multiplicity import bh_by_family
from cueshift.stats._permutation import sign_flip_test
from cueshift.stats._resample import CIMethod, cluster_bootstrap, face_multiplicities
from cueshift.stats._signed_rank import ZeroMethod, signed_rank_columns

F64 = NDArray[np.float64]
TestMethod = Literal["rank", "permutation"]

#: Grouping columns of each SBS level (``model_id`` is added for the per-model rows).
LEVELS: Mapping[str, tuple[str, ...]] = {
    "model": (),
    "variation_category": ("variation_category",),
    "variation_value": ("variation_category", "variation_value"),
    "scenario_category": ("scenario_category",),
    "scenario": ("scenario_category", "scenario_id"),
    "cell": ("variation_category", "variation_value", "scenario_category", "scenario_id"),
}
#: Key columns of every SBS row (null where the level does not group by them).
KEY_COLUMNS = (
    "model_id",
    "dimension",
    "group",
    "variation_category",
    "variation_value",
    "scenario_category",
    "scenario_id",
)


def one_sample_test(
    values: F64,
    *,
    test: TestMethod = "rank",
    n_resamples: int = 10_000,
    seed: int = 0,
    alternative: Literal["two-sided", "less", "greater"] = "two-sided",
    zero_method: ZeroMethod = "wilcox",
) -> tuple[F64, F64, F64, str]:
    """Test each column's per-face values against 0: WSRT (``'rank'``) or sign flips.

    ``zero_method`` is scipy's: ``'wilcox'`` (default, as the paper's scipy-based WSRT) drops
    faces whose mean Δ is exactly 0 — at the cell level, where a face has a single Δ and most
    Δ are 0 (Table 5: 53–80 %), this leaves only the faces that moved; ``'pratt'`` and
    ``'zsplit'`` keep them.

    Returns ``(statistic, p_value, effect_size, test_name)``; the WSRT statistic is scipy's
    (min(R+, R−) two-sided), its effect size the matched-pairs rank-biserial r; the sign-flip
    statistic is the mean and its effect size Cohen's d_z of the face values.
    """
    if test == "rank":
        res = signed_rank_columns(values, alternative=alternative, zero_method=zero_method)
        return res.statistic, res.p_value, res.effect_size, "wilcoxon"
    statistic, p = sign_flip_test(values, n_resamples=n_resamples, seed=seed, alternative=alternative)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        d = np.nanmean(values, axis=0) / np.nanstd(values, axis=0, ddof=1)
    return statistic, p, d, "sign-flip"


def _blocks(
    fine: FaceSums, levels: Sequence[str], labels: Mapping[str, NDArray[np.object_]]
) -> list[tuple[str, FaceMatrix]]:
    # every level is a regrouping of the fine cells (one pass over the rows made them)
    blocks: list[tuple[str, FaceMatrix]] = []
    for level in levels:
        for pooled in (False, True):
            keys = ([] if pooled else ["model_id"]) + list(LEVELS[level])
            fm = coarsen(fine, keys)
            if pooled:
                fm = FaceMatrix(fm.faces, fm.cells.with_columns(pl.lit(POOLED).alias("model_id")), fm.values)
            blocks.append((level, fm))
    for dim, group_of in labels.items():
        for group in sorted({g for g in group_of if g is not None}):
            for pooled in (False, True):
                fm = coarsen(fine, [] if pooled else ["model_id"], face_mask=group_of == group)
                cells = fm.cells.with_columns(pl.lit(dim).alias("dimension"), pl.lit(group).alias("group"))
                if pooled:
                    cells = cells.with_columns(pl.lit(POOLED).alias("model_id"))
                blocks.append(("demographic_group", FaceMatrix(fm.faces, cells, fm.values)))
    return blocks


def _abs_memberships(
    blocks: list[tuple[str, FaceMatrix]], offsets: list[int]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Memberships ``(cell column, row)`` of per-model cells (the |SBS| unit) in every
    non-demographic row, as column indices of the stacked face matrix."""
    base_i = next(
        i for i, (lvl, fm) in enumerate(blocks) if lvl == "cell" and fm.cells["model_id"][0] != POOLED
    )
    base = blocks[base_i][1].cells.with_row_index("__base")
    member_cell: list[NDArray[np.int64]] = []
    member_target: list[NDArray[np.int64]] = []
    for i, (level, fm) in enumerate(blocks):
        if level == "demographic_group":
            continue
        keys = list(LEVELS[level])
        pooled = fm.cells["model_id"][0] == POOLED
        on = keys if pooled else ["model_id", *keys]
        target = fm.cells.with_row_index("__target").select(*on, "__target") if on else None
        if target is None:
            joined = base.select("__base").with_columns(pl.lit(0, dtype=pl.UInt32).alias("__target"))
        else:
            joined = base.join(target, on=on, nulls_equal=True)
        member_cell.append(joined["__base"].to_numpy().astype(np.int64) + offsets[base_i])
        member_target.append(joined["__target"].to_numpy().astype(np.int64) + offsets[i])
    return np.concatenate(member_cell), np.concatenate(member_target)


def _demographic_abs(fine: FaceSums, labels: Mapping[str, NDArray[np.object_]]) -> pl.DataFrame:
    """|SBS| of demographic groups: mean over model × value × scenario cells of |mean Δ in the group|
    (the mean over the group's rows of the cell, from the fine sums)."""
    parts = []
    for dim, group_of in labels.items():
        cell = pl.concat(
            [
                row_means(
                    fine, ["model_id", "variation_value", "scenario_id"], face_mask=group_of == g
                ).select(
                    "model_id", pl.lit(g).alias(dim), "variation_value", "scenario_id", a=pl.col("mean").abs()
                )
                for g in sorted({g for g in group_of if g is not None})
            ]
        )
        per_model = group_means(cell, ["model_id", dim], "a", alias="abs_point").drop("n")
        pooled = (
            group_means(cell, [dim], "a", alias="abs_point")
            .drop("n")
            .with_columns(pl.lit(POOLED).alias("model_id"))
        )
        both = pl.concat([per_model, pooled.select(per_model.columns)])
        parts.append(both.rename({dim: "group"}).with_columns(pl.lit(dim).alias("dimension")))
    return pl.concat(parts) if parts else pl.DataFrame()


@returns("sbs")
def sbs_levels(
    delta: pl.DataFrame,
    *,
    levels: Sequence[str] = tuple(LEVELS),
    dimensions: Sequence[str] = DIMENSIONS,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    ci_method: CIMethod = "bca",
    test: TestMethod = "rank",
    zero_method: ZeroMethod = "wilcox",
) -> pl.DataFrame:
    r"""SBS and |SBS| per level with face-level bootstrap CIs and a one-sample test per row.

    **SBS** (seed 000 Eq. 4) of a row is the face-level mean shift

    .. math::

        \mathrm{SBS} = \frac{1}{|F|}\sum_{f\in F} \bar\Delta_f, \qquad
        \bar\Delta_f = \text{mean of face } f\text{'s } \Delta_i(x_v) \text{ in the row},

    so every face weighs the same (with one Δ per face × model × variation × scenario this is
    the plain mean of Δ when every face is in every cell). **|SBS|** removes the sign at the
    model × variation value × scenario cell (``ABS_UNIT``) and averages over the row's cells:
    :math:`|\mathrm{SBS}| = \operatorname{mean}_c |\mathrm{SBS}_c|` — the reading of Fig. 4's
    "mean |SBS|" per scenario; pooled rows average the cells of every model. The paper leaves
    the unit implicit; this one is a choice.

    The estimate's CI is a face-level cluster bootstrap (:func:`cluster_bootstrap`, all rows
    share the face draws). |SBS| is folded, so biased upward (by up to its noise floor
    :math:`s\sqrt{2/\pi}` in a null cell) and its bootstrap is inconsistent near 0; its CI is
    therefore built from the cells' SBS CIs (:func:`~cueshift.stats._folded.mean_abs_interval`):
    in a cell, the image of the SBS CI under :math:`|\cdot|` (coverage 95-97.5 % for a 95 % SBS
    CI); in a row of several cells, the mean of Bonferroni-simultaneous lower bounds and of the
    cells' upper bounds (valid and conservative: the noise-floor bias of a mean of folds does
    not shrink with the number of cells). Both contain ``abs_sbs``. Demographic-group rows have
    no |SBS| CI (their cells are group means of another grouping). Each row is tested with the
    WSRT on per-face mean Δ (``test='rank'``; seed 000 §4.4) or the sign-flip permutation
    test (``'permutation'``); ``p_adj`` is BH within level × model × dimension.

    Parameters
    ----------
    delta : polars.DataFrame
        Rows of the ``delta`` view (null Δ are dropped).
    levels : sequence of str
        Keys of :data:`LEVELS` to compute; ``'demographic_group'`` rows come from ``dimensions``.
    n_resamples, seed, confidence_level, ci_method
        Bootstrap settings (10,000 replicates, BCa by default).
    test : {'rank', 'permutation'}
        WSRT on per-face means (the paper's) or the sign-flip permutation test.
    zero_method : {'wilcox', 'pratt', 'zsplit'}
        Zero handling of the WSRT (see :func:`one_sample_test`).

    Returns
    -------
    polars.DataFrame
        One row per level × model (or pooled) × group; schema ``SbsSchema``.
    """
    data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
    faces = study_faces(data)
    levels = list(dict.fromkeys([*levels, "cell"]))  # the |SBS| unit is always needed
    fine = face_sums(
        data, ["model_id", *LEVELS["cell"]], faces=faces, row_means=("phi_variation", "phi_base")
    )
    labels = face_labels(data, faces, dimensions)
    blocks = _blocks(fine, levels, labels)
    offsets = list(np.cumsum([0] + [fm.n_cells for _, fm in blocks[:-1]]))
    values = np.ascontiguousarray(np.hstack([fm.values for _, fm in blocks]))
    member_cell, member_target = _abs_memberships(blocks, offsets)
    w = face_multiplicities(len(faces), n_resamples, seed)
    boot, _ = cluster_bootstrap(values, confidence_level=confidence_level, method=ci_method, multiplicities=w)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(values, axis=0, ddof=1) / np.sqrt(boot.n)
    abs_est, abs_low, abs_high = mean_abs_interval(
        boot.estimate, boot.ci_low, boot.ci_high, se, member_cell, member_target, confidence_level
    )
    statistic, p_value, effect, test_name = one_sample_test(
        values, test=test, n_resamples=n_resamples, seed=seed, zero_method=zero_method
    )
    pad = values.shape[1] - abs_est.size

    def padded(a: F64) -> F64:
        return np.concatenate([a, np.full(pad, np.nan)])

    frames = []
    for level, fm in blocks:
        cells = fm.cells.with_columns(pl.lit(level).alias("level"))
        frames.append(
            cells.select(
                [
                    c
                    for c in ("level", *KEY_COLUMNS, "phi_variation", "phi_base", "n_obs")
                    if c in cells.columns
                ]
            )
        )
    out = pl.concat(frames, how="diagonal_relaxed").with_columns(
        estimate=pl.Series(boot.estimate),
        ci_low=pl.Series(boot.ci_low),
        ci_high=pl.Series(boot.ci_high),
        abs_sbs=pl.Series(padded(abs_est)),
        abs_ci_low=pl.Series(padded(abs_low)),
        abs_ci_high=pl.Series(padded(abs_high)),
        statistic=pl.Series(statistic),
        p_value=pl.Series(p_value),
        effect_size=pl.Series(effect),
        n=pl.Series(boot.n.astype(np.int64)),
        test=pl.lit(test_name),
        ci_method=pl.lit(ci_method),
    )
    demo_abs = _demographic_abs(fine, labels)
    if demo_abs.height:
        out = (
            out.join(demo_abs, on=["model_id", "dimension", "group"], how="left", nulls_equal=False)
            .with_columns(abs_sbs=pl.coalesce(pl.col("abs_sbs").fill_nan(None), pl.col("abs_point")))
            .drop("abs_point")
        )
    for col in KEY_COLUMNS:
        if col not in out.columns:
            out = out.with_columns(pl.lit(None, dtype=pl.String).alias(col))
    out = bh_by_family(out, ["level", "model_id", "dimension"])
    return out.select(
        "level",
        *KEY_COLUMNS,
        "estimate",
        "ci_low",
        "ci_high",
        "abs_sbs",
        "abs_ci_low",
        "abs_ci_high",
        "phi_variation",
        "phi_base",
        "statistic",
        "p_value",
        "p_adj",
        "effect_size",
        "test",
        "ci_method",
        pl.col("n").cast(pl.Int64),
        pl.col("n_obs").cast(pl.Int64),
    ).with_columns(pl.col(pl.Float64).fill_nan(None))

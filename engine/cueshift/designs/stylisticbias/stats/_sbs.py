"""SBS and |SBS| at every level seed 000 reports, with face-level bootstrap CIs and WSRT.

Levels (each per model and pooled over models, ``model_id = "(pooled)"``): the model, the
variation category, the variation value, the scenario category, the scenario, the
model × variation × scenario cell, and the demographic group of the face.

The levels and their rows' face matrices are in
:mod:`~cueshift.designs.stylisticbias.stats._sbs_levels`, the |SBS| interval
machinery in :mod:`~cueshift.designs.stylisticbias.stats._sbs_abs`, the per-row test in
:mod:`~cueshift.stats._one_sample`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS
from cueshift.designs.stylisticbias.stats._sbs_abs import abs_intervals, demographic_abs
from cueshift.designs.stylisticbias.stats._sbs_crossed import crossed_sbs_intervals
from cueshift.designs.stylisticbias.stats._sbs_levels import KEY_COLUMNS, LEVELS, level_blocks
from cueshift.designs.stylisticbias.stats._summed import SummedDelta, summed_delta
from cueshift.stats import (
    GENERALISE,
    Resampling,
    ZeroMethod,
    bh_by_family,
    cluster_bootstrap,
    face_multiplicities,
    one_sample_test,
    returns,
)


@returns("sbs")
def sbs_levels(
    delta: pl.DataFrame,
    *,
    levels: Sequence[str] = tuple(LEVELS),
    dimensions: Sequence[str] = DIMENSIONS,
    resampling: Resampling = Resampling(),
    zero_method: ZeroMethod = "wilcox",
    generalise: str = "faces",
    summed: SummedDelta | None = None,
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
    WSRT on per-face mean Δ (``resampling.test='rank'``; seed 000 §4.4) or the sign-flip
    permutation test (``'permutation'``); ``p_adj`` is BH within level × model × dimension.

    Parameters
    ----------
    delta : polars.DataFrame
        Rows of the ``delta`` view (null Δ are dropped).
    levels : sequence of str
        Keys of :data:`LEVELS` to compute; ``'demographic_group'`` rows come from ``dimensions``.
    resampling : Resampling
        Bootstrap settings (10,000 replicates, BCa by default) and the test: WSRT on per-face
        means (``'rank'``, the paper's) or the sign-flip permutation test (``'permutation'``).
    zero_method : {'wilcox', 'pratt', 'zsplit'}
        Zero handling of the WSRT (see :func:`~cueshift.stats._one_sample.one_sample_test`).
    generalise : {'faces', 'faces+scenarios'}
        The question the SBS intervals answer (``cueshift analyze --generalise``). ``'faces'``
        (default): the shift for the study's scenarios, faces resampled — seed 000's
        intervals. ``'faces+scenarios'``: the shift over the population of scenarios too; the
        rows that average over scenarios get the crossed (product) bootstrap of faces and
        scenarios (:mod:`~cueshift.designs.stylisticbias.stats._sbs_crossed`), wider when
        scenarios differ. Estimates, tests (per-face WSRT) and |SBS| stay as they are. The
        default is ``'faces'`` because it is the paper's question (comparable tables), the
        study's scenarios are a designed set rather than a stated random sample, and the
        product bootstrap is conservative when the face × scenario noise dominates (it counts
        that variance three times); docs/decisions.md D18.
    summed : SummedDelta, optional
        ``delta`` already summed per face (:func:`summed_delta` of the same rows, with labels of
        ``dimensions``), shared with other tables of a run; summed here if not given.

    Returns
    -------
    polars.DataFrame
        One row per level × model (or pooled) × group; schema ``SbsSchema``.
    """
    if generalise not in GENERALISE:
        raise ValueError(f"generalise={generalise!r}: 'faces' or 'faces+scenarios'")
    levels = list(dict.fromkeys([*levels, "cell"]))  # the |SBS| unit is always needed
    if summed is None:
        summed = summed_delta(delta, dimensions)
    faces, fine, labels = summed.faces, summed.fine, summed.labels_of(dimensions)
    blocks = level_blocks(fine, levels, labels)
    values = np.ascontiguousarray(np.hstack([fm.values for _, fm in blocks]))
    w = face_multiplicities(len(faces), resampling.resamples, resampling.seed)
    boot, _ = cluster_bootstrap(
        values, confidence_level=resampling.confidence_level, method=resampling.ci_method, multiplicities=w
    )
    ci_low, ci_high = boot.ci_low, boot.ci_high
    if generalise == "faces+scenarios":
        ci_low, ci_high = crossed_sbs_intervals(fine, levels, labels, boot, w, resampling)
    abs_est, abs_low, abs_high = abs_intervals(blocks, values, boot, resampling.confidence_level)
    statistic, p_value, effect, test_name = one_sample_test(
        values,
        test=resampling.test,
        n_resamples=resampling.resamples,
        seed=resampling.seed,
        zero_method=zero_method,
    )
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
        ci_low=pl.Series(ci_low),
        ci_high=pl.Series(ci_high),
        abs_sbs=pl.Series(abs_est),
        abs_ci_low=pl.Series(abs_low),
        abs_ci_high=pl.Series(abs_high),
        statistic=pl.Series(statistic),
        p=pl.Series(p_value),
        effect_size=pl.Series(effect),
        n=pl.Series(boot.n.astype(np.int64)),
        test=pl.lit(test_name),
        ci_method=pl.lit(resampling.ci_method),
    )
    demo_abs = demographic_abs(fine, labels)
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
        "p",
        "p_adj",
        "effect_size",
        "test",
        "ci_method",
        pl.col("n").cast(pl.Int64),
        pl.col("n_obs").cast(pl.Int64),
    ).with_columns(pl.col(pl.Float64).fill_nan(None))

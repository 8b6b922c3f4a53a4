"""The edit audit carried into the results: each attribute's SBS with every edit, with the audited
edits only, and adjusted for the measured unintended changes (``result_audit_sensitivity``), with
the robustness value of the first two to the unintended changes the audit cannot see, and how far
one as strong as the strongest measured change would move them.

The two unadjusted SBS are the face-level means of seed 000 Eq. 4 with the face-level cluster
bootstrap every SBS table uses (:func:`~cueshift.stats.face_sums`,
:func:`~cueshift.stats.cluster_bootstrap`); the adjusted SBS is the intercept of a
face-weighted regression of Δ on the edit's unintended changes
(:mod:`~cueshift.designs.stylisticbias.stats._audit_adjust`). The robustness values are those of
the face-level model of each SBS (:func:`~cueshift.stats.face_robustness`; Cinelli & Hazlett 2020).
The audit's rows per variation come from :mod:`~cueshift.designs.stylisticbias.stats._audit_variations`,
the table's rows are assembled in :mod:`~cueshift.designs.stylisticbias.stats._audit_frame`.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.stats._audit_adjust import CELLS, adjusted_sbs
from cueshift.designs.stylisticbias.stats._audit_bounds import benchmark_bounds, empty_bounds
from cueshift.designs.stylisticbias.stats._audit_frame import _counts, _face_means, _frame, _set_columns
from cueshift.stats import (
    POOLED,
    Resampling,
    cluster_bootstrap,
    face_multiplicities,
    face_robustness,
    face_sums,
    returns,
    study_faces,
)


@returns("audit_sensitivity")
def audit_sensitivity(
    delta: pl.DataFrame,
    audit: pl.DataFrame,
    *,
    mode: str = "report",
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Each attribute's SBS with every edit, with the audited edits only, and adjusted for the
    measured unintended changes, per model and pooled.

    With :math:`\bar\Delta_f` face :math:`f`'s mean Δ over its rows of the attribute (all its
    values and scenarios; the model's, or every model's when pooled), the SBS of seed 000 Eq. 4
    is :math:`\frac{1}{|F|}\sum_{f\in F}\bar\Delta_f`:

    - ``all_sbs`` over the Δ rows of every edit;
    - ``audited_sbs`` over the rows of the edits that passed every measure of the edit audit;
    - ``adjusted_sbs`` over every edit whose unintended changes were measured, each Δ adjusted
      for them: with :math:`c_i` the differences (variation − base) of the unintended measures
      of row :math:`i`'s variation, the weighted least squares fit

      .. math::

          \Delta_i = \alpha + \beta^\top c_i + \varepsilon_i, \qquad w_i = 1/n_{f(i)},

      (:math:`n_f` the face's rows) gives :math:`\tilde\Delta_i = \Delta_i - \hat\beta^\top c_i`
      and :math:`\mathrm{SBS}_{\mathrm{adj}} = \frac{1}{|F|}\sum_f \bar{\tilde\Delta}_f = \hat\alpha`
      (the weights make the intercept the face-level mean). Its interval and the Wald test of
      :math:`\beta = 0` (``statistic``, ``df``, ``p``) use the face-clustered covariance
      (Liang & Zeger 1986; statsmodels ``cov_type='cluster'``), so they carry the uncertainty of
      :math:`\hat\beta`. The adjusted SBS is the shift an edit with no measured unintended
      change would have caused, when Δ is linear in the changes.

    ``all_*`` and ``audited_*`` intervals are the face-level cluster bootstrap of the SBS tables
    (one face draw shared by every row). Beside each of these two SBS, the sensitivity to an
    unmeasured side effect of the edits (Cinelli & Hazlett 2020; :func:`~cueshift.stats.face_robustness`):
    in the face-level model of the SBS (the OLS fit of the :math:`|F|` face means on an intercept,
    which is the fit of the judgments on the cue with face fixed effects), with
    :math:`t = \mathrm{SBS}\sqrt{|F|}/s` and :math:`\nu = |F| - 1`, ``<set>_partial_r2`` is
    :math:`R^2_{Y\sim D|F} = t^2/(t^2+\nu)`, ``<set>_rv`` the robustness value :math:`RV_1`
    (a side effect explaining that share of the residual variance of both cue and judgment
    erases the SBS; one explaining less of both cannot) and ``<set>_rv_alpha``
    :math:`RV_{1,\alpha}` with :math:`\alpha` = 1 − the interval's level (enough to make it
    non-significant); null where fewer than 3 faces have a value or all are equal. The adjusted
    SBS gets none: its face-clustered t is no OLS t, for which :math:`t^2/(t^2+\nu)` is the
    partial :math:`R^2`.

    Beside the robustness values, a benchmark for them (Cinelli & Hazlett 2020, Sec. 6.1;
    :mod:`~cueshift.designs.stylisticbias.stats._audit_bounds`): the face-level model with the
    faces' mean measured side effects :math:`\bar c_f` in it (same rows as
    :math:`\bar\Delta_f`) gives ``<set>_bound_from``; an unmeasured side effect as strong as
    the measured one that moves it most (``<set>_bound_confound``, ``kd = ky = 1``), with partial
    :math:`R^2` ``<set>_bound_r2dz`` (cue) and ``<set>_bound_r2yz`` (judgment), would leave
    ``<set>_bound_sbs`` and its interval ``<set>_bound_ci_low``, ``<set>_bound_ci_high`` (at
    :math:`\alpha`); null where a row of the set lacks a measure.

    ``change_audited = audited_sbs - all_sbs`` and
    ``change_adjusted = adjusted_sbs - all_sbs``. A confound measure that is constant within a
    row, or a linear combination of those before it, is left out of the row's fit (``confounds``
    lists those used); with no more faces than parameters the adjusted columns are null.

    Parameters
    ----------
    delta : polars.DataFrame
        Δ rows before the audit's drop (``face_id, model_id, feature_key, variation_value, delta``).
    audit : polars.DataFrame
        :func:`audit_variations` of the ``edit_audit`` rows.
    mode : {'strict', 'report'}
        The ``--audit`` of the run (stored with every row).
    resampling : Resampling
        The face-level bootstrap settings of the SBS tables (its ``test`` is not used); its
        ``confidence_level`` also sets the :math:`\alpha` of ``<set>_rv_alpha``.

    Returns
    -------
    polars.DataFrame
        One row per model (and ``'(pooled)'``) × attribute with audit rows; schema
        ``AuditSensitivitySchema``.

    References
    ----------
    .. [1] Liang, K.-Y. & Zeger, S. L. (1986). Longitudinal data analysis using generalized
       linear models. *Biometrika* 73, 13–22.
    .. [2] Cinelli, C. & Hazlett, C. (2020). Making sense of sensitivity: extending omitted
       variable bias. *Journal of the Royal Statistical Society B* 82, 39–67.
    """
    confounds = [c for c in audit.columns if c not in ("image_id", *CELLS, "failed", "reason")]
    rows = (
        delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
        .filter(pl.col("feature_key").is_in(audit["feature_key"].unique().to_list()))
        .select("model_id", *CELLS, "delta")
        .join(audit.drop("image_id", "reason"), on=list(CELLS), how="left", nulls_equal=True)
        .with_columns(pl.col("failed").fill_null(False))
    )
    if rows.height == 0:
        return _frame([])
    faces = study_faces(rows)
    cells, values = _face_means(face_sums(rows, ["model_id", "feature_key", "failed"], faces=faces))
    w = face_multiplicities(len(faces), resampling.resamples, resampling.seed)
    boot, _ = cluster_bootstrap(
        values, confidence_level=resampling.confidence_level, method=resampling.ci_method, multiplicities=w
    )
    robust = face_robustness(values, alpha=1.0 - resampling.confidence_level)
    sbs = cells.with_columns(
        sbs=pl.Series(boot.estimate),
        ci_low=pl.Series(boot.ci_low),
        ci_high=pl.Series(boot.ci_high),
        partial_r2=pl.Series(robust.partial_r2),
        rv=pl.Series(robust.rv),
        rv_alpha=pl.Series(robust.rv_alpha),
    )
    pooled = rows.with_columns(model_id=pl.lit(POOLED))
    per_variation = (
        pl.concat([rows, pooled])
        .group_by("model_id", *CELLS)
        .agg(
            pl.col("delta").sum().alias("sum"),
            pl.len().alias("n_rows"),
            pl.col("failed").first(),
            *[pl.col(c).first() for c in confounds],
        )
        .sort("model_id", *CELLS)
    )
    bounds = benchmark_bounds(rows, confounds, 1.0 - resampling.confidence_level)
    out = []
    for (model, key), part in per_variation.group_by(["model_id", "feature_key"], maintain_order=True):
        mine = sbs.filter((pl.col("model_id") == model) & (pl.col("feature_key") == key))
        out.append(
            {
                "model_id": model,
                "feature_key": key,
                **_set_columns(mine, "all"),
                **_set_columns(mine, "audited"),
                **adjusted_sbs(part, confounds, resampling.confidence_level),
                **_counts(part),
                **bounds.get((str(model), str(key)), empty_bounds()),
                "ci_method": resampling.ci_method,
                "audit": mode,
            }
        )
    return _frame(out)

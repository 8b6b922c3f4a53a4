"""The edit audit carried into the results: each attribute's SBS with every edit, with the audited
edits only, and adjusted for the measured unintended changes (``result_audit_sensitivity``).

The two unadjusted SBS are the face-level means of seed 000 Eq. 4 with the face-level cluster
bootstrap every SBS table uses (:func:`~cueshift.stats.kernels.face_matrix`,
:func:`~cueshift.stats.kernels.cluster_bootstrap`); the adjusted SBS is the intercept of a
face-weighted regression of Δ on the edit's unintended changes (:func:`_adjusted`).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import stats as sps

from cueshift.stats.kernels import (
    F64,
    POOLED,
    CIMethod,
    cluster_bootstrap,
    face_matrix,
    face_multiplicities,
    returns,
    study_faces,
)

#: The columns that name a variation in a Δ row and in the audit.
CELLS = ("face_id", "feature_key", "variation_value")


def audit_variations(rows: pl.DataFrame) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """One row per audited variation: whether any measure failed, and its unintended changes.

    Parameters
    ----------
    rows : polars.DataFrame
        ``edit_audit`` rows (``EditAuditSchema``: one per variation × measure).

    Returns
    -------
    (polars.DataFrame, tuple of str)
        ``image_id, face_id, feature_key, variation_value, failed, reason`` plus one column per
        ``check_kind = 'unintended'`` measure holding its ``difference`` (null where not
        measured), and the names of those measure columns (sorted).
    """
    keys = ["image_id", *CELLS]
    verdict = rows.group_by(keys).agg(
        pl.col("failed").any(),
        pl.col("reason").filter(pl.col("failed")).drop_nulls().str.join("; ").alias("reason"),
    )
    unintended = rows.filter(pl.col("check_kind") == "unintended")
    measures = tuple(sorted(unintended["measure"].unique().to_list()))
    if measures:
        wide = unintended.pivot(
            on="measure", index="image_id", values="difference", aggregate_function="first"
        )
        verdict = verdict.join(wide.select("image_id", *measures), on="image_id", how="left")
    return verdict.with_columns(pl.col("reason").replace("", None)).sort("image_id"), measures


@returns("audit_sensitivity")
def audit_sensitivity(
    delta: pl.DataFrame,
    audit: pl.DataFrame,
    *,
    mode: str = "report",
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    ci_method: CIMethod = "bca",
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
      :math:`\beta = 0` (``statistic``, ``df``, ``p_value``) use the face-clustered covariance
      (Liang & Zeger 1986; statsmodels ``cov_type='cluster'``), so they carry the uncertainty of
      :math:`\hat\beta`. The adjusted SBS is the shift an edit with no measured unintended
      change would have caused, when Δ is linear in the changes.

    ``all_*`` and ``audited_*`` intervals are the face-level cluster bootstrap of the SBS tables
    (one face draw shared by every row). ``change_audited = audited_sbs - all_sbs`` and
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
    n_resamples, seed, confidence_level, ci_method
        The face-level bootstrap settings of the SBS tables.

    Returns
    -------
    polars.DataFrame
        One row per model (and ``'(pooled)'``) × attribute with audit rows; schema
        ``AuditSensitivitySchema``.

    References
    ----------
    .. [1] Liang, K.-Y. & Zeger, S. L. (1986). Longitudinal data analysis using generalized
       linear models. *Biometrika* 73, 13–22.
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
    pooled = rows.with_columns(model_id=pl.lit(POOLED))
    kept = pl.concat([rows, pooled]).with_columns(set=pl.lit("all"))
    both = pl.concat([kept, kept.filter(~pl.col("failed")).with_columns(set=pl.lit("audited"))])
    fm = face_matrix(both, ["set", "model_id", "feature_key"], faces=faces)
    w = face_multiplicities(len(faces), n_resamples, seed)
    boot, _ = cluster_bootstrap(
        fm.values, confidence_level=confidence_level, method=ci_method, multiplicities=w
    )
    sbs = fm.cells.select("set", "model_id", "feature_key").with_columns(
        sbs=pl.Series(boot.estimate), ci_low=pl.Series(boot.ci_low), ci_high=pl.Series(boot.ci_high)
    )
    out = []
    for (model, key), part in pl.concat([rows, pooled]).group_by(
        ["model_id", "feature_key"], maintain_order=True
    ):
        mine = sbs.filter((pl.col("model_id") == model) & (pl.col("feature_key") == key))
        out.append(
            {
                "model_id": model,
                "feature_key": key,
                **_set_columns(mine, "all"),
                **_set_columns(mine, "audited"),
                **_adjusted(part, confounds, confidence_level),
                **_counts(part),
                "ci_method": ci_method,
                "audit": mode,
            }
        )
    return _frame(out)


def _set_columns(sbs: pl.DataFrame, name: str) -> dict[str, float | None]:
    """``<name>_sbs, <name>_ci_low, <name>_ci_high`` of one row (null when the set is empty)."""
    row = sbs.filter(pl.col("set") == name)
    if row.height == 0:
        return {f"{name}_sbs": None, f"{name}_ci_low": None, f"{name}_ci_high": None}
    return {f"{name}_{c}": _number(row[c][0]) for c in ("sbs", "ci_low", "ci_high")}


def _counts(part: pl.DataFrame) -> dict[str, int]:
    """Variations of a row, those that failed the audit, those kept, and the faces."""
    variations = part.select(*CELLS, "failed").unique()
    n_failed = int(variations["failed"].sum())
    return {
        "n_variations": variations.height,
        "n_failed": n_failed,
        "n_audited": variations.height - n_failed,
        "n_faces": part["face_id"].n_unique(),
    }


def _adjusted(part: pl.DataFrame, confounds: list[str], confidence_level: float) -> dict[str, object]:
    """The face-weighted regression of Δ on the confound differences (docstring of
    :func:`audit_sensitivity`): intercept, its face-clustered interval, the Wald test of the slopes."""
    import statsmodels.api as sm

    measured = part.drop_nulls(confounds) if confounds else part
    x, used = _independent(measured, confounds)
    groups = measured["face_id"].to_numpy()
    n_faces = len(set(groups))
    result: dict[str, object] = {
        "adjusted_sbs": None,
        "adjusted_ci_low": None,
        "adjusted_ci_high": None,
        "n_adjusted": measured.select(CELLS).n_unique() if measured.height else 0,
        "confounds": ",".join(used),
        "statistic": None,
        "df": len(used),
        "p_value": None,
    }
    if n_faces <= len(used) + 1:  # more parameters than faces: no clustered covariance
        return result
    per_face = measured.group_by("face_id").len()
    weights = 1.0 / measured.join(per_face, on="face_id", how="left")["len"].to_numpy().astype(np.float64)
    _, codes = np.unique(groups, return_inverse=True)
    fit = sm.WLS(measured["delta"].to_numpy(), x, weights=weights).fit(
        cov_type="cluster", cov_kwds={"groups": codes}
    )
    low, high = fit.conf_int(alpha=1.0 - confidence_level)[0]
    result.update(
        adjusted_sbs=_number(fit.params[0]), adjusted_ci_low=_number(low), adjusted_ci_high=_number(high)
    )
    if used:
        slopes, cov = fit.params[1:], fit.cov_params()[1:, 1:]
        chi2 = float(slopes @ np.linalg.pinv(cov) @ slopes)
        if np.isfinite(chi2) and chi2 >= 0.0:
            result.update(statistic=chi2, p_value=_number(sps.chi2.sf(chi2, len(used))))
    return result


def _independent(measured: pl.DataFrame, confounds: list[str]) -> tuple[F64, list[str]]:
    """The design matrix (intercept first) and the confounds in it: each confound in turn, kept
    when it is not a linear combination of the intercept and those kept before it (a constant
    change, or one measure that repeats another, cannot be told apart). The rank is taken over
    the distinct variations (a variation's changes repeat on each of its rows)."""
    distinct = measured.unique(subset=list(CELLS)).select(confounds).to_numpy().astype(np.float64)
    kept = np.ones((distinct.shape[0], 1))
    used: list[str] = []
    for j, name in enumerate(confounds):
        candidate = np.column_stack([kept, distinct[:, j]])
        if np.linalg.matrix_rank(candidate) == candidate.shape[1]:
            kept, used = candidate, [*used, name]
    rows = measured.select(used).to_numpy().astype(np.float64) if used else np.zeros((measured.height, 0))
    return np.column_stack([np.ones(measured.height), rows]), used


def _number(value: object) -> float | None:
    """A finite float, else ``None``."""
    number = float(value)  # type: ignore[arg-type]
    return number if np.isfinite(number) else None


def _frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    """The table from its rows, with the changes against ``all_sbs``."""
    floats = ("all", "audited", "adjusted")
    schema: dict[str, pl.DataType | type[pl.DataType]] = {"model_id": pl.String, "feature_key": pl.String}
    for name in floats:
        schema |= {f"{name}_sbs": pl.Float64, f"{name}_ci_low": pl.Float64, f"{name}_ci_high": pl.Float64}
    for count in ("n_variations", "n_failed", "n_audited", "n_adjusted", "n_faces", "df"):
        schema[count] = pl.Int64
    schema |= {"confounds": pl.String, "statistic": pl.Float64, "p_value": pl.Float64}
    schema |= {"ci_method": pl.String, "audit": pl.String}
    frame = pl.DataFrame(rows, schema=schema).with_columns(
        change_audited=pl.col("audited_sbs") - pl.col("all_sbs"),
        change_adjusted=pl.col("adjusted_sbs") - pl.col("all_sbs"),
    )
    order = [*list(schema)[:11], "change_audited", "change_adjusted", *list(schema)[11:]]
    return frame.select(order).sort(pl.col("model_id") == POOLED, "model_id", "feature_key")

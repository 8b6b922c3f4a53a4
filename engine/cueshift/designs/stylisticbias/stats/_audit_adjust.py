r"""The SBS adjusted for an edit's measured unintended changes (its CLIP confound probes; the pixel
statistics carry the cue itself): a face-weighted regression of Δ on the changes with
face-clustered errors (:func:`adjusted_sbs`; the formulas are in
:func:`~cueshift.designs.stylisticbias.stats._audit.audit_sensitivity`).

A variation's changes are the same on each of its Δ rows, so the weighted fit is run on one row
per variation (its mean Δ, weight :math:`W_v = m_v / n_f`, :math:`m_v` its rows, :math:`n_f` its
face's rows in the cell): the normal equations and each face's score
:math:`\sum_{i \in f} w_i x_i e_i = \sum_{v \in f} W_v x_v e_v` are those of the fit on the rows,
so the coefficients and the clustered covariance are too; statsmodels' small-sample factor
:math:`\frac{G}{G-1}\frac{N-1}{N-K}` is applied with :math:`N` the Δ rows, as a fit on the rows
would (exactly statsmodels OLS/WLS ``cov_type='cluster'`` on the rows, at a fraction of the cost).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import special
from scipy import stats as sps

from cueshift._types import F64

#: The columns that name a variation.
CELLS = ("face_id", "feature_key", "variation_value")
#: A change whose part outside the span of the earlier ones is below this share of its norm is
#: a linear combination of them.
_COLLINEAR = 1e-9


def adjusted_sbs(
    variations: pl.DataFrame, confounds: list[str], confidence_level: float
) -> dict[str, object]:
    """Intercept of the face-weighted regression of Δ on the confound differences, its
    face-clustered interval, and the Wald test of the slopes.

    Parameters
    ----------
    variations : polars.DataFrame
        One row per variation of the cell: ``face_id, feature_key, variation_value``, ``sum`` and
        ``n_rows`` of its Δ rows, and its confound differences.
    confounds : list of str
        The confound columns.
    confidence_level : float
        Of the normal-theory interval (statsmodels' default for clustered errors).

    Returns
    -------
    dict
        ``adjusted_sbs, adjusted_ci_low, adjusted_ci_high, n_adjusted, confounds, statistic, df,
        p`` (the estimates null when the fit has no more faces than parameters).
    """
    import statsmodels.api as sm

    measured = variations.drop_nulls(confounds) if confounds else variations
    x, used = _independent(measured, confounds)
    result: dict[str, object] = {
        "adjusted_sbs": None,
        "adjusted_ci_low": None,
        "adjusted_ci_high": None,
        "n_adjusted": measured.height,
        "confounds": ",".join(used),
        "statistic": None,
        "df": len(used),
        "p": None,
    }
    n_faces = measured["face_id"].n_unique()
    if n_faces <= len(used) + 1:  # no more faces than parameters: no clustered covariance
        return result
    face_rows = measured.group_by("face_id").agg(pl.col("n_rows").sum().alias("face_rows"))
    m = measured.join(face_rows, on="face_id", how="left", maintain_order="left")
    n_rows = m["n_rows"].to_numpy().astype(np.float64)
    y = m["sum"].to_numpy() / n_rows
    weights = n_rows / m["face_rows"].to_numpy().astype(np.float64)
    _, codes = np.unique(m["face_id"].to_numpy(), return_inverse=True)
    fit = sm.WLS(y, x, weights=weights).fit(
        method="qr", cov_type="cluster", cov_kwds={"groups": codes, "use_correction": False}
    )
    n_obs, k = float(n_rows.sum()), x.shape[1]
    cov = np.asarray(fit.cov_params()) * (n_faces / (n_faces - 1.0)) * ((n_obs - 1.0) / (n_obs - k))
    params = np.asarray(fit.params)
    half = float(special.ndtri(0.5 + confidence_level / 2.0)) * float(np.sqrt(cov[0, 0]))
    result.update(
        adjusted_sbs=_finite(params[0]),
        adjusted_ci_low=_finite(params[0] - half),
        adjusted_ci_high=_finite(params[0] + half),
    )
    if used:
        slopes = params[1:]
        chi2 = float(slopes @ np.linalg.pinv(cov[1:, 1:]) @ slopes)
        if np.isfinite(chi2) and chi2 >= 0.0:
            result.update(statistic=chi2, p=_finite(sps.chi2.sf(chi2, len(used))))
    return result


def _independent(measured: pl.DataFrame, confounds: list[str]) -> tuple[F64, list[str]]:
    """The design matrix (intercept first) and the confounds in it: each confound in turn, kept
    when it is not a linear combination of the intercept and those kept before it (a constant
    change, or one measure that repeats another, cannot be told apart); Gram–Schmidt, twice."""
    n = measured.height
    x = np.ones((n, 1))
    basis = np.ones((n, 1)) / np.sqrt(max(n, 1))
    used: list[str] = []
    for name in confounds:
        column = measured[name].to_numpy().astype(np.float64)
        norm = float(np.linalg.norm(column))
        rest = column - basis @ (basis.T @ column)
        rest -= basis @ (basis.T @ rest)
        if norm > 0.0 and float(np.linalg.norm(rest)) > _COLLINEAR * norm:
            basis = np.column_stack([basis, rest / np.linalg.norm(rest)])
            x, used = np.column_stack([x, column]), [*used, name]
    return x, used


def _finite(value: object) -> float | None:
    """A finite float, else ``None``."""
    number = float(value)  # type: ignore[arg-type]
    return number if np.isfinite(number) else None

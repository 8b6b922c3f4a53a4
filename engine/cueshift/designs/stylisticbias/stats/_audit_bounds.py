r"""The SBS against an unmeasured side effect as strong as the strongest measured one: Cinelli &
Hazlett's (2020, Sec. 6.1) benchmark bound (:func:`~cueshift.stats.ovb_bounds`, ``kd = ky = 1``)
in the face-level model of each SBS, with the edit audit's measured side effects in it.

The face-level model of an SBS regresses the judgments on the cue with face fixed effects (base
and edited image per face); with a side effect measured as its change from the base, the fit on
the faces' differences is :math:`\bar\Delta_f = \tau + \gamma^\top \bar c_f + e_f`, with
:math:`\bar c_f` the face's mean change over the same Δ rows as :math:`\bar\Delta_f` (the cue is
the intercept). Its partial :math:`R^2` are those of the fixed-effects fit: the judgment's from
the t of each :math:`\gamma_j` (:math:`\nu = |F| - 1 - k`), the cue's from the fit of the constant
on :math:`\bar c_f` without an intercept (:math:`|F| - k` degrees of freedom).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.designs.stylisticbias.stats._audit_adjust import _independent
from cueshift.stats import POOLED, ovb_bounds

#: The bound's columns of one SBS set (``<set>_bound_<column>``).
BOUND_COLUMNS = ("confound", "from", "r2dz", "r2yz", "sbs", "ci_low", "ci_high")


def benchmark_bounds(
    rows: pl.DataFrame, confounds: Sequence[str], alpha: float
) -> dict[tuple[str, str], dict[str, object]]:
    r"""Per model (and pooled) × attribute, the bound's columns of the ``all`` and ``audited`` SBS.

    Parameters
    ----------
    rows : polars.DataFrame
        Δ rows with ``model_id, face_id, feature_key, delta, failed`` and the confound columns
        (each variation's measured changes; null where not measured).
    confounds : sequence of str
        The measured side effects (the audit's CLIP confound probes).
    alpha : float
        Of the bounded interval.

    Returns
    -------
    dict
        ``(model_id, feature_key)`` → ``<set>_bound_confound`` (the side effect whose bound moves
        the SBS most), ``<set>_bound_from`` (the SBS of the face-level fit holding every measured
        side effect, which the bound moves), ``<set>_bound_r2dz``, ``<set>_bound_r2yz`` (the
        bounding confounder's partial :math:`R^2` with cue and judgment) and ``<set>_bound_sbs,
        _ci_low, _ci_high`` (the SBS and interval net of it; no interval where the bound's
        :math:`R^2` with the judgment reaches its cap of 1); all null for a set where a row lacks
        a measure, no measure varies, or fewer than 2 residual degrees of freedom remain, and
        where no measured side effect gives a possible bound (:math:`R^2_{D\sim Z} \ge 1`).
    """
    pooled = rows.with_columns(model_id=pl.lit(POOLED))
    both = pl.concat([rows, pooled.select(rows.columns)])
    out: dict[tuple[str, str], dict[str, object]] = {}
    for name, part in (("all", both), ("audited", both.filter(~pl.col("failed")))):
        faces = (
            part.group_by("model_id", "feature_key", "face_id")
            .agg(
                pl.col("delta").mean(),
                *[pl.col(c).mean() for c in confounds],
                pl.any_horizontal([pl.col(c).is_null() for c in confounds] or [pl.lit(False)])
                .any()
                .alias("__unmeasured"),
            )
            .sort("face_id")
        )
        for (model, key), cell in faces.group_by(["model_id", "feature_key"]):
            bound = _strongest(cell, list(confounds), alpha)
            out.setdefault((str(model), str(key)), {}).update(
                {f"{name}_bound_{c}": v for c, v in bound.items()}
            )
    return out


def empty_bounds() -> dict[str, object]:
    """The bound's columns of both sets, null (a model × attribute with no Δ rows in the audit)."""
    return {f"{name}_bound_{c}": None for name in ("all", "audited") for c in BOUND_COLUMNS}


def _strongest(faces: pl.DataFrame, confounds: list[str], alpha: float) -> dict[str, object]:
    """The bound of one SBS against the measured side effect that moves it most (see module)."""
    empty: dict[str, object] = dict.fromkeys(BOUND_COLUMNS)
    if not confounds or bool(faces["__unmeasured"].any()):
        return empty
    x, used = _independent(faces, confounds)
    n, p = x.shape
    dof = n - p
    if not used or dof < 2:
        return empty
    y = faces["delta"].to_numpy().astype(np.float64)
    beta, se = _ols(y, x)
    beta_d, se_d = _ols(np.ones(n), x[:, 1:])  # the cue (the constant) on the side effects
    with np.errstate(divide="ignore", invalid="ignore"):
        t_y, t_d = beta[1:] / se[1:], beta_d / se_d
        r2y = t_y**2 / (t_y**2 + dof)
        r2d = t_d**2 / (t_d**2 + (n - len(used)))
    if not (se[0] > 0 and np.all((r2d >= 0) & (r2d < 1)) and np.all((r2y >= 0) & (r2y < 1))):
        return empty  # an exact fit: no residual variance to bound against
    b = ovb_bounds(beta[0], se[0], dof, r2d, r2y, alpha=alpha)
    moved = np.where(np.isfinite(b.estimate), np.abs(beta[0] - b.estimate), -np.inf)
    j = int(np.argmax(moved))
    if not np.isfinite(moved[j]):
        return empty
    # capped at 1 (sensemakr too): the long fit would have no residual variance, so no interval
    interval = (b.ci_low[j], b.ci_high[j]) if b.r2yz_dx[j] < 1.0 else (np.nan, np.nan)
    values = (beta[0], b.r2dz_x[j], b.r2yz_dx[j], b.estimate[j], *interval)
    return {"confound": used[j], **{c: _finite(v) for c, v in zip(BOUND_COLUMNS[1:], values, strict=True)}}


def _ols(y: F64, x: F64) -> tuple[F64, F64]:
    """OLS coefficients and their classical standard errors."""
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ beta
    dof = x.shape[0] - x.shape[1]
    sigma2 = float(resid @ resid) / dof
    cov = sigma2 * np.linalg.inv(x.T @ x)
    return np.asarray(beta, dtype=np.float64), np.sqrt(np.diag(cov))


def _finite(value: object) -> float | None:
    """A finite float, else ``None``."""
    number = float(value)  # type: ignore[arg-type]
    return number if np.isfinite(number) else None

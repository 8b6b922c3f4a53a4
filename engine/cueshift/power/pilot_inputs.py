r"""Plan inputs of a StylisticBias study estimated from its pilot.

Per pilot model: the shifts and base φ of the ``delta`` and ``base_phi`` views
(:func:`cueshift.power.estimate.estimate_model`); the invalid rate; :math:`\overline{pq}`, the
mean unbiased :math:`\hat\phi(1-\hat\phi)\,n/(n-1)` over its φ (sampled) or the mean
:math:`p(1-p)` of the stored answer probabilities (scored); serving noise from the noise-floor
placebos, whose shift is zero by construction,

.. math::

    \hat\sigma_e^2 = \max\Big(0,\
        \tfrac12\big(\overline{\Delta^2} - \overline{\hat\sigma^2_\varepsilon}\big)\Big)

(:math:`\hat\sigma^2_\varepsilon` the binomial variance of the placebo's two φ), or 0 when the
pilot has none, which the plan says. Two pilot models give the covariance of their per-face mean
shifts (pooled over values, each value centred).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import polars as pl

from cueshift.power.components import ModelInputs, PlanInputs
from cueshift.power.cubes import base_cube, cell_error, face_means, is_placebo, shift_cube
from cueshift.power.estimate import estimate_model
from cueshift.power.pilot import Pilot

DELTA_SQL = """
SELECT model_id, face_id, feature_key, variation_value, scenario_id, phi_variation, phi_base, delta,
       n_valid_variation, n_valid_base
FROM delta WHERE delta IS NOT NULL ORDER BY model_id, face_id, variation_value, scenario_id
"""
BASE_SQL = """
SELECT model_id, face_id, scenario_id, age, gender, ethnicity, body_type, phi, n_valid
FROM base_phi WHERE phi IS NOT NULL ORDER BY model_id, face_id, scenario_id
"""
ANSWERS_SQL = """
SELECT model_id,
       1.0 - sum(n_valid) / sum(n_total) AS invalid_rate,
       avg(CASE WHEN n_valid > 1 THEN phi * (1 - phi) * n_valid / (n_valid - 1) END) AS pq_sampled
FROM phi GROUP BY model_id
"""
SCORED_SQL = """
SELECT model_id, max(seed) = 0 AND bool_and(p_favorable IS NOT NULL) AS scored,
       avg(p_favorable * (1 - p_favorable)) AS pq_scored
FROM judgment GROUP BY model_id
"""


def serving_noise(delta: pl.DataFrame) -> tuple[float, int]:
    """Serving-noise variance of one φ from the placebo shifts, and the number of placebo cells."""
    placebo = delta.filter(is_placebo(delta))
    if placebo.height == 0:
        return 0.0, 0
    error = placebo.select(
        (
            cell_error(pl.col("phi_variation"), pl.col("n_valid_variation"))
            + cell_error(pl.col("phi_base"), pl.col("n_valid_base"))
        ).fill_null(0.0)
    ).to_series()
    excess = float((placebo["delta"] ** 2).mean()) - float(error.mean())  # type: ignore[arg-type]
    return max(excess / 2.0, 0.0), placebo.height


def _covariance(means_a: np.ndarray, means_b: np.ndarray) -> float | None:
    """Pooled covariance over faces of two models' per-face mean shifts, each value centred."""
    total, df = 0.0, 0
    for a, b in zip(means_a, means_b, strict=True):
        ok = np.isfinite(a) & np.isfinite(b)
        if ok.sum() < 2:
            continue
        total += float(((a[ok] - a[ok].mean()) * (b[ok] - b[ok].mean())).sum())
        df += int(ok.sum()) - 1
    return total / df if df else None


def pilot_inputs(pilot: Pilot) -> tuple[PlanInputs, pl.DataFrame, list[str]]:
    """Every pilot model's inputs, the tidy component rows, and notes for the reader.

    Raises
    ------
    CueshiftError
        The pilot has no shift (no variation judged together with its base image).
    """
    from cueshift.errors import CueshiftError

    delta, base = pilot.query(DELTA_SQL), pilot.query(BASE_SQL)
    if delta.filter(~is_placebo(delta)).height == 0 or base.height == 0:
        raise CueshiftError(
            f"{pilot.path}: the pilot has no shift Δ (no variation judged with its base image)"
        )
    answers = pilot.query(ANSWERS_SQL).join(pilot.query(SCORED_SQL), on="model_id")
    faces = sorted(set(delta["face_id"].to_list()) | set(base["face_id"].to_list()))
    scenarios = sorted(set(delta["scenario_id"].to_list()))
    models: dict[str, ModelInputs] = {}
    rows: list[dict[str, object]] = []
    means: dict[str, np.ndarray] = {}
    notes: list[str] = []
    for model_id in pilot.models:
        d = delta.filter(pl.col("model_id") == model_id)
        b = base.filter(pl.col("model_id") == model_id)
        if d.height == 0:
            continue
        info = answers.filter(pl.col("model_id") == model_id).row(0, named=True)
        scored = bool(info["scored"])
        pq = float(info["pq_scored"] if scored else info["pq_sampled"] or 0.0)
        serving, n_placebo = serving_noise(d)
        notes.append(
            f"{model_id}: serving noise from {n_placebo:,} placebo cells"
            if n_placebo
            else f"{model_id}: no noise-floor placebos in the pilot; serving noise taken as 0"
        )
        source = f"pilot {pilot.path.name} ({len(set(d['face_id'].to_list()))} faces)"
        cube = shift_cube(d, faces, scenarios, exact=scored)
        est = estimate_model(
            model_id,
            cube,
            base_cube(b, faces, scenarios, exact=scored),
            pq=pq,
            invalid_rate=float(info["invalid_rate"] or 0.0),
            serving=serving,
            source=source,
        )
        models[model_id] = est.inputs
        rows += est.rows
        means[model_id] = face_means(cube)
    covariance: dict[tuple[str, str], float] = {}
    for first, second in combinations(sorted(means), 2):
        if means[first].shape == means[second].shape:
            cov = _covariance(means[first], means[second])
            if cov is not None:
                covariance[(first, second)] = cov
    n_faces = len(faces)
    source = f"pilot {pilot.path} ({n_faces} faces, {len(models)} model(s))"
    return PlanInputs(models, covariance, source), pl.DataFrame(rows), notes


__all__ = ["pilot_inputs", "serving_noise"]

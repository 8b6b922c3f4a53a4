"""Table 10's mixed models on cells that admit no estimates: a stated reason, not numbers.

Before, every Δ equal gave F = 1e271, p = 0, η²p = 1 by REML (rounding noise over rounding
noise), F = 132 and p = 1e-35 by statsmodels' MixedLM at 0.1 and a ZeroDivisionError at 0; a
single face gave a face variance the data cannot identify, as did one scenario per scenario
category for the crossed model's scenario variance.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
import pytest

from cueshift.stats import NotApplicable, crossed_model, mixed_model, variance_components


def _delta(n_faces: int, *, value: float | None = None, scenarios_per_category: int = 2) -> pl.DataFrame:
    """Δ rows per face × variation category (3) × scenario (``scenarios_per_category`` in each of
    2 categories); Δ = ``value`` everywhere, else a face intercept, a category effect and noise."""
    rng = np.random.default_rng(n_faces)
    rows = []
    for f in range(n_faces):
        face = rng.normal(0, 0.1)
        for v, category in enumerate(("Fashion", "Grooming", "Accessories")):
            for s in ("Personality & Social", "Competence"):
                for k in range(scenarios_per_category):
                    delta = value if value is not None else 0.05 * v + face + rng.normal(0, 0.1)
                    rows.append(
                        {
                            "face_id": f"f{f:02d}",
                            "variation_category": category,
                            "scenario_category": s,
                            "scenario_id": f"{s[:4]}{k}",
                            "delta": float(delta),
                        }
                    )
    return pl.DataFrame(rows)


FITS: dict[str, Callable[[pl.DataFrame], pl.DataFrame]] = {
    "statsmodels": lambda d: mixed_model(d, n_resamples=10),
    "reml": lambda d: mixed_model(d, n_resamples=10, estimator="reml"),
    "crossed": lambda d: crossed_model(d, n_resamples=10),
    "components": lambda d: variance_components(d),
}


@pytest.mark.parametrize("fit", FITS)
@pytest.mark.parametrize("value", [0.1, 0.0])
def test_equal_delta_everywhere_has_no_model(fit: str, value: float) -> None:
    with pytest.raises(NotApplicable, match="every cell has the same Δ"):
        FITS[fit](_delta(30, value=value))


@pytest.mark.parametrize("fit", FITS)
def test_a_single_face_has_no_face_variance(fit: str) -> None:
    with pytest.raises(NotApplicable, match="a single face"):
        FITS[fit](_delta(1))


@pytest.mark.parametrize("fit", ["crossed", "components"])
def test_one_scenario_per_category_has_no_scenario_variance(fit: str) -> None:
    with pytest.raises(NotApplicable, match="scenario_id variance is not identified"):
        FITS[fit](_delta(20, scenarios_per_category=1))
    assert mixed_model(_delta(20, scenarios_per_category=1), n_resamples=0).height == 4  # faces only: fits


@pytest.mark.parametrize("fit", FITS)
def test_a_factor_with_one_level_gives_an_empty_table(fit: str) -> None:
    data = _delta(20).filter(pl.col("variation_category") == "Fashion")
    assert FITS[fit](data).height == 0


@pytest.mark.parametrize("fit", FITS)
def test_two_faces_with_varying_delta_still_fit(fit: str) -> None:
    out = FITS[fit](_delta(2))
    assert out.height == 4 and out["estimate"].is_finite().all()

"""A φ-level simulated StylisticBias study with planted effects (tests and benchmarks).

The judge is simulated at the level of binomial counts, not prompt by prompt: for every
model × image × scenario the number of valid answers is ``n_prompts − Binomial(n_prompts,
invalid_rate)`` and the number of favorable answers is ``Binomial(n_valid, p)``. The favorable
probability is additive on the probability scale, which makes the planted Δ an exact
population quantity (no link-function averaging):

.. math::

    p_{mfs}(x_b) = \\mu_{ms} + \\textstyle\\sum_d a_{m s d}[g_d(f)] + u_{mf}, \\qquad
    p_{mfs}(x_v) = p_{mfs}(x_b) + \\beta_{mvs} + \\gamma_{v}[g(f)] + b_{mfv},

with face intercepts :math:`u` and face-by-variation slopes :math:`b` uniform and centred, so
:math:`E_f[\\Delta_{mvs}] = \\beta_{mvs} + \\sum_g \\pi_g \\gamma_v[g]` exactly (``truth`` holds it).
Amplitudes are bounded so that no probability is clipped. The study's dimension tables are
built in :mod:`~tests.simulate.tables`; :mod:`~tests.simulate.outputs` turns a
simulated study into the ``delta`` frame or stored judgments.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.study.variations import PLACEBO_FEATURE_KEY, VariationFilter
from tests.simulate.tables import (
    POPULATION,
    draw_demographics,
    face_table,
    fixed_tables,
    image_table,
)


@dataclass(frozen=True)
class SimulationSpec:
    """What to simulate. ``planted=False`` sets every Δ effect to zero (β = γ = 0)."""

    n_faces: int = 60
    models: tuple[str, ...] = ("sim-a", "sim-b")
    scenario_ids: tuple[str, ...] | None = None  # default: all 25
    variation_values: tuple[str, ...] | None = None  # default: the paper's whitelist
    n_prompts: int = 12  # 4 orderings × 3 seeds
    invalid_rate: float = 0.01
    planted: bool = True
    interactions: bool = True  # demographic × variation effects γ (Table 11 style)
    null_fraction: float = 0.0  # share of variation values whose β is exactly 0 (FDR checks)
    effect_scale: float = 0.05
    demographic_scale: float = 0.03
    face_sd: float = 0.05
    slope_halfwidth: float = 0.03
    seed: int = 0
    filter: VariationFilter = field(default_factory=VariationFilter)
    placebos: bool = False  # two noise-floor placebos per face (true shift 0: p equals the base's)


@dataclass(frozen=True)
class SimulatedStudy:
    """Tables of the study (``face``, ``image``, ``scenario``, ``model``, ``prompt_variant``,
    ``run``), the binomial ``counts`` per model × image × scenario, and the ``truth`` (expected
    Δ per model × variation value × scenario over the face population)."""

    tables: dict[str, pl.DataFrame]
    counts: pl.DataFrame
    truth: pl.DataFrame


def simulate_study(spec: SimulationSpec) -> SimulatedStudy:
    """Draw faces, their evaluated variations, and binomial answers with planted effects."""
    rng = np.random.default_rng(spec.seed)
    scenarios = [
        s for s in STYLISTICBIAS_25 if spec.scenario_ids is None or s.scenario_id in spec.scenario_ids
    ]
    demo = draw_demographics(rng, spec.n_faces)
    face_ids = [f"face{i:04d}" for i in range(spec.n_faces)]
    image = image_table(
        face_ids,
        demo["gender"],
        placebos=spec.placebos,
        variation_values=spec.variation_values,
        variation_filter=spec.filter,
    )
    is_placebo = image["feature_key"].fill_null("") == PLACEBO_FEATURE_KEY
    values = sorted({v for v in image.filter(~is_placebo)["variation_value"].drop_nulls()})
    n_m, n_s, n_v, n_f = len(spec.models), len(scenarios), len(values), spec.n_faces
    # ---- effects
    mu = rng.uniform(0.42, 0.58, size=(n_m, n_s))
    demo_codes = {d: np.array([list(groups).index(g) for g in demo[d]]) for d, groups in POPULATION.items()}
    demo_effect = np.zeros((n_m, n_s, n_f))
    for d, groups in POPULATION.items():
        a = rng.uniform(-1, 1, size=(n_m, n_s, len(groups))) * spec.demographic_scale
        demo_effect += a[:, :, demo_codes[d]]
    half = spec.face_sd * np.sqrt(3.0)
    u = rng.uniform(-half, half, size=(n_m, 1, n_f))
    p_base = mu[:, :, None] + demo_effect + u  # (m, s, f)
    beta = np.zeros((n_m, n_v, n_s))
    gamma = np.zeros((n_v, n_f))
    gamma_pop = np.zeros(n_v)
    if spec.planted:
        value_effect = rng.normal(0.0, 1.0, size=n_v)
        n_null = int(round(spec.null_fraction * n_v))
        value_effect[rng.permutation(n_v)[:n_null]] = 0.0
        sensitivity = rng.uniform(0.3, 1.5, size=n_s)
        model_scale = rng.uniform(0.6, 1.4, size=n_m)
        beta = np.clip(
            spec.effect_scale
            * model_scale[:, None, None]
            * value_effect[None, :, None]
            * sensitivity[None, None, :],
            -0.12,
            0.12,
        )
        if spec.interactions:
            age_pop = np.array(list(POPULATION["age"].values()))
            g_age = rng.uniform(-0.03, 0.03, size=(n_v, 3))
            gamma = g_age[:, demo_codes["age"]]
            gamma_pop = g_age @ age_pop
    b = rng.uniform(-spec.slope_halfwidth, spec.slope_halfwidth, size=(n_m, n_v, n_f))
    # ---- counts for every model × image × scenario
    img = image.select("image_id", "face_id", "variation_value").with_row_index("img")
    face_idx = np.searchsorted(np.array(face_ids), img["face_id"].to_numpy())
    is_var = (img["variation_value"].is_not_null() & ~is_placebo).to_numpy()  # placebos: shift 0
    v_idx = np.where(is_var, np.searchsorted(values, img["variation_value"].fill_null("").to_numpy()), 0)
    p = p_base[:, :, face_idx]  # (m, s, images)
    shift = (
        beta[:, v_idx, :].transpose(0, 2, 1)
        + gamma[v_idx, face_idx][None, None, :]
        + b[:, v_idx, face_idx][:, None, :]
    )
    p = p + np.where(is_var[None, None, :], shift, 0.0)
    if p.min() < 0 or p.max() > 1:
        raise ValueError("simulated probabilities left [0, 1]; lower the effect amplitudes")
    n_invalid = rng.binomial(spec.n_prompts, spec.invalid_rate, size=p.shape)
    n_fav = rng.binomial(spec.n_prompts - n_invalid, p)
    m_idx, s_idx, i_idx = np.indices(p.shape).reshape(3, -1)
    counts = pl.DataFrame(
        {
            "model_id": np.array(spec.models)[m_idx],
            "image_id": img["image_id"].to_numpy()[i_idx],
            "scenario_id": np.array([s.scenario_id for s in scenarios])[s_idx],
            "n_total": np.full(m_idx.size, spec.n_prompts, dtype=np.int32),
            "n_invalid": n_invalid.ravel().astype(np.int32),
            "n_favorable": n_fav.ravel().astype(np.int32),
            "p_favorable": p.ravel(),
        }
    )
    mm, vv, ss = np.indices(beta.shape).reshape(3, -1)
    truth = pl.DataFrame(
        {
            "model_id": np.array(spec.models)[mm],
            "variation_value": np.array(values)[vv],
            "scenario_id": np.array([s.scenario_id for s in scenarios])[ss],
            "delta_true": beta.ravel() + gamma_pop[vv],
        }
    )
    n_judgments = int(n_invalid.size * spec.n_prompts)
    tables = {
        "face": face_table(face_ids, demo),
        "image": image,
        **fixed_tables(scenarios, spec.models, seed=spec.seed, n_faces=spec.n_faces, n_judgments=n_judgments),
    }
    return SimulatedStudy(tables, counts, truth)

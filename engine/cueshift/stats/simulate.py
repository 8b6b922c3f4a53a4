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
Amplitudes are bounded so that no probability is clipped.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field

import duckdb
import numpy as np
import polars as pl

from cueshift.infer.parser import parse_answer
from cueshift.study.scenarios import (
    ORDERINGS,
    RELEASED_TEMPLATE,
    STYLISTICBIAS_25,
    prompt_variant_frame,
    scenario_frame,
)
from cueshift.study.variations import FEATURES, PLACEBO_FEATURE_KEY, PLACEBO_VALUES, VariationFilter

#: Invalid answers of the simulated judge, rotated over a cell's invalid prompts; each is stored
#: with the reason :func:`~cueshift.infer.parser.parse_answer` gives it (refusal, hedge, ...).
INVALID_TEXTS: tuple[str, ...] = (
    "I cannot tell.",
    "It could be (a) or (b).",
    "Neither.",
    "Both (a) and (b).",
    "The person in the image.",
)

#: Demographic groups and population shares (seed 000 App. B.2: 500 faces' marginal counts).
POPULATION: dict[str, dict[str, float]] = {
    "age": {"young adult": 260 / 500, "middle-aged adult": 124 / 500, "elderly": 116 / 500},
    "gender": {"male": 274 / 500, "female": 226 / 500},
    "ethnicity": {
        "Asian": 110 / 500,
        "African": 109 / 500,
        "European": 101 / 500,
        "Middle Eastern": 95 / 500,
        "Latino": 85 / 500,
    },
    "body_type": {"thin": 154 / 500, "normal": 186 / 500, "obese": 160 / 500},
}


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
    """Tables of the study (``identity``, ``image``, ``scenario``, ``model``, ``prompt_variant``,
    ``run``), the binomial ``counts`` per model × image × scenario, and the ``truth`` (expected
    Δ per model × variation value × scenario over the face population)."""

    tables: dict[str, pl.DataFrame]
    counts: pl.DataFrame
    truth: pl.DataFrame


def _draw_demographics(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    return {
        dim: rng.choice(list(groups), size=n, p=list(groups.values())) for dim, groups in POPULATION.items()
    }


def simulate_study(spec: SimulationSpec) -> SimulatedStudy:
    """Draw faces, their evaluated variations, and binomial answers with planted effects."""
    rng = np.random.default_rng(spec.seed)
    scenarios = [
        s for s in STYLISTICBIAS_25 if spec.scenario_ids is None or s.scenario_id in spec.scenario_ids
    ]
    demo = _draw_demographics(rng, spec.n_faces)
    face_ids = [f"face{i:04d}" for i in range(spec.n_faces)]
    # ---- images: one base per face, one variation per evaluated value
    rows: list[tuple[object, ...]] = []
    for i, face in enumerate(face_ids):
        rows.append((f"{face}-base", face, "base", None, None, None, None, "face", True, None))
        for value in PLACEBO_VALUES if spec.placebos else ():
            slug = value.lower().replace(" ", "-")
            rows.append(
                (
                    f"{face}-base--placebo-{slug}",
                    face,
                    "variation",
                    f"{face}-base",
                    PLACEBO_FEATURE_KEY,
                    PLACEBO_FEATURE_KEY,
                    value,
                    "face",
                    True,
                    None,
                )
            )
        for feat in FEATURES:
            for value in feat.values:
                if spec.variation_values is not None and value not in spec.variation_values:
                    continue
                reason = spec.filter.exclusion_reason(feat.feature_key, value, demo["gender"][i])
                if reason is not None:
                    continue
                slug = value.lower().replace(" / ", "-").replace(" ", "-")
                rows.append(
                    (
                        f"{face}-{feat.feature_key}-{slug}",
                        face,
                        "variation",
                        f"{face}-base",
                        feat.category,
                        feat.feature_key,
                        value,
                        feat.framing,
                        True,
                        None,
                    )
                )
    cols = [
        "image_id",
        "identity_id",
        "role",
        "base_image_id",
        "variation_category",
        "feature_key",
        "variation_value",
        "framing",
        "evaluated",
        "exclusion_reason",
    ]
    schema = {c: (pl.Boolean if c == "evaluated" else pl.String) for c in cols}
    image = pl.DataFrame(rows, schema=schema, orient="row")
    image = image.with_columns(
        path=pl.col("image_id") + ".png",
        sha256=pl.col("image_id").map_elements(
            lambda s: hashlib.sha256(s.encode()).hexdigest(), return_dtype=pl.String
        ),
        width=pl.lit(None, dtype=pl.Int32),
        height=pl.lit(None, dtype=pl.Int32),
    ).select(cols[:8] + ["path", "sha256", "width", "height", "evaluated", "exclusion_reason"])
    identity = pl.DataFrame(
        {
            "identity_id": face_ids,
            "source": "simulated",
            **{k: list(v) for k, v in demo.items()},
            "attributes": pl.Series([None] * spec.n_faces, dtype=pl.String),
        }
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
    img = image.select("image_id", "identity_id", "variation_value").with_row_index("img")
    face_idx = np.searchsorted(np.array(face_ids), img["identity_id"].to_numpy())
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
    tables = {
        "identity": identity,
        "image": image,
        "scenario": scenario_frame(tuple(scenarios), "stylisticbias-25"),
        "prompt_variant": prompt_variant_frame(RELEASED_TEMPLATE, ORDERINGS),
        "model": pl.DataFrame(
            {
                "model_id": list(spec.models),
                "backend": "simulated",
                "checkpoint": "phi-level",
                "revision": pl.Series([None] * n_m, dtype=pl.String),
                "settings": json.dumps({"seed": spec.seed}),
            }
        ),
        "run": pl.DataFrame(
            {
                "run_id": ["sim"],
                "study_name": ["simulated"],
                "shard": ["1/1"],
                "config": [json.dumps({"n_faces": spec.n_faces})],
                "versions": ["{}"],
                "started_at": [dt.datetime(2026, 1, 1)],
                "finished_at": [dt.datetime(2026, 1, 1)],
                "n_planned": [int(n_invalid.size * spec.n_prompts)],
                "n_written": [int(n_invalid.size * spec.n_prompts)],
            }
        ),
    }
    return SimulatedStudy(tables, counts, truth)


def delta_frame(study: SimulatedStudy) -> pl.DataFrame:
    """The ``delta`` view computed in memory (same columns), without a database; like the view it
    leaves out the noise-floor placebos."""
    phi = study.counts.with_columns(
        n_valid=pl.col("n_total") - pl.col("n_invalid"),
    ).with_columns(phi=pl.when(pl.col("n_valid") > 0).then(pl.col("n_favorable") / pl.col("n_valid")))
    image, identity, scen = study.tables["image"], study.tables["identity"], study.tables["scenario"]
    var = image.filter(
        (pl.col("role") == "variation") & (pl.col("feature_key") != PLACEBO_FEATURE_KEY)
    ).select(
        "image_id",
        "base_image_id",
        pl.col("identity_id").alias("face_id"),
        "variation_category",
        "feature_key",
        "variation_value",
        "framing",
    )
    v = phi.join(var, on="image_id")
    b = phi.select(
        "model_id",
        "scenario_id",
        pl.col("image_id").alias("base_image_id"),
        pl.col("phi").alias("phi_base"),
        pl.col("p_favorable").alias("p_base"),
        pl.col("n_valid").alias("n_valid_base"),
    )
    out = (
        v.join(b, on=["model_id", "scenario_id", "base_image_id"])
        .join(
            identity.select(
                pl.col("identity_id").alias("face_id"), "age", "gender", "ethnicity", "body_type"
            ),
            on="face_id",
        )
        .join(scen.select("scenario_id", pl.col("category").alias("scenario_category")), on="scenario_id")
    )
    return out.select(
        "model_id",
        "face_id",
        "image_id",
        "base_image_id",
        "scenario_id",
        "scenario_category",
        "variation_category",
        "feature_key",
        "variation_value",
        "framing",
        "age",
        "gender",
        "ethnicity",
        "body_type",
        pl.col("phi").alias("phi_variation"),
        "phi_base",
        (pl.col("phi") - pl.col("phi_base")).alias("delta"),
        (pl.col("p_favorable") - pl.col("p_base")).alias("delta_expected"),
        pl.col("n_valid").alias("n_valid_variation"),
        "n_valid_base",
    )


def write_study(con: duckdb.DuckDBPyConnection, study: SimulatedStudy) -> int:
    """Store the study: dimension tables through :func:`cueshift.store.write_tables` (validated),
    then the judgments expanded from the counts inside DuckDB (12 rows per count row: ordering
    ``k % 4 + 1``, seed ``k // 4 + 1``; outcomes rotated by a per-cell offset; invalid answers
    rotate over :data:`INVALID_TEXTS`, stored with the parser's reason). The judgment rows
    skip pandera validation (tens of millions of rows); they are built to satisfy its checks.
    Returns the number of judgments written."""
    from cueshift.store import write_tables

    write_tables(con, study.tables)
    counts = study.counts.with_columns(
        offset=(pl.col("image_id").hash(7) % pl.col("n_total").cast(pl.UInt64)).cast(pl.Int32),
        text_offset=(pl.col("image_id").hash(11) % len(INVALID_TEXTS)).cast(pl.Int32),
    )
    mapping = {"a": "favorable", "b": "unfavorable"}
    reasons = [parse_answer(text, mapping).reason for text in INVALID_TEXTS]
    texts = " ".join(f"WHEN {i} THEN '{t}'" for i, t in enumerate(INVALID_TEXTS))
    reason_of = " ".join(f"WHEN {i} THEN '{r}'" for i, r in enumerate(reasons))
    arrow = counts.to_arrow()  # noqa: F841 (read by name in SQL)
    fav_letter = " ".join(f"WHEN {o.ordering} THEN '{o.favorable_letter}'" for o in ORDERINGS)
    con.execute(f"""
        INSERT INTO judgment (model_id, image_id, scenario_id, ordering, seed, response_text, outcome,
                              chosen_letter, invalid_reason, p_favorable, p_neither, latency_ms,
                              created_at, run_id)
        WITH expanded AS (
            SELECT c.model_id, c.image_id, c.scenario_id,
                   (k % 4 + 1)::INTEGER AS ordering, (k // 4 + 1)::INTEGER AS seed,
                   (k + c.offset) % c.n_total AS slot, (k + c.text_offset) % {len(INVALID_TEXTS)} AS text,
                   c.n_invalid, c.n_favorable, c.p_favorable
            FROM arrow AS c, range(c.n_total) AS t(k)
        ), judged AS (
            SELECT *, CASE WHEN slot < n_invalid THEN 'invalid'
                           WHEN slot < n_invalid + n_favorable THEN 'favorable'
                           ELSE 'unfavorable' END AS outcome,
                      CASE ordering {fav_letter} END AS fav_letter
            FROM expanded
        )
        SELECT model_id, image_id, scenario_id, ordering, seed,
               CASE outcome WHEN 'invalid' THEN CASE text {texts} END
                            WHEN 'favorable' THEN '(' || fav_letter || ')'
                            ELSE '(' || CASE fav_letter WHEN 'a' THEN 'b' ELSE 'a' END || ')' END,
               outcome,
               CASE outcome WHEN 'invalid' THEN NULL WHEN 'favorable' THEN fav_letter
                            ELSE CASE fav_letter WHEN 'a' THEN 'b' ELSE 'a' END END,
               CASE outcome WHEN 'invalid' THEN CASE text {reason_of} END END,
               p_favorable, NULL, 0.0, TIMESTAMP '2026-01-01', 'sim'
        FROM judged
    """)
    return int(counts["n_total"].sum())

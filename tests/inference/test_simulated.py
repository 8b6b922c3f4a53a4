"""The simulated judge: determinism, planted truth, and text that the parser reads back.

Statistical tolerances are z = 4 binomial standard errors (two-sided false-failure
probability ≈ 6e-5 per check; the draws are deterministic, so a passing test stays
passing).
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any, TypedDict, Unpack

import numpy as np
import polars as pl
import pytest

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.designs.work import UnitKind, Workload
from cueshift.errors import ConfigError
from cueshift.execution.executor import check_methods
from cueshift.inference.backends import SIMULATED_DESIGNS, backend_spec
from cueshift.inference.backends.base import BackendAnswers, StudyContext
from cueshift.inference.parser_batch import parse_answers
from cueshift.inference.stand_ins.simulated import (
    INVALID_TEXTS,
    SimulatedBackend,
    SimulatedSettings,
    expected_phi,
    face_effect,
    favorable_logit,
    favorable_probability,
    logistic,
    parse_settings,
    population_delta,
    scenario_base_logits,
)
from cueshift.inference.stand_ins.simulated_designs import SimulatedDesignBackend
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE
from tests.inference.judged_images import judged_image

Z = 4.0
SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25}
COMPETENT = "competent"  # Personality & Social
WEALTHY = "wealthy"  # Socioeconomic & Appearance


class Demographics(TypedDict):
    """One face's demographic cell: the keyword arguments of ``population_delta``."""

    age: str
    gender: str
    ethnicity: str
    body_type: str


class DemographicsOverride(TypedDict, total=False):
    """Some of a :class:`Demographics` cell, replacing the others' values."""

    age: str
    gender: str
    ethnicity: str
    body_type: str


class FaceColumns(TypedDict):
    """``expected_phi``'s row columns but the variation (``feature_keys``, ``values``)."""

    scenario_ids: list[str]
    scenario_categories: list[str]
    face_ids: list[str]
    age: list[str]
    gender: list[str]
    ethnicity: list[str]
    body_type: list[str]


#: image_id -> (identity, feature_key, value, age, gender, ethnicity, body_type)
IMAGES: dict[str, tuple[str, str | None, str | None, str | None, str | None, str | None, str | None]] = {
    "f1_base": ("f1", None, None, "young adult", "male", "European", "normal"),
    "f1_glasses": ("f1", "eyewear", "Thick-rimmed", "young adult", "male", "European", "normal"),
    "f1_worn": (
        "f1",
        "fashion_style",
        "Worn / Distressed clothing",
        "young adult",
        "male",
        "European",
        "normal",
    ),
    "f2_base": ("f2", None, None, "elderly", "female", "Asian", "obese"),
    "f2_tattoo": ("f2", "tattoos", "Facial tattoo", "elderly", "female", "Asian", "obese"),
    "f3_base": ("f3", None, None, None, None, None, None),
}


def make_context(images: dict[str, tuple[Any, ...]] = IMAGES) -> StudyContext:
    records = {
        image_id: judged_image(image_id, *fields, path=Path("/nonexistent") / f"{image_id}.png")
        for image_id, fields in images.items()
    }
    return StudyContext(images=records, scenarios=SCENARIOS, template=RELEASED_TEMPLATE)


def make_backend(
    settings: dict[str, Any] | None = None, model_id: str = "sim-judge", context: StudyContext | None = None
) -> SimulatedBackend:
    model = ModelConfig(model_id=model_id, backend="simulated", settings=settings or {})
    return SimulatedBackend(model, context or make_context())


def make_batch(
    image_ids: list[str], scenario_ids: list[str], orderings: list[int], seeds: range | list[int]
) -> pl.DataFrame:
    rows = list(itertools.product(image_ids, scenario_ids, orderings, seeds))
    return pl.DataFrame(
        {
            "image_id": [r[0] for r in rows],
            "scenario_id": [r[1] for r in rows],
            "ordering": pl.Series([r[2] for r in rows], dtype=pl.Int32),
            "seed": pl.Series([r[3] for r in rows], dtype=pl.Int32),
        }
    )


def quiet(**overrides: Any) -> dict[str, Any]:
    """Settings with every effect and bias switched off (base logit 0 everywhere)."""
    settings: dict[str, Any] = {
        "seed": 3,
        "base_logit_mean": 0.0,
        "base_logit_sd": 0.0,
        "face_sd": 0.0,
        "demographic_effects": {},
        "variation_effects": {},
        "category_scale": {},
        "group_variation_effects": [],
        "letter_bias": 0.0,
        "first_position_bias": 0.0,
        "invalid_rate": 0.0,
    }
    settings.update(overrides)
    return settings


def truth_columns(image_ids: list[str], scenario_ids: list[str]) -> dict[str, list[Any]]:
    """The keyword columns of favorable_logit / expected_phi for image x scenario rows."""
    rows = [(IMAGES[i], SCENARIOS[s]) for i, s in zip(image_ids, scenario_ids, strict=True)]
    return {
        "scenario_ids": [s.scenario_id for _, s in rows],
        "scenario_categories": [s.category for _, s in rows],
        "face_ids": [m[0] for m, _ in rows],
        "feature_keys": [m[1] for m, _ in rows],
        "values": [m[2] for m, _ in rows],
        "age": [m[3] for m, _ in rows],
        "gender": [m[4] for m, _ in rows],
        "ethnicity": [m[5] for m, _ in rows],
        "body_type": [m[6] for m, _ in rows],
    }


def share_within(successes: int, n: int, p_expected: float, what: str) -> None:
    se = math.sqrt(p_expected * (1 - p_expected) / n)
    assert abs(successes / n - p_expected) <= Z * se, (
        f"{what}: {successes / n:.4f} vs {p_expected:.4f} (SE {se:.4f})"
    )


# --------------------------------------------------------------------------- wiring


def test_registered_and_answers_like_a_backend() -> None:
    assert backend_spec("simulated").backend_class() is SimulatedBackend
    backend = make_backend()
    batch = make_batch(list(IMAGES), [COMPETENT, WEALTHY], [1, 2, 3, 4], [1, 2, 3])
    answers = backend.judge(batch)
    assert isinstance(answers, BackendAnswers)
    assert len(answers.response_text) == len(answers.latency_ms) == batch.height
    assert answers.p_favorable is None and answers.p_neither is None
    assert all(isinstance(t, str) and t for t in answers.response_text)
    assert min(answers.latency_ms) >= 0.0
    assert backend.judge(batch.head(0)).response_text == []


def test_design_backends_are_registered_and_checked_before_they_are_built() -> None:
    designs = backend_spec(SIMULATED_DESIGNS)
    assert designs.backend_class() is SimulatedDesignBackend
    assert issubclass(SimulatedDesignBackend, SimulatedBackend)
    assert designs.supports("judge_pairs") and designs.supports("rate")
    assert not backend_spec("simulated").supports("judge_pairs") and backend_spec("simulated").supports(
        "judge"
    )
    model = ModelConfig(model_id="sim", backend=SIMULATED_DESIGNS, checkpoint="")
    assert isinstance(designs.build(model, make_context()), SimulatedDesignBackend)
    plain = ModelConfig(model_id="plain", backend="simulated", checkpoint="", settings={"letter_bias": "x"})
    pairs = UnitKind(
        name="pairwise trials",
        table="pairwise_trial",
        key=("model_id",),
        model_column="model_id",
        method="judge_pairs",
        units=lambda model, backend: pl.DataFrame(),
        parse=lambda frame, answers, model_id, run_id: frame,
        shard_by="model_id",
        missing_method="use another backend",
    )
    workload = Workload(context=make_context(), dimensions={}, units=(pairs,))
    check_methods([model], workload)
    refusal = (
        r"^model 'plain': backend 'simulated' has no judge_pairs\(\) for the pairwise trials; use another"
    )
    with pytest.raises(ConfigError, match=refusal):
        check_methods([plain], workload)  # refused before the bad settings are read
    with pytest.raises(ConfigError, match="settings.letter_bias"):
        backend_spec("simulated").build(plain, make_context())
    with pytest.raises(ConfigError, match="settings.letter_bias"):
        backend_spec("simulated").check_settings(plain)
    with pytest.raises(ConfigError, match="unknown backend 'nope'"):
        backend_spec("nope")


def test_unknown_image_is_an_error() -> None:
    with pytest.raises(ValueError, match="not in the study context"):
        make_backend().judge(make_batch(["nope"], [COMPETENT], [1], [1]))


# --------------------------------------------------------------------------- determinism


def test_answers_are_deterministic_and_keyed() -> None:
    batch = make_batch(list(IMAGES), [COMPETENT, WEALTHY, "honest"], [1, 2, 3, 4], range(20))
    first = make_backend({"seed": 11}).judge(batch).response_text
    assert make_backend({"seed": 11}).judge(batch).response_text == first
    assert make_backend({"seed": 12}).judge(batch).response_text != first
    assert make_backend({"seed": 11}, model_id="other-judge").judge(batch).response_text != first


def test_batching_and_row_order_do_not_change_answers() -> None:
    backend = make_backend({"seed": 5, "invalid_rate": 0.2})
    batch = make_batch(list(IMAGES), [COMPETENT, WEALTHY, "loyal"], [1, 2, 3, 4], [1, 2, 3, 7])
    whole = batch.with_columns(text=pl.Series(backend.judge(batch).response_text))
    shuffled = batch.sample(fraction=1.0, shuffle=True, seed=1)
    chunks = [shuffled.slice(start, 37) for start in range(0, shuffled.height, 37)]
    pieces = pl.concat([c.with_columns(text=pl.Series(backend.judge(c).response_text)) for c in chunks])
    key = ["image_id", "scenario_id", "ordering", "seed"]
    joined = whole.join(pieces, on=key, suffix="_chunked")
    assert joined.height == batch.height
    assert (joined["text"] == joined["text_chunked"]).all()


def test_face_effect_is_per_identity_and_standard_normal() -> None:
    ids = [f"identity-{i}" for i in range(20_000)]
    u = face_effect(9, ids, 1.0)
    assert np.array_equal(face_effect(9, ids[::-1], 1.0), u[::-1])  # no dependence on position
    assert np.array_equal(face_effect(9, ids[:5] * 3, 0.5), np.tile(0.5 * u[:5], 3))
    assert not np.array_equal(face_effect(10, ids, 1.0), u)
    n = len(ids)
    assert abs(u.mean()) <= Z / math.sqrt(n)
    assert abs(u.std(ddof=1) - 1.0) <= Z * math.sqrt(1 / (2 * (n - 1)))
    # a tail check: P(|z| > 2) = 0.0455
    share_within(int((np.abs(u) > 2).sum()), n, 0.04550026, "two-sigma tail")


def test_scenario_base_logits_default_and_override() -> None:
    settings = SimulatedSettings(seed=1, scenario_base_logit={COMPETENT: -2.0})
    logits = scenario_base_logits(settings, [COMPETENT, WEALTHY, WEALTHY])
    assert logits[0] == -2.0 and logits[1] == logits[2]
    assert scenario_base_logits(SimulatedSettings(seed=2), [WEALTHY])[0] != logits[1]
    every = scenario_base_logits(SimulatedSettings(seed=7), list(SCENARIOS))
    assert len(set(every.tolist())) == len(SCENARIOS)
    assert (every > 0).sum() > len(SCENARIOS) / 2  # mostly positive, as in the paper


# --------------------------------------------------------------------------- planted truth


def test_zero_effects_give_the_base_rate() -> None:
    base_logit = 0.8
    backend = make_backend(quiet(base_logit_mean=base_logit))
    batch = make_batch(list(IMAGES), [COMPETENT, WEALTHY], [1, 2, 3, 4], range(500))
    draws = backend.simulate(batch)
    assert np.allclose(draws.p_favorable, logistic(np.array(base_logit)))
    assert draws.valid.all()
    share_within(int(draws.chose_favorable.sum()), batch.height, float(logistic(np.array(base_logit))), "phi")
    columns = truth_columns(["f1_worn", "f2_base"], [WEALTHY, COMPETENT])
    assert np.allclose(expected_phi(backend.settings, **columns), logistic(np.array(base_logit)))


def test_planted_variation_effect_is_recovered() -> None:
    theta = 0.6
    settings = quiet(
        base_logit_mean=0.3,
        face_sd=0.5,
        variation_effects={"eyewear=Thick-rimmed": theta},
        category_scale={"Socioeconomic & Appearance": 2.0},
    )
    backend = make_backend(settings)
    n_seeds = 4000
    for scenario_id, scale in ((COMPETENT, 1.0), (WEALTHY, 2.0)):
        batch = make_batch(["f1_base", "f1_glasses"], [scenario_id], [1, 2, 3, 4], range(n_seeds))
        draws = backend.simulate(batch)
        is_variation = (batch["image_id"] == "f1_glasses").to_numpy()
        phi_variation = draws.chose_favorable[is_variation].mean()
        phi_base = draws.chose_favorable[~is_variation].mean()
        eta_base = 0.3 + face_effect(3, ["f1"], 0.5)[0]
        p_base, p_variation = logistic(np.array([eta_base, eta_base + scale * theta]))
        n = 4 * n_seeds
        se = math.sqrt(p_base * (1 - p_base) / n + p_variation * (1 - p_variation) / n)
        assert abs((phi_variation - phi_base) - (p_variation - p_base)) <= Z * se
        assert (phi_variation - phi_base) > 0
        # the truth functions agree with the backend's own probabilities
        columns = truth_columns(batch["image_id"].to_list(), batch["scenario_id"].to_list())
        truth = favorable_probability(backend.settings, **columns, orderings=batch["ordering"].to_numpy())
        assert np.allclose(truth, draws.p_favorable, atol=1e-12)


def test_demographic_and_group_effects_enter_the_logit() -> None:
    settings = SimulatedSettings.model_validate(
        quiet(
            demographic_effects={"age": {"Elderly": -0.4}, "body_type": {"obese": -0.5}},
            variation_effects={"Facial tattoo": 0.1},
            group_variation_effects=[
                {"value": "Facial tattoo", "attribute": "gender", "group": "FEMALE", "shift": 0.3}
            ],
            category_scale={"Personality & Social": 0.5},
        )
    )
    columns = truth_columns(["f2_base", "f2_tattoo", "f3_base"], [COMPETENT] * 3)
    eta = favorable_logit(settings, **columns, orderings=[1, 1, 1])
    assert np.allclose(eta, [-0.9, -0.9 + 0.5 * (0.1 + 0.3), 0.0])  # labels match case-insensitively


def test_letter_and_position_bias() -> None:
    letter_bias, position_bias, base_logit = 0.5, 0.2, 1.0
    backend = make_backend(
        quiet(base_logit_mean=base_logit, letter_bias=letter_bias, first_position_bias=position_bias)
    )
    n_seeds = 3000
    batch = make_batch(["f3_base"], [COMPETENT], [1, 2, 3, 4], range(n_seeds))
    draws = backend.simulate(batch)
    ordering = batch["ordering"].to_numpy()
    p = {
        o: float(
            logistic(
                np.array(
                    base_logit
                    + letter_bias * (1 if ORDERING_BY_ID[o].favorable_letter == "a" else -1)
                    + position_bias * (1 if ORDERING_BY_ID[o].favorable_first else -1)
                )
            )
        )
        for o in ORDERING_BY_ID
    }
    for o in ORDERING_BY_ID:
        share_within(int(draws.chose_favorable[ordering == o].sum()), n_seeds, p[o], f"ordering {o}")
    # the letter bias shows as (1, 2: favorable = a) minus (3, 4: favorable = b)
    letter_gap = draws.chose_favorable[ordering <= 2].mean() - draws.chose_favorable[ordering >= 3].mean()
    expected_gap = (p[1] + p[2] - p[3] - p[4]) / 2
    se = math.sqrt(sum(p[o] * (1 - p[o]) for o in p) / (4 * n_seeds))  # SE of the difference of two halves
    assert expected_gap > 0 and abs(letter_gap - expected_gap) <= Z * se
    # averaging the four orderings cancels the biases only to first order: phi is pulled towards 0.5
    phi = expected_phi(backend.settings, **truth_columns(["f3_base"], [COMPETENT]))[0]
    assert phi == pytest.approx(sum(p.values()) / 4, abs=1e-12)
    p_unbiased = float(logistic(np.array(base_logit)))
    assert 0.5 < phi < p_unbiased
    # second-order bound: |phi - p| <= max|logistic''| / 2 * (lambda^2 + pi^2) (logistic'' <= 0.0963)
    assert p_unbiased - phi <= 0.0963 / 2 * (letter_bias**2 + position_bias**2)
    # at a 50/50 base rate the cancellation is exact (logistic is odd around 0)
    centred = SimulatedSettings.model_validate(
        quiet(letter_bias=letter_bias, first_position_bias=position_bias)
    )
    assert expected_phi(centred, **truth_columns(["f3_base"], [COMPETENT]))[0] == pytest.approx(
        0.5, abs=1e-12
    )
    share_within(int(draws.chose_favorable.sum()), batch.height, phi, "phi over 4 orderings")


def test_invalid_rate_and_mix() -> None:
    invalid_rate = 0.1
    backend = make_backend(
        {"seed": 1, "invalid_rate": invalid_rate, "invalid_mix": {"refusal": 0.6, "hedge": 0.3, "both": 0.1}}
    )
    batch = make_batch(list(IMAGES), list(SCENARIOS)[:8], [1, 2, 3, 4], range(60))
    draws = backend.simulate(batch)
    n_invalid = int((~draws.valid).sum())
    share_within(n_invalid, batch.height, invalid_rate, "invalid rate")
    for kind, weight in (("refusal", 0.6), ("hedge", 0.3), ("both", 0.1)):
        share_within(int((draws.invalid_kind == kind).sum()), n_invalid, weight, f"share of {kind}")
    assert (draws.chosen_letter[~draws.valid] == "").all()
    assert not draws.chose_favorable[~draws.valid].any()


def test_every_text_parses_to_the_intended_letter() -> None:
    backend = make_backend({"seed": 4, "invalid_rate": 0.15})
    batch = make_batch(list(IMAGES)[:3], list(SCENARIOS), [1, 2, 3, 4], range(12))
    draws = backend.simulate(batch)
    mappings = {
        (s, o): ORDERING_BY_ID[o].descriptor_by_letter(SCENARIOS[s])
        for s in SCENARIOS
        for o in ORDERING_BY_ID
    }
    letters, reasons = parse_answers(
        draws.response_text, [mappings[k] for k in zip(batch["scenario_id"], batch["ordering"], strict=True)]
    )
    intended = [letter or None for letter in draws.chosen_letter.tolist()]
    assert letters == intended
    for reason, kind, valid in zip(reasons, draws.invalid_kind.tolist(), draws.valid.tolist(), strict=True):
        assert reason in ("letter", "descriptor") if valid else reason == kind
    # the chosen letter carries the favorable descriptor exactly when the favorable pole was chosen
    favorable_letter = np.array([ORDERING_BY_ID[o].favorable_letter for o in batch["ordering"].to_list()])
    chose_favorable_by_letter = draws.chosen_letter == favorable_letter
    assert np.array_equal(chose_favorable_by_letter[draws.valid], draws.chose_favorable[draws.valid])
    # every answer style and every invalid text is exercised
    texts = set(draws.response_text)
    assert {"(a)", "(B)", "Answer: (a)", "b", "A."} <= texts
    assert any(t.startswith("'") for t in texts)
    assert sum(1 for t in texts if any(t == x for xs in INVALID_TEXTS.values() for x in xs)) >= 6


def test_expected_phi_matches_simulated_answers() -> None:
    backend = make_backend({"seed": 8, "invalid_rate": 0.05})
    n_seeds = 2500
    pairs = [("f1_worn", WEALTHY), ("f2_tattoo", "loyal"), ("f1_glasses", COMPETENT)]
    columns = truth_columns([i for i, _ in pairs], [s for _, s in pairs])
    phi_expected = expected_phi(backend.settings, **columns)
    pair_frame = pl.DataFrame({"image_id": [i for i, _ in pairs], "scenario_id": [s for _, s in pairs]})
    assert np.allclose(backend.expected_phi(pair_frame), phi_expected, atol=1e-12)
    for (image_id, scenario_id), phi in zip(pairs, phi_expected, strict=True):
        batch = make_batch([image_id], [scenario_id], [1, 2, 3, 4], range(n_seeds))
        draws = backend.simulate(batch)
        valid = draws.valid
        phi_observed = draws.chose_favorable[valid].mean()
        # heterogeneous Bernoullis: Var(phi) = sum_j p_j (1 - p_j) / n^2
        se = math.sqrt(np.sum(draws.p_favorable[valid] * (1 - draws.p_favorable[valid]))) / valid.sum()
        assert abs(phi_observed - phi) <= Z * se, (image_id, scenario_id, phi_observed, phi)


def test_population_delta_matches_monte_carlo_over_faces() -> None:
    settings = SimulatedSettings(seed=7, face_sd=0.8)
    feature_key, value = "fashion_style", "Worn / Distressed clothing"
    demographics: Demographics = {
        "age": "elderly",
        "gender": "female",
        "ethnicity": "Latino",
        "body_type": "obese",
    }
    n_faces = 20_000
    identities = [f"mc-{i}" for i in range(n_faces)]
    for scenario_id in (WEALTHY, COMPETENT):
        common: FaceColumns = {
            "scenario_ids": [scenario_id] * n_faces,
            "scenario_categories": [SCENARIOS[scenario_id].category] * n_faces,
            "face_ids": identities,
            "age": [demographics["age"]] * n_faces,
            "gender": [demographics["gender"]] * n_faces,
            "ethnicity": [demographics["ethnicity"]] * n_faces,
            "body_type": [demographics["body_type"]] * n_faces,
        }
        phi_variation = expected_phi(
            settings, **common, feature_keys=[feature_key] * n_faces, values=[value] * n_faces
        )
        phi_base = expected_phi(settings, **common, feature_keys=[None] * n_faces, values=[None] * n_faces)
        per_face = phi_variation - phi_base
        truth = population_delta(
            settings,
            feature_key,
            value,
            scenario_id,
            scenario_category=SCENARIOS[scenario_id].category,
            **demographics,
        )
        assert abs(per_face.mean() - truth) <= Z * per_face.std(ddof=1) / math.sqrt(n_faces)
        assert truth < 0
    # without face variation the integral collapses to the single-face difference
    flat = SimulatedSettings(seed=7, face_sd=0.0)
    row: FaceColumns = {
        "scenario_ids": [WEALTHY],
        "scenario_categories": [SCENARIOS[WEALTHY].category],
        "face_ids": ["x"],
        "age": [demographics["age"]],
        "gender": [demographics["gender"]],
        "ethnicity": [demographics["ethnicity"]],
        "body_type": [demographics["body_type"]],
    }
    direct = (
        expected_phi(flat, **row, feature_keys=[feature_key], values=[value])
        - expected_phi(flat, **row, feature_keys=[None], values=[None])
    )[0]
    assert population_delta(
        flat, feature_key, value, WEALTHY, scenario_category=SCENARIOS[WEALTHY].category, **demographics
    ) == pytest.approx(direct, abs=1e-12)


def test_default_preset_resembles_table_11_signs() -> None:
    """Signs and rough sizes of the default preset (seed 7), young European male of normal build."""
    settings = SimulatedSettings(seed=7)
    cell: Demographics = {
        "age": "young adult",
        "gender": "male",
        "ethnicity": "European",
        "body_type": "normal",
    }

    def sbs(feature_key: str, value: str, **override: Unpack[DemographicsOverride]) -> float:
        overridden: Demographics = {**cell, **override}
        return float(
            np.mean(
                [
                    population_delta(
                        settings,
                        feature_key,
                        value,
                        s,
                        scenario_category=SCENARIOS[s].category,
                        **overridden,
                    )
                    for s in SCENARIOS
                ]
            )
        )

    assert sbs("fashion_style", "Worn / Distressed clothing") < -0.1
    assert sbs("fashion_style", "Professional / Business formal") > 0.05
    assert sbs("facial_hair_male", "Full beard") > 0.04
    assert sbs("skin_irregularities", "Acne") < -0.03
    assert abs(sbs("skin_irregularities", "Freckles")) < 0.01
    assert sbs("tattoos", "Facial tattoo", gender="female") > 0 > sbs("tattoos", "Facial tattoo")
    # semantic alignment: a socioeconomic judgment moves more than a personality one
    assert abs(
        population_delta(
            settings,
            "fashion_style",
            "Worn / Distressed clothing",
            WEALTHY,
            scenario_category=SCENARIOS[WEALTHY].category,
            **cell,
        )
    ) > abs(
        population_delta(
            settings,
            "fashion_style",
            "Worn / Distressed clothing",
            COMPETENT,
            scenario_category=SCENARIOS[COMPETENT].category,
            **cell,
        )
    )


# --------------------------------------------------------------------------- settings errors


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"letter_bias": "strong"}, "letter_bias"),
        ({"letter_bias": float("nan")}, "letter_bias"),
        ({"invalid_rate": 1.5}, "invalid_rate"),
        ({"face_sd": -0.1}, "face_sd"),
        ({"seed": -1}, "seed"),
        ({"temperature": 0.2}, "temperature"),
        ({"demographic_effects": {"hair": {"long": 0.1}}}, "demographic_effects"),
        ({"variation_effects": {"eyewear=": 0.1}}, "variation_effects"),
        ({"answer_styles": {"(c)": 1.0}}, "answer_styles"),
        ({"answer_styles": {"{letter} or (b)": 1.0}}, "answer_styles"),
        ({"answer_styles": {"({letter}) {oops}": 1.0}}, "answer_styles"),
        ({"invalid_mix": {"refusal": 0.0}}, "invalid_mix"),
        (
            {"group_variation_effects": [{"value": "Cap", "attribute": "age", "group": "elderly"}]},
            "group_variation_effects.0.shift",
        ),
    ],
)
def test_bad_settings_raise_one_line_config_error(settings: dict[str, Any], field: str) -> None:
    model = ModelConfig(model_id="sim-judge", settings=settings)
    with pytest.raises(ConfigError) as info:
        parse_settings(model)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"model 'sim-judge': settings.{field}")
    with pytest.raises(ConfigError):
        SimulatedBackend(model, make_context())


def test_default_settings_are_valid_and_serialisable() -> None:
    settings = parse_settings(ModelConfig(model_id="sim-judge", settings={"seed": 7}))
    assert settings.seed == 7 and settings.invalid_rate == 0.02
    assert SimulatedSettings.model_validate_json(settings.model_dump_json()) == settings

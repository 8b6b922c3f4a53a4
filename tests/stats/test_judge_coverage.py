"""Planted effects of the *judgment-level* simulated judge are recovered by the statistics engine.

Companion of ``tests/stats/test_simulation.py`` (which simulates at the φ level): here every number
starts as raw answer text of :class:`~cueshift.inference.stand_ins.simulated.SimulatedBackend`
(letter and first-position bias on, 10 % refusals / hedges / "both" answers), is read back by
the strict parser (:func:`~cueshift.inference.parser_batch.parse_answers`, with the row's letter →
descriptor mapping and favorable letter exactly as ``runner.judgment_rows`` builds them),
becomes φ (Eq. 1, :func:`~cueshift.stats.phi_from_judgments`), Δ, per-face mean Δ
(:func:`~cueshift.stats.face_matrix`), and is then bootstrapped / tested by the engine
(:func:`~cueshift.stats.cluster_bootstrap`, :func:`~cueshift.stats.signed_rank_columns`,
:func:`~cueshift.stats.bh_adjust`). No database and no image files: the judge reads only the
metadata of :class:`~cueshift.inference.backends.base.ImageRecord`.

Truth. Invalid answers are independent of content and ordering and every ordering is asked
equally often (3 seeds each), so given the face, E[φ̂] is exactly the ordering-averaged
probability (``expected_phi``; "no valid answer" has probability 0.1 ** 12 here, and no φ is
ever null — asserted). Hence E[per-face Δ | face] is a difference of ``expected_phi`` values,
and averaging over the face intercept u ~ N(0, τ²) and the demographic cell gives
``population_delta`` over the same four orderings. Faces draw their demographics i.i.d.
uniformly from the 90 cells (3 ages × 2 genders × 5 ethnicities × 3 body types), so faces are
i.i.d. draws from one population (what a face-level bootstrap assumes; cycling the cells would
make the design stratified and the bootstrap conservative) and the planted SBS is the mean over
scenarios and over the 90 cells of ``population_delta``. Identity and image ids are new in
every study, so face intercepts and answers (deterministic hashes of the ids) are fresh draws.

Tolerances. Coverage: one CI per independent study, R = 1000 studies, binomial 99.9 %
acceptance region at p = 0.95 ([926, 971]), which true coverage of 0.90 or 0.99 would leave
with probability > 99 % (asserted). The face bootstrap of a mean undercovers slightly at 80
faces (it uses z and the n-divisor variance, not t: ≈ 0.944 for normal data, 0.944 measured
over 3000 such studies); at 0.944 the chance of falling below 926 is ≈ 0.7 %. The 200 studies
of a chunk share one draw of bootstrap face multiplicities: given the draw, their coverage
events are independent (independent data), and the draw only moves the interval ends by
bootstrap Monte Carlo error. False discoveries: see the BH test. Everything is seeded, so the
outcome is deterministic; the tolerances bound the chance of a false failure for another seed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import polars as pl
from scipy import stats

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.designs.stylisticbias.stats import phi_from_judgments
from cueshift.inference.backends.base import ImageRecord, StudyContext
from cueshift.inference.parser_batch import parse_answers
from cueshift.inference.stand_ins.simulated import (
    DEFAULT_DEMOGRAPHIC_EFFECTS,
    SimulatedBackend,
    SimulatedSettings,
    population_delta,
)
from cueshift.stats import bh_adjust, cluster_bootstrap, face_matrix, signed_rank_columns
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE
from tests.inference.judged_images import judged_image

SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25}
ORDERINGS = (1, 2, 3, 4)
SEEDS = (0, 1, 2)
#: The 90 demographic cells of the judge's default effects (seed 000 Table 7 labels).
CELLS: tuple[tuple[str, str, str, str], ...] = tuple(
    itertools.product(
        tuple(DEFAULT_DEMOGRAPHIC_EFFECTS["age"]),
        tuple(DEFAULT_DEMOGRAPHIC_EFFECTS["gender"]),
        tuple(DEFAULT_DEMOGRAPHIC_EFFECTS["ethnicity"]),
        tuple(DEFAULT_DEMOGRAPHIC_EFFECTS["body_type"]),
    )
)
Variation = tuple[str, str]  # (feature_key, value)
NOWHERE = Path("/nonexistent/image.png")
#: ``judgment.outcome`` by code.
OUTCOMES = pl.Series("outcome", ["invalid", "favorable", "unfavorable"])


# --------------------------------------------------------------------------- simulation helpers


def _backend(settings: dict[str, Any], context: StudyContext) -> SimulatedBackend:
    return SimulatedBackend(
        ModelConfig(model_id="sim-judge", backend="simulated", settings=settings), context
    )


def _planted_sbs(settings: SimulatedSettings, variation: Variation, scenario_ids: Sequence[str]) -> float:
    """Population SBS: mean over scenarios and the 90 equally likely demographic cells."""
    feature_key, value = variation
    return float(
        np.mean(
            [
                population_delta(
                    settings,
                    feature_key,
                    value,
                    scenario_id,
                    scenario_category=SCENARIOS[scenario_id].category,
                    age=age,
                    gender=gender,
                    ethnicity=ethnicity,
                    body_type=body_type,
                    orderings=ORDERINGS,
                )
                for scenario_id in scenario_ids
                for age, gender, ethnicity, body_type in CELLS
            ]
        )
    )


def _outcomes(batch: pl.DataFrame, texts: list[str]) -> npt.NDArray[np.int8]:
    """Outcome code per row (``OUTCOMES``): the strict parser on every raw answer with the row's
    letter -> descriptor mapping, as the runner does it (``runner.judgment_rows``, vectorised)."""
    scenario_ids = batch["scenario_id"].unique().sort().to_list()
    mapping = np.empty((len(scenario_ids), max(ORDERING_BY_ID) + 1), dtype=object)
    favorable_letter = np.full(max(ORDERING_BY_ID) + 1, "", dtype=object)
    for i, scenario_id in enumerate(scenario_ids):
        for ordering_id, ordering in ORDERING_BY_ID.items():
            mapping[i, ordering_id] = ordering.descriptor_by_letter(SCENARIOS[scenario_id])
            favorable_letter[ordering_id] = ordering.favorable_letter
    scenario_code = batch["scenario_id"].cast(pl.Enum(scenario_ids)).to_physical().to_numpy()
    orderings = batch["ordering"].to_numpy()
    letters, _ = parse_answers(texts, mapping[scenario_code, orderings].tolist())
    valid = np.array([letter is not None for letter in letters])
    favorable = np.array(letters, dtype=object) == favorable_letter[orderings]
    return np.where(valid, np.where(favorable, 1, 2), 0).astype(np.int8)


def _simulate_deltas(
    settings: dict[str, Any],
    *,
    study_ids: Sequence[int],
    n_faces: int,
    variations: Sequence[Sequence[Variation]],
    scenario_ids: Sequence[str],
    rng: np.random.Generator,
    tag: str,
) -> pl.DataFrame:
    """Run the judge on fresh faces of each study and return the Δ rows.

    Study ``study_ids[i]`` has ``n_faces`` new identities (demographics uniform over the 90
    cells), each with a base image and one image per entry of ``variations[i]``; every image is
    asked every scenario in all 4 orderings × 3 seeds, in one batch. Columns of the result:
    ``study, face`` (index of the face inside its study), ``variation`` (index into the study's
    ``variations``), ``scenario_id, delta``.
    """
    records: dict[str, ImageRecord] = {}
    meta: dict[str, list[Any]] = {"image_id": [], "study": [], "face": [], "variation": []}
    demographics = rng.integers(0, len(CELLS), size=(len(study_ids), n_faces))
    for i, study in enumerate(study_ids):
        for face in range(n_faces):
            identity = f"{tag}-s{study}-f{face}"
            age, gender, ethnicity, body_type = CELLS[demographics[i, face]]
            for k, (feature_key, value) in enumerate([(None, None), *variations[i]]):
                image_id = f"{identity}-v{k}"
                records[image_id] = judged_image(  # the judge never opens an image
                    image_id, identity, feature_key, value, age, gender, ethnicity, body_type, path=NOWHERE
                )
                meta["image_id"].append(image_id)
                meta["study"].append(study)
                meta["face"].append(face)
                meta["variation"].append(k - 1)  # -1: base image
    context = StudyContext(images=records, scenarios=SCENARIOS, template=RELEASED_TEMPLATE)
    backend = _backend(settings, context)

    prompts = pl.DataFrame(
        list(itertools.product(scenario_ids, ORDERINGS, SEEDS)),
        schema={"scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32},
        orient="row",
    )
    batch = pl.DataFrame({"image_id": meta["image_id"]}).join(prompts, how="cross")
    draws = backend.simulate(batch)  # judge() hands the runner these texts; simulate() adds the truth
    outcome = _outcomes(batch, draws.response_text)
    # the parser reads back exactly what the judge meant (else E[φ̂] would not be the planted truth)
    meant = np.where(draws.valid, np.where(draws.chose_favorable, 1, 2), 0)
    assert np.array_equal(outcome, meant), f"{int((outcome != meant).sum())} answers parsed differently"
    assert 0.05 < (outcome == 0).mean() < 0.15
    judgments = batch.with_columns(
        pl.lit("sim-judge").alias("model_id"), OUTCOMES.gather(pl.Series(outcome)).alias("outcome")
    )

    phi = phi_from_judgments(judgments).join(pl.DataFrame(meta), on="image_id")
    assert phi["phi"].null_count() == 0
    base = phi.filter(pl.col("variation") < 0).select(
        "study", "face", "scenario_id", pl.col("phi").alias("phi_base")
    )
    return (
        phi.filter(pl.col("variation") >= 0)
        .join(base, on=["study", "face", "scenario_id"])
        .select(
            "study", "face", "variation", "scenario_id", (pl.col("phi") - pl.col("phi_base")).alias("delta")
        )
    )


# --------------------------------------------------------------------------- 1. CI coverage

#: Judge with strong ordering biases, 10 % invalid answers and a wide face intercept; the
#: demographic, variation, group-specific and category effects are the defaults.
COVERAGE_SETTINGS: dict[str, Any] = {
    "seed": 41,
    "face_sd": 0.5,
    "letter_bias": 0.4,
    "first_position_bias": 0.25,
    "invalid_rate": 0.1,
}
#: Cycled over the studies: large negative with a body-type-specific extra (Worn), an age-specific
#: extra (Streetwear), a gender-specific extra (Facial tattoo), a small positive one, and a null.
COVERAGE_VARIATIONS: tuple[Variation, ...] = (
    ("fashion_style", "Worn / Distressed clothing"),
    ("fashion_style", "Streetwear"),
    ("tattoos", "Facial tattoo"),
    ("eyewear", "Thick-rimmed"),
    ("skin_irregularities", "Freckles"),
)
#: Personality (κ = 0.8), socioeconomic (κ = 2.5), interpersonal (κ = 0.6).
COVERAGE_SCENARIOS = ("competent", "wealthy", "loving")


def test_sbs_bootstrap_ci_covers_planted_value_95_percent():
    """Face-level BCa 95 % CI of a study's SBS (mean over faces of the per-face mean Δ over three
    scenarios) covers the planted population SBS in ≈ 95 % of 1000 independent studies, and the
    estimate is unbiased for it (module docstring: truth, region, independence)."""
    n_studies, n_faces, n_resamples, chunk = 1000, 80, 2000, 200
    settings = SimulatedSettings.model_validate(COVERAGE_SETTINGS)
    planted = np.array([_planted_sbs(settings, v, COVERAGE_SCENARIOS) for v in COVERAGE_VARIATIONS])
    assert planted[-1] == 0.0 and planted[0] < -0.1 and np.all(planted[:-1] != 0.0)

    lower = int(stats.binom.ppf(0.0005, n_studies, 0.95))
    upper = int(stats.binom.isf(0.0005, n_studies, 0.95))

    # the region is informative: coverage of 0.90 or 0.99 would fall inside it with prob < 1 %
    def in_region(p: float) -> float:
        return float(stats.binom.cdf(upper, n_studies, p) - stats.binom.cdf(lower - 1, n_studies, p))

    assert in_region(0.90) < 0.01 and in_region(0.99) < 0.01

    rng = np.random.default_rng(20240601)
    covered = np.zeros(n_studies, dtype=bool)
    error_z = np.zeros(n_studies)  # (SBS estimate - planted) / standard error, per study
    for start in range(0, n_studies, chunk):
        studies = list(range(start, start + chunk))
        # one variation per study, cycled; studies share no face, image or answer
        delta = _simulate_deltas(
            COVERAGE_SETTINGS,
            study_ids=studies,
            n_faces=n_faces,
            variations=[[COVERAGE_VARIATIONS[s % len(COVERAGE_VARIATIONS)]] for s in studies],
            scenario_ids=COVERAGE_SCENARIOS,
            rng=rng,
            tag="cov",
        )
        # per-face mean Δ over the scenarios: column j holds the faces of study studies[j]
        # integer face ids (typed as str ids): face_matrix matches them against the column like any ids
        fm = face_matrix(delta, ["study"], faces=list(range(n_faces)), subject="face")  # type: ignore[arg-type]
        assert fm.cells["study"].to_list() == studies and not np.isnan(fm.values).any()
        result, _ = cluster_bootstrap(fm.values, n_resamples=n_resamples, seed=start)
        truth = planted[np.array(studies) % len(COVERAGE_VARIATIONS)]
        covered[studies] = (result.ci_low <= truth) & (truth <= result.ci_high)
        standard_error = fm.values.std(axis=0, ddof=1) / math.sqrt(n_faces)
        error_z[studies] = (result.estimate - truth) / standard_error
    n_covered = int(covered.sum())
    assert lower <= n_covered <= upper, (
        f"SBS CI covered the planted value in {n_covered}/{n_studies} studies, "
        f"outside the 99.9 % region [{lower}, {upper}] for 95 % coverage"
    )
    # the estimate is unbiased for the planted value: mean standardised error ≈ 0 (t-test, 0.1 %)
    bias_bound = stats.norm.isf(0.0005) * error_z.std(ddof=1) / math.sqrt(n_studies)
    assert abs(error_z.mean()) <= bias_bound, f"mean (SBS - planted) / SE = {error_z.mean():.3f}"


# --------------------------------------------------------------------------- 2. BH false discoveries

#: Default category scales (socioeconomic ×2.5), no group-specific effects: every null variation
#: has the base image's logit for every face and group. Planted: two clear cues (found mainly in
#: the socioeconomic scenario) and three faint ones, so that a study has a handful of true
#: discoveries and an uncorrected false one is a visible share of them.
BH_SETTINGS: dict[str, Any] = {
    "seed": 43,
    "face_sd": 0.5,
    "letter_bias": 0.4,
    "first_position_bias": 0.25,
    "invalid_rate": 0.1,
    "group_variation_effects": [],
    "variation_effects": {
        "fashion_style=Worn / Distressed clothing": -0.35,
        "fashion_style=Formal / Evening wear": 0.25,
        "hair_style=Messy": -0.06,
        "eyewear=Thick-rimmed": 0.05,
        "skin_irregularities=Acne": -0.04,
        "skin_irregularities=Freckles": 0.0,
        "hair_color=Brown": 0.0,
        "accessories=Beanie": 0.0,
        "hair_color=Black": 0.0,
        "piercings=Single nose": 0.0,
    },
}
BH_VARIATIONS: tuple[Variation, ...] = tuple(
    (key.partition("=")[0], key.partition("=")[2]) for key in BH_SETTINGS["variation_effects"]
)
#: Personality, socioeconomic, interpersonal, behavioral.
BH_SCENARIOS = ("competent", "wealthy", "loving", "obedient")


def test_bh_keeps_false_discovery_proportion_at_5_percent():
    r"""WSRT on per-face mean Δ of every variation × scenario cell, BH over the study's 40 cells.

    Half of the 10 variations are null for every face and group (given the face, base and
    variation φ̂ are i.i.d., so each face's Δ is symmetric about 0), half are planted. Over
    ``n_sims`` independent studies the mean false-discovery proportion (FDP = false / max(1,
    rejected), rejection at BH-adjusted p ≤ 0.05) must stay ≤ 0.05 + margin. Margin: FDP ∈ [0, 1],
    so were its mean 0.05 its variance would be at most 0.05 · 0.95 (Bhatia–Davis); the mean of
    ``n_sims`` independent FDPs then exceeds 0.05 + z₀.₉₉₉ · √(0.05 · 0.95 / n_sims) (= 0.098
    for 200 studies) with probability ≈ 0.1 % (normal approximation). The same p-values without
    correction (p ≤ 0.05) must exceed that bound (≈ 1 of 20 nulls rejected per study against
    a few true rejections), so the check can fail.

    With the 20 null cells alone as the family (complete null), FDP = 1{any rejection}: BH must
    keep P(any) ≤ 0.05 (one-sided binomial 99.9 % bound), while uncorrected tests reject
    somewhere in most studies.
    """
    n_sims, n_faces, chunk = 200, 30, 50
    alpha = 0.05
    judge = SimulatedSettings.model_validate(BH_SETTINGS)
    null_variation = np.array([judge.variation_effects[f"{k}={v}"] == 0.0 for k, v in BH_VARIATIONS])
    assert null_variation.sum() == len(BH_VARIATIONS) // 2
    for (key, value), is_null in zip(BH_VARIATIONS, null_variation, strict=True):  # the planted truth
        truth = np.array([
            population_delta(
                judge, key, value, s, scenario_category=SCENARIOS[s].category,
                age=c[0], gender=c[1], ethnicity=c[2], body_type=c[3],
            )
            for s in BH_SCENARIOS
            for c in CELLS
        ])  # fmt: skip
        assert np.all(truth == 0.0) if is_null else np.all(truth != 0.0)

    rng = np.random.default_rng(20240602)
    fdp: list[float] = []
    fdp_raw: list[float] = []
    discoveries: list[int] = []
    any_null_bh: list[bool] = []
    any_null_raw: list[bool] = []
    for start in range(0, n_sims, chunk):
        studies = list(range(start, start + chunk))
        delta = _simulate_deltas(
            BH_SETTINGS,
            study_ids=studies,
            n_faces=n_faces,
            variations=[BH_VARIATIONS] * len(studies),
            scenario_ids=BH_SCENARIOS,
            rng=rng,
            tag="bh",
        )
        for study, rows in delta.partition_by("study", as_dict=True, maintain_order=True).items():
            # integer face ids (typed as str ids): face_matrix matches them against the column like any ids
            fm = face_matrix(rows, ["variation", "scenario_id"], faces=list(range(n_faces)), subject="face")  # type: ignore[arg-type]
            assert fm.n_cells == len(BH_VARIATIONS) * len(BH_SCENARIOS), study
            null = null_variation[fm.cells["variation"].to_numpy()]
            p = signed_rank_columns(fm.values).p_value
            assert not np.isnan(p).any()
            reject = bh_adjust(p) <= alpha
            for rejected, sink in ((reject, fdp), (p <= alpha, fdp_raw)):
                sink.append((rejected & null).sum() / max(int(rejected.sum()), 1))
            discoveries.append(int(reject.sum()))
            any_null_bh.append(bool((bh_adjust(p[null]) <= alpha).any()))
            any_null_raw.append(bool((p[null] <= alpha).any()))
    assert len(fdp) == n_sims

    bound = alpha + stats.norm.isf(0.001) * math.sqrt(alpha * (1 - alpha) / n_sims)
    mean_fdp, mean_raw = float(np.mean(fdp)), float(np.mean(fdp_raw))
    assert mean_fdp <= bound, f"BH false-discovery proportion {mean_fdp:.3f} > {bound:.3f}"
    assert mean_raw > bound, f"uncorrected FDP {mean_raw:.3f} <= {bound:.3f}: the check could not fail"
    # BH is not vacuous here: it makes discoveries in most studies
    assert np.mean(discoveries) >= 1.0 and np.mean(np.array(discoveries) > 0) >= 0.75

    fwer_bound = stats.binom.isf(0.001, n_sims, alpha)
    assert sum(any_null_bh) <= fwer_bound, f"{sum(any_null_bh)}/{n_sims} all-null families with a discovery"
    assert sum(any_null_raw) > fwer_bound

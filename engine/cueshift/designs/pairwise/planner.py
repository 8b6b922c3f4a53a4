r"""The plan of a pairwise study (seed 002): power of each model × cohort preference and of each
model's position bias, the Wilson half-width, the trials needed, and the cost.

A cohort's test (``pairwise_cohort``) counts the target group's wins among :math:`n` valid
crossed trials, :math:`n = W L \cdot 2^{\text{swap}} \cdot K (1 - q)` for :math:`W` target and
:math:`L` other stimuli, :math:`K` seeds and invalid rate :math:`q`; the exact binomial test of
:math:`p = 1/2` has exact power :func:`~cueshift.power.analytic.binomial_power` at the level BH
reaches in its family (``[pairwise] bh_family``). The trials needed for a target :math:`|p - 1/2|
= d` use the normal approximation
:math:`n = \big(z_{1-\alpha/2}/2 + z_{P}\sqrt{p(1-p)}\big)^2/d^2` (Fleiss, Levin & Paik 2003,
§2.5). The simulation draws :math:`k \sim \operatorname{Bin}(n, p)` and runs the analysis's
:func:`cueshift.stats.binomial_test` and BH (the power rows: :mod:`.binomial_plan_rows`). Trials
are treated as independent, as the study's test treats them.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.pairwise.binomial_plan_rows import binomial_rows
from cueshift.designs.pairwise.section import PairwiseStudy
from cueshift.errors import ConfigError
from cueshift.inference.stand_ins.simulated import logistic
from cueshift.power.cost import CHARS_PER_TOKEN, DEFAULT_ANSWER_TOKENS
from cueshift.power.pilot import open_pilot
from cueshift.power.request import DesignPlanner, PlanRequest, PlanResult
from cueshift.power.study_cost import pilot_latencies

DESIGN_NAME = "pairwise"
#: The simulated judge's default position bias (logit toward the left image) and invalid rate.
DEFAULT_POSITION_LOGIT = 0.3
DEFAULT_INVALID_RATE = 0.02
#: The measured rates (cueshift/power/throughput.csv) are of one-image prompts; a trial shows two.
_NO_RATE = "none (give --throughput; the measured rates are of one-image prompts)"


def _seconds_per_prompt(
    request: PlanRequest, latencies: dict[str, float], model_id: str
) -> tuple[float | None, str]:
    """``--throughput``, else the pilot's mean latency of a trial (``--pilot``), else none: the
    measured rates are of one-image prompts."""
    if request.cost.throughput is not None:
        return 1.0 / request.cost.throughput, "--throughput"
    if model_id in latencies:
        return latencies[model_id], "pilot latencies"
    return None, _NO_RATE


def cohort_sizes(study: PairwiseStudy) -> pl.DataFrame:
    """``cohort, n_target, n_other``: stimuli of each group per cohort."""
    cfg = study.pairwise
    if cfg.synthetic is not None:
        rows = [
            (
                f"{race} {gender}",
                cfg.synthetic.per_group[cfg.target_group],
                cfg.synthetic.per_group[cfg.other_group],
            )
            for race in cfg.synthetic.races
            for gender in cfg.synthetic.genders
        ]
        return pl.DataFrame(rows, schema=["cohort", "n_target", "n_other"], orient="row")
    assert cfg.stimuli is not None  # the section requires stimuli or a synthetic set
    stimuli = pl.read_csv(cfg.stimuli, infer_schema_length=0)
    missing = {"image_id", "cohort", "stimulus_group"} - set(stimuli.columns)
    if missing:
        raise ConfigError(f"{cfg.stimuli}: no column {sorted(missing)[0]!r}")
    return (
        stimuli.group_by("cohort")
        .agg(
            (pl.col("stimulus_group") == cfg.target_group).sum().alias("n_target"),
            (pl.col("stimulus_group") == cfg.other_group).sum().alias("n_other"),
        )
        .sort("cohort")
    )


def _defaults(
    study: PairwiseStudy, cohorts: list[str], target: float
) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    """Anticipated win shares and position bias without a pilot: a simulated-designs model's own
    latent strengths, else 1/2 + the target effect; the judge's default position bias."""
    cfg = study.pairwise
    shares: dict[tuple[str, str], float] = {}
    left: dict[str, float] = {}
    for model in study.models:
        settings = model.settings.get("pairwise") if model.backend == "simulated-designs" else None
        h = (
            float(settings.get("position_bias", DEFAULT_POSITION_LOGIT))
            if settings
            else DEFAULT_POSITION_LOGIT
        )
        left[model.model_id] = float(logistic(np.array(h))) - 0.5
        for cohort in cohorts:
            if settings:
                groups, extra = settings.get("group_effects", {}), settings.get("cohort_group_effects", {})
                gap = (groups.get(cfg.target_group, 0.0) + extra.get(f"{cohort}|{cfg.target_group}", 0.0)) - (
                    groups.get(cfg.other_group, 0.0) + extra.get(f"{cohort}|{cfg.other_group}", 0.0)
                )
                shares[(model.model_id, cohort)] = float(np.mean(logistic(np.array([gap + h, gap - h]))))
            else:
                shares[(model.model_id, cohort)] = 0.5 + target
    return shares, left


def _pilot(request: PlanRequest) -> tuple[dict[tuple[str, str], float], dict[str, float], float, str]:
    from cueshift.designs.pairwise.analyses import load_frames
    from cueshift.designs.pairwise.win_rates import cohort_preference, position_bias

    assert request.pilot is not None
    study = request.study
    assert isinstance(study, PairwiseStudy)
    pilot = open_pilot(request.pilot, DESIGN_NAME)
    try:
        trials, _ = load_frames(pilot.con)
    finally:
        pilot.close()
    cfg = study.pairwise
    cohort = cohort_preference(trials, target=cfg.target_group, other=cfg.other_group)
    shares = {(r["model_id"], r["cohort"]): float(r["estimate"]) for r in cohort.iter_rows(named=True)}
    left = {r["model_id"]: float(r["estimate"]) - 0.5 for r in position_bias(trials).iter_rows(named=True)}
    invalid = float(trials["winner_image_id"].null_count()) / max(trials.height, 1)
    return shares, left, invalid, f"pilot {request.pilot} ({trials.height:,} trials)"


def plan_pairwise(request: PlanRequest) -> PlanResult:
    """The plan of a pairwise study (module docstring)."""
    study = request.study
    assert isinstance(study, PairwiseStudy)
    cfg = study.pairwise
    sizes = cohort_sizes(study)
    cohorts = sizes["cohort"].to_list()
    if request.pilot is not None:
        shares, left, invalid, source = _pilot(request)
    else:
        shares, left = _defaults(study, cohorts, request.targets.effect)
        invalid, source = DEFAULT_INVALID_RATE, "simulated-judge defaults (no pilot): p = 1/2 + target effect"
    models = [m.model_id for m in study.models]
    swap = 2 if cfg.swap_repeats else 1
    per_cohort = (
        (sizes["n_target"] * sizes["n_other"] * swap * len(study.seeds)).to_numpy().astype(np.float64)
    )
    if request.faces is not None:  # --faces: trials per model x cohort
        per_cohort = np.full(per_cohort.size, float(request.faces))
    n_valid = np.maximum(np.floor(per_cohort * (1 - invalid)), 1.0)
    rows, fams, labels, p, n = [], [], [], [], []
    for model_id in models:
        for cohort, nv in zip(cohorts, n_valid, strict=True):
            key = ("model_id" in cfg.bh_family, "cohort" in cfg.bh_family)
            fams.append(" | ".join(x for x, k in ((model_id, key[0]), (cohort, key[1])) if k) or "all tests")
            rows.append(model_id)
            labels.append(cohort)
            p.append(shares.get((model_id, cohort), 0.5 + request.targets.effect))
            n.append(nv)
    rng = np.random.default_rng(request.seed)
    power = binomial_rows("cohort_preference", fams, rows, labels, np.array(p), np.array(n), request, rng)
    pos_p = np.array([0.5 + left.get(m, 0.0) for m in models])
    pos_n = np.full(len(models), float(n_valid.sum()))
    power = pl.concat(
        [
            power,
            binomial_rows(
                "position_bias", models, models, ["P(left wins)"] * len(models), pos_p, pos_n, request, rng
            ),
        ]
    )
    components = pl.DataFrame(
        [
            {"model_id": k[0], "component": f"win share: {k[1]}", "estimate": v, "source": source}
            for k, v in shares.items()
        ]
        + [
            {"model_id": m, "component": "left excess", "estimate": v, "source": source}
            for m, v in left.items()
        ]
        + [{"model_id": "(all)", "component": "invalid_rate", "estimate": invalid, "source": source}]
    )
    trials = int(per_cohort.sum())
    stimuli = int((sizes["n_target"] + sizes["n_other"]).sum())
    ratings = stimuli * len(study.seeds) if cfg.rate_models else 0
    given = request.cost.question_tokens
    question = given if given is not None else len(cfg.prompt) / CHARS_PER_TOKEN
    t_i = request.cost.image_tokens
    latencies = pilot_latencies(request) or {}
    cost = pl.DataFrame(
        [
            {
                "model_id": m,
                "mode": "sampling",
                "units": trials,
                "images": stimuli,
                "variation_images": 0,
                "placebo_images": 0,
                "prompts": trials + ratings,
                "variation_prompts": 0,
                "forward_passes": (trials + ratings) * (request.cost.answer_tokens or DEFAULT_ANSWER_TOKENS),
                "prefill_tokens": float(trials * (2 * t_i + question) + ratings * (t_i + question)),
                "prefill_tokens_shared_prefix": float(
                    trials * (2 * t_i + question) + stimuli * t_i + ratings * question
                ),
                "image_tokens": t_i,
                "question_tokens": question,
                "seconds_per_prompt": seconds,
                "gpu_hours": None if seconds is None else (trials + ratings) * seconds / 3600.0,
                "throughput_source": source,
            }
            for m in models
            for seconds, source in [_seconds_per_prompt(request, latencies, m)]
        ]
    )
    notes = ("trials are counted as independent, as the study's exact binomial test counts them",)
    return PlanResult(DESIGN_NAME, source, power, components, cost, pl.DataFrame(), None, notes)


#: ``cueshift plan``'s view of the design: tests counted in trials; the default target effect is
#: a win share of 0.6 (0.1 from 1/2).
PLANNER = DesignPlanner(unit="trials", target_effect=0.1, plan=plan_pairwise)

__all__ = ["DESIGN_NAME", "PLANNER", "cohort_sizes", "plan_pairwise"]

"""The two-image pairwise design with 0-10 ratings (seed 002): pair generation, runner, analysis.

Trials
------
Within each cohort every target-group stimulus is paired with every other-group stimulus
(crossed, e.g. 4 Western-styled × 10 local-styled = 40 pairs, Table 3). With
``swap_repeats`` each pair is asked in both left/right orders (position bias measurable and
cancelled); otherwise its side is drawn deterministically from the pair and seed. Each
answer is parsed strictly (:func:`~cueshift.infer.parser_pairwise.parse_pairwise_answer`); the
``pairwise_trial`` row keeps both image ids (which side each was on), the raw answer and the
winner (NULL when invalid). Runs resume: stored (model, left, right, question, seed) keys
are never asked again, and every batch is one transaction.

Ratings
-------
With ``rate_models`` each model rates every stimulus (``rating_prompt``, parsed by
:func:`~cueshift.infer.parser_pairwise.parse_rating`); human ratings come from ``human_ratings``
(long CSV) or ``[pairwise.synthetic_humans]``. Both land in the ``rating`` table.
"""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path

import duckdb
import polars as pl
from rich.console import Console
from rich.table import Table

from cueshift import store
from cueshift.designs._backends import design_backend
from cueshift.designs._results import write_results
from cueshift.designs.pairwise import stats as pw
from cueshift.designs.runner import RunSummary, image_records, model_frame, versions
from cueshift.errors import ConfigError, CueshiftError
from cueshift.images import load_benchmark
from cueshift.images.human_ratings import rating_rows, read_long_ratings, read_stimuli
from cueshift.images.manifest import load_manifest
from cueshift.infer.backends import StudyContext
from cueshift.infer.parser_pairwise import parse_pairwise_answer, parse_rating
from cueshift.study.config import Study
from cueshift.study.scenario_sets import SCENARIO_SETS
from cueshift.study.scenarios import Scenario, scenario_frame
from cueshift.study.sections import PairwiseConfig
from cueshift.study.variations import VariationFilter

TRIAL_KEY = ["model_id", "left_image_id", "right_image_id", "scenario_id", "seed"]
RATING_KEY = ["rater_id", "image_id", "attribute", "seed"]
#: Latent "Westernness" of the synthetic human raters per group (target +1, other -1) plus 0.5 z_j.
HUMAN_GROUP_LATENT = (1.0, -1.0)


def config_of(study: Study) -> PairwiseConfig:
    if study.pairwise is None:
        raise ConfigError(f"study {study.name!r}: design 'pairwise' needs a [pairwise] section")
    return study.pairwise


def question_of(config: PairwiseConfig) -> tuple[str, Scenario]:
    for set_name, scenarios in SCENARIO_SETS.items():
        for scenario in scenarios:
            if scenario.scenario_id == config.question:
                return set_name, scenario
    raise ConfigError(f"[pairwise] question {config.question!r} is in no scenario set")


def plan_pairs(
    stimuli: pl.DataFrame, *, target: str, other: str, swap_repeats: bool, seeds: list[int]
) -> pl.DataFrame:
    """Crossed pairs within each cohort (target × other stimulus), both orders or a hashed side, per seed.

    Returns columns ``left_image_id, right_image_id, cohort, left_group, right_group, seed``.
    """
    a = stimuli.filter(pl.col("stimulus_group") == target).select("cohort", pl.col("image_id").alias("a"))
    b = stimuli.filter(pl.col("stimulus_group") == other).select("cohort", pl.col("image_id").alias("b"))
    pairs = a.join(b, on="cohort").join(pl.DataFrame({"seed": pl.Series(seeds, dtype=pl.Int32)}), how="cross")

    def oriented(left: str, right: str, left_group: str, right_group: str) -> pl.DataFrame:
        return pairs.select(
            pl.col(left).alias("left_image_id"),
            pl.col(right).alias("right_image_id"),
            "cohort",
            pl.lit(left_group).alias("left_group"),
            pl.lit(right_group).alias("right_group"),
            "seed",
        )

    forward = oriented("a", "b", target, other)  # target stimulus on the left
    backward = oriented("b", "a", other, target)
    if swap_repeats:
        planned = pl.concat([forward, backward])
    else:
        flip = pl.Series(
            [
                zlib.crc32(f"{x}|{y}|{s}".encode()) % 2 == 1
                for x, y, s in pairs.select("a", "b", "seed").iter_rows()
            ]
        )
        planned = pl.concat([forward.filter(~flip), backward.filter(flip)])
    return planned.sort(["cohort", "left_image_id", "right_image_id", "seed"])


def _stimuli_and_benchmark(study: Study, config: PairwiseConfig):  # type: ignore[no-untyped-def]
    if config.synthetic is not None:
        from cueshift.images.synthetic import pairwise_portraits

        manifest, stimuli, _ = pairwise_portraits(config.synthetic)
        return load_manifest(manifest, VariationFilter(whitelist=None, rules=[]), progress=False), stimuli
    bench = load_benchmark(study.benchmark, study.variations, progress=False)
    assert config.stimuli is not None
    return bench, read_stimuli(config.stimuli, images=set(bench.image["image_id"].to_list()))


def human_ratings_frame(config: PairwiseConfig, stimuli: pl.DataFrame) -> pl.DataFrame | None:
    """Long human ratings from the CSV or the synthetic raters (None when neither is configured)."""
    if config.human_ratings is not None:
        return read_long_ratings(
            config.human_ratings,
            stimuli=set(stimuli["image_id"].to_list()),
            low=config.rating_min,
            high=config.rating_max,
        )
    if config.synthetic_humans is None:
        return None
    from cueshift.images.synthetic import synthetic_human_ratings
    from cueshift.infer.backends.simulated_designs import stimulus_latent

    group_latent = dict(zip((config.target_group, config.other_group), HUMAN_GROUP_LATENT, strict=True))
    latent = stimuli.select("image_id", pl.lit(config.rating_attribute).alias("attribute")).with_columns(
        pl.Series(
            "latent",
            stimulus_latent(stimuli["image_id"].to_list(), stimuli["stimulus_group"].to_list(), group_latent),
        )
    )
    return synthetic_human_ratings(
        latent, config.synthetic_humans, default_consistency={config.rating_attribute: 0.7}
    )


def _missing(
    con: duckdb.DuckDBPyConnection, table: str, wanted: pl.DataFrame, key: list[str]
) -> pl.DataFrame:
    stored = store.query(con, f"SELECT {', '.join(key)} FROM {table}")
    if stored.height == 0:
        return wanted
    return wanted.join(stored.with_columns(pl.col("seed").cast(pl.Int32)), on=key, how="anti")


def _batches_within(plan: pl.DataFrame, batch_size: int, budget: int) -> Iterator[pl.DataFrame]:
    """Consecutive batches of ``plan``, ``batch_size`` rows at most, until ``budget`` rows in all.

    Parameters
    ----------
    plan
        The rows still to ask, in order.
    batch_size
        Rows per batch (the last batch within the budget may be shorter).
    budget
        Rows that may still be asked; nothing is yielded when it is zero or less.

    Yields
    ------
    polars.DataFrame
        The next batch, never empty.
    """
    taken = 0
    for start in range(0, plan.height, batch_size):
        batch = plan.slice(start, min(batch_size, budget - taken))
        if batch.height == 0:
            return
        taken += batch.height
        yield batch


def _trial_rows(batch: pl.DataFrame, texts: list[str], latency: list[float], run_id: str) -> pl.DataFrame:
    sides = [parse_pairwise_answer(t)[0] for t in texts]
    winners = [
        None if s is None else (left if s == "left" else right)
        for s, left, right in zip(sides, batch["left_image_id"], batch["right_image_id"], strict=True)
    ]
    return (
        batch.select(*TRIAL_KEY)
        .with_columns(
            pl.Series("response_text", texts, dtype=pl.String),
            pl.Series("winner_image_id", winners, dtype=pl.String),
            pl.Series("latency_ms", latency, dtype=pl.Float64),
            pl.lit(dt.datetime.now()).cast(pl.Datetime("us")).alias("created_at"),
            pl.lit(run_id).alias("run_id"),
        )
        .select(*TRIAL_KEY, "response_text", "winner_image_id", "latency_ms", "created_at", "run_id")
    )


def _rating_rows(batch: pl.DataFrame, texts: list[str], config: PairwiseConfig) -> pl.DataFrame:
    values = [parse_rating(t, config.rating_min, config.rating_max)[0] for t in texts]
    return batch.select(
        pl.col("model_id").alias("rater_id"),
        pl.lit("model").alias("rater_kind"),
        "image_id",
        "attribute",
        "seed",
    ).with_columns(
        pl.Series("rating", values, dtype=pl.Float64),
        pl.Series("response_text", texts, dtype=pl.String),
        pl.lit(dt.datetime.now()).cast(pl.Datetime("us")).alias("created_at"),
    )


def run(
    study: Study,
    *,
    database: Path | None = None,
    progress: bool = True,
    console: Console | None = None,
    max_judgments: int | None = None,
) -> RunSummary:
    """Ask every planned trial and rating not stored yet; store human ratings once."""
    started = time.perf_counter()
    config = config_of(study)
    set_name, question = question_of(config)
    bench, stimuli = _stimuli_and_benchmark(study, config)
    db_path = Path(database) if database else study.database_path
    con = store.open_study(db_path)
    n_written = 0
    try:
        store.upsert_dimension(con, "identity", bench.identity, "identity_id")
        store.upsert_dimension(con, "image", bench.image, "image_id")
        store.upsert_dimension(con, "scenario", scenario_frame((question,), set_name), "scenario_id")
        store.upsert_dimension(con, "model", model_frame(study.models), "model_id")
        store.upsert_dimension(con, "stimulus", stimuli, "image_id")
        context = StudyContext(
            images=image_records(bench),
            scenarios={question.scenario_id: question},
            template=config.prompt,
            con=con,
        )
        pairs = plan_pairs(
            stimuli,
            target=config.target_group,
            other=config.other_group,
            swap_repeats=config.swap_repeats,
            seeds=study.seeds,
        )
        rate_plan = (
            stimuli.select("image_id", "stimulus_group")
            .join(pl.DataFrame({"seed": pl.Series(study.seeds, dtype=pl.Int32)}), how="cross")
            .with_columns(pl.lit(config.rating_attribute).alias("attribute"))
        )
        plans = []
        for model in study.models:
            trials = _missing(
                con,
                "pairwise_trial",
                pairs.with_columns(
                    pl.lit(model.model_id).alias("model_id"),
                    pl.lit(question.scenario_id).alias("scenario_id"),
                ),
                TRIAL_KEY,
            )
            ratings = rate_plan.head(0)
            if config.rate_models:
                ratings = _missing(
                    con,
                    "rating",
                    rate_plan.with_columns(pl.lit(model.model_id).alias("rater_id")),
                    RATING_KEY,
                ).with_columns(pl.col("rater_id").alias("model_id"))
            plans.append((model, trials, ratings))
        n_planned = sum(t.height + r.height for _, t, r in plans)
        if max_judgments is not None:
            n_planned = min(n_planned, max_judgments)
        n_before = con.execute(
            "SELECT (SELECT count(*) FROM pairwise_trial) + (SELECT count(*) FROM rating)"
        ).fetchone()[0]  # type: ignore[index]
        run_id = uuid.uuid4().hex
        store.write_tables(
            con,
            {
                "run": pl.DataFrame(
                    {
                        "run_id": [run_id],
                        "study_name": [study.name],
                        "shard": ["1/1"],
                        "config": [study.model_dump_json()],
                        "versions": [json.dumps(versions(), sort_keys=True)],
                        "started_at": pl.Series([dt.datetime.now()], dtype=pl.Datetime("us")),
                        "finished_at": pl.Series([None], dtype=pl.Datetime("us")),
                        "n_planned": pl.Series([n_planned], dtype=pl.Int64),
                        "n_written": pl.Series([None], dtype=pl.Int64),
                    }
                )
            },
        )
        for model, trials, ratings in plans:
            if n_written >= n_planned:
                break
            backend = design_backend(model, context, needs="judge_pairs")
            try:
                for batch in _batches_within(trials, study.batch_size, n_planned - n_written):
                    answers = backend.judge_pairs(batch)  # type: ignore[attr-defined]
                    store.write_tables(
                        con,
                        {
                            "pairwise_trial": _trial_rows(
                                batch, answers.response_text, answers.latency_ms, run_id
                            )
                        },
                    )
                    n_written += batch.height
                if ratings.height and n_written < n_planned:
                    if not callable(getattr(backend, "rate", None)):
                        raise ConfigError(
                            f"model {model.model_id!r}: backend {model.backend!r} cannot rate images; "
                            "set [pairwise] rate_models = false"
                        )
                    for batch in _batches_within(ratings, study.batch_size, n_planned - n_written):
                        prompted = batch.with_columns(pl.lit(config.rating_prompt).alias("prompt"))
                        answers = backend.rate(prompted)  # type: ignore[attr-defined]
                        store.write_tables(
                            con, {"rating": _rating_rows(batch, answers.response_text, config)}
                        )
                        n_written += batch.height
            finally:
                backend.close()
        humans = human_ratings_frame(config, stimuli)
        if humans is not None:
            rows = _missing(con, "rating", rating_rows(humans), RATING_KEY)
            store.write_tables(con, {"rating": rows})
        con.execute(
            "UPDATE run SET finished_at = ?, n_written = ? WHERE run_id = ?",
            [dt.datetime.now(), n_written, run_id],
        )
    finally:
        con.close()
    return RunSummary(run_id, db_path, n_planned, n_written, int(n_before), time.perf_counter() - started)


TRIALS_SQL = """
SELECT t.model_id, t.scenario_id, t.seed, t.left_image_id, t.right_image_id, t.winner_image_id,
       t.response_text,
       sl.cohort, sl.stimulus_group AS left_group, sr.stimulus_group AS right_group
FROM pairwise_trial AS t
JOIN stimulus AS sl ON sl.image_id = t.left_image_id
JOIN stimulus AS sr ON sr.image_id = t.right_image_id
"""
RATINGS_SQL = """
SELECT r.rater_kind, r.rater_id, r.image_id, r.attribute, r.rating, s.cohort, s.stimulus_group
FROM rating AS r JOIN stimulus AS s ON s.image_id = r.image_id
"""


def analyze_frames(
    trials: pl.DataFrame, ratings: pl.DataFrame, config: PairwiseConfig
) -> dict[str, pl.DataFrame]:
    """Every pairwise result table from the trials and ratings frames."""
    target, other, conf = config.target_group, config.other_group, config.confidence
    results = {
        "cohort": pw.cohort_preference(
            trials,
            target=target,
            other=other,
            confidence=conf,
            bh_family=config.bh_family,
            pseudo_count=config.pseudo_count,
        ),
        "stimulus": pw.stimulus_win_rates(
            trials, confidence=conf, bh_family=config.bh_family, pseudo_count=config.pseudo_count
        ),
        "position": pw.position_bias(trials, confidence=conf),
        "group_effect": pw.group_effect(
            trials, target=target, other=other, confidence=conf, bh_family=config.bh_family
        ),
    }
    if config.bradley_terry:
        results["bradley_terry"] = pw.bradley_terry(trials, confidence=conf)
    if ratings.height:
        bins = [(b.label, b.low, b.high, b.closed) for b in config.bins]
        results["rating_summary"] = pw.rating_summary(ratings, confidence=conf)
        results["rating_bins"] = pw.rating_bins(ratings, bins, confidence=conf)
        from cueshift.designs.probe.stats import krippendorff_by_attribute, model_human_rating_agreement

        humans = ratings.filter(pl.col("rater_kind") == "human")
        if humans.height:
            results["rating_reliability"] = krippendorff_by_attribute(humans)
            results["rating_model_human"] = model_human_rating_agreement(ratings, confidence=conf)
    return results


def analyze(
    con: duckdb.DuckDBPyConnection, study: Study, *, console: Console | None = None, write: bool = True
) -> dict[str, pl.DataFrame]:
    """Compute and store every ``result_pairwise_*`` table, then print the cohort table."""
    config = config_of(study)
    trials = store.query(con, TRIALS_SQL)
    if trials.height == 0:
        raise CueshiftError("pairwise: no trials in the study database (run `cueshift infer` first)")
    results = analyze_frames(trials, store.query(con, RATINGS_SQL), config)
    if write:
        write_results(con, "pairwise", results)
    print_summary(results, console or Console(), config)
    return results


def print_summary(results: dict[str, pl.DataFrame], console: Console, config: PairwiseConfig) -> None:
    """Seed 002 Table 4 layout: k/n, p̂, Wilson CI, OR, BH q per model × cohort; position bias."""
    table = Table(
        title=f"Trials won by the {config.target_group} stimulus "
        "(seed 002 Table 4; exact binomial vs 0.5, BH)"
    )
    for column in ("model", "cohort", "k/n", "p̂", "95% CI", "OR", "q"):
        table.add_column(column, justify="left" if column in ("model", "cohort") else "right")
    for row in results["cohort"].iter_rows(named=True):
        q = row["p_adj"]
        table.add_row(
            row["model_id"],
            row["cohort"],
            f"{row['k']}/{row['n']}",
            f"{row['estimate']:.2f}",
            f"[{100 * row['ci_low']:.0f}–{100 * row['ci_high']:.0f}]",
            f"{row['odds_ratio']:.2f}",
            "< 10⁻³" if q < 1e-3 else f"{q:.3f}",
        )
    console.print(table)
    for row in results["position"].iter_rows(named=True):
        consistency = row["consistency"]
        console.print(
            f"{row['model_id']}: P(left) = {row['estimate']:.3f} "
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}], "
            f"p = {row['p_value']:.2g}; same winner in both orders: "
            f"{'—' if consistency is None else f'{consistency:.1%}'}",
            highlight=False,
        )
    console.print("Tables: " + ", ".join(f"result_pairwise_{name}" for name in results), soft_wrap=True)

"""The paired original-vs-filtered design (seed 001): run and analyse.

Running is the ordinary forced-choice protocol (:func:`cueshift.designs.runner.run_study`):
identity = individual, base image = original photo, variation = the filtered photo
(``feature_key`` = ``[paired] filter_feature_key``). The StylisticBias variation filter
does not apply: every filtered image is judged. With ``[paired.synthetic]`` the synthetic
image set is drawn first and read through its manifest.

Analysis reads :math:`s` (the ``phi`` view) and stores ``result_paired_<name>`` tables:

=================================  ==========================================================
``attractiveness``                 KW (paper) and Wilcoxon per model × scenario (§4.1)
``halo``                           App. D Table 5 on the positive-first trait scenarios (§4.2)
``significance_share``             share of significant scenarios per family/category (§4.1)
``demographic``                    KW across gender / age / race groups, all/original/filtered
``demographic_means``              mean s per group (App. E Table 6, App. F Table 7)
``attractiveness_by_group``        attractiveness bias within each demographic group (Fig. 5)
``strongest_group``                group with the strongest bias, counts (App. C)
``attractiveness_vs_demographic``  Table 1: demographic bias stronger in F, in F^b, or no impact
``overlap``                        scenarios with both biases (§4.3.1, Fig. 4)
``race_jobs``                      the two stereotyped races per race job (App. F Table 7)
=================================  ==========================================================
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
from rich.console import Console
from rich.table import Table

from cueshift import store
from cueshift.designs import _backends  # noqa: F401  (registers the simulated-designs backend)
from cueshift.designs._results import write_results
from cueshift.designs.paired import stats as ps
from cueshift.designs.runner import RunSummary, run_study
from cueshift.errors import CueshiftError
from cueshift.study.config import BenchmarkConfig, Study
from cueshift.study.scenarios_001 import HALO_SCENARIOS, RACE_PAIRS
from cueshift.study.sections import PairedConfig
from cueshift.study.variations import VariationFilter

SCORES_SQL = """
SELECT p.model_id, p.scenario_id, s.category AS scenario_category, coalesce(s.family, s.category) AS family,
       s.favorable AS choice_1, s.unfavorable AS choice_2, img.identity_id,
       CASE WHEN img.role = 'base' THEN 'original' ELSE 'filtered' END AS condition,
       idn.source, idn.gender, idn.age, idn.ethnicity, p.phi AS s, p.n_valid, p.n_total
FROM phi AS p
JOIN image AS img ON img.image_id = p.image_id
JOIN identity AS idn ON idn.identity_id = img.identity_id
JOIN scenario AS s ON s.scenario_id = p.scenario_id
WHERE img.evaluated AND (img.role = 'base' OR img.feature_key = $feature_key)
ORDER BY p.model_id, s.position, img.identity_id, condition
"""


def config_of(study: Study) -> PairedConfig:
    return study.paired or PairedConfig()


def prepared_study(study: Study) -> Study:
    """The study as the runner sees it: synthetic images drawn and linked, every filtered image judged."""
    config = config_of(study)
    update: dict[str, object] = {"variations": VariationFilter(whitelist=None, rules=[])}
    if config.synthetic is not None:
        from cueshift.images.synthetic import paired_image_set

        manifest = paired_image_set(config.synthetic, config.filter_feature_key)
        update["benchmark"] = BenchmarkConfig(kind="manifest", manifest=manifest)
    return study.model_copy(update=update)


def run(
    study: Study,
    *,
    database: Path | None = None,
    progress: bool = True,
    console: Console | None = None,
    max_judgments: int | None = None,
) -> RunSummary:
    """Judge every original and filtered image on every scenario × ordering × seed not stored yet."""
    return run_study(
        prepared_study(study),
        database=database,
        progress=progress,
        console=console,
        max_judgments=max_judgments,
    )


def load_scores(con: duckdb.DuckDBPyConnection, feature_key: str = "beauty_filter") -> pl.DataFrame:
    """One row per model × image × scenario: s, condition, individual and demographics."""
    scores = store.query(con, SCORES_SQL.replace("$feature_key", "?"), [feature_key])
    if scores.height == 0:
        raise CueshiftError(
            "paired: no judgments of original or filtered images in the study database "
            "(run `cueshift infer` first)"
        )
    return scores


def analyze_scores(scores: pl.DataFrame, config: PairedConfig) -> dict[str, pl.DataFrame]:
    """Every paired result table from the scores frame (see the module docstring)."""
    available = [d for d in config.demographics if scores[d].drop_nulls().n_unique() >= 2]
    bias = ps.attractiveness_bias(scores, correction=config.correction, confidence=config.confidence)
    share = pl.concat(
        [
            ps.significance_share(bias, ["model_id", "test"], alpha=config.alpha).with_columns(
                pl.lit("all").alias("level"), pl.lit("all").alias("group")
            ),
            ps.significance_share(bias, ["model_id", "test", "family"], alpha=config.alpha)
            .with_columns(pl.lit("family").alias("level"))
            .rename({"family": "group"}),
            ps.significance_share(bias, ["model_id", "test", "scenario_category"], alpha=config.alpha)
            .with_columns(pl.lit("scenario_category").alias("level"))
            .rename({"scenario_category": "group"}),
        ],
        how="diagonal_relaxed",
    )
    results = {
        "attractiveness": bias,
        "halo": ps.halo_table(bias, sorted(HALO_SCENARIOS), alpha=config.alpha),
        "significance_share": share,
    }
    if available:
        demographic, means = ps.demographic_bias(scores, available, correction=config.correction)
        by_group = ps.attractiveness_by_group(
            scores, available, correction=config.correction, confidence=config.confidence
        )
        results |= {
            "demographic": demographic,
            "demographic_means": means,
            "attractiveness_by_group": by_group,
            "strongest_group": ps.strongest_group(by_group, alpha=config.alpha),
            "attractiveness_vs_demographic": ps.attractiveness_vs_demographic(
                demographic, alpha=config.alpha
            ),
            "overlap": ps.bias_overlap(bias, demographic, alpha=config.alpha),
        }
    if "ethnicity" in available:
        race_jobs = ps.pair_group_bias(scores, "ethnicity", RACE_PAIRS, correction=config.correction)
        if race_jobs.height:
            results["race_jobs"] = race_jobs
    return results


def analyze(
    con: duckdb.DuckDBPyConnection, study: Study, *, console: Console | None = None, write: bool = True
) -> dict[str, pl.DataFrame]:
    """Compute and store every ``result_paired_*`` table, then print the headline summary."""
    config = config_of(study)
    results = analyze_scores(load_scores(con, config.filter_feature_key), config)
    if write:
        write_results(con, "paired", results)
    print_summary(results, console or Console(), config)
    return results


def print_summary(results: dict[str, pl.DataFrame], console: Console, config: PairedConfig) -> None:
    """R-style console summary: significant scenarios per family and the top of the halo table."""
    share = results["significance_share"].filter(pl.col("level").is_in(["all", "family"]))
    table = Table(
        title=f"Attractiveness bias: scenarios with p{'_BH' if config.correction == 'bh' else ''} "
        f"< {config.alpha} (seed 001 §4.1)"
    )
    for column in ("model", "test", "family", "significant", "share", "95% CI"):
        table.add_column(column, justify="left" if column in ("model", "test", "family") else "right")
    for row in share.sort(["model_id", "test", "level", "group"]).iter_rows(named=True):
        table.add_row(
            row["model_id"],
            row["test"],
            row["group"],
            f"{row['n_significant']}/{row['n']}",
            f"{row['estimate']:.0%}",
            f"{row['ci_low']:.0%}–{row['ci_high']:.0%}",
        )
    console.print(table)
    halo = results["halo"]
    top = Table(title="Halo table (App. D Table 5): mean s filtered vs original, top 10 by H")
    for column in ("model", "choice 1", "choice 2", "gap", "s filtered", "s original", "H", ""):
        top.add_column(column, justify="left" if column in ("model", "choice 1", "choice 2") else "right")
    for (model_id,), part in halo.group_by("model_id", maintain_order=True):
        for row in part.head(10).iter_rows(named=True):
            top.add_row(
                model_id,
                row["choice_1"],
                row["choice_2"],
                f"{row['gap']:+.2f}",
                f"{row['mean_filtered']:.2f}",
                f"{row['mean_original']:.2f}",
                "—" if row["statistic"] is None else f"{row['statistic']:.2f}",
                row["stars"],
            )
    console.print(top)
    console.print("Tables: " + ", ".join(f"result_paired_{name}" for name in results), soft_wrap=True)

"""The analyses of seed 000 (RQ1-RQ3), declared with :func:`cueshift.stats.analysis` under the
suite ``stylisticbias``: one ``result_<name>`` table each, computed from the ``delta`` and
``base_phi`` views by :func:`run_analyses`.

Every analysis is a thin composition of the statistics kernels of :mod:`cueshift.stats`; the
face-level bootstrap and the permutation tests share one seed and number of resamples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context, Inputs
from cueshift.designs.stylisticbias.run_reads import summed_rows
from cueshift.designs.stylisticbias.stats import (
    category_demographic_table,
    category_ranking,
    cross_model,
    cumulative_abs_sbs,
    demographic_tests,
    demographic_variation_table,
    face_anova,
    fashion_age_table,
    model_summary,
    negativity_asymmetry,
    sbs_levels,
    significance_share,
    variation_strength,
)
from cueshift.errors import CueshiftError
from cueshift.stats import CIMethod, NotApplicable, RunSettings, TestMethod, analysis, mixed_model, run_suite
from cueshift.views import GREEDY, PhiChoice, check_scored, phi_computed_once, read_base_phi, read_delta

if TYPE_CHECKING:
    from cueshift.designs.stylisticbias.edit_audit import EditAudit
    from cueshift.designs.stylisticbias.quality import IdentityQuality

#: The variation category of Table 4 (fashion styles; seed 000 Table 4).
FASHION_CATEGORY = "Fashion"


@analysis(
    "sbs",
    suite=SUITE,
    description="SBS and |SBS| at every level (Eq. 4; Figs. 3-4), face-level bootstrap CIs",
    source="delta",
    grouping="level x model (and pooled) x group",
    statistic="face-level mean Delta; WSRT on per-face means",
    family="level x model x dimension",
)
def _sbs(ctx: Context) -> pl.DataFrame:
    return sbs_levels(
        ctx.inputs.delta,
        test=ctx.inputs.test,
        generalise=ctx.inputs.generalise,
        summed=summed_rows(ctx),
        **ctx.inputs.boot,
    )


@analysis(
    "table2_vs",
    suite=SUITE,
    description="Variation Strength per model x demographic dimension (Eq. 3, Table 2)",
    source="base_phi",
    grouping="model x dimension",
    statistic="mean over scenarios of population std of group mean phi",
    family="none",
)
def _vs(ctx: Context) -> pl.DataFrame:
    return variation_strength(
        ctx.inputs.base_phi,
        n_resamples=ctx.inputs.n_resamples,
        seed=ctx.inputs.seed,
        confidence_level=ctx.inputs.confidence_level,
    )


@analysis(
    "demographic_tests",
    suite=SUITE,
    description="Kruskal-Wallis / Mann-Whitney per model x scenario on base phi",
    source="base_phi",
    grouping="model x dimension x scenario",
    statistic="KW H (age, body, ethnicity), MWU U (gender)",
    family="model x dimension (BH over scenarios)",
)
def _demo_tests(ctx: Context) -> pl.DataFrame:
    return demographic_tests(
        ctx.inputs.base_phi, test=ctx.inputs.test, n_resamples=ctx.inputs.n_resamples, seed=ctx.inputs.seed
    )


@analysis(
    "table9",
    suite=SUITE,
    description="Share of scenarios with a significant demographic difference (Table 9)",
    source="result_demographic_tests",
    grouping="model x dimension",
    statistic="share of p_adj < 0.05",
    family="model x dimension",
)
def _table9(ctx: Context) -> pl.DataFrame:
    tests = ctx.results.get("demographic_tests")
    if tests is None:
        tests = _demo_tests(ctx)
    return significance_share(tests)


@analysis(
    "face_anova",
    suite=SUITE,
    description="One-way face-level ANOVAs by demographic dimension (Table 10)",
    source="delta, base_phi",
    grouping="outcome x dimension",
    statistic="F, partial eta^2",
    family="none",
)
def _anova(ctx: Context) -> pl.DataFrame:
    return face_anova(
        ctx.inputs.delta,
        ctx.inputs.base_phi,
        n_resamples=ctx.inputs.n_resamples,
        seed=ctx.inputs.seed,
        confidence_level=ctx.inputs.confidence_level,
    )


@analysis(
    "mixed_model",
    suite=SUITE,
    description="Mixed model, random intercept per face: partial eta^2, F, R2 (Table 10)",
    source="delta",
    grouping="term",
    statistic="Wald F, partial eta^2, Nakagawa R2",
    family="none",
)
def _mixed(ctx: Context) -> pl.DataFrame:
    return mixed_model(
        ctx.inputs.delta,
        n_resamples=ctx.inputs.n_resamples,
        seed=ctx.inputs.seed,
        confidence_level=ctx.inputs.confidence_level,
        estimator="reml",
    )


@analysis(
    "table3",
    suite=SUITE,
    description="SBS per attribute category x demographic dimension (Table 3)",
    source="delta",
    grouping="category x dimension x group",
    statistic="face-level mean Delta; WSRT",
    family="dimension x row kind",
)
def _table3(ctx: Context) -> pl.DataFrame:
    return category_demographic_table(
        ctx.inputs.delta,
        test=ctx.inputs.test,
        generalise=ctx.inputs.generalise,
        summed=summed_rows(ctx),
        **ctx.inputs.boot,
    )


@analysis(
    "table4",
    suite=SUITE,
    description="SBS per fashion style x age; elderly - young MWU (Table 4)",
    source="delta",
    grouping="style x age group",
    statistic="face-level mean Delta; WSRT; MWU contrast",
    family="cells; contrasts over styles",
)
def _table4(ctx: Context) -> pl.DataFrame:
    fashion = ctx.inputs.delta.filter(
        (pl.col("variation_category") == FASHION_CATEGORY) & pl.col("age").is_not_null()
    )
    if fashion.height == 0:
        raise NotApplicable(f"no {FASHION_CATEGORY!r} variations of faces with an age label")
    return fashion_age_table(ctx.inputs.delta, test=ctx.inputs.test, **ctx.inputs.boot)


@analysis(
    "negativity_asymmetry",
    suite=SUITE,
    description="Unfavorable vs favorable cue magnitude, one-sided WSRT (5.2)",
    source="delta",
    grouping="cue pair",
    statistic="median |per-face SBS| ratio; one-sided WSRT",
    family="pairs",
)
def _asym(ctx: Context) -> pl.DataFrame:
    return negativity_asymmetry(
        ctx.inputs.delta, test=ctx.inputs.test, n_resamples=ctx.inputs.n_resamples, seed=ctx.inputs.seed
    )


@analysis(
    "table5",
    suite=SUITE,
    description="Per-model SBS, Cohen's d, zero share, |Delta| >= 0.25 share (Table 5)",
    source="delta",
    grouping="model",
    statistic="face-level mean, d_z, shares of Delta rows",
    family="none",
)
def _table5(ctx: Context) -> pl.DataFrame:
    return model_summary(ctx.inputs.delta, **ctx.inputs.boot)


@analysis(
    "cumulative_abs_sbs",
    suite=SUITE,
    description="Cumulative |SBS| by attribute; attributes to reach 80% (Fig. 2)",
    source="delta",
    grouping="model (and pooled) x variation value",
    statistic="|face-level SBS|",
    family="none",
)
def _cumulative(ctx: Context) -> pl.DataFrame:
    return cumulative_abs_sbs(ctx.inputs.delta, summed=summed_rows(ctx))


@analysis(
    "cross_model",
    suite=SUITE,
    description="Per-scenario mean Delta between model pairs: r, slope, reversals (Fig. 5)",
    source="delta",
    grouping="model pair",
    statistic="Pearson r, OLS slope",
    family="none",
)
def _cross(ctx: Context) -> pl.DataFrame:
    return cross_model(
        ctx.inputs.delta,
        confidence_level=ctx.inputs.confidence_level,
        test=ctx.inputs.test,
        n_resamples=ctx.inputs.n_resamples,
        seed=ctx.inputs.seed,
    )


@analysis(
    "category_ranking",
    suite=SUITE,
    description="Scenario-category |SBS| ranking per model (5.3)",
    source="delta",
    grouping="model x scenario category",
    statistic="mean |cell SBS|",
    family="none",
)
def _ranking(ctx: Context) -> pl.DataFrame:
    return category_ranking(ctx.inputs.delta)


@analysis(
    "table11",
    suite=SUITE,
    description="Mean Delta per variation x demographic group, WSRT (Table 11)",
    source="delta",
    grouping="variation value x dimension x group",
    statistic="face-level mean Delta; WSRT",
    family="all cells",
)
def _table11(ctx: Context) -> pl.DataFrame:
    return demographic_variation_table(
        ctx.inputs.delta, test=ctx.inputs.test, summed=summed_rows(ctx), **ctx.inputs.boot
    )


def run_analyses(
    con: duckdb.DuckDBPyConnection,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    models: Sequence[str] | None = None,
    progress: bool = True,
    test: TestMethod = "rank",
    ci_method: CIMethod = "bca",
    confidence_level: float = 0.95,
    only: Sequence[str] | None = None,
    write: bool = True,
    phi: PhiChoice = GREEDY,
    quality: IdentityQuality | None = None,
    compat: str = "default",
    generalise: str = "faces",
    audit: EditAudit | None = None,
) -> dict[str, pl.DataFrame]:
    """Compute every seed 000 analysis and store each as ``result_<name>`` (one transaction).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        An open study database (``cueshift.store.open_study``).
    n_resamples, seed, confidence_level, ci_method
        Face-level bootstrap / permutation settings (every analysis uses the same seed).
    models : sequence of str, optional
        Restrict to these model ids (default: all).
    test : {'rank', 'permutation'}
        Rank tests (WSRT, MWU, KW; the paper's) or their permutation counterparts.
    only : sequence of str, optional
        Names of analyses to run (default: all of the suite).
    write : bool
        Store the tables (replacing earlier ones) and ``result_manifest``.
    phi : PhiChoice
        Which φ every analysis reads (``cueshift analyze --phi``; recorded in ``result_manifest``):
        the stored answers (default) or answers drawn at a temperature from the stored scores.
    quality : IdentityQuality, optional
        Measured identity preservation; its ``min_identity`` leaves the variations below it out of
        the Δ rows (``cueshift analyze --min-identity``; counted in ``result_identity_drops``).
    compat : {'default', 'release'}
        ``'release'`` (``cueshift analyze --compat release``) also writes the seed release's own
        tables, ``result_release_*``, and ``result_compat_differences``
        (:mod:`cueshift.designs.stylisticbias.compat`); recorded in ``result_manifest``.
    generalise : {'faces', 'faces+scenarios'}
        The question the SBS intervals answer (``cueshift analyze --generalise``; recorded in
        ``result_manifest``). ``'faces'`` (default): the shift for the study's own scenarios,
        faces resampled. ``'faces+scenarios'``: the shift over scenarios in general, faces and
        scenarios resampled together (crossed bootstrap; docs/decisions.md D18).
    audit : EditAudit, optional
        ``cueshift analyze --audit`` (in ``result_manifest``): ``'strict'`` also leaves the failed
        edits out of the Δ rows (after ``--min-identity``); both write ``result_audit_sensitivity``.

    Returns
    -------
    dict of str to polars.DataFrame
        Result frames by analysis name (validated by ``schemas/results.py``).

    Raises
    ------
    CueshiftError
        The database holds no judgment with a valid answer, or ``phi`` needs scores a model did
        not store.
    """
    check_scored(con, phi, models)
    with phi_computed_once(con):
        return _run(
            con,
            phi,
            models,
            quality,
            n_resamples,
            seed,
            test,
            ci_method,
            confidence_level,
            only,
            write,
            progress,
            compat,
            generalise,
            audit,
        )


def _run(
    con: duckdb.DuckDBPyConnection,
    phi: PhiChoice,
    models: Sequence[str] | None,
    quality: IdentityQuality | None,
    n_resamples: int,
    seed: int,
    test: TestMethod,
    ci_method: CIMethod,
    confidence_level: float,
    only: Sequence[str] | None,
    write: bool,
    progress: bool,
    compat: str = "default",
    generalise: str = "faces",
    audit: EditAudit | None = None,
) -> dict[str, pl.DataFrame]:
    delta, base = read_delta(con, models, phi=phi), read_base_phi(con, models, phi=phi)
    if delta.height == 0 and base.height == 0:
        raise CueshiftError("no judgments with a valid answer in the study database: nothing to analyse")
    if quality is not None:  # --min-identity: a sensitivity analysis without the variations below it
        delta = quality.kept(delta)
    before_audit, delta = delta, audit.kept(delta) if audit is not None else delta  # --audit strict
    subset = tuple(models or ())
    inputs = Inputs(
        delta,
        base,
        n_resamples,
        seed,
        test,
        ci_method,
        confidence_level,
        con=con,
        models=subset,
        phi=phi,
        quality=quality,
        generalise=generalise,
        audit=audit,
        delta_before_audit=before_audit if audit is not None else None,
    )
    min_identity = quality.min_identity if quality is not None else None
    settings = RunSettings(
        n_resamples,
        seed,
        test,
        ci_method,
        subset,
        phi=phi.label,
        min_identity=min_identity,
        compat=compat,
        generalise=generalise,
        audit=audit.mode if audit is not None else None,
    )
    return run_suite(con, SUITE, inputs, settings, only=only, write=write, progress=progress)


# The suite's later analyses, declared in their own modules; importing them registers them after
# the tables above (analyses run in declaration order and may read earlier results).
from cueshift.designs.stylisticbias import (  # noqa: E402, F401
    analyses_audit,
    analyses_compat,  # noqa: E402, F401  (last: reads the tables above)
    analyses_effects,
    analyses_missing,
    analyses_models,
    analyses_noise,
    analyses_quality,
    analyses_subgroups,
)

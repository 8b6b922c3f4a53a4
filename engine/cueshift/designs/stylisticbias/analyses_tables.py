"""The RQ1-RQ3 tables of seed 000 (SBS, VS, Tables 3-5, 9-11, ANOVA, mixed model, cross-model
comparisons), declared in a :class:`cueshift.stats.Declarations` of the suite ``stylisticbias``.

Imported by :mod:`cueshift.designs.stylisticbias.analyses` before the later analyses' modules: the
suite runs its analyses in declaration order, and later ones may read these tables.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.constants import FASHION_CATEGORY, LME_CATEGORY_MAP
from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.method_names import (
    FACE_TEST,
    GROUP_STATISTICS,
    GROUP_TESTS_ASCII,
    TWO_SAMPLE,
)
from cueshift.designs.stylisticbias.run_reads import model_cells_once, summed_rows
from cueshift.designs.stylisticbias.stats import (
    category_demographic_table,
    category_ranking,
    cross_model,
    cumulative_abs_sbs,
    demographic_tests,
    demographic_variation_table,
    face_anova,
    fashion_age_table,
    model_level_cells,
    model_summary,
    negativity_asymmetry,
    sbs_levels,
    significance_share,
    variation_strength,
)
from cueshift.stats import Declarations, NotApplicable, mixed_model

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


@DECLARED(
    "sbs",
    description="SBS and |SBS| at every level (Eq. 4; Figs. 3-4), face-level bootstrap CIs",
    source="delta",
    grouping="level x model (and pooled) x group",
    statistic=f"face-level mean Delta; {FACE_TEST} on per-face means",
    family="level x model x dimension",
)
def _sbs(ctx: Context) -> pl.DataFrame:
    return sbs_levels(
        ctx.inputs.delta,
        generalise=ctx.inputs.generalise,
        summed=summed_rows(ctx),
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "table2_vs",
    description="Variation Strength per model x demographic dimension (Eq. 3, Table 2)",
    source="base_phi",
    grouping="model x dimension",
    statistic="mean over scenarios of population std of group mean phi",
    family="none",
)
def _vs(ctx: Context) -> pl.DataFrame:
    return variation_strength(
        ctx.inputs.base_phi,
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "demographic_tests",
    description=f"{GROUP_TESTS_ASCII} per model x scenario on base phi",
    source="base_phi",
    grouping="model x dimension x scenario",
    statistic=GROUP_STATISTICS,
    family="model x dimension (BH over scenarios)",
)
def _demo_tests(ctx: Context) -> pl.DataFrame:
    return demographic_tests(
        ctx.inputs.base_phi,
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "table9",
    description="Share of scenarios with a significant demographic difference (Table 9)",
    source="result_demographic_tests",
    grouping="model x dimension",
    statistic="share of p_adj < 0.05",
    family="model x dimension",
    after=("demographic_tests",),
)
def _table9(ctx: Context) -> pl.DataFrame:
    tests = ctx.results.get("demographic_tests")
    if tests is None:
        tests = _demo_tests(ctx)
    return significance_share(tests)


@DECLARED(
    "face_anova",
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
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "mixed_model",
    description="Mixed model, random intercept per face: partial eta^2, F, R2 (Table 10)",
    source="delta",
    grouping="term",
    statistic="Wald F, partial eta^2, Nakagawa R2",
    family="none",
)
def _mixed(ctx: Context) -> pl.DataFrame:
    return mixed_model(
        ctx.inputs.delta,
        category_map=LME_CATEGORY_MAP,
        n_resamples=ctx.inputs.resampling.resamples,
        seed=ctx.inputs.resampling.seed,
        confidence_level=ctx.inputs.resampling.confidence_level,
        estimator="reml",
        cells=model_level_cells(model_cells_once(ctx), crossed=False),
    )


@DECLARED(
    "table3",
    description="SBS per attribute category x demographic dimension (Table 3)",
    source="delta",
    grouping="category x dimension x group",
    statistic=f"face-level mean Delta; {FACE_TEST}",
    family="dimension x row kind",
)
def _table3(ctx: Context) -> pl.DataFrame:
    return category_demographic_table(
        ctx.inputs.delta,
        generalise=ctx.inputs.generalise,
        summed=summed_rows(ctx),
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "table4",
    description=f"SBS per fashion style x age; elderly - young {TWO_SAMPLE} (Table 4)",
    source="delta",
    grouping="style x age group",
    statistic=f"face-level mean Delta; {FACE_TEST}; {TWO_SAMPLE} contrast",
    family="cells; contrasts over styles",
)
def _table4(ctx: Context) -> pl.DataFrame:
    fashion = ctx.inputs.delta.filter(
        (pl.col("variation_category") == FASHION_CATEGORY) & pl.col("age").is_not_null()
    )
    if fashion.height == 0:
        raise NotApplicable(f"no {FASHION_CATEGORY!r} variations of faces with an age label")
    return fashion_age_table(ctx.inputs.delta, resampling=ctx.inputs.resampling)


@DECLARED(
    "negativity_asymmetry",
    description=f"Unfavorable vs favorable cue magnitude, one-sided {FACE_TEST} (5.2)",
    source="delta",
    grouping="cue pair",
    statistic=f"median |per-face SBS| ratio; one-sided {FACE_TEST}",
    family="pairs",
)
def _asym(ctx: Context) -> pl.DataFrame:
    return negativity_asymmetry(
        ctx.inputs.delta,
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "table5",
    description="Per-model SBS, Cohen's d, zero share, |Delta| >= 0.25 share (Table 5)",
    source="delta",
    grouping="model",
    statistic="face-level mean, d_z, shares of Delta rows",
    family="none",
)
def _table5(ctx: Context) -> pl.DataFrame:
    return model_summary(ctx.inputs.delta, resampling=ctx.inputs.resampling)


@DECLARED(
    "cumulative_abs_sbs",
    description="Cumulative |SBS| by attribute; attributes to reach 80% (Fig. 2)",
    source="delta",
    grouping="model (and pooled) x variation value",
    statistic="|face-level SBS|",
    family="none",
)
def _cumulative(ctx: Context) -> pl.DataFrame:
    return cumulative_abs_sbs(ctx.inputs.delta, summed=summed_rows(ctx))


@DECLARED(
    "cross_model",
    description="Per-scenario mean Delta between model pairs: r, slope, reversals (Fig. 5)",
    source="delta",
    grouping="model pair",
    statistic="Pearson r, OLS slope",
    family="none",
)
def _cross(ctx: Context) -> pl.DataFrame:
    return cross_model(
        ctx.inputs.delta,
        cells=model_cells_once(ctx),
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "category_ranking",
    description="Scenario-category |SBS| ranking per model (5.3)",
    source="delta",
    grouping="model x scenario category",
    statistic="mean |cell SBS|",
    family="none",
)
def _ranking(ctx: Context) -> pl.DataFrame:
    return category_ranking(ctx.inputs.delta, cells=model_cells_once(ctx))


@DECLARED(
    "table11",
    description=f"Mean Delta per variation x demographic group, {FACE_TEST} (Table 11)",
    source="delta",
    grouping="variation value x dimension x group",
    statistic=f"face-level mean Delta; {FACE_TEST}",
    family="all cells",
)
def _table11(ctx: Context) -> pl.DataFrame:
    return demographic_variation_table(
        ctx.inputs.delta, summed=summed_rows(ctx), resampling=ctx.inputs.resampling
    )

"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): crossed
demographic subgroups (e.g. age x gender) and per-model versions of Tables 2, 3, 9 and 11.

Tables 2 and 9 are per model already (``result_table2_vs``, ``result_table9``); Tables 3 and 11
get per-model versions. The crossed Tables 2 and 9 cover every pair of dimensions
(:data:`~cueshift.designs.stylisticbias.stats.ALL_PAIRS`: an analytic VS and one rank test per
scenario, cheap); the crossed Tables 3 and 11 cover
:data:`~cueshift.designs.stylisticbias.stats.DEFAULT_PAIRS` (age x gender): each further pair
costs about a third of the pooled table's bootstrap at paper scale.
Declared with :class:`cueshift.stats.Declarations` over
:class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered in the order :mod:`cueshift.designs.stylisticbias.analyses` lists the modules.
"""

from __future__ import annotations

import polars as pl

from cueshift._method_words import by_test
from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.method_names import FACE_TEST, K_SAMPLE
from cueshift.designs.stylisticbias.run_reads import summed_rows
from cueshift.designs.stylisticbias.stats import (
    ALL_PAIRS,
    DEFAULT_PAIRS,
    category_table_by_model,
    crossed_category_table,
    crossed_demographic_tests,
    crossed_name,
    crossed_significance_share,
    crossed_variation_strength,
    crossed_variation_table,
    variation_table_by_model,
)
from cueshift.stats import Declarations, NotApplicable

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)

#: The crossed dimensions of Tables 3 and 11, and of Tables 2 and 9, as the manifest names them.
_CROSSED = ", ".join(crossed_name(p) for p in DEFAULT_PAIRS)
_EVERY_PAIR = "every pair of dimensions"


def _require_pairs(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame``, if some row has both labels of a crossed pair; else :class:`NotApplicable`."""
    for a, b in DEFAULT_PAIRS:
        if {a, b} <= set(frame.columns) and not frame.filter(
            pl.col(a).is_not_null() & pl.col(b).is_not_null()
        ).is_empty():
            return frame
    raise NotApplicable(f"no face has both labels of a crossed pair ({_CROSSED})")


def _require_delta(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame``, if it has Δ rows; else :class:`NotApplicable`."""
    if frame.is_empty():
        raise NotApplicable("no variation judgments (delta rows)")
    return frame


@DECLARED(
    "table3_by_model",
    description="Table 3 per model: SBS per attribute category x demographic group",
    source="delta",
    grouping="model x category x dimension x group",
    statistic=f"face-level mean Delta; {FACE_TEST}",
    family="dimension x row kind over every model's categories (Table 3: one pooled column)",
)
def _table3_by_model(ctx: Context) -> pl.DataFrame:
    return category_table_by_model(
        _require_delta(ctx.inputs.delta),
        summed=summed_rows(ctx),
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "table11_by_model",
    description=f"Table 11 per model: mean Delta per variation x demographic group, {FACE_TEST}",
    source="delta",
    grouping="model x variation value x dimension x group",
    statistic=f"face-level mean Delta; {FACE_TEST}",
    family="every cell of every model (Table 11: the cells of the pooled table)",
)
def _table11_by_model(ctx: Context) -> pl.DataFrame:
    return variation_table_by_model(
        _require_delta(ctx.inputs.delta),
        summed=summed_rows(ctx),
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "table2_crossed",
    description=f"Variation Strength per model x crossed dimension ({_EVERY_PAIR}; Eq. 3, Table 2)",
    source="base_phi",
    grouping="model x crossed dimension",
    statistic="mean over scenarios of population std of crossed-group mean phi",
    family="none",
)
def _table2_crossed(ctx: Context) -> pl.DataFrame:
    return crossed_variation_strength(
        _require_pairs(ctx.inputs.base_phi),
        pairs=ALL_PAIRS,
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "demographic_tests_crossed",
    description=f"{K_SAMPLE} per model x scenario x crossed dimension ({_EVERY_PAIR}) on base phi",
    source="base_phi",
    grouping="model x crossed dimension x scenario",
    statistic=by_test(
        rank="KW H over crossed groups; label permutation where a crossed group has < 5 faces",
        permutation="between-group sum of squares over crossed groups, label permutation",
    ),
    family="model, over every crossed dimension (6 pairs) x scenario (Table 9: model x dimension)",
)
def _demo_tests_crossed(ctx: Context) -> pl.DataFrame:
    return crossed_demographic_tests(
        _require_pairs(ctx.inputs.base_phi),
        pairs=ALL_PAIRS,
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "table9_crossed",
    description=f"Share of scenarios with a significant crossed-group difference ({_EVERY_PAIR}; Table 9)",
    source="result_demographic_tests_crossed",
    grouping="model x crossed dimension",
    statistic="share of p_adj < 0.05",
    family="model, over every crossed dimension (6 pairs) x scenario (Table 9: model x dimension)",
    after=("demographic_tests_crossed",),
)
def _table9_crossed(ctx: Context) -> pl.DataFrame:
    if "demographic_tests_crossed" in ctx.results or "demographic_tests_crossed" in ctx.skipped:
        return crossed_significance_share(ctx.result("demographic_tests_crossed"))
    return crossed_significance_share(_demo_tests_crossed(ctx))  # run with only=["table9_crossed"]


@DECLARED(
    "table3_crossed",
    description=f"Table 3 per crossed subgroup ({_CROSSED}): SBS per attribute category x crossed group",
    source="delta",
    grouping="category x crossed dimension x crossed group",
    statistic=f"face-level mean Delta; {FACE_TEST} (none with < 6 faces)",
    family="every tested cell of every crossed pair (Table 3: within dimension)",
)
def _table3_crossed(ctx: Context) -> pl.DataFrame:
    return crossed_category_table(
        _require_pairs(_require_delta(ctx.inputs.delta)),
        summed=summed_rows(ctx),
        resampling=ctx.inputs.resampling,
    )


@DECLARED(
    "table11_crossed",
    description=f"Table 11 per crossed subgroup ({_CROSSED}): mean Delta per variation x crossed group",
    source="delta",
    grouping="variation value x crossed dimension x crossed group",
    statistic=f"face-level mean Delta; {FACE_TEST} (none with < 6 faces)",
    family="every tested cell of every crossed pair (larger than Table 11's marginal cells)",
)
def _table11_crossed(ctx: Context) -> pl.DataFrame:
    return crossed_variation_table(
        _require_pairs(_require_delta(ctx.inputs.delta)),
        summed=summed_rows(ctx),
        resampling=ctx.inputs.resampling,
    )

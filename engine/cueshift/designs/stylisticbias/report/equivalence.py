"""StylisticBias report: shift or no shift at the study's smallest effects of interest, read from
``result_equivalence`` (two one-sided tests; for VS a one-sided bound; docs/equivalence.md). A
non-significant SBS, model difference or VS is shown as *equivalent to no shift* or
*inconclusive*, never as a bare "n.s.". Nothing is recomputed here.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.labels import DIM_POS, DIMENSION_LABELS, case
from cueshift.render import (
    CI_LEVEL,
    LEVEL,
    MODELS_FILTER,
    Col,
    Source,
    TableSpec,
    TextSpec,
    ci,
    effect,
    fmt_integer,
    fmt_pvalue,
    number,
)

_REQUIRES = ("result_equivalence",)
#: The header of the stored 1 − 2α interval (result_equivalence.ci_level: 90 % at a 95 % analysis).
_CI = f"{CI_LEVEL} CI"
_ALL_SCENARIOS = "level = 'variation_category' AND scenario_category IS NULL"

EQUIVALENCE = TableSpec(
    key="equivalence",
    title="Table E1. Shift, no shift or inconclusive: each attribute's SBS against the smallest effect",
    sql=f"""
    SELECT variation_category, model_id, estimate, ci_low, ci_high, margin, p_adj, p_shift_adj, verdict, n
    FROM result_equivalence
    WHERE quantity = 'delta' AND {_ALL_SCENARIOS} AND {MODELS_FILTER}
    ORDER BY variation_category, model_id
    """,
    columns=(
        Col("variation_category", "Attribute", align="left"),
        Col("model_id", "Model", align="left"),
        Col("estimate", "SBS", effect(3)),
        Col("ci_low", _CI, ci(3), args=("ci_high",)),
        Col("margin", "± margin", number(3)),
        Col("p_adj", "TOST p_adj", fmt_pvalue),
        Col("p_shift_adj", "t test p_adj", fmt_pvalue),
        Col("verdict", "Verdict", align="left"),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        "Two one-sided t tests on per-face mean Δ (Schuirmann 1987; Lakens 2017) against the study's "
        f"[equivalence] margin; {CI_LEVEL} CI = the 1 − 2α interval, where 1 − α = {LEVEL} is the level "
        "of the analysis' other intervals. Shift: the BH-adjusted two-sided t test "
        "p < α and the interval excludes 0; equivalent to no shift: otherwise the BH-adjusted TOST "
        "p < α (the interval inside ± margin); else inconclusive. BH within quantity × level × model; "
        "per scenario category and per variation value in result_equivalence.",
    ),
    requires=_REQUIRES,
)

MODEL_EQUIVALENCE = TableSpec(
    key="model_equivalence",
    title="Table E2. Do models differ? Each pair's SBS difference against the smallest difference",
    sql=f"""
    SELECT variation_category, model_id || ' − ' || other_model_id AS pair, estimate, ci_low, ci_high,
           margin, verdict, n
    FROM result_equivalence
    WHERE quantity = 'model_difference' AND {_ALL_SCENARIOS}
      AND list_contains($models, model_id) AND list_contains($models, other_model_id)
    ORDER BY variation_category, pair
    """,
    columns=(
        Col("variation_category", "Attribute", align="left"),
        Col("pair", "Models", align="left"),
        Col("estimate", "Difference", effect(3)),
        Col("ci_low", _CI, ci(3), args=("ci_high",)),
        Col("margin", "± margin", number(3)),
        Col("verdict", "Verdict", align="left"),
        Col("n", "Faces", fmt_integer),
    ),
    notes=("Per face, the first model's mean Δ minus the second's; tested as in Table E1.",),
    requires=_REQUIRES,
)


VS_EQUIVALENCE = TableSpec(
    key="vs_equivalence",
    title="Table E3. Do demographic groups differ? Each model's VS against the smallest VS of interest",
    sql=f"""
    SELECT {case("dimension", DIMENSION_LABELS)} AS dimension, model_id, estimate, ci_low, ci_high, margin,
           p_adj, p_shift_adj, verdict, n
    FROM result_equivalence
    WHERE quantity = 'vs' AND scenario_category IS NULL AND {MODELS_FILTER}
    ORDER BY {DIM_POS}, model_id
    """,
    columns=(
        Col("dimension", "Dimension", align="left"),
        Col("model_id", "Model", align="left"),
        Col("estimate", "VS", number(3)),
        Col("ci_low", _CI, ci(3, signed=False), args=("ci_high",)),
        Col("margin", "Margin", number(3)),
        Col("p_adj", "p_adj (VS < margin)", fmt_pvalue),
        Col("p_shift_adj", "p_adj (VS = 0)", fmt_pvalue),
        Col("verdict", "Verdict", align="left"),
        Col("n", "Faces", fmt_integer),
    ),
    notes=(
        "VS and its interval as Table 2 (bias-corrected; the image of a confidence ball for the group "
        "means, averaged over scenarios), at level 1 − 2α: each bound is a one-sided 1 − α bound. "
        "Equivalent to no shift: the BH-adjusted p of VS < margin below α (unadjusted: the upper bound "
        "below the margin); shift: the BH-adjusted test of VS = 0 below α (the lower bound above 0); "
        "else inconclusive. Conservative beyond two groups and one scenario (docs/equivalence.md).",
    ),
    requires=_REQUIRES,
)


def equivalence_summary(report: Source) -> str:
    """One sentence each: how many of the attribute × model SBS rows, and of the model × dimension
    VS rows, are shifts, shown to be no shift, or inconclusive, and in which attributes (dimensions)."""
    sentences = []
    for quantity, key, what in (
        ("delta", "variation_category", "attribute × model SBS rows"),
        ("vs", "replace(dimension, '_', ' ')", "dimension × model VS rows"),
    ):
        level = _ALL_SCENARIOS if quantity == "delta" else "scenario_category IS NULL"
        rows = report.query(f"""
            SELECT verdict, count(*) AS n, sum(count(*)) OVER () AS total,
                   string_agg(DISTINCT {key}, ', ' ORDER BY {key}) AS keys
            FROM result_equivalence
            WHERE quantity = '{quantity}' AND {level} AND {MODELS_FILTER} AND verdict IS NOT NULL
            GROUP BY verdict ORDER BY verdict""")
        if rows.height:
            parts = [
                f"{r['n']} {r['verdict']} (in at least one model: {r['keys']})"
                for r in rows.iter_rows(named=True)
            ]
            sentences.append(
                f"Of the {int(rows['total'][0])} {what} tested at the declared smallest effect of interest: "
                f"{'; '.join(parts)}."
            )
    if not sentences:
        return "No attribute or dimension has enough faces for a test.\n"
    return " ".join(sentences) + "\n"


EQUIVALENCE_TABLES: tuple[TableSpec, ...] = (EQUIVALENCE, MODEL_EQUIVALENCE, VS_EQUIVALENCE)
EQUIVALENCE_TEXTS: tuple[TextSpec, ...] = (TextSpec("equivalence_summary", equivalence_summary, _REQUIRES),)

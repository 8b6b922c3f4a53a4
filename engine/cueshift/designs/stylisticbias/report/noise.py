"""StylisticBias report: the noise floor: placebo variations (pixel-identical copy, lossless re-
encode) as a negative control.

The placebos' true Δ is zero, so their SBS should be 0 within its CI and their cell |SBS| is the
|SBS| that noise alone produces (``result_noise_floor``); each attribute's |SBS| is shown beside
it with the face-level test of whether the attribute moves judgments more than a placebo does
(``result_noise_floor_attributes``). Nothing is recomputed here.
"""

from __future__ import annotations

import numpy as np

from cueshift.designs.stylisticbias.method_names import CI_METHOD, FACE_TEST
from cueshift.designs.stylisticbias.stats import ALL_PLACEBOS
from cueshift.designs.stylisticbias.viewer_pages import ATTRIBUTE_COLUMNS
from cueshift.extras import importing
from cueshift.render import (
    CI_LABEL,
    MODELS_FILTER,
    Col,
    FigureSpec,
    Source,
    TableSpec,
    TextSpec,
    ci,
    ci_label,
    effect,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_pvalue,
    number,
    stored_level,
    stub,
)
from cueshift.stats import POOLED

with importing("report", "the report's figures"):
    from matplotlib.figure import Figure

_MODELS = f"(model_id = '{POOLED}' OR {MODELS_FILTER})"

NOISE_FLOOR = TableSpec(
    key="noise_floor",
    title="Table N1. The noise floor: placebo SBS (true value 0) and the |SBS| of placebo cells",
    sql=f"""
    SELECT CASE WHEN model_id = '{POOLED}' THEN 'Pooled over models' ELSE model_id END AS model,
           variation_value, estimate, ci_low, ci_high, p, abs_sbs_mean, abs_sbs_quantile,
           abs_sbs_max, n_cells, n
    FROM result_noise_floor WHERE {_MODELS}
    ORDER BY model_id = '{POOLED}', model_id, variation_value = '{ALL_PLACEBOS}' DESC, variation_value
    """,
    columns=(
        stub("variation_value", "Placebo"),
        Col("estimate", "SBS", effect(4)),
        Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
        Col("p", "p", fmt_pvalue),
        Col("abs_sbs_mean", "Mean |SBS|", number(4)),
        Col("abs_sbs_quantile", "95th pct |SBS|", number(4)),
        Col("abs_sbs_max", "Max |SBS|", number(4)),
        Col("n_cells", "Cells", fmt_integer),
        Col("n", "Faces", fmt_integer),
    ),
    group="model",
    notes=(
        "Placebos: per base image a pixel-identical copy (the same file under a new id) and a lossless "
        f"PNG re-encode (other bytes, the same pixels). SBS: face-level mean Δ with a face-level {CI_METHOD} "
        f"bootstrap CI, which should contain 0; p: two-sided {FACE_TEST} on per-face mean Δ, unadjusted (one "
        "test per row: "
        "about 1 row in 20 falls below 0.05 by chance). |SBS| per model × placebo × scenario cell, the "
        "unit of the attributes' |SBS|: what sampling noise, serving nondeterminism and caches alone "
        "produce.",
    ),
    requires=("result_noise_floor",),
)

NOISE_FLOOR_ATTRIBUTES = TableSpec(
    key="noise_floor_attributes",
    title="Table N2. Attribute |SBS| against the noise floor (pooled over models)",
    sql=f"""
    SELECT variation_category, variation_value, abs_sbs, floor_mean, ratio, share_cells_above,
           estimate, ci_low, ci_high, p_adj, CASE WHEN passes THEN 'yes' ELSE 'no' END AS passes
    FROM result_noise_floor_attributes WHERE model_id = '{POOLED}'
    ORDER BY abs_sbs DESC
    """,
    columns=ATTRIBUTE_COLUMNS,
    group="variation_category",
    notes=(
        "|SBS|: mean over the attribute's model × scenario cells of |cell SBS|; floor: the same mean over "
        "placebo cells; cells above: share of the attribute's cells whose |SBS| exceeds the placebos' "
        "95th percentile (about 5 % without an effect). |Δ| − placebo |Δ|: mean over faces of the face's "
        f"mean |Δ| for the attribute minus its mean placebo |Δ|; passes: one-sided {FACE_TEST} of that "
        "difference > 0, BH over the attributes, p < 0.05 (a cue that moves faces in opposite directions "
        "passes with an SBS near 0).",
    ),
    notes_sql=f"""
    SELECT 'Attributes passing the floor per model: '
           || string_agg(model_id || ' ' || n_pass || ' of ' || n, ', ' ORDER BY model_id) || '.'
    FROM (SELECT model_id, count(*) FILTER (WHERE passes) AS n_pass, count(*) AS n
          FROM result_noise_floor_attributes WHERE {_MODELS} GROUP BY model_id)
    HAVING count(*) > 0
    """,
    requires=("result_noise_floor_attributes",),
)


def noise_floor_summary(report: Source) -> str:
    """One sentence per model quoting the placebo SBS, the floor and the attributes that pass it."""
    rows = report.query(f"""
        WITH floor AS (
          SELECT model_id, estimate, ci_low, ci_high, abs_sbs_mean, abs_sbs_quantile
          FROM result_noise_floor
          WHERE variation_value = '{ALL_PLACEBOS}' AND {_MODELS}
        ), passing AS (
          SELECT model_id, count(*) FILTER (WHERE passes) AS n_pass, count(*) AS n
          FROM result_noise_floor_attributes GROUP BY model_id
        )
        SELECT * FROM floor JOIN passing USING (model_id)
        ORDER BY model_id = '{POOLED}' DESC, model_id""")
    interval_label = ci_label(stored_level(report, ("result_noise_floor",)))
    lines = []
    for r in rows.iter_rows(named=True):
        who = "Pooled over models" if r["model_id"] == POOLED else f"For {r['model_id']}"
        contains = "contains" if r["ci_low"] <= 0.0 <= r["ci_high"] else "does not contain"
        lines.append(
            f"{who}, the placebo SBS is {fmt_effect(r['estimate'], 4)} ({interval_label} "
            f"{fmt_ci(r['ci_low'], r['ci_high'], 4)}, which {contains} 0); "
            f"placebo cells have a mean |SBS| of {fmt_number(r['abs_sbs_mean'], 4)} (95th percentile "
            f"{fmt_number(r['abs_sbs_quantile'], 4)}), and {fmt_integer(r['n_pass'])} of "
            f"{fmt_integer(r['n'])} attributes pass the floor."
        )
    return "".join(f"- {line}\n" for line in lines)


def draw_floor(report: Source) -> Figure | None:
    """Pooled |SBS| per attribute, sorted, with the placebo floor (mean and 95th percentile) as lines."""
    rows = report.query(f"""
        SELECT variation_value, abs_sbs, floor_mean, floor_quantile, passes
        FROM result_noise_floor_attributes WHERE model_id = '{POOLED}' ORDER BY abs_sbs DESC""")
    if rows.height == 0:
        return None
    fig = Figure(figsize=(8.5, 4.0))
    ax = fig.add_subplot()
    x = np.arange(rows.height)
    colours = ["#4c72b0" if p else "#b0b0b0" for p in rows["passes"].to_list()]
    ax.bar(x, rows["abs_sbs"].to_numpy(), color=colours, width=0.8)
    ax.axhline(
        float(rows["floor_mean"][0]), color="#c44e52", linestyle="--", linewidth=1, label="floor (mean)"
    )
    ax.axhline(
        float(rows["floor_quantile"][0]),
        color="#c44e52",
        linestyle=":",
        linewidth=1,
        label="floor (95th pct)",
    )
    ax.set_xticks(x, rows["variation_value"].to_list(), rotation=90, fontsize=6.5)
    ax.set_ylabel("|SBS| (pooled)")
    ax.legend(frameon=False, fontsize=7, title="blue: passes the floor", title_fontsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


NOISE_TABLES: tuple[TableSpec, ...] = (NOISE_FLOOR, NOISE_FLOOR_ATTRIBUTES)
NOISE_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "fig_noise_floor",
        "Figure N1. Attribute |SBS| (pooled) against the placebo noise floor",
        draw_floor,
        ("result_noise_floor_attributes",),
    ),
)
NOISE_TEXTS: tuple[TextSpec, ...] = (
    TextSpec(
        "noise_floor_summary", noise_floor_summary, ("result_noise_floor", "result_noise_floor_attributes")
    ),
)

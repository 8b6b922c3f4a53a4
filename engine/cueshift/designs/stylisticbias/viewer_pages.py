"""The StylisticBias design's page of ``cueshift view``: the stored noise floor, in full.

Declared in :class:`~cueshift.designs.stylisticbias.design.StylisticBiasDesign` ``.viewer`` and
served under ``/design/stylisticbias/noise-floor``: the placebos' SBS and cell |SBS|
(``result_noise_floor``) and every attribute's |SBS| against that floor
(``result_noise_floor_attributes``), formatted as the report formats them (Tables N1 and N2). The
overview shows the pooled floor and links here; nothing is recomputed.
"""

from __future__ import annotations

from cueshift.designs.viewer_support import ViewerPage, design_page
from cueshift.render import (
    CI_LABEL,
    Col,
    TableSpec,
    by_test,
    ci,
    fmt_integer,
    fmt_pvalue,
    fmt_text,
    multiple,
    number,
    percent,
    stub,
)

#: ``cueshift.stats.POOLED`` (not imported: the design registry loads before the statistics).
POOLED = "(pooled)"
#: The rows of the model filter (``$models``) and the rows pooled over models.
_MODELS = f"(model_id = '{POOLED}' OR list_contains($models, model_id))"
_MODEL_LABEL = f"CASE WHEN model_id = '{POOLED}' THEN 'Pooled over models' ELSE model_id END AS model"

#: The columns of an attribute against the floor: this page's and the report's Table N2
#: (``report/noise.py`` imports them from here: this module loads without the report extra).
ATTRIBUTE_COLUMNS: tuple[Col, ...] = (
    stub("variation_value", "Attribute"),
    Col("abs_sbs", "|SBS|", number(3)),
    Col("floor_mean", "Floor", number(3)),
    Col("ratio", "× floor", multiple(1)),
    Col("share_cells_above", "Cells above 95th pct", percent(0)),
    Col("estimate", "|Δ| − placebo |Δ|", number(4)),
    Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
    Col("p_adj", "p (BH)", fmt_pvalue),
    Col("passes", "Passes", fmt_text),
)

PLACEBOS = TableSpec(
    key="noise_floor",
    title="The noise floor: placebo SBS (true value 0) and the |SBS| of placebo cells",
    sql=f"""
    SELECT {_MODEL_LABEL}, variation_value, estimate, ci_low, ci_high, abs_sbs_mean, abs_sbs_quantile,
           abs_sbs_max, n_cells, n
    FROM result_noise_floor WHERE {_MODELS}
    ORDER BY model_id = '{POOLED}' DESC, model_id, variation_value LIKE '(%' DESC, variation_value
    """,
    columns=(
        stub("variation_value", "Placebo"),
        Col("estimate", "SBS", number(4)),
        Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
        Col("abs_sbs_mean", "Mean |SBS|", number(4)),
        Col("abs_sbs_quantile", "95th pct |SBS|", number(4)),
        Col("abs_sbs_max", "Max |SBS|", number(4)),
        Col("n_cells", "Cells", fmt_integer),
        Col("n", "Faces", fmt_integer),
    ),
    group="model",
    notes=(
        "result_noise_floor (cueshift analyze): placebos are a pixel-identical copy and a lossless re-encode "
        "of each base image, so their true Δ is 0; the SBS interval should contain 0. |SBS| per model × "
        "placebo × scenario cell: what sampling noise and serving nondeterminism alone produce.",
    ),
    requires=("result_noise_floor",),
)

ATTRIBUTES = TableSpec(
    key="noise_floor_attributes",
    title="Attribute |SBS| against the noise floor, largest |SBS| first",
    sql=f"""
    SELECT {_MODEL_LABEL}, variation_value, abs_sbs, floor_mean, ratio, share_cells_above,
           estimate, ci_low, ci_high, p_adj, CASE WHEN passes THEN 'yes' ELSE 'no' END AS passes
    FROM result_noise_floor_attributes WHERE {_MODELS}
    ORDER BY model_id = '{POOLED}' DESC, model_id, abs_sbs DESC NULLS LAST, variation_value
    """,
    columns=ATTRIBUTE_COLUMNS,
    group="model",
    notes=(
        "result_noise_floor_attributes: |SBS| is the mean over the attribute's model × scenario cells of "
        "|cell SBS|, the floor the same mean over placebo cells; passes: one-sided "
        + by_test(rank="Wilcoxon signed-rank test", permutation="sign-flip permutation test")
        + " of the face's |Δ| minus its placebo |Δ| > 0, BH over the attributes, p < 0.05.",
    ),
    requires=("result_noise_floor_attributes",),
)

NOISE_FLOOR_PAGE: ViewerPage = design_page(
    "stylisticbias",
    "noise-floor",
    "Noise floor",
    "The stored noise floor: placebo SBS and every attribute's |SBS| against it →",
    title="Noise floor (placebos, true Δ = 0)",
    tables=(PLACEBOS, ATTRIBUTES),
    table="result_noise_floor",
)

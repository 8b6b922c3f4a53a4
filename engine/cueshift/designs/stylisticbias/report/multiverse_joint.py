"""StylisticBias report: the specification curve's joint test (``cueshift multiverse``, D74, D80),
read from ``result_multiverse_joint``: each model's SBS over every cueshift path at once (Table
MV2) and each model's SBS of each attribute (Table MV3, BH-adjusted over the model's attributes).
Nothing is recomputed here.

A joint table an older cueshift wrote has neither ``kind`` nor ``subject`` nor ``p_adj``: its rows
are all models' SBS, so it still fills Table MV2 and leaves Table MV3 empty ("run `cueshift
multiverse` again").
"""

from __future__ import annotations

from cueshift.render import MODELS_FILTER, Col, TableSpec, fmt_integer, fmt_number, fmt_pvalue
from cueshift.stats import MEAN_OF_MODELS, POOLED

_MODELS = f"(model_id IN ('{POOLED}', '{MEAN_OF_MODELS}') OR {MODELS_FILTER})"
#: ``result_multiverse_joint`` with the columns an older cueshift's lacks (null there).
_JOINT = """(
    SELECT * FROM (SELECT NULL::VARCHAR AS kind, NULL::VARCHAR AS subject, NULL::DOUBLE AS p_adj) WHERE false
    UNION ALL BY NAME SELECT * FROM result_multiverse_joint
)"""
_METHOD = (
    "Each p is the share of null draws at least as extreme, (1 + count)/(1 + draws): every path's "
    "face-level mean Δ shifted by its own SBS (the null forced), the faces resampled once for all "
    "paths and claims (Simonsohn, Simmons & Nelson 2020; docs/multiverse.md)."
)


def _joint(statistic: str, alias: str, p: str = "p") -> str:
    return (
        f"max(observed) FILTER (WHERE statistic = '{statistic}') AS {alias}, "
        f"max({p}) FILTER (WHERE statistic = '{statistic}') AS {alias}_p"
    )


def _statistics(p: str, label: str) -> tuple[Col, ...]:
    return (
        Col("n_specifications", "Paths", fmt_integer),
        Col("sign", "Dominant sign"),
        Col("median", "Median SBS", fmt_number),
        Col("median_p", f"{label} (median)", fmt_pvalue),
        Col("n_significant", "Significant in that sign", fmt_integer),
        Col("n_significant_p", f"{label} (count)", fmt_pvalue),
        Col("stouffer", "Stouffer Z", lambda value: fmt_number(value, 2)),
        Col("stouffer_p", f"{label} (Z)", fmt_pvalue),
    )


def _select(p: str) -> str:
    return (
        "any_value(n_specifications) AS n_specifications, any_value(dominant_sign) AS sign, "
        f"{_joint('median', 'median', p)}, {_joint('n_significant', 'n_significant', p)}, "
        f"{_joint('stouffer', 'stouffer', p)}, any_value(n_resamples) AS n_resamples"
    )


MULTIVERSE_JOINT = TableSpec(
    key="multiverse_joint",
    title="Table MV2. Each model's SBS over every analysis path at once (specification curve joint test)",
    sql=f"""
    SELECT model_id, {_select("p")}
    FROM {_JOINT} WHERE coalesce(kind, 'sbs_model') = 'sbs_model' AND {_MODELS}
    GROUP BY model_id ORDER BY model_id = '{POOLED}', model_id
    """,
    columns=(
        Col("model_id", "Model"),
        *_statistics("p", "p"),
        Col("n_resamples", "Null draws", fmt_integer),
    ),
    notes=(
        "Over cueshift's analysis paths (the release's left out): the median of the model's SBS, the "
        "number of paths whose SBS is significant (p_adj < α; Wilcoxon signed-rank test on the "
        "per-face means) in the median's sign, and Stouffer's Z of the one-sided p-values in that "
        f"sign. {_METHOD}",
    ),
    requires=("result_multiverse_joint",),
    empty="no joint test stored (run `cueshift multiverse` again).",
)

MULTIVERSE_JOINT_ATTRIBUTES = TableSpec(
    key="multiverse_joint_attributes",
    title="Table MV3. Each attribute's SBS over every analysis path at once, per model (joint test, BH)",
    sql=f"""
    SELECT model_id, subject, {_select("p_adj")}
    FROM {_JOINT} WHERE kind = 'sbs_attribute' AND {_MODELS}
    GROUP BY model_id, subject ORDER BY model_id = '{POOLED}', model_id, subject
    """,
    columns=(
        Col("model_id", "Model"),
        Col("subject", "Attribute"),
        *_statistics("p_adj", "p_adj"),
    ),
    notes=(
        "Table MV2's test for each model's SBS of one attribute: the median of its SBS over "
        "cueshift's paths, the number of paths whose attribute SBS is significant (unadjusted p < α; "
        "Wilcoxon signed-rank test on the per-face means) in the median's sign, and Stouffer's Z. "
        f"{_METHOD} p_adj: Benjamini-Hochberg over the model's attributes, for each statistic "
        "separately (the pooled model is a family of its own); the unadjusted p is in "
        "result_multiverse_joint.",
    ),
    requires=("result_multiverse_joint",),
    empty="no joint test of the attributes stored (run `cueshift multiverse` again).",
)

__all__ = ["MULTIVERSE_JOINT", "MULTIVERSE_JOINT_ATTRIBUTES"]

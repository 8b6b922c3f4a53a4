"""The probe report's structure of impressions (seed 004 Eq. 6, Figs. 5–6): each model's attribute
correlations against the humans' (Table 4), the Ward clusters of the attributes per source
(Table 4b, ``result_probe_clusters``), their one-way ANOVA across dataset sizes (Table 4c, last:
shown only where computed, so no label is skipped) and the
correlation matrices in the humans' dendrogram order (Figure 1, ``result_probe_correlations``)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

import numpy as np

from cueshift.extras import importing
from cueshift.render import (
    EMPHASIS_LEGEND,
    MODELS_FILTER,
    Col,
    FigureSpec,
    Pivot,
    Source,
    TableSpec,
    fmt_integer,
    fmt_pvalue,
    number,
    stub,
)

with importing("report", "the report's figures"):
    from matplotlib.figure import Figure

HUMANS = "(humans)"
_SOURCES = f"(source = '{HUMANS}' OR list_contains($models, source))"

STRUCTURE_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="probe_structure",
        title="Table 4. Structure of impressions: model vs human correlation matrices",
        sql=f"""SELECT model_id, estimate, adjusted_rand, n_attributes, n_clusters FROM result_probe_structure
            WHERE {MODELS_FILTER} ORDER BY estimate DESC""",
        columns=(
            stub("model_id", "Model"),
            Col("estimate", "Normalised Frobenius", number(3)),
            Col("adjusted_rand", "ARI of Ward clusters", number(2)),
            Col("n_attributes", "Attributes", fmt_integer),
            Col("n_clusters", "Clusters", fmt_integer),
        ),
        notes=(
            "Normalised Frobenius inner product of the model's and the humans' attribute × attribute "
            "correlation matrices (1: the same up to scale); ARI: adjusted Rand index of their Ward "
            "clusterings (1 − ρ distance) into the stated number of clusters. Descriptive: no test.",
        ),
        requires=("result_probe_structure",),
    ),
    TableSpec(
        key="probe_clusters",
        title="Table 4b. Ward clusters of the attributes, humans and each model (seed 004 Fig. 5)",
        sql=f"""WITH h AS (SELECT attribute, leaf_order AS h_order FROM result_probe_clusters WHERE source = '{HUMANS}')
            SELECT c.source, c.attribute, c.cluster, h.h_order,
                   CASE WHEN c.source = '{HUMANS}' THEN 0 ELSE 1 END AS source_order
            FROM result_probe_clusters c JOIN h USING (attribute) WHERE {_SOURCES}
            ORDER BY h.h_order, source_order, c.source""",
        columns=(stub("attribute", "Attribute"),),
        pivot=Pivot(on="source", value="cluster", fmt=fmt_integer, order="source_order"),
        notes=(
            "Cluster of each attribute when the source's attribute × attribute Spearman matrix (over the "
            "stimuli) is cut into the study's probe.n_clusters Ward clusters (distance 1 − ρ); rows in the "
            "order of the humans' dendrogram. Cluster numbers are labels within a source, not matched "
            "across sources: Table 4's ARI measures the agreement of two partitions. Descriptive: no test.",
        ),
        notes_sql=f"""SELECT 'n: ' || count(DISTINCT attribute) || ' attributes, ' || max(cluster) || ' clusters per source.'
                     FROM result_probe_clusters WHERE {_SOURCES} HAVING count(*) > 0""",
        requires=("result_probe_clusters",),
    ),
    TableSpec(
        key="probe_structure_anova",
        title="Table 4c. Structure similarity across dataset sizes: one-way ANOVA (seed 004, F(2) = 15.71)",
        sql="SELECT test, statistic, df, df_resid, p, n FROM result_probe_structure_anova",
        columns=(
            stub("test", "Test"),
            Col("statistic", "F", number(2), p="p"),
            Col("df", "df", fmt_integer),
            Col("df_resid", "df residual", fmt_integer),
            Col("p", "p", fmt_pvalue),
            Col("n", "Models", fmt_integer),
        ),
        notes=(
            "Table 4's normalised Frobenius product compared across the models' training-set sizes "
            "(sizes with at least two models); p unadjusted.",
            EMPHASIS_LEGEND,
        ),
        requires=("result_probe_structure_anova",),
        optional=True,  # computed only where two dataset sizes each have two models
    ),
)

_MATRIX_SQL = f"""WITH h AS (SELECT attribute, leaf_order FROM result_probe_clusters WHERE source = '{HUMANS}')
    SELECT c.source, a.leaf_order AS i, b.leaf_order AS j, c.estimate
    FROM result_probe_correlations c JOIN h a ON a.attribute = c.attribute_a JOIN h b ON b.attribute = c.attribute_b
    WHERE {_SOURCES} ORDER BY c.source <> '{HUMANS}', c.source, i, j"""


def draw_matrices(report: Source) -> Figure | None:
    """The attribute × attribute Spearman matrix of the humans and of each model, every one in the
    order of the humans' Ward dendrogram (seed 004 Fig. 5 for every model), on one colour scale."""
    rows = report.query(_MATRIX_SQL)
    if rows.height == 0:
        return None
    labels = report.query(
        f"SELECT attribute FROM result_probe_clusters WHERE source = '{HUMANS}' ORDER BY leaf_order"
    )
    names = labels["attribute"].to_list()
    sources = list(dict.fromkeys(rows["source"].to_list()))
    fig = Figure(figsize=(3.1 * len(sources) + 0.8, 3.4))
    axes = fig.subplots(1, len(sources), squeeze=False)[0]
    image = None
    for ax, source in zip(axes, sources, strict=True):
        part = rows.filter(rows["source"] == source)
        matrix = np.full((len(names), len(names)), np.nan)
        matrix[part["i"].to_numpy(), part["j"].to_numpy()] = part["estimate"].to_numpy()
        image = ax.imshow(matrix, cmap="RdBu_r", vmin=-1.0, vmax=1.0, interpolation="nearest")
        ax.set_title(source, fontsize=8)
        ax.set_xticks([])
        ax.set_yticks(range(len(names)) if ax is axes[0] else [])
        if ax is axes[0]:
            ax.set_yticklabels(names, fontsize=4)
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="Spearman ρ", shrink=0.8)
    return fig


STRUCTURE_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "probe_matrices",
        "Figure 1. Attribute correlation matrices in the humans' dendrogram order",
        draw_matrices,
        ("result_probe_correlations", "result_probe_clusters"),
    ),
)

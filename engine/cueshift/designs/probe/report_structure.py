"""The probe report's structure of impressions (seed 004 Eq. 6, Figs. 5–6): each model's attribute
correlations against the humans' (Table 4) and their one-way ANOVA across dataset sizes (Table 4b)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.render import (
    EMPHASIS_LEGEND,
    MODELS_FILTER,
    Col,
    TableSpec,
    fmt_integer,
    fmt_pvalue,
    number,
    stub,
)

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
        key="probe_structure_anova",
        title="Table 4b. Structure similarity across dataset sizes: one-way ANOVA (seed 004, F(2) = 15.71)",
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

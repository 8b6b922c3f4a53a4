"""The probe report's similarity by pretraining dataset size (seed 004 Table 1): per attribute the
mean, SD and maximum of the models' similarity at each size (Table 2b,
``result_probe_size_summary``) and Cohen's d between sizes (Table 2c, ``result_probe_size_effect``)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.render import EMPHASIS_LEGEND, Pivot, TableSpec, effect, number, stub


def _label(column: str) -> str:
    """SQL of a dataset size as the paper writes it: 2.32e9 → '2.32B', 4.07e8 → '407M'."""
    return (
        f"CASE WHEN {column} >= 1e9 THEN printf('%gB', {column} / 1e9) ELSE printf('%gM', {column} / 1e6) END"
    )


_STATS = "(VALUES ('Mean', 0), ('SD', 1), ('Max', 2)) AS k(stat, k)"

DATASET_SIZE_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="probe_size_summary",
        title="Table 2b. Model–human similarity per pretraining dataset size (seed 004 Table 1: mean, SD, max)",
        sql=f"""WITH s AS (SELECT *, dense_rank() OVER (ORDER BY dataset_size DESC) AS size_rank,
                              first(estimate ORDER BY dataset_size DESC) OVER (PARTITION BY attribute) AS top
                       FROM result_probe_size_summary)
            SELECT attribute, {_label("dataset_size")} AS size, stat, size_rank * 10 + k AS head,
                   CASE k WHEN 0 THEN estimate WHEN 1 THEN sd ELSE max END AS value
            FROM s CROSS JOIN {_STATS} ORDER BY top DESC, attribute, head""",
        columns=(stub("attribute", "Attribute"),),
        pivot=Pivot(on="stat", value="value", fmt=number(2), spanner="size", order="head"),
        notes=(
            "Per attribute and dataset size: the mean, sample SD and maximum of the Spearman ρ of Table 2 "
            "over the models trained on that many image–text pairs (the study's probe.registry); SD blank "
            "with one model. Descriptive; Table 2c compares sizes with two models or more each.",
        ),
        notes_sql=f"""SELECT 'Models per size: ' || string_agg({_label("dataset_size")} || ': ' || n, ', '
                            ORDER BY dataset_size DESC) || '.'
                     FROM (SELECT dataset_size, max(n) AS n FROM result_probe_size_summary GROUP BY ALL)
                     HAVING count(*) > 0""",
        requires=("result_probe_size_summary",),
        optional=True,  # only with a [probe] registry giving dataset sizes
    ),
    TableSpec(
        key="probe_size_effect",
        title="Table 2c. Similarity between dataset sizes: Cohen's d (seed 004 Table 1)",
        sql=f"""SELECT attribute, {_label("size_a")} || '–' || {_label("size_b")} AS pair, estimate, p,
                   dense_rank() OVER (ORDER BY size_a DESC, size_b DESC) AS head
            FROM result_probe_size_effect ORDER BY attribute, head""",
        columns=(stub("attribute", "Attribute"),),
        pivot=Pivot(on="pair", value="estimate", fmt=effect(2), p="p", order="head"),
        notes=(
            "Cohen's d of the models' similarity ρ at the larger size minus the smaller, over the pooled "
            "SD; its p: Student's two-sample t test (equal variances) of the same difference, unadjusted "
            "(the paper marks p < 0.05 with *). Sizes with two models or more only.",
            EMPHASIS_LEGEND,
        ),
        notes_sql="""SELECT 'n: ' || min(n_a + n_b) || CASE WHEN min(n_a + n_b) < max(n_a + n_b)
                            THEN '–' || max(n_a + n_b) ELSE '' END || ' models per comparison.'
                     FROM result_probe_size_effect HAVING count(*) > 0""",
        requires=("result_probe_size_effect",),
        optional=True,  # computed only where two dataset sizes each have two models
    ),
)

"""The probe report's scale regression (seed 004 Table 2): similarity on reliability and scale
(Table 5), the paper's OLS beside the cluster-robust (by model) standard errors of its terms, with
a note that the scale terms rest on the k models and a warning where k is too small to trust them."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.render import (
    CI_LABEL,
    Col,
    TableSpec,
    ci,
    fmt_pvalue,
    number,
    stub,
)

#: Seed 004 Table 2's names of the regression's terms, in its order (the constant last).
_TERMS = (
    ("reliability", "Human IRR (split-half reliability)"),
    ("dataset_size", "Dataset size"),
    ("samples_seen", "Total samples"),
    ("image_params", "Image params"),
    ("text_params", "Text params"),
    ("const", "Constant"),
)
_TERM_LABEL = " ".join(f"WHEN '{term}' THEN '{label}'" for term, label in _TERMS)
_TERM_ORDER = " ".join(f"WHEN '{term}' THEN {i}" for i, (term, _) in enumerate(_TERMS))

#: Fewer clusters than this: the report warns that cluster-robust inference is unreliable
#: (Cameron & Miller 2015 §VI: "few" is often taken as fewer than 20 to 50).
FEW_CLUSTERS = 20
BETWEEN_MODELS_NOTE = (
    "Dataset size, Total samples and the parameter counts take one value per model: they vary between "
    "the k models only, and the OLS standard errors treat the N rows as independent although each "
    "model's rows share its values, so those SEs can be far too small and those terms rest on k models, not "
    "N rows (the paper's Table 2 does the same). Cluster SE and Cluster p: the same coefficients with "
    'a cluster-robust covariance by model (CR1, t with k − 1 df; statsmodels\' cov_type = "cluster").'
)
FEW_CLUSTERS_SQL = f"""'Warning: only ' || max(n_clusters) || ' clusters; cluster-robust standard errors are biased '
    || 'downwards and their tests too liberal with fewer than about {FEW_CLUSTERS} clusters (Cameron & Miller 2015, '
    || 'J. Human Resources 50(2))' || CASE WHEN max(n_clusters) <= count(*) THEN ', and with no more clusters than '
    || 'coefficients (' || count(*) || ') their covariance is rank-deficient' ELSE '' END
    || ': read the between-model terms as describing these models, not as tested.'"""

SCALE_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="probe_scale_regression",
        title="Table 5. Similarity regressed on reliability and scale (seed 004 Table 2)",
        sql=f"""SELECT CASE term {_TERM_LABEL} ELSE term END AS term, estimate, ci_low, ci_high, statistic, p,
                   se, cluster_se, cluster_p
            FROM result_probe_scale_regression ORDER BY CASE term {_TERM_ORDER} ELSE 99 END, term""",
        columns=(
            stub("term", "Term"),
            Col("estimate", "Coef", number(4), p="p"),
            Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
            Col("statistic", "t", number(3)),
            Col("p", "p", fmt_pvalue),
            Col("se", "SE", number(4)),
            Col("cluster_se", "Cluster SE (by model)", number(4)),
            Col("cluster_p", "Cluster p", fmt_pvalue),
        ),
        notes=(
            "OLS of each model × attribute similarity ρ (N rows) on the terms, as the paper; t tests and t "
            "intervals, p unadjusted. Human IRR: the split-half reliability of Table 1.",
            BETWEEN_MODELS_NOTE,
        ),
        notes_sql=f"""SELECT 'Adj. R² = ' || printf('%.3f', max(adj_r2)) || ', F = ' || printf('%.1f', max(f_statistic))
                        || ', N = ' || max(n) || ', residual df = ' || max(df_resid)::INT || '; predictors outside '
                        || '(0, 1) divided by their maximum.' FROM result_probe_scale_regression
                     UNION ALL SELECT 'k = ' || max(n_clusters) || ' models (clusters).'
                        FROM result_probe_scale_regression HAVING max(n_clusters) IS NOT NULL
                     UNION ALL SELECT {FEW_CLUSTERS_SQL} FROM result_probe_scale_regression
                        HAVING max(n_clusters) < {FEW_CLUSTERS}""",
        requires=("result_probe_scale_regression",),
    ),
)

"""The probe report's scale regression (seed 004 Table 2): similarity on reliability and scale
(Table 5), the paper's OLS beside the small-sample cluster-robust (by model: CR2, Satterthwaite df)
inference of its terms (SE, df, p and the t interval beside the OLS one, at the stored level), with a note that the scale terms rest on the k models, a caution where a
term's df are very small, and why a term's cluster columns are blank."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.render import (
    CI_LABEL,
    LEVEL,
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

#: Satterthwaite df below this: the note cautions that the term's test rests on very few
#: effective degrees of freedom (it keeps its size but has little power).
FEW_DF = 4
BETWEEN_MODELS_NOTE = (
    "Dataset size, Total samples and the parameter counts take one value per model: they vary between "
    "the k models only, and the OLS standard errors treat the N rows as independent although each "
    "model's rows share its values, so those SEs can be far too small and those terms rest on k models, not "
    "N rows (the paper's Table 2 does the same). Cluster SE, df and p: the same coefficients with the "
    "small-sample cluster-robust covariance by model, CR2 (bias-reduced linearisation; Bell & McCaffrey "
    "2002, Survey Methodology 28(2)) and t tests with Satterthwaite df per term (Pustejovsky & Tipton 2018, "
    'JBES 36(4)), as R\'s clubSandwich coef_test(vcov = "CR2", test = "Satterthwaite"); these hold their '
    "size with few clusters, where CR1 with k − 1 df rejects too often."
)
#: What the cluster interval beside the OLS one is (its level filled at render time).
CLUSTER_CI_NOTE = (
    f"Cluster {LEVEL} CI: the t interval of the same coefficient with the cluster SE and the term's "
    f"Satterthwaite df, estimate ± t(df) × cluster SE, beside the OLS {LEVEL} CI (t with the residual df)."
)
_LABEL, _ORDER = f"CASE term {_TERM_LABEL} ELSE term END", f"CASE term {_TERM_ORDER} ELSE 99 END, term"
#: Per stored ``cluster_reason``, the terms whose cluster columns are blank and why.
BLANK_CLUSTER_SQL = f"""SELECT 'Cluster columns blank for ' || string_agg({_LABEL}, ', ' ORDER BY {_ORDER}) || ': '
        || replace(cluster_reason, 'cluster', 'model') || '.'
    FROM result_probe_scale_regression WHERE cluster_reason IS NOT NULL GROUP BY cluster_reason"""
#: The terms with fewer than :data:`FEW_DF` Satterthwaite df, and what that means.
FEW_DF_SQL = f"""SELECT 'Caution: fewer than {FEW_DF} effective degrees of freedom (Satterthwaite) for '
        || string_agg({_LABEL} || ' (df = ' || printf('%.1f', cluster_df) || ')', ', ' ORDER BY {_ORDER})
        || ': their tests keep their size but have little power and wide intervals, so a large cluster p is '
        || 'not evidence of no effect.'
    FROM result_probe_scale_regression WHERE cluster_df < {FEW_DF} HAVING count(*) > 0"""

SCALE_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="probe_scale_regression",
        title="Table 5. Similarity regressed on reliability and scale (seed 004 Table 2)",
        sql=f"""SELECT CASE term {_TERM_LABEL} ELSE term END AS term, estimate, ci_low, ci_high,
                   cluster_ci_low, cluster_ci_high, statistic, p, se, cluster_se, cluster_df, cluster_p
            FROM result_probe_scale_regression ORDER BY CASE term {_TERM_ORDER} ELSE 99 END, term""",
        columns=(
            stub("term", "Term"),
            Col("estimate", "Coef", number(4), p="p"),
            Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
            Col("cluster_ci_low", f"Cluster {CI_LABEL}", ci(4), args=("cluster_ci_high",)),
            Col("statistic", "t", number(3)),
            Col("p", "p", fmt_pvalue),
            Col("se", "SE", number(4)),
            Col("cluster_se", "Cluster SE (by model)", number(4)),
            Col("cluster_df", "Cluster df", number(1)),
            Col("cluster_p", "Cluster p", fmt_pvalue),
        ),
        notes=(
            "OLS of each model × attribute similarity ρ (N rows) on the terms, as the paper; t tests and t "
            "intervals, p unadjusted. Human IRR: the split-half reliability of Table 1.",
            BETWEEN_MODELS_NOTE,
            CLUSTER_CI_NOTE,
        ),
        notes_sql=f"""SELECT 'Adj. R² = ' || printf('%.3f', max(adj_r2)) || ', F = ' || printf('%.1f', max(f_statistic))
                        || ', N = ' || max(n) || ', residual df = ' || max(df_resid)::INT || '; predictors outside '
                        || '(0, 1) divided by their maximum.' FROM result_probe_scale_regression
                     UNION ALL SELECT 'k = ' || max(n_clusters) || ' models (clusters).'
                        FROM result_probe_scale_regression HAVING max(n_clusters) IS NOT NULL
                     UNION ALL {FEW_DF_SQL}
                     UNION ALL {BLANK_CLUSTER_SQL}""",
        requires=("result_probe_scale_regression",),
    ),
)

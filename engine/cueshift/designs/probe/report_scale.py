"""The probe report's scale regression (seed 004 Table 2): similarity on reliability and scale (Table 5)."""

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

SCALE_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="probe_scale_regression",
        title="Table 5. Similarity regressed on reliability and scale (seed 004 Table 2)",
        sql=f"""SELECT CASE term {_TERM_LABEL} ELSE term END AS term, estimate, ci_low, ci_high, statistic, p
            FROM result_probe_scale_regression ORDER BY CASE term {_TERM_ORDER} ELSE 99 END, term""",
        columns=(
            stub("term", "Term"),
            Col("estimate", "Coef", number(4), p="p"),
            Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
            Col("statistic", "t", number(3)),
            Col("p", "p", fmt_pvalue),
        ),
        notes=(
            "OLS of each model × attribute similarity ρ (N rows) on the terms; t tests and t intervals, "
            "p unadjusted. Human IRR: the split-half reliability of Table 1.",
        ),
        notes_sql="""SELECT 'Adj. R² = ' || printf('%.3f', max(adj_r2)) || ', F = ' || printf('%.1f', max(f_statistic))
                        || ', N = ' || max(n) || ', residual df = ' || max(df_resid)::INT || '; predictors outside '
                        || '(0, 1) divided by their maximum.' FROM result_probe_scale_regression""",
        requires=("result_probe_scale_regression",),
    ),
)

"""StylisticBias report: how many bootstrap draws an interval of Table 10 and Table R2 rests on, of
how many drawn (D62 leaves out and counts the draws that admit no estimate; D65 says so).

The number drawn is not stored beside the count: it is the ``n_resamples`` that
``result_manifest`` records for the table, capped for the mixed models as their refits are
(:data:`cueshift.stats.MODEL_REFITS`, :data:`cueshift.stats.CROSSED_REFITS`).
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.labels import DIM_POS
from cueshift.render import FALLBACK_LEVEL
from cueshift.stats import CROSSED_REFITS, MODEL_REFITS


def drawn_sql(table: str, cap: int | None = None) -> str:
    """A scalar SQL subquery: the bootstrap draws ``analyze`` made for ``table`` (its manifest's
    ``n_resamples``, at most ``cap``); NULL where the manifest has no row for it.

    >>> "least(min(n_resamples), 200)" in drawn_sql("result_mixed_model", 200)
    True
    """
    drawn = "min(n_resamples)" if cap is None else f"least(min(n_resamples), {int(cap)})"
    return f"(SELECT {drawn} FROM result_manifest WHERE \"table\" = '{table}')"


def level_sql(table: str) -> str:
    """A scalar SQL subquery: the confidence level of ``table``'s intervals (where not recorded:
    :data:`~cueshift.render.FALLBACK_LEVEL`, as the labels read it)."""
    stored = f"SELECT min(confidence_level) FROM result_manifest WHERE \"table\" = '{table}'"
    return f"coalesce(({stored}), {FALLBACK_LEVEL})"


def count_sql(kept: str, drawn: str, noun: str, level: str = str(FALLBACK_LEVEL)) -> str:
    """A SQL text expression: ``'10,000 bootstrap refits'`` when every draw gave an estimate,
    ``'9,981 of 10,000 bootstrap refits (19 draws admitted no estimate)'`` when some did not (with
    ``'; more than α/2 of them, so no interval'`` past :func:`cueshift.stats.refit_interval`'s
    limit). ``kept``, ``drawn`` and ``level`` are SQL expressions (``drawn`` NULL: the count alone).
    """
    failed = f"(({drawn}) - ({kept}))"
    return f"""(CASE WHEN ({drawn}) IS NULL OR ({kept}) >= ({drawn})
          THEN printf('%,d', {kept}) || ' bootstrap {noun}'
          ELSE printf('%,d', {kept}) || ' of ' || printf('%,d', {drawn}) || ' bootstrap {noun} ('
               || printf('%,d', {failed}) || CASE WHEN {failed} = 1 THEN ' draw' ELSE ' draws' END
               || ' admitted no estimate'
               || CASE WHEN {failed} > (1.0 - ({level})) / 2.0 * ({drawn})
                       THEN '; more than α/2 of them, so no interval' ELSE '' END || ')' END)"""


_ANOVA = "result_face_anova"
_ANOVA_DRAWN = f"coalesce({drawn_sql(_ANOVA)}, (SELECT max(n_resamples) FROM {_ANOVA}))"
_ANOVA_LABEL = (
    "CASE outcome WHEN 'delta' THEN 'mean Δ' ELSE 'mean base φ' END || ' by ' || replace(dimension, '_', ' ')"
)

#: Table 10's mixed model, aggregated over ``result_mixed_model``: its refits, of how many drawn.
MIXED_REFITS_SQL = count_sql(
    "max(n_refits)", drawn_sql("result_mixed_model", MODEL_REFITS), "refits", level_sql("result_mixed_model")
)
#: Table R2's crossed model, aggregated over ``result_crossed_model``.
CROSSED_REFITS_SQL = count_sql(
    "max(n_refits)",
    drawn_sql("result_crossed_model", CROSSED_REFITS),
    "refits",
    level_sql("result_crossed_model"),
)
#: Table 10's face ANOVAs, aggregated over ``result_face_anova``: one count where every ANOVA kept
#: as many draws, else the draws made and each ANOVA that kept fewer.
ANOVA_RESAMPLES_SQL = f"""(CASE WHEN min(n_resamples) = max(n_resamples)
      THEN {count_sql("max(n_resamples)", _ANOVA_DRAWN, "resamples", level_sql(_ANOVA))}
      ELSE printf('%,d', {_ANOVA_DRAWN}) || ' bootstrap resamples, except '
           || string_agg({_ANOVA_LABEL} || ': '
                         || {count_sql("n_resamples", _ANOVA_DRAWN, "resamples", level_sql(_ANOVA))},
                         '; ' ORDER BY outcome DESC, {DIM_POS}) FILTER (WHERE n_resamples < {_ANOVA_DRAWN})
      END)"""

__all__ = [
    "ANOVA_RESAMPLES_SQL",
    "CROSSED_REFITS_SQL",
    "MIXED_REFITS_SQL",
    "count_sql",
    "drawn_sql",
    "level_sql",
]

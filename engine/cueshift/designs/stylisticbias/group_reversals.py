"""Table 11's sign reversals counted once, for the analyze console and the report alike.

A variation value whose groups in one dimension take both signs is counted *with evidence* when a
positive and a negative group are each significant (``sign_reversal_both``, D51), *difference only*
when only the two groups' per-face means differ (``reversal_evidence = 'difference significant'``:
neither sign shown, not counted as a reversal), and *not distinguishable* otherwise. The counts are
of ``result_table11``, pooled over models (the per-model counts are Table 11 per model's); the
console's line and the report's Table 11 note print the one sentence :data:`REVERSALS_SQL` builds.
"""

from __future__ import annotations

from typing import Final

from cueshift.images.labels import DEMOGRAPHIC_FIELDS

_FIELDS = ", ".join(f"'{d}'" for d in DEMOGRAPHIC_FIELDS)
_POSITION = f"coalesce(list_position([{_FIELDS}], dimension), 1000)"

#: SQL (``{t}``: the table, ``result_table11``), one row: the counts per dimension in the paper's
#: order, ``age: 0 with evidence (both sides significant), 1 difference only (signs not shown), 12
#: not distinguishable; ...``; no row where no variation's groups take both signs.
REVERSALS_SQL: Final = f"""
SELECT string_agg(
         replace(dimension, '_', ' ') || ': ' || evidence || ' with evidence (both sides significant), '
         || difference || ' difference only (signs not shown), ' || unclear || ' not distinguishable',
         '; ' ORDER BY pos) AS counts
FROM (
  SELECT dimension, {_POSITION} AS pos,
         count(DISTINCT variation_value) FILTER (WHERE sign_reversal_both) AS evidence,
         count(DISTINCT variation_value) FILTER (WHERE reversal_evidence = 'difference significant')
           AS difference,
         count(DISTINCT variation_value) FILTER (WHERE reversal_evidence = 'not distinguishable') AS unclear
  FROM {{t}} GROUP BY dimension
)
WHERE evidence + difference + unclear > 0
HAVING count(*) > 0
"""

#: What the counts are, after the console's title and in the report's note.
COUNTED: Final = "variation values pooled over models"

"""The rating scale of a pairwise study (``[pairwise] rating_min``–``rating_max``) as its database
records it, for the report's notes on the ratings (Tables 5, 5b and 7).

Every run stores the resolved study in ``run.config`` when it writes the study (``cueshift infer``),
``[pairwise]`` with it: the scale the models' answers were parsed on and the human ratings were
read on is the one recorded there, not the study file's at report time (which may have changed).
No new table is needed. :data:`SCALE_NOTE` is the note's SQL (``TableSpec.notes_sql``): one
sentence naming the scale ("… on the study's 1–7 rating scale …"); every scale where runs of one
database recorded several; the field names, without numbers, where no run records one (no
``run`` row of a pairwise study: rows written by other means).

>>> import duckdb
>>> con = duckdb.connect()
>>> _ = con.execute("CREATE TABLE run (config JSON)")
>>> con.sql(SCALE_NOTE).fetchall()[0][0][:62]
'Ratings on the study’s rating scale, [pairwise] rating_min to '
>>> _ = con.execute('''INSERT INTO run VALUES ('{"design": "pairwise", "pairwise": {"rating_min": 1.0, "rating_max": 7.0}}')''')
>>> con.sql(SCALE_NOTE).fetchall()[0][0]
'Ratings on the study’s 1–7 rating scale ([pairwise] rating_min to rating_max, as its runs recorded them).'
"""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from typing import Final

#: The scales the pairwise runs of the database recorded, as text: ``'1–7'`` (``%g``: no needless digits).
_SCALES = """
SELECT DISTINCT printf('%g–%g', json_extract(config, '$.pairwise.rating_min')::DOUBLE,
                       json_extract(config, '$.pairwise.rating_max')::DOUBLE) AS scale
FROM run
WHERE json_extract_string(config, '$.design') = 'pairwise'
  AND json_extract(config, '$.pairwise.rating_min') IS NOT NULL
  AND json_extract(config, '$.pairwise.rating_max') IS NOT NULL
"""

#: One note (one row, one column): the rating scale the study's runs recorded.
SCALE_NOTE: Final = f"""
WITH scales AS ({_SCALES})
SELECT CASE count(*)
         WHEN 0 THEN 'Ratings on the study’s rating scale, [pairwise] rating_min to rating_max (0–10 by '
                     || 'default; this database’s runs do not record it).'
         WHEN 1 THEN 'Ratings on the study’s ' || any_value(scale) || ' rating scale ([pairwise] rating_min '
                     || 'to rating_max, as its runs recorded them).'
         ELSE 'The study’s runs recorded different rating scales ([pairwise] rating_min to rating_max): '
              || string_agg(scale, ', ' ORDER BY scale) || '; the ratings of every run are pooled here.'
       END
FROM scales
"""

__all__ = ["SCALE_NOTE"]

"""Interval labels that say the level the results were computed at ("90% CI"), never a fixed 95%.

A declared table writes :data:`LEVEL` where the level goes (``f"{LEVEL} CI"``, or
:data:`CI_LABEL`); :meth:`~cueshift.render.TableSpec.render` fills it with the level
``result_manifest`` recorded for the tables it reads (:func:`stored_level`), and code that prints
a label itself calls :func:`ci_label`.

>>> ci_label(0.9)
'90% CI'
>>> ci_label(0.995)
'99.5% CI'
>>> fill_level(f"E − Y {LEVEL} CI; {LEVEL} Wilson CI", 0.8)
'E − Y 80% CI; 80% Wilson CI'
>>> fill_level(f"{CI_LEVEL} CI, the 1 − 2α interval; α = 1 − {LEVEL}", 0.95, 0.9)
'90% CI, the 1 − 2α interval; α = 1 − 95%'

A table whose intervals have a level of their own, stored in its ``ci_level`` column
(``result_equivalence``: the two one-sided tests' 1 − 2α interval, 90 % at a 95 % analysis),
writes :data:`CI_LEVEL` there instead (:func:`stored_ci_level`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import duckdb

if TYPE_CHECKING:
    from cueshift.render._source import Source

#: Where a declared label or note shows the level (filled in at render time).
LEVEL: Final = "{level}"
#: The usual interval header of a declared table.
CI_LABEL: Final = f"{LEVEL} CI"
#: Where a declared label shows the level a table stores with its own intervals (``ci_level``).
CI_LEVEL: Final = "{ci_level}"
#: The level of results whose manifest does not record one (older databases): ``analyze``'s default,
#: ``Resampling().confidence_level`` (not imported: the command line starts without numba).
FALLBACK_LEVEL: Final = 0.95


def level_percent(level: float) -> str:
    """``level`` as a percentage with no needless digits: ``0.95`` → ``'95%'``."""
    return f"{100 * level:.4g}%"


def ci_label(level: float) -> str:
    """The header of an interval at ``level``: ``0.9`` → ``'90% CI'``."""
    return f"{level_percent(level)} CI"


def fill_level(text: str, level: float, ci_level: float | None = None) -> str:
    """``text`` with every :data:`LEVEL` replaced by ``level`` as a percentage, and every
    :data:`CI_LEVEL` by ``ci_level`` (``level`` when None: no row stores one)."""
    own = level if ci_level is None else ci_level
    return text.replace(LEVEL, level_percent(level)).replace(CI_LEVEL, level_percent(own))


def stored_level(reader: duckdb.DuckDBPyConnection | Source, tables: Sequence[str] = ()) -> float:
    """The confidence level ``result_manifest`` records for ``tables`` (every table when empty).

    ``reader`` is the study database or a report's :class:`~cueshift.render.Source` (a text or a
    figure quoting an interval). A table computed outside ``analyze`` (no manifest row) that records
    its level in a ``confidence_level`` column of its own (``audit_skin_tone``) gives that level.
    :data:`FALLBACK_LEVEL` where no level is recorded: no manifest, no ``confidence_level`` column,
    no row for the tables (results written before the level was recorded, or tables ``analyze``
    does not write), or a NULL level (rows written before the column existed); the lowest level
    when the tables were computed at several (a label never claims more coverage than a table has).
    """
    params: dict[str, object] = {"tables": list(tables)} if tables else {}
    where = 'WHERE list_contains($tables, "table")' if tables else ""
    recorded = {str(r[0]) for r in source_rows(reader, _RECORDED, {"tables": [_MANIFEST, *tables]})}
    levels: list[object] = []
    if _MANIFEST in recorded:
        levels += [
            r[0]
            for r in source_rows(reader, f"SELECT min(confidence_level) FROM {_MANIFEST} {where}", params)
        ]
    for table in sorted(recorded - {_MANIFEST}):  # its own rows; NULL: before the column existed
        sql = f'SELECT min(coalesce(confidence_level, {FALLBACK_LEVEL})) FROM "{table}"'
        levels += [r[0] for r in source_rows(reader, sql, {})]
    found = [float(v) for v in levels if isinstance(v, int | float)]
    return min(found) if found else FALLBACK_LEVEL


def stored_ci_level(reader: duckdb.DuckDBPyConnection | Source, tables: Sequence[str]) -> float | None:
    """The lowest level the rows of ``tables`` store in a ``ci_level`` column of their own (the
    intervals of ``result_equivalence``, at 1 − 2α); None where no row stores one (no such column,
    no row), where :func:`fill_level` shows the level of the analysis instead."""
    sql = (
        "SELECT DISTINCT table_name FROM duckdb_columns() WHERE database_name = current_database() "
        "AND list_contains($tables, table_name) AND column_name = 'ci_level'"
    )
    found: list[float] = []
    for (table,) in source_rows(reader, sql, {"tables": list(tables)}):
        for (value,) in source_rows(reader, f'SELECT min(ci_level) FROM "{table}"', {}):
            if isinstance(value, int | float):
                found.append(float(value))
    return min(found) if found else None


#: Where the levels are recorded: the manifest, and the tables that record their own.
_MANIFEST: Final = "result_manifest"
_RECORDED = (
    "SELECT DISTINCT table_name FROM duckdb_columns() WHERE database_name = current_database() "
    "AND list_contains($tables, table_name) AND column_name = 'confidence_level'"
)


def source_rows(
    reader: duckdb.DuckDBPyConnection | Source, sql: str, params: dict[str, object]
) -> list[tuple[object, ...]]:
    """The rows of ``sql`` read from a study database or a report's :class:`~cueshift.render.Source`."""
    if isinstance(reader, duckdb.DuckDBPyConnection):
        return reader.execute(sql, params or None).fetchall()
    return reader.query(sql, params).rows()


__all__ = [
    "CI_LABEL",
    "CI_LEVEL",
    "FALLBACK_LEVEL",
    "LEVEL",
    "ci_label",
    "fill_level",
    "level_percent",
    "source_rows",
    "stored_ci_level",
    "stored_level",
]

"""Method words that say how the results were computed ("sign-flip permutation test",
"percentile"), never ``analyze``'s defaults whatever ran.

``cueshift analyze --test`` (``rank``: Wilcoxon signed-rank, Mann–Whitney U, Kruskal–Wallis;
``permutation``: sign-flip and label-permutation tests) and ``--ci`` (``bca``, ``percentile``) are
recorded per result table in ``result_manifest`` (its ``test`` and ``ci_method`` columns). A
declared note writes :func:`by_test` or :func:`by_ci_method` where it names a test or an interval
those options switch; :meth:`~cueshift.render.TableSpec.render` fills each placeholder with the
words of what the manifest recorded for the tables the spec reads (:func:`stored_methods`,
:func:`fill_methods`), and a text quoting a table fills its own. A test the options do not switch
(a design's fixed Mann–Whitney U, a t test) stays plain words.

>>> note = by_test(rank="WSRT", permutation="sign-flip permutation test") + "; " + by_ci_method(
...     bca="BCa", percentile="percentile") + " CI"
>>> fill_methods(note, StoredMethods(test=("permutation",), ci_method=("bca",)))
'sign-flip permutation test; BCa CI'
>>> fill_methods(note, StoredMethods())  # nothing recorded: analyze's defaults
'WSRT; BCa CI'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

import duckdb

if TYPE_CHECKING:
    from cueshift.render._source import Source

#: The ``result_manifest`` columns a placeholder reads.
METHOD_COLUMNS: Final = ("test", "ci_method")
_PLACEHOLDER = re.compile(r"\{(test|ci_method)\?([^{}]*)\}")
#: Joins the words of several recorded methods (tables of separate runs).
_EITHER = " or "


class StoredMethods(NamedTuple):
    """The ``test`` and ``ci_method`` values ``result_manifest`` records for some tables (empty:
    none recorded)."""

    test: tuple[str, ...] = ()
    ci_method: tuple[str, ...] = ()


def by_test(*, rank: str, permutation: str) -> str:
    """Placeholder for the words of the test ``--test`` chose: ``rank`` or ``permutation``."""
    return _placeholder("test", {"rank": rank, "permutation": permutation})


def by_ci_method(*, bca: str, percentile: str) -> str:
    """Placeholder for the words of the interval ``--ci`` chose: ``bca`` or ``percentile``."""
    return _placeholder("ci_method", {"bca": bca, "percentile": percentile})


def has_methods(text: str) -> bool:
    """Whether ``text`` holds a placeholder of :func:`by_test` or :func:`by_ci_method`."""
    return _PLACEHOLDER.search(text) is not None


def fill_methods(text: str, stored: StoredMethods) -> str:
    """``text`` with each placeholder replaced by the words of the recorded method.

    Several recorded values (tables of separate runs) give their words joined by "or", in the
    placeholder's order; none with words (nothing recorded, or an older manifest) gives the first
    words, ``analyze``'s default (``rank``, ``bca``).
    """

    def words(match: re.Match[str]) -> str:
        options = dict(option.split("=", 1) for option in match.group(2).split("|"))
        recorded = set(getattr(stored, match.group(1)))
        chosen = [said for value, said in options.items() if value in recorded]
        return _EITHER.join(chosen) if chosen else next(iter(options.values()))

    return _PLACEHOLDER.sub(words, text)


def stored_methods(reader: duckdb.DuckDBPyConnection | Source, tables: Sequence[str] = ()) -> StoredMethods:
    """The distinct ``test`` and ``ci_method`` values ``result_manifest`` records for ``tables``
    (every table when empty); empty where the manifest or the column is missing."""
    params: dict[str, object] = {"tables": list(tables)} if tables else {}
    where = 'WHERE list_contains($tables, "table")' if tables else ""
    recorded = {str(r[0]) for r in _rows(reader, _RECORDED, {})}
    values = {
        column: tuple(
            sorted(
                str(r[0])
                for r in _rows(reader, f"SELECT DISTINCT {column} FROM result_manifest {where}", params)
                if r[0] is not None
            )
        )
        if column in recorded
        else ()
        for column in METHOD_COLUMNS
    }
    return StoredMethods(**values)


def _placeholder(column: str, words: Mapping[str, str]) -> str:
    bad = [text for text in words.values() if not text or set(text) & set("{}|")]
    if bad:
        raise ValueError(f"method words {bad[0]!r}: non-empty, without '{{', '}}' or '|'")
    return "{" + column + "?" + "|".join(f"{value}={text}" for value, text in words.items()) + "}"


_RECORDED = (
    "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
    "AND table_name = 'result_manifest' AND column_name IN ('test', 'ci_method')"
)


def _rows(
    reader: duckdb.DuckDBPyConnection | Source, sql: str, params: dict[str, object]
) -> list[tuple[object, ...]]:
    if isinstance(reader, duckdb.DuckDBPyConnection):
        return reader.execute(sql, params or None).fetchall()
    return reader.query(sql, params).rows()


__all__ = [
    "METHOD_COLUMNS",
    "StoredMethods",
    "by_ci_method",
    "by_test",
    "fill_methods",
    "has_methods",
    "stored_methods",
]

"""Words for a test or an interval that depend on what ``analyze`` ran ("WSRT" or "sign-flip
permutation test"), written once as a placeholder and filled when the run's method is known.

``cueshift analyze --test`` (``rank``: Wilcoxon signed-rank, Mann–Whitney U, Kruskal–Wallis;
``permutation``: sign-flip and label-permutation tests) and ``--ci`` (``bca``, ``percentile``)
choose the methods. A text writes :func:`by_test` or :func:`by_ci_method` where it names a test or
an interval those options switch (``tables=``, or :func:`scoped`: the words of those tables only,
for a note on some of the tables a report table reads); :func:`fill_methods` fills each
placeholder with the words of the recorded method: the manifest's ``statistic`` and
``description`` when ``analyze`` writes them (:mod:`cueshift.stats`), a report's notes when it
renders (:mod:`cueshift.render`). Plain text only, so the lowest layer holds it.

>>> note = by_test(rank="WSRT", permutation="sign-flip permutation test") + "; " + by_ci_method(
...     bca="BCa", percentile="percentile") + " CI"
>>> fill_methods(note, StoredMethods(test=("permutation",), ci_method=("bca",)))
'sign-flip permutation test; BCa CI'
>>> fill_methods(note, StoredMethods())  # nothing recorded: analyze's defaults
'WSRT; BCa CI'

Tables of separate runs (``run_analyses(only=...)``) each keep their own words:

>>> runs = StoredMethods(rows=(TableMethods("result_a", "rank", "bca"),
...                            TableMethods("result_b", "permutation", "bca")))
>>> fill_methods(scoped(note, "result_b"), runs)
'sign-flip permutation test; BCa CI'
>>> fill_methods(note, runs)  # a note on both tables says which used which
'WSRT (result_a) and sign-flip permutation test (result_b); BCa CI'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final, NamedTuple

#: The ``result_manifest`` columns a placeholder reads.
METHOD_COLUMNS: Final = ("test", "ci_method")
_PLACEHOLDER = re.compile(r"\{(test|ci_method)(@[^{}?|@]*)?\?([^{}]*)\}")
#: Joins the words of several recorded methods no table is known for (a hand-built StoredMethods).
_EITHER = " or "


class TableMethods(NamedTuple):
    """The ``test`` and ``ci_method`` ``result_manifest`` records for one table (None: not recorded)."""

    table: str
    test: str | None
    ci_method: str | None


class StoredMethods(NamedTuple):
    """The ``test`` and ``ci_method`` values recorded for some tables (empty: none recorded).

    ``rows`` holds them table by table (:func:`cueshift.render.stored_methods` fills it): a
    placeholder then says the words of its own tables, and names each table's method where they
    differ. Without ``rows``, ``test`` and ``ci_method`` are the values of one run (``analyze``
    filling its manifest); ``test`` and ``ci_method`` are filled from ``rows`` when not given.
    """

    test: tuple[str, ...] = ()
    ci_method: tuple[str, ...] = ()
    rows: tuple[TableMethods, ...] = ()

    def values(self, column: str) -> tuple[str, ...]:
        """The distinct recorded values of ``column``, sorted."""
        given: tuple[str, ...] = getattr(self, column)
        found = {v for r in self.rows if (v := getattr(r, column)) is not None}
        return given or tuple(sorted(found))


def by_test(*, rank: str, permutation: str, tables: Sequence[str] = ()) -> str:
    """Placeholder for the words of the test ``--test`` chose: ``rank`` or ``permutation``
    (the test of ``tables`` only, when given; else of every table the text reads)."""
    return _placeholder("test", {"rank": rank, "permutation": permutation}, tables)


def by_ci_method(*, bca: str, percentile: str, tables: Sequence[str] = ()) -> str:
    """Placeholder for the words of the interval ``--ci`` chose: ``bca`` or ``percentile``
    (the interval of ``tables`` only, when given)."""
    return _placeholder("ci_method", {"bca": bca, "percentile": percentile}, tables)


def scoped(text: str, *tables: str) -> str:
    """``text`` with every placeholder saying the method of ``tables`` only (a note on part of a
    report table: "Marginal dimensions: Table 9 (<its test>) ...")."""
    scope = _scope(tables)
    return _PLACEHOLDER.sub(lambda m: "{" + m.group(1) + scope + "?" + m.group(3) + "}", text)


def has_methods(text: str) -> bool:
    """Whether ``text`` holds a placeholder of :func:`by_test` or :func:`by_ci_method`."""
    return _PLACEHOLDER.search(text) is not None


def fill_methods(text: str, stored: StoredMethods) -> str:
    """``text`` with each placeholder replaced by the words of the recorded method.

    With ``stored.rows``, a placeholder reads the rows of its own tables (every row when it names
    none); tables of separate runs that used different methods are each named with their words,
    "WSRT (result_a) and sign-flip permutation test (result_b)". None recorded (an older manifest,
    no row for its tables) gives the first words, ``analyze``'s default (``rank``, ``bca``).
    """

    def words(match: re.Match[str]) -> str:
        column, scope = match.group(1), match.group(2)
        options = dict(option.split("=", 1) for option in match.group(3).split("|"))
        default = next(iter(options.values()))
        if not stored.rows:
            chosen = [said for value, said in options.items() if value in stored.values(column)]
            return _EITHER.join(chosen) if chosen else default
        tables = set(scope[1:].split(",")) if scope else None
        by_words: dict[str, list[str]] = {}
        for row in stored.rows:
            value = getattr(row, column)
            if value in options and (tables is None or row.table in tables):
                by_words.setdefault(options[value], []).append(row.table)
        if len(by_words) <= 1:
            return next(iter(by_words), default)
        ordered = sorted(by_words.items(), key=lambda item: list(options.values()).index(item[0]))
        named = [f"{said} ({', '.join(sorted(set(names)))})" for said, names in ordered]
        return ", ".join(named[:-1]) + " and " + named[-1]

    return _PLACEHOLDER.sub(words, text)


def _scope(tables: Sequence[str]) -> str:
    bad = [t for t in tables if not t or set(t) & set("{}?|@,")]
    if bad:
        raise ValueError(f"table name {bad[0]!r}: non-empty, without '{{', '}}', '?', '|', '@' or ','")
    return "@" + ",".join(tables) if tables else ""


def _placeholder(column: str, words: Mapping[str, str], tables: Sequence[str]) -> str:
    bad = [text for text in words.values() if not text or set(text) & set("{}|")]
    if bad:
        raise ValueError(f"method words {bad[0]!r}: non-empty, without '{{', '}}' or '|'")
    options = "|".join(f"{value}={text}" for value, text in words.items())
    return "{" + column + _scope(tables) + "?" + options + "}"


__all__ = [
    "METHOD_COLUMNS",
    "StoredMethods",
    "TableMethods",
    "by_ci_method",
    "by_test",
    "fill_methods",
    "has_methods",
    "scoped",
]

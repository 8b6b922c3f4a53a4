"""Words for a test or an interval that depend on what ``analyze`` ran ("WSRT" or "sign-flip
permutation test"), written once as a placeholder and filled when the run's method is known.

``cueshift analyze --test`` (``rank``: Wilcoxon signed-rank, Mann–Whitney U, Kruskal–Wallis;
``permutation``: sign-flip and label-permutation tests) and ``--ci`` (``bca``, ``percentile``)
choose the methods. A text writes :func:`by_test` or :func:`by_ci_method` where it names a test or
an interval those options switch; :func:`fill_methods` fills each placeholder with the words of
the recorded method: the manifest's ``statistic`` and ``description`` when ``analyze`` writes
them (:mod:`cueshift.stats`), a report's notes when it renders (:mod:`cueshift.render`). Plain
text only, so the lowest layer holds it.

>>> note = by_test(rank="WSRT", permutation="sign-flip permutation test") + "; " + by_ci_method(
...     bca="BCa", percentile="percentile") + " CI"
>>> fill_methods(note, StoredMethods(test=("permutation",), ci_method=("bca",)))
'sign-flip permutation test; BCa CI'
>>> fill_methods(note, StoredMethods())  # nothing recorded: analyze's defaults
'WSRT; BCa CI'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, NamedTuple

#: The ``result_manifest`` columns a placeholder reads.
METHOD_COLUMNS: Final = ("test", "ci_method")
_PLACEHOLDER = re.compile(r"\{(test|ci_method)\?([^{}]*)\}")
#: Joins the words of several recorded methods (tables of separate runs).
_EITHER = " or "


class StoredMethods(NamedTuple):
    """The ``test`` and ``ci_method`` values recorded for some tables (empty: none recorded)."""

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


def _placeholder(column: str, words: Mapping[str, str]) -> str:
    bad = [text for text in words.values() if not text or set(text) & set("{}|")]
    if bad:
        raise ValueError(f"method words {bad[0]!r}: non-empty, without '{{', '}}' or '|'")
    return "{" + column + "?" + "|".join(f"{value}={text}" for value, text in words.items()) + "}"


__all__ = ["METHOD_COLUMNS", "StoredMethods", "by_ci_method", "by_test", "fill_methods", "has_methods"]

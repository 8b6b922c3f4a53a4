"""Tables of the pages, rendered by the report's own machinery so they look like the report's.

A page hands a polars frame and the report's column declarations (:class:`cueshift.render.Col`,
:class:`cueshift.render.Pivot`) to :func:`render` (:func:`cueshift.designs.page_helpers.table_html`,
which the designs' pages use too): :class:`cueshift.render.TableSpec` formats it (significance
marks from the stored p-values, at render time) and :func:`cueshift.render.to_html` renders the
great_tables HTML. An interval read from a stored table is headed by :func:`stored_ci`, the level
``cueshift analyze`` computed that table at; one the viewer computes, by
:data:`cueshift.viewer.summaries.COMPUTED_CI`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import NamedTuple

import duckdb

from cueshift.designs.page_helpers import count, number, table_html
from cueshift.render import (
    by_ci_method,
    by_test,
    ci_label,
    fill_methods,
    fmt_ci,
    fmt_effect,
    stored_level,
    stored_methods,
)

#: Fill of the strongest shift in a heatmap (blue: positive, red: negative), as in Table 11.
_POSITIVE, _NEGATIVE = (33, 102, 172), (178, 24, 43)
#: |Δ| at which a heatmap cell reaches full colour.
HEAT_SCALE = 0.2


def heat_fill(value: object) -> str | None:
    """Diverging fill of a mean Δ: white at 0, full blue at +``HEAT_SCALE``, full red at −``HEAT_SCALE``."""
    if not isinstance(value, int | float) or value != value:
        return None
    share = min(abs(float(value)) / HEAT_SCALE, 1.0)
    rgb = _POSITIVE if value > 0 else _NEGATIVE
    mixed = (round(255 + (c - 255) * share * 0.75) for c in rgb)
    return "#{:02x}{:02x}{:02x}".format(*mixed)


def signed(value: object) -> str:
    """Signed number with three decimals (Δ, SBS)."""
    return fmt_effect(value, 3)


def ci(low: object, high: object) -> str:
    """Signed interval ``[−0.12, 0.03]``."""
    return fmt_ci(low, high, 3, True)


def stored_ci(con: duckdb.DuckDBPyConnection, *tables: str) -> str:
    """The header of an interval read from ``tables``: ``'90% CI'`` for results computed at 90 %.

    The level is the one ``result_manifest`` records for them (the viewer's in-memory copy;
    :func:`cueshift.render.stored_level`), 95 % for results written before it was recorded.
    """
    return ci_label(stored_level(con, tables))


_CI_WORDS = by_ci_method(bca="BCa", percentile="percentile")
_TEST_WORDS = by_test(rank="Wilcoxon signed-rank", permutation="sign-flip permutation")


class StoredMethod(NamedTuple):
    """How ``analyze`` computed a stored table: its interval's level, method and its test, in words."""

    level: float
    ci_method: str
    test: str


def stored_method(con: duckdb.DuckDBPyConnection, table: str) -> StoredMethod:
    """The level, interval method and test ``result_manifest`` records for ``table``
    (:func:`cueshift.render.stored_level`, :func:`cueshift.render.stored_methods`).

    Results written before the level was recorded read 95 %; a database without a manifest, or one
    without the table, reads ``analyze``'s defaults (BCa, Wilcoxon signed-rank).
    """
    methods = stored_methods(con, (table,))
    return StoredMethod(
        stored_level(con, (table,)), fill_methods(_CI_WORDS, methods), fill_methods(_TEST_WORDS, methods)
    )


def linkify(table_html: str, key: str, column: int, hrefs: Mapping[str, str]) -> str:
    """Make the cells of one column links: a cell whose text is a key of ``hrefs`` gets that href.

    great_tables escapes every cell's text; the match is on the escaped text, and the link wraps
    it unchanged, so no stored value can inject markup.
    """
    escaped = {html.escape(text, quote=False): href for text, href in hrefs.items()}

    def wrap(match: re.Match[str]) -> str:
        href = escaped.get(match.group(2))
        if href is None:
            return match.group(0)
        return f'{match.group(1)}<a href="{html.escape(href)}">{match.group(2)}</a></td>'

    pattern = rf'(<td headers="tbl-{re.escape(key)}-c{column}"[^>]*>)([^<]*)</td>'
    return re.sub(pattern, wrap, table_html)


#: great_tables HTML of a frame under the report's declarations (shared with the designs' pages).
render = table_html

__all__ = ["ci", "count", "heat_fill", "linkify", "number", "render", "signed", "stored_ci"]

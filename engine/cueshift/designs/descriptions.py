"""What each result holds, in one line: the ``description`` every analysis is declared with
(:class:`~cueshift.stats.Declarations`), the one place it is written.

The names follow the seed papers' numbering (``table3``, ``table11_crossed``); these lines say what
each is wherever a name is shown: :func:`cueshift.describe`, ``result_manifest.description``
(written by ``cueshift analyze``) and the viewer's pages.

>>> result_description("result_table3")
'SBS per attribute category x demographic dimension (Table 3)'
>>> result_descriptions().columns
['design', 'name', 'table', 'description']
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.registry import analyses


def result_description(name: str) -> str | None:
    """The one-line description of result ``name`` (``"table3"`` or ``"result_table3"``); None
    when no design declares it."""
    found = analyses().get(name) or analyses().get(name.removeprefix("result_"))
    return found.description if found is not None else None


def result_descriptions() -> pl.DataFrame:
    """Every declared result: its design, name, table (``result_<name>``) and description, in the
    design registry's order (designs, then each design's declaration order)."""
    rows = [(a.suite, a.name, a.table, a.description) for a in analyses().values()]
    return pl.DataFrame(rows, schema=["design", "name", "table", "description"], orient="row")

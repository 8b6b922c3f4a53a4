"""Result tables of the StylisticBias design's replication mode (``cueshift analyze --compat release``):
the seed release's own tables, written beside the default ones with the same columns, and where
the two modes differ."""

from __future__ import annotations

import pandera.polars as pa

from cueshift.schemas._result_base import ResultModel
from cueshift.schemas._result_stylisticbias_base import Result


class CompatDifferencesSchema(Result):
    """``result_compat_differences``: each cell (table, key, column) whose default and release values
    differ, both values, ``difference`` = release − default, and the ``choice`` of the release
    that changes the cell when applied alone (``+``-joined; ``'combined'`` when none does alone;
    the choices: :data:`cueshift.designs.stylisticbias.compat.CHOICES`)."""

    table: str
    key: str
    column: str
    default_value: float | None = pa.Field(nullable=True)
    release_value: float | None = pa.Field(nullable=True)
    difference: float | None = pa.Field(nullable=True)
    choice: str


def compat_results(tables: dict[str, type[ResultModel]]) -> dict[str, type[ResultModel]]:
    """The replication-mode tables: ``release_<name>`` with the schema of ``<name>`` for each of
    :data:`RELEASE_TABLES`, and ``compat_differences``."""
    return {
        **{f"release_{name}": tables[name] for name in RELEASE_TABLES},
        "compat_differences": CompatDifferencesSchema,
    }


#: The default tables the release mode reproduces (``result_release_<name>``).
RELEASE_TABLES = ("table5", "table2_vs", "table3", "table11")

"""The :class:`Source` protocol: what a figure or a text reads (the open report)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import polars as pl


class Source(Protocol):
    """What a figure or a text reads: the report's model subset and its query methods."""

    @property
    def models(self) -> Sequence[str]: ...

    def query(self, sql: str, params: Mapping[str, object] | None = None) -> pl.DataFrame: ...

    def has(self, *names: str) -> bool: ...

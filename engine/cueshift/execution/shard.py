"""Shards of a run: ``--shard K/N`` keeps the units whose stable hash falls in shard K and writes to its
own database file (:func:`cueshift.store.merge_databases` joins the files)."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.errors import ConfigError

if TYPE_CHECKING:
    import polars as pl


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int = 1
    count: int = 1

    @classmethod
    def parse(cls, text: str) -> Shard:
        try:
            index_text, count_text = text.split("/")
            shard = cls(int(index_text), int(count_text))
        except ValueError:
            raise ConfigError(f"--shard {text!r}: expected K/N, e.g. 2/4") from None
        if not 1 <= shard.index <= shard.count:
            raise ConfigError(f"--shard {text!r}: K must be between 1 and N")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, values: pl.Series) -> pl.Series:
        """Stable assignment of values to shards (crc32, independent of library versions)."""
        import polars as pl  # here: the command line imports shards before any frame is read

        buckets = [zlib.crc32(str(v).encode()) % self.count for v in values.to_list()]
        return pl.Series(buckets, dtype=pl.Int64) == (self.index - 1)

    def keep(self, frame: pl.DataFrame, column: str) -> pl.DataFrame:
        """The rows of ``frame`` whose ``column`` value this shard owns (all rows when unsharded)."""
        if self.count == 1 or frame.height == 0:
            return frame
        return frame.filter(self.owns(frame[column]))

    def database_path(self, base: Path) -> Path:
        if self.count == 1:
            return base
        return base.with_name(f"{base.stem}.shard-{self.index}-of-{self.count}{base.suffix}")


#: Every unit in one database file (no ``--shard``).
UNSHARDED = Shard()

__all__ = ["UNSHARDED", "Shard"]

"""Image-grouped work units: the pending units cut into pieces that never split an image's prompts.

A backend that reuses an image's prefix (the transformers backend computes the image and the
instruction once per image, then every prompt of that image on copies of its cache) does
that work once per image only if all the image's prompts reach it together. The Ray executor
therefore hands out **work units**: consecutive pending rows holding whole groups (all
rows of an image; for two-image trials, of a left image), about ``rows`` rows each.

The pending rows list a group's rows together (designs list them image by image), so a group is a
run of equal values; pending rows whose groups are scattered still works, each run counting as a
group of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import polars as pl

from cueshift.designs.work import UnitKind

#: the columns that name an image's group, in order of preference
GROUP_COLUMNS: tuple[str, ...] = ("image_id", "left_image_id")


def group_column(kind: UnitKind, pending: pl.DataFrame) -> str | None:
    """The column whose runs are the groups of ``pending``: an image column, else the kind's
    ``shard_by`` when ``pending`` has it, else None (rows may be split anywhere)."""
    for column in (*GROUP_COLUMNS, kind.shard_by):
        if column in pending.columns:
            return column
    return None


def group_ends(pending: pl.DataFrame, column: str | None, limit: int) -> npt.NDArray[np.int64]:
    """Where the runs of equal ``column`` values among the first ``limit`` rows of ``pending`` end
    (row indices, ascending, the last ``limit``); without a column every row is a run of its own.

    >>> group_ends(pl.DataFrame({"image_id": ["a", "a", "b", "b", "c"]}), "image_id", 4).tolist()
    [2, 4]
    """
    if column is None or limit == 0:
        return np.arange(1, limit + 1, dtype=np.int64)
    head = pending.slice(0, limit)
    runs = head.select(pl.col(column).rle_id().alias("run"))["run"].to_numpy()
    return np.append(np.flatnonzero(np.diff(runs)) + 1, limit).astype(np.int64)


@dataclass
class UnitCutter:
    """Cuts consecutive work units off the pending rows, whole groups only.

    Parameters
    ----------
    pending
        The rows to ask (not stored yet), in the design's order.
    column
        The group column (see :func:`group_column`); None: every row is a group of its own.
    budget
        Ask at most this many rows in all (the last unit may then end inside a group).
    """

    pending: pl.DataFrame
    column: str | None
    budget: int

    def __post_init__(self) -> None:
        limit = min(self.pending.height, max(self.budget, 0))
        self._ends = group_ends(self.pending, self.column, limit)
        self._limit = limit
        self.start = 0

    @property
    def done(self) -> bool:
        """No rows left to cut."""
        return self.start >= self._limit

    def next(self, rows: int) -> pl.DataFrame:
        """The next unit: whole groups from where the last one ended, at least ``rows`` rows
        (or what is left), ending at the first group end at or after ``start + rows``."""
        if self.done:
            raise StopIteration("no rows left")
        wanted = self.start + max(rows, 1)
        at = int(np.searchsorted(self._ends, wanted, side="left"))
        end = int(self._ends[min(at, len(self._ends) - 1)])
        unit = self.pending.slice(self.start, end - self.start)
        self.start = end
        return unit


__all__ = ["GROUP_COLUMNS", "UnitCutter", "group_column", "group_ends"]

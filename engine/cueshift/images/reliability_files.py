"""Published reliabilities in either shape: ``cueshift import omi --reliability FILE`` and a study's
``[probe] reliability`` read them alike.

* **The published IRR file as it is**: columns ``attribute, human_irr``, each value the
  attribute's inter-rater reliability in percent (0-100). Read here and divided by 100.
* **cueshift's own shape**: columns ``attribute, reliability`` on the -1..1 scale, or on 0-100
  (then converted; :func:`cueshift.images.human_ratings.reliability_on_percent_scale`).

Either way cueshift stores ``attribute, reliability`` on the -1..1 scale (``reliability.csv``).
A bad row is one line naming the file, the row and the field.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Collection
from pathlib import Path

import polars as pl

from cueshift.errors import CueshiftError
from cueshift.images._rating_csv import csv_reader, csv_rows
from cueshift.images.human_ratings import read_reliability, reliability_on_percent_scale

#: The column of the published IRR file (percent).
IRR_COLUMN = "human_irr"
IRR_COLUMNS = ("attribute", IRR_COLUMN)


def is_published_irr(path: Path) -> bool:
    """Whether the file's header names the published IRR column ``human_irr``."""
    try:
        header = [h.strip() for h in next(csv_reader(Path(path)), [])]
    except csv.Error as exc:
        raise CueshiftError(f"{path}: unparseable CSV: {exc}") from None
    return IRR_COLUMN in header


def read_published_irr(path: Path, *, attributes: Collection[str] | None = None) -> pl.DataFrame:
    """``attribute, reliability`` (0-1) from the published IRR file (``attribute, human_irr`` in percent).

    Raises
    ------
    CueshiftError
        One line naming the file, row and field: a missing or unknown column, an empty or
        unknown attribute, an attribute that repeats, a value that is no number or outside 0-100,
        or a file whose every value is at most 1 (a 0-1 file under the percent column).
    """
    path = Path(path)
    values: dict[str, tuple[int, float]] = {}
    for row in csv_rows(path, IRR_COLUMNS):
        number, attribute, raw = int(row["__row"]), row["attribute"], row[IRR_COLUMN]
        line = f"{path}: row {number}: field"
        if not attribute:
            raise CueshiftError(f"{line} 'attribute': empty")
        if attributes is not None and attribute not in attributes:
            raise CueshiftError(f"{line} 'attribute': unknown attribute {attribute!r}")
        if attribute in values:
            raise CueshiftError(f"{line} 'attribute': {attribute!r} repeats row {values[attribute][0]}")
        try:
            value = float(raw)
        except ValueError:
            raise CueshiftError(f"{line} '{IRR_COLUMN}': {raw!r} is not a number") from None
        if not (math.isfinite(value) and 0.0 <= value <= 100.0):
            raise CueshiftError(f"{line} '{IRR_COLUMN}': {raw} is outside 0 to 100 (percent)")
        values[attribute] = (number, value)
    if not values:
        raise CueshiftError(f"{path}: no reliabilities")
    if max(v for _, v in values.values()) <= 1.0:
        first = min(n for n, _ in values.values())
        raise CueshiftError(
            f"{path}: row {first}: field '{IRR_COLUMN}': every value is at most 1, but {IRR_COLUMN} is "
            "in percent (0-100); name the column 'reliability' for values on the -1..1 scale"
        )
    return pl.DataFrame(
        {"attribute": list(values), "reliability": [v / 100.0 for _, v in values.values()]},
        schema={"attribute": pl.String, "reliability": pl.Float64},
    )


def read_study_reliability(path: Path, *, attributes: Collection[str] | None = None) -> pl.DataFrame:
    """A study's ``[probe] reliability``: the published IRR file (percent, by its column name), or
    ``attribute, reliability`` on -1..1 only: a study's own file on 0-100 is refused, not converted
    (docs/decisions.md#d6; ``import omi --reliability`` converts it, saying so)."""
    path = Path(path)
    if is_published_irr(path):
        return read_published_irr(path, attributes=attributes)
    return read_reliability(path, attributes=attributes)


def read_published_reliability(
    path: Path, *, attributes: Collection[str] | None = None
) -> tuple[pl.DataFrame, bool]:
    """The published reliabilities in either shape (module docstring), and whether they were
    converted from percent."""
    path = Path(path)
    if is_published_irr(path):
        return read_published_irr(path, attributes=attributes), True
    converted = reliability_on_percent_scale(path)
    return read_reliability(path, attributes=attributes, percent=converted), converted

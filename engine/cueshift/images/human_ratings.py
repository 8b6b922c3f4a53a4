"""Human ratings in, checked strictly: long form (``stimulus, attribute, rater, rating``),
per-stimulus means (``stimulus, attribute, mean[, n_raters]``), published reliabilities
(``attribute, reliability``) and pairwise stimuli (``image_id, cohort, stimulus_group``).

Every problem is a one-line :class:`~cueshift.errors.CueshiftError` naming the file, the
data row (counted from 1; the header is not a row) and the field (the CSV reading:
:mod:`._rating_csv`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from pathlib import Path

import polars as pl

from cueshift.errors import CueshiftError
from cueshift.images._rating_csv import _number, _text, csv_rows

LONG_COLUMNS = ("stimulus", "attribute", "rater", "rating")
MEAN_COLUMNS = ("stimulus", "attribute", "mean")
STIMULUS_COLUMNS = ("image_id", "cohort", "stimulus_group")


def read_long_ratings(
    path: Path,
    *,
    stimuli: Collection[str],
    attributes: Collection[str] | None = None,
    low: float | None = None,
    high: float | None = None,
) -> pl.DataFrame:
    """Read long-form human ratings; each (stimulus, attribute, rater) at most once.

    ``stimuli`` are the image ids of the study (a rating of anything else is an error);
    ``attributes``, when given, the attributes allowed; ``low``/``high`` the rating scale.
    """
    path = Path(path)
    records: list[tuple[object, ...]] = []
    seen: dict[object, str] = {}
    for row in csv_rows(path, LONG_COLUMNS):
        stimulus = _text(path, row, "stimulus", stimuli, "stimulus (not an image of the study)")
        attribute = _text(path, row, "attribute", attributes, "attribute")
        rater = _text(path, row, "rater")
        rating = _number(path, row, "rating")
        if (low is not None and rating < low) or (high is not None and rating > high):
            raise CueshiftError(
                f"{path}: row {row['__row']}: field 'rating': {rating:g} is outside {low:g}-{high:g}"
            )
        key = (stimulus, attribute, rater)
        if key in seen:
            raise CueshiftError(
                f"{path}: row {row['__row']}: rater {rater!r} rates {stimulus!r} on {attribute!r} "
                f"twice (first in row {seen[key]})"
            )
        seen[key] = row["__row"]
        records.append(key + (rating,))
    if not records:
        raise CueshiftError(f"{path}: no ratings")
    return pl.DataFrame(
        records,
        schema={"stimulus": pl.String, "attribute": pl.String, "rater": pl.String, "rating": pl.Float64},
        orient="row",
    )


def read_means(
    path: Path, *, stimuli: Collection[str], attributes: Collection[str] | None = None
) -> pl.DataFrame:
    """Read per-stimulus human means (``stimulus, attribute, mean[, n_raters]``) as
    ``human_rating_mean`` rows."""
    path = Path(path)
    records: list[tuple[object, ...]] = []
    seen: dict[object, str] = {}
    for row in csv_rows(path, MEAN_COLUMNS, ("n_raters",)):
        stimulus = _text(path, row, "stimulus", stimuli, "stimulus (not an image of the study)")
        attribute = _text(path, row, "attribute", attributes, "attribute")
        key = (stimulus, attribute)
        if key in seen:
            raise CueshiftError(
                f"{path}: row {row['__row']}: {stimulus!r} x {attribute!r} repeats row {seen[key]}"
            )
        seen[key] = row["__row"]
        n_raters = None
        if row.get("n_raters"):
            count = _number(path, row, "n_raters")
            if count < 1 or count != int(count):
                raise CueshiftError(
                    f"{path}: row {row['__row']}: field 'n_raters': {row['n_raters']!r} is not a "
                    "positive integer"
                )
            n_raters = int(count)
        records.append((stimulus, attribute, _number(path, row, "mean"), n_raters, path.name))
    if not records:
        raise CueshiftError(f"{path}: no means")
    return pl.DataFrame(
        records,
        schema={
            "image_id": pl.String,
            "attribute": pl.String,
            "mean": pl.Float64,
            "n_raters": pl.Int64,
            "source": pl.String,
        },
        orient="row",
    )


def read_reliability(
    path: Path, *, attributes: Collection[str] | None = None, percent: bool = False
) -> pl.DataFrame:
    """Read published reliabilities (``attribute, reliability``), each attribute once.

    Reliabilities are correlations, on the scale -1 to 1. A value outside it is refused with a
    pointer to the likely cause, a 0-100 (percent) scale, unless ``percent`` is set: then every
    value must lie in 0-100 and is divided by 100 (``cueshift import omi --reliability`` does
    this when the file is on that scale, and says so).
    """
    path = Path(path)
    records: dict[str, float] = {}
    for row in csv_rows(path, ("attribute", "reliability")):
        attribute = _text(path, row, "attribute", attributes, "attribute")
        if attribute in records:
            raise CueshiftError(f"{path}: row {row['__row']}: attribute {attribute!r} repeats")
        value = _number(path, row, "reliability")
        low, high = (0.0, 100.0) if percent else (-1.0, 1.0)
        if not low <= value <= high:
            hint = (
                "; it looks like a 0-100 scale: divide the values by 100"
                if not percent and 1.0 < value <= 100.0
                else ""
            )
            raise CueshiftError(
                f"{path}: row {row['__row']}: field 'reliability': {value:g} is outside "
                f"{low:g} to {high:g}{hint}"
            )
        records[attribute] = value / 100.0 if percent else value
    return pl.DataFrame(
        {"attribute": list(records), "reliability": list(records.values())},
        schema={"attribute": pl.String, "reliability": pl.Float64},
    )


def reliability_on_percent_scale(path: Path) -> bool:
    """Whether a reliability file is on a 0-100 scale: some value above 1, none outside 0-100.

    Only the scale is decided here; :func:`read_reliability` checks every row. A file that mixes
    the scales is ambiguous and refused, naming a row of each: on 0-100 a value in (0, 1] would
    be a reliability below 1 %, far more likely a 0-1 value in the wrong file.
    """
    path = Path(path)
    values: list[tuple[str, float]] = []
    for row in csv_rows(path, ("attribute", "reliability")):
        try:
            values.append((row["__row"], float(row["reliability"])))
        except ValueError:
            continue  # read_reliability names the row
    above = next(((r, v) for r, v in values if v > 1.0), None)
    if above is None or not all(0.0 <= v <= 100.0 for _, v in values):
        return False
    unit = next(((r, v) for r, v in values if 0.0 < v <= 1.0), None)
    if unit is not None:
        raise CueshiftError(
            f"{path}: row {unit[0]}: field 'reliability': {unit[1]:g} reads as 0-1 but row {above[0]} "
            f"({above[1]:g}) is on 0-100; put every reliability on one scale"
        )
    return True


def read_stimuli(path: Path, *, images: Collection[str]) -> pl.DataFrame:
    """Read the pairwise stimuli (``image_id, cohort, stimulus_group``) as ``stimulus`` rows."""
    path = Path(path)
    records: list[tuple[object, ...]] = []
    seen: dict[object, str] = {}
    for row in csv_rows(path, STIMULUS_COLUMNS):
        image_id = _text(path, row, "image_id", images, "image (not in the image set)")
        if image_id in seen:
            raise CueshiftError(
                f"{path}: row {row['__row']}: field 'image_id': {image_id!r} repeats row {seen[image_id]}"
            )
        seen[image_id] = row["__row"]
        records.append((image_id, _text(path, row, "cohort"), _text(path, row, "stimulus_group")))
    if not records:
        raise CueshiftError(f"{path}: no stimuli")
    return pl.DataFrame(
        records,
        schema={"image_id": pl.String, "cohort": pl.String, "stimulus_group": pl.String},
        orient="row",
    )


def rating_rows(long: pl.DataFrame) -> pl.DataFrame:
    """Long human ratings as rows of the ``rating`` table (``rater_kind = 'human'``, seed 0)."""
    return long.select(
        pl.col("rater").alias("rater_id"),
        pl.lit("human").alias("rater_kind"),
        pl.col("stimulus").alias("image_id"),
        "attribute",
        pl.lit(0, dtype=pl.Int32).alias("seed"),
        pl.col("rating").cast(pl.Float64),
        pl.lit(None, dtype=pl.String).alias("response_text"),
        pl.lit(dt.datetime.now()).cast(pl.Datetime("us")).alias("created_at"),
    )

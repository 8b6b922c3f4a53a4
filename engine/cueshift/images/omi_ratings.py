"""OMI's ``attribute_ratings.csv`` read as long human ratings with pseudo-raters.

The file has one row per rating: ``stimulus, attribute, rating, rating_type`` and no rater id.
cueshift's reliability statistics need raters, so every stimulus × attribute cell gets
**pseudo-raters**: its ratings are put in a random order (seeded) and the k-th rating of the
cell is given to rater ``p<k>``. A random split of the pseudo-raters into two halves (the
split-half reliability, :func:`cueshift.stats.split_half_reliability`) then splits every cell's
ratings at random into two halves, which is the split-half of Peterson et al. (2022) up to
one difference: the same person's ratings of different faces may land in different halves.
Krippendorff's α uses only the values within each cell, so it does not depend on rater ids.

``rating_type`` is kept per rating: a file with a single type is used whole; a file with
several is refused unless the types to keep are named (or ``all`` of them, pooled), so two
kinds of measurement are never mixed silently. Ratings of stimuli that have no image
(OMI's ratings go beyond the 1,004 images) are counted and dropped, not fatal.
"""

from __future__ import annotations

import csv
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.images.omi import NUMERIC_ID

COLUMNS: tuple[str, ...] = ("stimulus", "attribute", "rating", "rating_type")
ALL_TYPES = "all"


@dataclass(frozen=True)
class OmiRatings:
    """The ratings kept and what was left out.

    Attributes
    ----------
    long
        ``stimulus, attribute, rater, rating`` (pseudo-raters ``p001`` …), sorted.
    n_read
        Data rows in the file.
    type_counts
        Ratings per ``rating_type`` in the file.
    types_kept
        The rating types kept.
    n_other_types
        Ratings left out because of their type.
    out_of_set
        ``stimulus -> ratings`` of stimuli without an image (left out).
    unrated_images
        Images without any kept rating.
    """

    long: pl.DataFrame
    n_read: int
    type_counts: dict[str, int]
    types_kept: tuple[str, ...]
    n_other_types: int
    out_of_set: dict[str, int]
    unrated_images: tuple[str, ...]


def _attribute_key(text: str) -> str:
    """Lenient attribute spelling: case, spaces and underscores (``'Skin color'`` -> ``skin-color``)."""
    return "-".join(text.replace("_", " ").split()).casefold()


def _header(path: Path) -> list[str]:
    """The header's column names, checked against :data:`COLUMNS` before the rows are parsed."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            header = [name.strip() for name in next(csv.reader(handle), [])]
    except UnicodeDecodeError as exc:
        raise CueshiftError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    for name in COLUMNS:
        if name not in header:
            raise CueshiftError(
                f"{path}: field '{name}': required column is missing (have {', '.join(header)})"
            )
    for name in header:
        if name not in COLUMNS:
            raise CueshiftError(f"{path}: field '{name}': unknown column; allowed: {', '.join(COLUMNS)}")
    return header


def _ragged_row(path: Path, width: int) -> str:
    """`` row <n>`` of the first data row whose field count differs from the header's ('' if none)."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        for number, record in enumerate(csv.reader(handle)):
            if number and record and len(record) != width:
                return f" row {number}: {len(record)} fields, the header has {width};"
    return ""


def _read(path: Path) -> pl.DataFrame:
    if not path.is_file():
        raise CueshiftError(f"{path}: no such file (the OMI layout has attribute_ratings.csv)")
    header = _header(path)
    try:
        frame = pl.read_csv(path, infer_schema=False, encoding="utf8", raise_if_empty=True)
    except (pl.exceptions.PolarsError, OSError) as exc:
        where = _ragged_row(path, len(header))
        raise CueshiftError(f"{path}:{where} unparseable CSV: {str(exc).splitlines()[0]}") from None
    frame = frame.rename(dict(zip(frame.columns, header, strict=True)))
    return frame.select(pl.col(c).str.strip_chars() for c in COLUMNS).with_row_index("__row", offset=1)


def _first_bad(path: Path, frame: pl.DataFrame, bad: pl.Expr, field: str, message: str) -> None:
    """Raise naming the first row where ``bad`` holds (rows count data rows from 1)."""
    hits = frame.filter(bad)
    if hits.height:
        row = hits.row(0, named=True)
        more = f" (+{hits.height - 1} more rows)" if hits.height > 1 else ""
        raise CueshiftError(f"{path}: row {row['__row']}: field '{field}': {message.format(**row)}{more}")


def _checked(path: Path, frame: pl.DataFrame, attributes: Collection[str]) -> pl.DataFrame:
    """Non-empty cells, known attributes (lenient spelling), finite numeric ratings."""
    for name in ("stimulus", "attribute", "rating"):
        _first_bad(path, frame, pl.col(name).fill_null("") == "", name, "empty")
    known = {_attribute_key(a): a for a in attributes}
    spelled = frame["attribute"].unique().to_list()
    mapping = {raw: known.get(_attribute_key(raw)) for raw in spelled}
    unknown = [raw for raw, attribute in mapping.items() if attribute is None]
    if unknown:
        _first_bad(
            path, frame, pl.col("attribute").is_in(unknown), "attribute",
            "unknown attribute {attribute!r}; OMI's 34 are " + ", ".join(sorted(attributes)),
        )  # fmt: skip
    frame = frame.with_columns(
        pl.col("attribute").replace_strict(mapping, return_dtype=pl.String),
        pl.col("rating").cast(pl.Float64, strict=False).alias("__value"),
        pl.col("rating_type").fill_null(""),
    )
    _first_bad(path, frame, pl.col("__value").is_null(), "rating", "{rating!r} is not a number")
    _first_bad(path, frame, ~pl.col("__value").is_finite(), "rating", "{rating!r} is not a finite number")
    return frame.drop("rating").rename({"__value": "rating"})


def _kept_types(path: Path, counts: Mapping[str, int], wanted: Collection[str] | None) -> tuple[str, ...]:
    listing = ", ".join(f"{t or '<empty>'!r} ({n:,})" for t, n in counts.items())
    if not wanted:
        if len(counts) > 1:
            raise CueshiftError(
                f"{path}: field 'rating_type': the file mixes {len(counts)} rating types ({listing}); "
                "name the ones to keep (--rating-type TYPE, repeatable) "
                f"or pool them (--rating-type {ALL_TYPES})"
            )
        return tuple(counts)
    if ALL_TYPES in wanted:
        return tuple(counts)
    missing = [t for t in wanted if t not in counts]
    if missing:
        raise CueshiftError(
            f"{path}: field 'rating_type': no ratings of type {missing[0]!r}; found {listing}"
        )
    return tuple(t for t in counts if t in wanted)


def pseudo_raters(ratings: pl.DataFrame, seed: int) -> pl.DataFrame:
    """Give each stimulus × attribute cell's ratings the raters ``p001``, ``p002``, … in a random order.

    The cells are first put in a canonical order (stimulus, attribute, rating), so the raters
    depend on ``seed`` and the set of ratings only, not on the file's row order.
    """
    ordered = ratings.sort(["stimulus", "attribute", "rating"], maintain_order=True)
    draws = np.random.default_rng(seed).random(ordered.height)
    width = max(3, len(str(ordered.group_by("stimulus", "attribute").len()["len"].max() or 0)))
    return (
        ordered.with_columns(pl.Series("__draw", draws))
        .with_columns(
            pl.col("__draw").rank("ordinal").over("stimulus", "attribute").cast(pl.Int64).alias("__k")
        )
        .select(
            "stimulus",
            "attribute",
            pl.format("p{}", pl.col("__k").cast(pl.String).str.zfill(width)).alias("rater"),
            "rating",
        )
        .sort("stimulus", "attribute", "rater")
    )


def read_omi_ratings(
    path: Path,
    *,
    stimuli: Collection[str],
    attributes: Collection[str],
    rating_types: Collection[str] | None = None,
    seed: int = 0,
) -> OmiRatings:
    """Read ``attribute_ratings.csv`` (long form, no rater id) and assign pseudo-raters.

    Parameters
    ----------
    path
        The ratings file.
    stimuli
        Stimulus ids that have an image (:func:`cueshift.images.omi.omi_image_files`); ratings
        of any other stimulus are counted in ``out_of_set`` and left out.
    attributes
        The attribute ids (the ``omi-34`` scenarios); other spellings of them are accepted
        (case, spaces, underscores), unknown attributes are an error.
    rating_types
        The ``rating_type`` values to keep; ``None`` keeps the only type of a one-type file;
        ``{"all"}`` pools every type.
    seed
        Seed of the pseudo-rater order.

    Raises
    ------
    CueshiftError
        One line naming the file, the data row and the field.
    """
    path = Path(path)
    frame = _checked(path, _read(path), attributes)
    counts = dict(frame.group_by("rating_type").len().sort("rating_type").iter_rows())
    kept_types = _kept_types(path, counts, rating_types)
    kept = frame.filter(pl.col("rating_type").is_in(list(kept_types)))
    numeric = pl.col("stimulus").str.contains(NUMERIC_ID)
    canonical = pl.col("stimulus").str.strip_chars_start("0").replace("", "0")
    kept = kept.with_columns(pl.when(numeric).then(canonical).otherwise(pl.col("stimulus")).alias("stimulus"))
    known = set(stimuli)
    outside = kept.filter(~pl.col("stimulus").is_in(list(known)))
    out_of_set = dict(outside.group_by("stimulus").len().sort("stimulus").iter_rows())
    inside = kept.filter(pl.col("stimulus").is_in(list(known)))
    if inside.height == 0:
        raise CueshiftError(f"{path}: no rating of any stimulus that has an image (images/<stimulus>.jpg)")
    long = pseudo_raters(inside.select("stimulus", "attribute", "rating"), seed)
    rated = set(long["stimulus"].unique().to_list())
    return OmiRatings(
        long=long,
        n_read=frame.height,
        type_counts=counts,
        types_kept=kept_types,
        n_other_types=frame.height - kept.height,
        out_of_set=out_of_set,
        unrated_images=tuple(s for s in stimuli if s not in rated),
    )

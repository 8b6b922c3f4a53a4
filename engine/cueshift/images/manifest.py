"""Generic manifest: any image set described by one CSV or Parquet file, one row per image.

Columns
-------
Required (a value may be empty where the column says so):

==================  ==========================================================================
image_id            unique, non-empty id of the image
face_id             the person held fixed; every row of a face must state the same
                    demographics and source (``identity_id``, its name before cueshift's
                    schema version 5, is still read)
path                image file relative to the manifest's folder (no absolute paths, no ``..``,
                    no symlink leaving the folder)
role                ``base`` or ``variation``
base_image_id       variations: the ``image_id`` of their base (a ``base`` row of the same
                    face); empty for bases
feature_key         variations: e.g. ``eyewear``; empty for bases
variation_value     variations: e.g. ``Sunglasses``; empty for bases
age, gender,        demographic labels (may be empty); Table 7 spellings are matched
ethnicity,          case-insensitively, other labels are kept as written
body_type
==================  ==========================================================================

Optional:

==================  ==========================================================================
variation_category  display category; default: the FEATURES category of ``feature_key``, else
                    the key itself
framing             default ``body`` for ``fashion_style``, ``face`` otherwise
source              data set the face comes from; default: the manifest's file stem
generator, model,   provenance of a set ``cueshift build`` made (kept as written, not used)
prompt, seed,
tries, verdict
==================  ==========================================================================

Any other column is an error (a misspelt column would otherwise be lost silently).
Row numbers in error messages count data rows from 1 (the CSV header is not a row).
See ``docs/manifest.md`` for an example.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import polars as pl

from cueshift.images._assemble import FaceRecord, ImageRecord, assemble
from cueshift.images._files import Location, clean_relative_path, input_error
from cueshift.images.base import ImageSet
from cueshift.images.labels import DEMOGRAPHIC_FIELDS, normalize_demographic, normalize_variation_value
from cueshift.study.variations import VariationFilter

REQUIRED_COLUMNS: tuple[str, ...] = (
    "image_id", "face_id", "path", "role", "base_image_id", "feature_key", "variation_value",
    "age", "gender", "ethnicity", "body_type",
)  # fmt: skip
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "variation_category", "framing", "source",
    # provenance of a set cueshift build made (read, not used): generator, prompt, seed, tries, verdict
    "generator", "model", "prompt", "seed", "tries", "verdict",
)  # fmt: skip
ROLES: tuple[str, ...] = ("base", "variation")
VARIATION_ONLY: tuple[str, ...] = ("base_image_id", "feature_key", "variation_value")
#: Columns under an earlier name, still read: earlier name -> current name.
FORMER_COLUMNS: dict[str, str] = {"identity_id": "face_id"}


def _lint_csv(path: Path) -> None:
    """Check the CSV structure with the csv module, which can name the offending row.

    Polars pads short rows with nulls and reports parse errors without a row; this pass
    refuses non-UTF-8 text, a missing header, broken quoting and rows whose field count
    differs from the header's. Records are counted like polars counts rows.
    """
    where = Location(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise input_error(where, None, f"unparseable CSV: not UTF-8 text (byte {exc.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    row = 0
    try:
        header = next(reader, None)
        if not header:
            raise input_error(where, None, "unparseable CSV: no header row")
        for record in reader:
            row += 1
            if record and len(record) != len(header):
                raise input_error(
                    Location(path, row),
                    None,
                    f"unparseable CSV: {len(record)} fields, the header has {len(header)}",
                )
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise input_error(Location(path, row + 1), None, _TOO_LONG) from None
        raise input_error(Location(path, row + 1), None, f"unparseable CSV: {exc}") from None


#: The longest manifest cell, CSV and Parquet alike: the csv module's own field limit.
MAX_CELL_CHARS = csv.field_size_limit()
_TOO_LONG = f"a cell longer than {MAX_CELL_CHARS:,} characters (the limit of CSV and Parquet manifests)"


def _check_cell_sizes(frame: pl.DataFrame, path: Path) -> None:
    """Refuse a cell longer than :data:`MAX_CELL_CHARS`, naming its row and column."""
    for name in frame.columns:
        too_long = (frame[name].str.len_chars() > MAX_CELL_CHARS).arg_true()
        if too_long.len():
            raise input_error(Location(path, int(too_long[0]) + 1), name, _TOO_LONG)


def read_manifest_table(path: Path) -> pl.DataFrame:
    """The manifest as a frame of nullable strings, header names stripped, columns checked."""
    path = Path(path)
    where = Location(path)
    if not path.is_file():
        raise input_error(where, None, "no such manifest file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            _lint_csv(path)
            frame = pl.read_csv(path, infer_schema=False, encoding="utf8")
        elif suffix in (".parquet", ".pq"):
            frame = pl.read_parquet(path)
        else:
            raise input_error(where, None, f"unsupported manifest format {suffix!r}; use .csv or .parquet")
    except pl.exceptions.PolarsError as exc:
        raise input_error(where, None, f"unreadable manifest: {str(exc).splitlines()[0]}") from None
    except OSError as exc:  # pyarrow / polars I/O errors on a corrupt Parquet file
        raise input_error(
            where,
            None,
            f"unreadable manifest: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
        ) from None
    names = [name.strip().lstrip("\ufeff") for name in frame.columns]
    names = [FORMER_COLUMNS.get(name, name) for name in names]
    repeated = next((name for name in names if names.count(name) > 1), None)
    if repeated is not None:
        raise input_error(where, repeated, "the column appears twice in the header")
    frame = frame.rename(dict(zip(frame.columns, names, strict=True)))
    for name in REQUIRED_COLUMNS:
        if name not in frame.columns:
            raise input_error(where, name, "required column is missing")
    for name in frame.columns:
        if name not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS:
            raise input_error(
                where, name, f"unknown column; allowed: {', '.join(REQUIRED_COLUMNS + OPTIONAL_COLUMNS)}"
            )
        dtype = frame.schema[name]
        if not (dtype == pl.String or dtype.is_numeric() or dtype == pl.Boolean or dtype == pl.Null):
            raise input_error(where, name, f"column of type {dtype} must hold text")
    frame = frame.cast(dict.fromkeys(frame.columns, pl.String))
    _check_cell_sizes(frame, path)
    return frame


def _text(value: str | None) -> str | None:
    """Stripped cell text; blank cells are None."""
    return (value.strip() or None) if value is not None else None


def _row_records(row: dict[str, str | None], where: Location, source: str) -> tuple[FaceRecord, ImageRecord]:
    """Check one manifest row and turn it into its face and image records."""
    cells = {name: _text(value) for name, value in row.items()}
    for name in ("image_id", "face_id", "path", "role"):
        if cells[name] is None:
            raise input_error(where, name, "empty; every row needs image_id, face_id, path and role")
    role = cells["role"]
    if role not in ROLES:
        raise input_error(where, "role", f"unknown role {role!r}; expected 'base' or 'variation'")
    for name in VARIATION_ONLY:
        if role == "base" and cells[name] is not None:
            raise input_error(where, name, f"must be empty for a base image (got {cells[name]!r})")
        if role == "variation" and cells[name] is None:
            raise input_error(
                where, name, "empty; a variation needs base_image_id, feature_key and variation_value"
            )
    feature_key, value = cells["feature_key"], cells["variation_value"]
    face = FaceRecord(
        face_id=str(cells["face_id"]),
        source=cells.get("source") or source,
        where=where,
        **{name: normalize_demographic(name, cells[name]) for name in DEMOGRAPHIC_FIELDS},
    )
    image = ImageRecord(
        image_id=str(cells["image_id"]),
        face_id=str(cells["face_id"]),
        role="base" if role == "base" else "variation",
        path=clean_relative_path(str(cells["path"]), where, "path"),
        where=where,
        base_image_id=cells["base_image_id"],
        feature_key=feature_key,
        variation_value=normalize_variation_value(feature_key, value) if feature_key and value else None,
        variation_category=cells.get("variation_category"),
        framing=cells.get("framing"),
    )
    return face, image


def load_manifest(path: Path, variation_filter: VariationFilter, *, progress: bool = True) -> ImageSet:
    """Load the image set a manifest describes (columns in the module docstring).

    Parameters
    ----------
    path
        ``.csv`` or ``.parquet`` file; image paths are relative to its folder.
    variation_filter
        Fills ``evaluated`` / ``exclusion_reason``.
    progress
        Show a progress bar while hashing and checking the images.

    Raises
    ------
    ImageSetError
        One line naming the file, the 1-based data row and the field.
    """
    path = Path(path)
    frame = read_manifest_table(path)
    faces: list[FaceRecord] = []
    images: list[ImageRecord] = []
    for row_number, row in enumerate(frame.iter_rows(named=True), start=1):
        if all(value is None or not value.strip() for value in row.values()):
            continue  # a blank line
        face, image = _row_records(row, Location(path, row_number), path.stem)
        faces.append(face)
        images.append(image)
    return assemble(path.stem, path.parent, faces, images, variation_filter, progress=progress)

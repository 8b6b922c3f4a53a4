"""From loader records to validated ``face`` / ``image`` frames (one path for every loader).

Order of checks: faces (conflicting demographics), image ids (duplicates), base links,
then the files (path safety, existence, decodability). Nothing is returned unless all pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pandera.errors
import polars as pl

from cueshift.errors import ImageSetError
from cueshift.images._files import (
    FileFacts,
    Location,
    input_error,
    inspect_image,
    progress_bar,
    resolve_inside,
)
from cueshift.images.base import ImageSet
from cueshift.images.labels import DEMOGRAPHIC_FIELDS, default_framing, variation_category
from cueshift.schemas import FaceSchema, ImageSchema
from cueshift.study.variations import VariationFilter

FACE_SCHEMA: dict[str, type[pl.DataType]] = {
    "face_id": pl.String,
    "source": pl.String,
    "age": pl.String,
    "gender": pl.String,
    "ethnicity": pl.String,
    "body_type": pl.String,
    "attributes": pl.String,
}
#: Image columns known before the files are read (listed frames stop here).
LISTED_IMAGE_SCHEMA: dict[str, type[pl.DataType]] = {
    "image_id": pl.String,
    "face_id": pl.String,
    "role": pl.String,
    "base_image_id": pl.String,
    "variation_category": pl.String,
    "feature_key": pl.String,
    "variation_value": pl.String,
    "framing": pl.String,
    "path": pl.String,
    "evaluated": pl.Boolean,
    "exclusion_reason": pl.String,
}
FILE_SCHEMA: dict[str, type[pl.DataType]] = {"sha256": pl.String, "width": pl.Int32, "height": pl.Int32}
IMAGE_COLUMNS: tuple[str, ...] = (
    "image_id", "face_id", "role", "base_image_id", "variation_category", "feature_key",
    "variation_value", "framing", "path", "sha256", "width", "height", "evaluated", "exclusion_reason",
)  # fmt: skip


@dataclass(frozen=True)
class FaceRecord:
    """One face as stated by one source row / metadata file (demographics already normalised)."""

    face_id: str
    source: str
    age: str | None
    gender: str | None
    ethnicity: str | None
    body_type: str | None
    where: Location
    attributes: str | None = None  # JSON text


@dataclass(frozen=True)
class ImageRecord:
    """One image as stated by its source; ``path`` is relative to the image-set root (POSIX)."""

    image_id: str
    face_id: str
    role: Literal["base", "variation"]
    path: str
    where: Location
    base_image_id: str | None = None
    feature_key: str | None = None
    variation_value: str | None = None
    variation_category: str | None = None
    framing: str | None = None
    path_field: str = "path"  # how the source names the image-file field, for error messages


def merge_faces(records: Iterable[FaceRecord]) -> dict[str, FaceRecord]:
    """One record per face; a later record that contradicts an earlier one is an error."""
    merged: dict[str, FaceRecord] = {}
    for record in records:
        first = merged.setdefault(record.face_id, record)
        for field in ("source", *DEMOGRAPHIC_FIELDS, "attributes"):
            mine, theirs = getattr(record, field), getattr(first, field)
            if mine != theirs:
                raise input_error(
                    record.where,
                    field,
                    f"face {record.face_id!r} has {field} {mine!r} here "
                    f"but {theirs!r} in {first.where.short}",
                )
    return merged


def check_images(images: list[ImageRecord], faces: Mapping[str, FaceRecord]) -> None:
    """Unique image ids, known faces, and variations pointing at a base of the same face."""
    by_id: dict[str, ImageRecord] = {}
    for image in images:
        first = by_id.setdefault(image.image_id, image)
        if first is not image:
            raise input_error(
                image.where,
                "image_id",
                f"duplicate image_id {image.image_id!r} (first in {first.where.short})",
            )
        if image.face_id not in faces:
            raise input_error(image.where, "face_id", f"unknown face {image.face_id!r}")
    for image in images:
        if image.role == "base":
            continue
        base = by_id.get(image.base_image_id or "")
        if base is None:
            raise input_error(
                image.where, "base_image_id", f"base image {image.base_image_id!r} is not in the image set"
            )
        if base.role != "base":
            raise input_error(
                image.where, "base_image_id", f"{base.image_id!r} is a variation, not a base image"
            )
        if base.face_id != image.face_id:
            raise input_error(
                image.where,
                "base_image_id",
                f"base image {base.image_id!r} belongs to face {base.face_id!r}, not {image.face_id!r}",
            )


def listed_frames(
    face_records: Iterable[FaceRecord],
    image_records: list[ImageRecord],
    variation_filter: VariationFilter,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Checked face frame and image frame without the file columns (sha256, width, height)."""
    faces = merge_faces(face_records)
    check_images(image_records, faces)
    reasons: dict[tuple[str, str, str | None], str | None] = {}  # the filter is pure: memoise
    columns: dict[str, list[object]] = {name: [] for name in LISTED_IMAGE_SCHEMA}
    for image in image_records:
        reason = None
        if image.role == "variation":
            assert image.feature_key is not None and image.variation_value is not None
            gender = faces[image.face_id].gender
            key = (image.feature_key, image.variation_value, gender)
            if key not in reasons:
                reasons[key] = variation_filter.exclusion_reason(*key)
            reason = reasons[key]
        row = {
            "image_id": image.image_id,
            "face_id": image.face_id,
            "role": image.role,
            "base_image_id": image.base_image_id,
            "variation_category": image.variation_category
            or (variation_category(image.feature_key) if image.feature_key else None),
            "feature_key": image.feature_key,
            "variation_value": image.variation_value,
            "framing": image.framing or default_framing(image.feature_key),
            "path": image.path,
            "evaluated": reason is None,
            "exclusion_reason": reason,
        }
        for name, value in row.items():
            columns[name].append(value)
    face_frame = pl.DataFrame(
        {name: [getattr(r, name) for r in faces.values()] for name in FACE_SCHEMA},
        schema=FACE_SCHEMA,
    )
    return face_frame, pl.DataFrame(columns, schema=LISTED_IMAGE_SCHEMA)


def inspect_files(
    root: Path, image_records: list[ImageRecord], *, progress: bool, description: str = "Checking images"
) -> dict[str, FileFacts]:
    """Path safety, existence and decodability of every image file; facts keyed by image_id."""
    facts: dict[str, FileFacts] = {}
    with progress_bar(progress and len(image_records) > 200) as bar:
        task = bar.add_task(description, total=len(image_records)) if bar else None
        for image in image_records:
            path = resolve_inside(root, image.path, image.where, image.path_field)
            facts[image.image_id] = inspect_image(path, image.path, image.where, image.path_field)
            if bar is not None and task is not None:
                bar.advance(task)
    return facts


def finish(
    name: str,
    root: Path,
    face_frame: pl.DataFrame,
    listed_image_frame: pl.DataFrame,
    facts: Mapping[str, FileFacts],
) -> ImageSet:
    """Attach the file columns, order the columns like the table, validate both frames."""
    ids = listed_image_frame["image_id"].to_list()
    file_frame = pl.DataFrame(
        {
            "sha256": [facts[i].sha256 for i in ids],
            "width": [facts[i].width for i in ids],
            "height": [facts[i].height for i in ids],
        },
        schema=FILE_SCHEMA,
    )
    image_frame = pl.concat([listed_image_frame, file_frame], how="horizontal").select(IMAGE_COLUMNS)
    try:
        FaceSchema.validate(face_frame)
        ImageSchema.validate(image_frame)
    except (pandera.errors.SchemaError, pandera.errors.SchemaErrors) as exc:
        raise ImageSetError(f"{name}: the loaded frames break the table contract: {exc}") from None
    return ImageSet(name=name, root=root.absolute(), face=face_frame, image=image_frame)


def assemble(
    name: str,
    root: Path,
    face_records: Iterable[FaceRecord],
    image_records: list[ImageRecord],
    variation_filter: VariationFilter,
    *,
    progress: bool,
) -> ImageSet:
    """Check the records, read the image files and return the validated image set."""
    if not image_records:
        raise ImageSetError(f"{name}: no images found")
    face_frame, listed = listed_frames(face_records, image_records, variation_filter)
    facts = inspect_files(root, image_records, progress=progress)
    return finish(name, root, face_frame, listed, facts)

"""Importer for the StylisticBias release layout (seed 000): one folder per base face.

Layout
------
The release writes ``output/final_dataset/`` (``root`` may name that folder, ``output/`` or the
checkout holding it). It has one sub-folder per base face; the folder name ``<face>`` is the
identity id (the release names it ``face_<idx>_<YYYYmmdd_HHMMSS>_<uuid8>``). Inside, every
image has a metadata file ``<stem>_metadata.json`` (both spellings are described in
:mod:`cueshift.images.stylisticbias_metadata`)::

    output/final_dataset/
    ├── face_0_20250101_120000_1a2b3c4d/
    │   ├── face_0_20250101_120000_1a2b3c4d.png                        the base (stem = folder)
    │   ├── face_0_20250101_120000_1a2b3c4d_metadata.json
    │   ├── face_0_20250101_120000_1a2b3c4d_face_3_20250101_120501_9f8e7d6c.png     a variation
    │   ├── face_0_20250101_120000_1a2b3c4d_face_3_20250101_120501_9f8e7d6c_metadata.json
    │   ├── face_0_20250101_120000_1a2b3c4d_body_1_20250101_121003_0a1b2c3d.png     full body
    │   └── face_0_20250101_120000_1a2b3c4d_body_1_20250101_121003_0a1b2c3d_metadata.json
    └── ...

``<face>_face_…`` files get ``framing = 'face'``, ``<face>_body_…`` files ``'body'``; the image id
is the stem. The image file is the one ``image_path`` names inside the face folder; when it does
not resolve there (the release records the generating machine's path), the sibling ``<stem>.png``
(or ``.jpg`` / ``.jpeg`` / ``.webp``) is used. The compact spelling's ``image`` / ``file_name``
name the file relative to the face folder and are checked strictly (no ``..``, no symlink out).

A ``croissant.json`` in ``root`` or up to two folders above the face folders is read with
``mlcroissant`` (:mod:`cueshift.images.croissant`); the image set records its name, version and
licence.

Values are read leniently (case, spacing, spaces around ``/``) and mapped to the
FEATURES / Table 7 spelling; the structure (file names, keys, types) is checked strictly.
Demographics of a variation must agree with its base.
"""

from __future__ import annotations

from pathlib import Path

from cueshift.errors import ImageSetError
from cueshift.images._assemble import FaceRecord, ImageRecord, assemble
from cueshift.images._files import Location, clean_relative_path, input_error
from cueshift.images.base import ImageSet
from cueshift.images.croissant import find_croissant, read_croissant
from cueshift.images.labels import DEMOGRAPHIC_FIELDS, normalize_demographic, normalize_variation_value
from cueshift.images.stylisticbias_metadata import (
    IMAGE_EXTENSIONS,
    METADATA_SUFFIX,
    Metadata,
    names_base,
    read_metadata,
    release_image,
    sibling_image,
)
from cueshift.study.variations import VariationFilter

SOURCE = "stylisticbias"

__all__ = ["SOURCE", "Metadata", "load_stylisticbias", "read_face_folder", "read_metadata", "release_root"]


def release_root(root: Path) -> Path:
    """The folder of face folders: ``root/output/final_dataset``, ``root/final_dataset`` or ``root``."""
    root = Path(root)
    for candidate in (root / "output" / "final_dataset", root / "final_dataset"):
        if candidate.is_dir():
            return candidate
    return root


def _image_file(
    face_dir: Path, stem: str, metadata: Metadata, files: list[str], where: Location
) -> tuple[str, str]:
    """(path relative to the release root, the field naming it) of the image a metadata file describes."""
    if metadata.image is not None:
        return clean_relative_path(f"{face_dir.name}/{metadata.image.strip()}", where, "image"), "image"
    field = "image"
    if metadata.image_path is not None:
        field = "image_path"
        named = release_image(face_dir, metadata.image_path)
        if named is not None:
            return named, field
    candidates = sibling_image(face_dir, stem, files)
    if not candidates:
        resolved = (
            f"{metadata.image_path!r} does not resolve in the face folder and " if metadata.image_path else ""
        )
        raise input_error(
            where,
            field,
            f"{resolved}no image file next to it (looked for {stem}{{{','.join(IMAGE_EXTENSIONS)}}})",
        )
    if len(candidates) > 1:
        raise input_error(where, field, f'ambiguous image: {", ".join(candidates)}; name one with "image"')
    return f"{face_dir.name}/{candidates[0]}", field


def _role_of(face: str, stem: str, where: Location) -> tuple[str, str]:
    """(role, framing) from a metadata stem, or an error for a stem outside the naming scheme."""
    if stem == face:
        return "base", "face"
    if stem.startswith(f"{face}_face_"):
        return "variation", "face"
    if stem.startswith(f"{face}_body_"):
        return "variation", "body"
    expected = (
        f"{face}{METADATA_SUFFIX}, {face}_face_<...>{METADATA_SUFFIX} or {face}_body_<...>{METADATA_SUFFIX}"
    )
    raise input_error(where, "file name", f"expected {expected}")


def _variation(role: str, metadata: Metadata, where: Location) -> tuple[str | None, str | None]:
    """(feature_key, value) of a variation's single ``{feature: value}``; (None, None) for a base."""
    variation = metadata.variation or {}
    if role == "base":
        if variation:
            raise input_error(where, "characteristics.variation", "the base image must not name a variation")
        return None, None
    if len(variation) != 1:
        raise input_error(
            where, "characteristics.variation", f"a variation names exactly one feature, not {len(variation)}"
        )
    (raw_key, raw_value), *_ = variation.items()
    if not raw_key.strip() or not isinstance(raw_value, str) or not raw_value.strip():
        raise input_error(
            where, "characteristics.variation", "needs a feature_key and a non-empty string value"
        )
    return raw_key.strip(), normalize_variation_value(raw_key.strip(), raw_value)


def read_face_folder(face_dir: Path) -> tuple[list[FaceRecord], list[ImageRecord]]:
    """Face statements and image records of one face folder (image files not opened yet)."""
    face = face_dir.name
    files = sorted(p.name for p in face_dir.iterdir() if p.is_file())
    base_file = f"{face}{METADATA_SUFFIX}"
    if base_file not in files:
        raise input_error(
            Location(face_dir), "metadata", f"no base metadata file {base_file} in the face folder"
        )
    faces: list[FaceRecord] = []
    images: list[ImageRecord] = []
    base_demographics: dict[str, str | None] = {}
    # the base first: conflicts are reported at the variation, and a variation may inherit its demographics
    for name in sorted((n for n in files if n.endswith(METADATA_SUFFIX)), key=lambda n: n != base_file):
        where = Location(face_dir / name)
        stem = name[: -len(METADATA_SUFFIX)]
        role, framing = _role_of(face, stem, where)
        metadata = read_metadata(face_dir / name)
        demographics = {f: normalize_demographic(f, metadata.demographics[f]) for f in DEMOGRAPHIC_FIELDS}
        if role == "base":
            base_demographics = demographics
        elif metadata.base_name is not None:
            if not names_base(metadata.base_name, face):
                raise input_error(
                    where, "characteristics.base", f"{metadata.base_name!r} does not name the base {face}"
                )
            demographics = base_demographics
        faces.append(FaceRecord(face_id=face, source=SOURCE, where=where, **demographics))
        feature_key, value = _variation(role, metadata, where)
        path, field = _image_file(face_dir, stem, metadata, files, where)
        images.append(
            ImageRecord(
                image_id=stem,
                face_id=face,
                role="base" if role == "base" else "variation",
                path=path,
                where=where,
                base_image_id=None if role == "base" else face,
                feature_key=feature_key,
                variation_value=value,
                framing=framing,
                path_field=field,
            )
        )
    return faces, images


def load_stylisticbias(root: Path, variation_filter: VariationFilter, *, progress: bool = True) -> ImageSet:
    """Load a StylisticBias release folder (layout in the module docstring).

    Parameters
    ----------
    root
        The release's ``final_dataset`` folder, its ``output`` folder or the checkout holding
        it; image paths are relative to the folder of face folders.
    variation_filter
        Fills ``evaluated`` / ``exclusion_reason``.
    progress
        Show a progress bar while hashing and checking the images.

    Raises
    ------
    ImageSetError
        Missing or malformed metadata, missing / undecodable / escaping image files,
        duplicate image ids, demographics that differ between a face's files, an invalid
        ``croissant.json``.
    """
    if not Path(root).is_dir():
        raise ImageSetError(f"{root}: field 'root': no such folder")
    faces_root = release_root(root)
    croissant_file = find_croissant(Path(root), faces_root)
    croissant = read_croissant(croissant_file) if croissant_file is not None else None
    face_dirs = sorted(p for p in faces_root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not face_dirs:
        raise ImageSetError(
            f"{faces_root}: field 'root': no face folders (expected one sub-folder per base face)"
        )
    faces: list[FaceRecord] = []
    images: list[ImageRecord] = []
    for face_dir in face_dirs:
        face_records, face_images = read_face_folder(face_dir)
        faces.extend(face_records)
        images.extend(face_images)
    image_set = assemble(SOURCE, faces_root, faces, images, variation_filter, progress=progress)
    return image_set if croissant is None else image_set.with_croissant(croissant)

"""Importer for the StylisticBias release layout (seed 000): one folder per base face.

Layout
------
``root`` holds one sub-folder per base face; the folder name is the identity id. Inside,
every image has a metadata file ``<stem>_metadata.json`` and sits next to it as
``<stem>.png`` (or ``.jpg`` / ``.jpeg`` / ``.webp``)::

    release/
    ├── face_0001/
    │   ├── face_0001_metadata.json                          base (stem = folder name)
    │   ├── face_0001.png
    │   ├── face_0001_face_eyewear_sunglasses_metadata.json  face-framed variation
    │   ├── face_0001_face_eyewear_sunglasses.png
    │   ├── face_0001_body_fashion_style_casual_metadata.json  full-body variation
    │   └── face_0001_body_fashion_style_casual.jpg
    └── face_0002/
        └── ...

Metadata file::

    {"characteristics": {"age": "young adult", "gender": "female", "ethnicity": "Asian",
                         "body_type": "thin", "variation": {"eyewear": "Sunglasses"}}}

The base has no ``variation`` (or an empty one); a variation has exactly one
``feature_key: value`` pair. An optional top-level ``"image"`` (or ``"file_name"``) names
the image file relative to the face folder. ``<face>_body_…`` files get ``framing =
'body'``, all others ``'face'``. The image id is the stem (``face_0001_face_eyewear_sunglasses``).

Values are read leniently (case, spacing, spaces around ``/``) and mapped to the
FEATURES / Table 7 spelling; the structure (file names, keys, types) is checked strictly.
Demographics of a variation must agree with its base.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cueshift.errors import BenchmarkError
from cueshift.images._assemble import IdentityRecord, ImageRecord, assemble
from cueshift.images._files import Location, clean_relative_path, input_error
from cueshift.images.base import Benchmark
from cueshift.images.labels import DEMOGRAPHIC_FIELDS, normalize_demographic, normalize_variation_value
from cueshift.study.variations import VariationFilter

SOURCE = "stylisticbias"
METADATA_SUFFIX = "_metadata.json"
IMAGE_EXTENSIONS: tuple[str, ...] = (".png", ".jpg", ".jpeg", ".webp")


@dataclass(frozen=True)
class Metadata:
    """A checked metadata file: its ``characteristics`` object and the image it names, if any."""

    characteristics: dict[str, Any]
    image: str | None


def read_metadata(path: Path) -> Metadata:
    """Parse one metadata file and check its structure (demographics present, variation an object)."""
    where = Location(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise input_error(where, None, f"metadata is not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise input_error(
            where, None, f"malformed metadata JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except OSError as exc:
        raise input_error(where, None, f"cannot read metadata: {exc.strerror or exc}") from None
    if not isinstance(data, dict):
        raise input_error(where, None, "metadata must be a JSON object")
    characteristics = data.get("characteristics")
    if not isinstance(characteristics, dict):
        raise input_error(where, "characteristics", "missing, or not a JSON object")
    for field in DEMOGRAPHIC_FIELDS:
        value = characteristics.get(field)
        if not isinstance(value, str) or not value.strip():
            raise input_error(where, f"characteristics.{field}", "missing, or not a non-empty string")
    variation = characteristics.get("variation")
    if variation is not None and not isinstance(variation, dict):
        raise input_error(where, "characteristics.variation", "must be a JSON object {feature_key: value}")
    for name in ("image", "file_name"):
        if name in data and not (isinstance(data[name], str) and data[name].strip()):
            raise input_error(where, name, "must be a non-empty string naming the image file")
    return Metadata(characteristics, data.get("image") or data.get("file_name"))


def _image_file(face_dir: Path, stem: str, named: str | None, files: list[str], where: Location) -> str:
    """Path (relative to the release root) of the image a metadata file describes."""
    if named is not None:
        return clean_relative_path(f"{face_dir.name}/{named.strip()}", where, "image")
    candidates = sorted(
        n for n in files if Path(n).stem == stem and Path(n).suffix.lower() in IMAGE_EXTENSIONS
    )
    if not candidates:
        raise input_error(
            where, "image", f"no image file next to it (looked for {stem}{{{','.join(IMAGE_EXTENSIONS)}}})"
        )
    if len(candidates) > 1:
        raise input_error(where, "image", f'ambiguous image: {", ".join(candidates)}; name one with "image"')
    return f"{face_dir.name}/{candidates[0]}"


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


def read_face_folder(face_dir: Path) -> tuple[list[IdentityRecord], list[ImageRecord]]:
    """Identity statements and image records of one face folder (files not opened yet)."""
    face = face_dir.name
    files = sorted(p.name for p in face_dir.iterdir() if p.is_file())
    if f"{face}{METADATA_SUFFIX}" not in files:
        raise input_error(
            Location(face_dir),
            "metadata",
            f"no base metadata file {face}{METADATA_SUFFIX} in the face folder",
        )
    identities: list[IdentityRecord] = []
    images: list[ImageRecord] = []
    base_id = face
    metadata_names = sorted(
        (n for n in files if n.endswith(METADATA_SUFFIX)), key=lambda n: n != f"{face}{METADATA_SUFFIX}"
    )
    for name in metadata_names:  # the base first: conflicts are reported at the variation
        where = Location(face_dir / name)
        stem = name[: -len(METADATA_SUFFIX)]
        role, framing = _role_of(face, stem, where)
        metadata = read_metadata(face_dir / name)
        characteristics = metadata.characteristics
        demographics = {f: normalize_demographic(f, characteristics[f]) for f in DEMOGRAPHIC_FIELDS}
        identities.append(IdentityRecord(identity_id=face, source=SOURCE, where=where, **demographics))
        variation = characteristics.get("variation") or {}
        feature_key = value = None
        if role == "base" and variation:
            raise input_error(where, "characteristics.variation", "the base image must not name a variation")
        if role == "variation":
            if len(variation) != 1:
                raise input_error(
                    where,
                    "characteristics.variation",
                    f"a variation names exactly one feature, not {len(variation)}",
                )
            (raw_key, raw_value), *_ = variation.items()
            if not raw_key.strip() or not isinstance(raw_value, str) or not raw_value.strip():
                raise input_error(
                    where, "characteristics.variation", "needs a feature_key and a non-empty string value"
                )
            feature_key = raw_key.strip()
            value = normalize_variation_value(feature_key, raw_value)
        images.append(
            ImageRecord(
                image_id=stem,
                identity_id=face,
                role="base" if role == "base" else "variation",
                path=_image_file(face_dir, stem, metadata.image, files, where),
                where=where,
                base_image_id=None if role == "base" else base_id,
                feature_key=feature_key,
                variation_value=value,
                framing=framing,
                path_field="image",
            )
        )
    return identities, images


def load_stylisticbias(root: Path, variation_filter: VariationFilter, *, progress: bool = True) -> Benchmark:
    """Load a StylisticBias release folder (layout in the module docstring).

    Parameters
    ----------
    root
        The release folder; image paths are relative to it.
    variation_filter
        Fills ``evaluated`` / ``exclusion_reason``.
    progress
        Show a progress bar while hashing and checking the images.

    Raises
    ------
    BenchmarkError
        Missing or malformed metadata, missing / undecodable / escaping image files,
        duplicate image ids, demographics that differ between a face's files.
    """
    root = Path(root)
    if not root.is_dir():
        raise BenchmarkError(f"{root}: field 'root': no such folder")
    face_dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not face_dirs:
        raise BenchmarkError(f"{root}: field 'root': no face folders (expected one sub-folder per base face)")
    identities: list[IdentityRecord] = []
    images: list[ImageRecord] = []
    for face_dir in face_dirs:
        face_identities, face_images = read_face_folder(face_dir)
        identities.extend(face_identities)
        images.extend(face_images)
    return assemble(SOURCE, root, identities, images, variation_filter, progress=progress)

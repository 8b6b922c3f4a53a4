"""The metadata files of the StylisticBias release (seed 000), read and checked strictly.

Two spellings are read (see :mod:`cueshift.images.stylisticbias` for the layout):

**Release** (the release code's own files)::

    base:       {"image_path": ".../face_0_20250101_120000_1a2b3c4d.png",
                 "characteristics": {"age": "young adult", "gender": "female", "ethnicity": "Asian",
                                     "body_type": "thin"},            (or "body_index": 0)
                 "prompt": "...", "timestamp": "..."}
    variation:  {"image_path": "...",
                 "characteristics": {"base": {<the base's characteristics>} | "<base image>",
                                     "variation": {"eyewear": "Sunglasses"}, "prompt": "..."}}

**Compact** (hand-made sets): every file states the demographics in ``characteristics``, a
variation adds ``"variation": {feature: value}`` there, and ``"image"`` / ``"file_name"`` name
the image file relative to the face folder.

``body_index`` is an index into seed 000 Table 7's body types in the paper's order
(0 thin, 1 normal, 2 obese); a text value is read as the label itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path, PurePath, PureWindowsPath
from typing import Any

from cueshift.images._files import Location, input_error
from cueshift.images.labels import BODY_TYPES, DEMOGRAPHIC_FIELDS

METADATA_SUFFIX = "_metadata.json"
IMAGE_EXTENSIONS: tuple[str, ...] = (".png", ".jpg", ".jpeg", ".webp")


@dataclass(frozen=True)
class Metadata:
    """A checked metadata file.

    Attributes
    ----------
    demographics
        ``age, gender, ethnicity, body_type`` as written (``None`` where the file states none:
        a release variation whose ``base`` names the base image instead of repeating it).
    variation
        ``{feature: value}`` of a variation, ``None`` for a base.
    image
        The compact spelling's ``image`` / ``file_name`` (relative to the face folder).
    image_path
        The release's ``image_path`` (any form; resolved by :func:`release_image`).
    base_name
        A variation's ``base`` when it is a string naming the base image.
    """

    demographics: dict[str, str | None]
    variation: dict[str, Any] | None
    image: str | None
    image_path: str | None
    base_name: str | None


def _body_type(values: dict[str, Any], where: Location, prefix: str) -> str | None:
    """``body_type``, or the label ``body_index`` stands for; both present must agree."""
    body_type, index = values.get("body_type"), values.get("body_index")
    from_index = None
    if index is not None:
        if isinstance(index, bool) or not isinstance(index, int | str) or not str(index).strip():
            raise input_error(where, f"{prefix}body_index", "must be an index 0-2 or a body-type label")
        text = str(index).strip()
        if text.isdigit():
            if int(text) >= len(BODY_TYPES):
                raise input_error(
                    where, f"{prefix}body_index", f"{text} is not an index of {', '.join(BODY_TYPES)} (0-2)"
                )
            from_index = BODY_TYPES[int(text)]
        else:
            from_index = text
    if body_type is not None and from_index is not None and str(body_type).strip().casefold() != from_index:
        raise input_error(
            where, f"{prefix}body_index", f"{index!r} means {from_index!r} but body_type says {body_type!r}"
        )
    return str(body_type) if body_type is not None else from_index


def _demographics(values: dict[str, Any], where: Location, prefix: str) -> dict[str, str | None]:
    """The four demographic labels of ``values``, each a non-empty string."""
    found: dict[str, str | None] = {}
    for field in DEMOGRAPHIC_FIELDS:
        value = _body_type(values, where, prefix) if field == "body_type" else values.get(field)
        if not isinstance(value, str) or not value.strip():
            raise input_error(where, f"{prefix}{field}", "missing, or not a non-empty string")
        found[field] = value
    return found


def _load(path: Path, where: Location) -> dict[str, Any]:
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
    return data


def read_metadata(path: Path) -> Metadata:
    """Parse one metadata file (either spelling) and check its structure."""
    where = Location(path)
    data = _load(path, where)
    characteristics = data.get("characteristics")
    if not isinstance(characteristics, dict):
        raise input_error(where, "characteristics", "missing, or not a JSON object")
    variation = characteristics.get("variation")
    if variation is not None and not isinstance(variation, dict):
        raise input_error(where, "characteristics.variation", "must be a JSON object {feature_key: value}")
    for name in ("image", "file_name", "image_path"):
        if name in data and not (isinstance(data[name], str) and data[name].strip()):
            raise input_error(where, name, "must be a non-empty string naming the image file")
    base = characteristics.get("base")
    base_name = None
    if base is None or any(field in characteristics for field in ("age", "gender", "ethnicity")):
        demographics = _demographics(characteristics, where, "characteristics.")
    elif isinstance(base, dict):
        demographics = _demographics(base, where, "characteristics.base.")
    elif isinstance(base, str) and base.strip():
        demographics = dict.fromkeys(DEMOGRAPHIC_FIELDS)
        base_name = base.strip()
    else:
        raise input_error(
            where, "characteristics.base", "must be the base's characteristics or the name of the base image"
        )
    return Metadata(
        demographics=demographics,
        variation=variation,
        image=data.get("image") or data.get("file_name"),
        image_path=data.get("image_path"),
        base_name=base_name,
    )


def names_base(base_name: str, face: str) -> bool:
    """Whether a variation's ``base`` string names the base image of face folder ``face``."""
    return PurePath(PureWindowsPath(base_name).as_posix()).stem in (face, f"{face}.png") or base_name == face


def release_image(face_dir: Path, image_path: str) -> str | None:
    """The image ``image_path`` names, relative to the release root, when it resolves inside the face
    folder; ``None`` when it does not (the caller then uses the sibling ``<stem>.png``).

    The release writes ``image_path`` as the generating machine saw it (absolute, or relative to
    its checkout), so only the part from the face folder on is used: ``.../<face>/<file>`` or a
    bare ``<file>``. A path that would leave the face folder never resolves.
    """
    parts = PurePath(PureWindowsPath(image_path.strip()).as_posix()).parts
    face = face_dir.name
    last = max((i for i, part in enumerate(parts) if part == face), default=None)
    rest = parts[last + 1 :] if last is not None else parts[-1:]
    if len(rest) != 1 or rest[0] in ("", ".", "..") or not (face_dir / rest[0]).is_file():
        return None
    return f"{face}/{rest[0]}"


def sibling_image(face_dir: Path, stem: str, files: list[str]) -> list[str]:
    """Image files next to a metadata file whose stem is ``stem`` (any of :data:`IMAGE_EXTENSIONS`)."""
    return sorted(n for n in files if Path(n).stem == stem and Path(n).suffix.lower() in IMAGE_EXTENSIONS)

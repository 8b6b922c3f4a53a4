r"""Synthetic stand-ins for the seed data sets (no download): image sets and human raters.

* :func:`paired_image_set` — seed 001: per individual an original portrait and a
  "beauty filter" version (skin smoothing, brightening, warmer colour), written with a
  manifest (``docs/manifest.md``) so the ordinary loader reads them.
* :func:`pairwise_portraits` — seed 002: per race × gender cohort, portraits of two
  stimulus groups (e.g. 4 Western-styled and 10 local-styled), a neutral colour grade per
  group (the drawing carries no stereotype); returns the face, image and stimulus rows.
* :func:`~cueshift.images.synthetic_raters.synthetic_human_ratings` (its own module) —
  deterministic raters around a latent truth.

Faces are drawn by the demo renderer (:mod:`cueshift.images._demo_face`).
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl
from PIL import Image, ImageEnhance, ImageFilter

from cueshift.images._demo_face import draw_face
from cueshift.images._demo_look import base_look
from cueshift.images._files import atomic_write_bytes
from cueshift.study.sections import SyntheticPairedFaces, SyntheticPortraits

#: Races of the CFD-like subset and age groups of the FACES-like subset (seed 001 §3.2).
CFD_RACES: tuple[str, ...] = ("Asian", "Black", "Indian", "Latino", "White", "Mixed")
FACES_AGE_GROUPS: tuple[str, ...] = ("young", "middle-aged", "old")
GENDERS: tuple[str, ...] = ("male", "female")
FILTER_VALUE = "Beautified"
FILTER_CATEGORY = "Beauty filter"
#: Skin tone family used to draw a label (the demo renderer knows the seed 000 labels).
_DRAW_ETHNICITY = {
    "Asian": "Asian",
    "Black": "African",
    "Indian": "Middle Eastern",
    "Latino": "Latino",
    "White": "European",
    "Mixed": "Latino",
    "East Asian": "Asian",
    "South Asian": "Middle Eastern",
    "Arab": "Middle Eastern",
}
_DRAW_AGE = {"young": "young adult", "middle-aged": "middle-aged adult", "old": "elderly"}


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("|".join(parts).encode()).digest()[:8], "big")


def _png(picture: Image.Image) -> bytes:
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def _write_if_changed(path: Path, data: bytes) -> None:
    if not (path.is_file() and path.read_bytes() == data):
        atomic_write_bytes(path, data)


def _write_manifest(root: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    """Write ``rows`` as ``root/manifest.csv`` (columns in the order of the first row); return its path."""
    manifest = root / "manifest.csv"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    _write_if_changed(manifest, buffer.getvalue().encode())
    return manifest


def beauty_filter(picture: Image.Image) -> Image.Image:
    """A deterministic stand-in for a selfie beauty filter: smoothing, +8% brightness, +12% colour."""
    smoothed = picture.convert("RGB").filter(ImageFilter.SMOOTH_MORE)
    return ImageEnhance.Color(ImageEnhance.Brightness(smoothed).enhance(1.08)).enhance(1.12)


def _portrait(face_id: str, gender: str, race: str | None, age: str | None) -> Image.Image:
    look = base_look(
        _seed(face_id),
        _DRAW_AGE.get(age or "", "young adult"),
        gender,
        _DRAW_ETHNICITY.get(race or "", "European"),
        "normal",
    )
    return draw_face(look, None, None)


def paired_individuals(config: SyntheticPairedFaces) -> list[dict[str, str | None]]:
    """The synthetic individuals: a CFD-like subset (gender × race, no age label) and a
    FACES-like subset (gender × age group, no race label), as in seed 001 §3.2."""
    people: list[dict[str, str | None]] = []
    for gender in GENDERS:
        for race in CFD_RACES:
            for i in range(config.cfd_per_cell):
                people.append(
                    {
                        "face_id": f"cfd-{race.lower()}-{gender}-{i + 1:02d}",
                        "source": "synthetic-cfd",
                        "gender": gender,
                        "ethnicity": race,
                        "age": None,
                    }
                )
        for age in FACES_AGE_GROUPS:
            for i in range(config.faces_per_cell):
                people.append(
                    {
                        "face_id": f"faces-{age}-{gender}-{i + 1:02d}",
                        "source": "synthetic-faces",
                        "gender": gender,
                        "ethnicity": None,
                        "age": age,
                    }
                )
    return people


def paired_image_set(config: SyntheticPairedFaces, feature_key: str = "beauty_filter") -> Path:
    """Draw (or reuse) the synthetic seed 001 image set and return its manifest path.

    Every individual gets ``<id>/original.png`` (role ``base``) and ``<id>/filtered.png``
    (role ``variation``, ``feature_key``, value ``Beautified``, category ``Beauty filter``).
    """
    root = Path(config.cache_dir)
    rows = []
    for person in paired_individuals(config):
        face_id = str(person["face_id"])
        folder = root / face_id
        folder.mkdir(parents=True, exist_ok=True)
        original = _portrait(face_id, str(person["gender"]), person["ethnicity"], person["age"])
        _write_if_changed(folder / "original.png", _png(original))
        _write_if_changed(folder / "filtered.png", _png(beauty_filter(original)))
        common = {
            "face_id": face_id,
            "age": person["age"] or "",
            "gender": person["gender"],
            "ethnicity": person["ethnicity"] or "",
            "body_type": "",
            "source": person["source"],
            "framing": "face",
        }
        rows.append(
            {
                **common,
                "image_id": f"{face_id}-original",
                "path": f"{face_id}/original.png",
                "role": "base",
                "base_image_id": "",
                "feature_key": "",
                "variation_value": "",
                "variation_category": "",
            }
        )
        rows.append(
            {
                **common,
                "image_id": f"{face_id}-filtered",
                "path": f"{face_id}/filtered.png",
                "role": "variation",
                "base_image_id": f"{face_id}-original",
                "feature_key": feature_key,
                "variation_value": FILTER_VALUE,
                "variation_category": FILTER_CATEGORY,
            }
        )
    return _write_manifest(root, rows)


def pairwise_portraits(config: SyntheticPortraits) -> tuple[Path, pl.DataFrame, pl.DataFrame]:
    """Draw (or reuse) the synthetic seed 002 portraits.

    Returns
    -------
    manifest : Path
        Manifest of the portraits (every portrait its own face, role ``base``).
    stimuli : polars.DataFrame
        ``image_id, cohort, stimulus_group`` (the ``stimulus`` table).
    people : polars.DataFrame
        ``image_id, face_id, gender, ethnicity``.
    """
    root = Path(config.cache_dir)
    root.mkdir(parents=True, exist_ok=True)
    rows, stimuli = [], []
    tint = {g: (1.0 + 0.12 * i, 1.0 - 0.06 * i) for i, g in enumerate(sorted(config.per_group))}
    for race in config.races:
        for gender in config.genders:
            cohort = f"{race} {gender}"
            for group, count in config.per_group.items():
                for i in range(count):
                    face_id = f"{race}-{gender}-{group}-{i + 1:02d}".lower().replace(" ", "-")
                    picture = _portrait(face_id, gender, race, None)
                    color, contrast = tint[group]
                    picture = ImageEnhance.Contrast(
                        ImageEnhance.Color(picture.convert("RGB")).enhance(color)
                    ).enhance(contrast)
                    path = f"{face_id}.png"
                    _write_if_changed(root / path, _png(picture))
                    rows.append(
                        {
                            "image_id": face_id,
                            "face_id": face_id,
                            "path": path,
                            "role": "base",
                            "base_image_id": "",
                            "feature_key": "",
                            "variation_value": "",
                            "age": "",
                            "gender": gender,
                            "ethnicity": race,
                            "body_type": "",
                            "source": "synthetic-002",
                        }
                    )
                    stimuli.append({"image_id": face_id, "cohort": cohort, "stimulus_group": group})
    manifest = _write_manifest(root, rows)
    people = pl.DataFrame(rows).select("image_id", "face_id", "gender", "ethnicity")
    return manifest, pl.DataFrame(stimuli), people

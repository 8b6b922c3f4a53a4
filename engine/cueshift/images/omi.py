"""The One Million Impressions (OMI) data set as an image set (seed 004's human impressions).

Layout (Peterson et al., 2022; licence CC BY-NC-SA 4.0, so its files are never part of cueshift)::

    omi/
    ├── images/1.jpg … 1004.jpg        one synthetic face per stimulus; the stimulus id is the stem
    └── attribute_ratings.csv          stimulus, attribute, rating, rating_type (one row per rating)

Every image is a base image of its own face (``face_id = image_id = stimulus``,
``source = 'omi'``); OMI states no demographics, so those columns stay empty. Stimulus ids are
compared as written, except that purely numeric ids are compared as numbers (``"0007"`` is
stimulus ``7``). The ratings are read by :mod:`cueshift.images.omi_ratings`.
"""

from __future__ import annotations

import re
from pathlib import Path

from cueshift.errors import ImageSetError
from cueshift.images._assemble import FaceRecord, ImageRecord, assemble
from cueshift.images._files import Location
from cueshift.images.base import ImageSet
from cueshift.study.variations import VariationFilter

SOURCE = "omi"
IMAGE_FOLDER = "images"
RATINGS_FILE = "attribute_ratings.csv"
IMAGE_EXTENSIONS: tuple[str, ...] = (".jpg", ".jpeg", ".png", ".webp")
#: A purely numeric stimulus id (ASCII digits), compared as a number.
NUMERIC_ID = r"^[0-9]+$"


def stimulus_id(text: str) -> str:
    """The canonical form of a stimulus id: stripped, and ``str(int(...))`` when purely numeric."""
    text = text.strip()
    return str(int(text)) if re.fullmatch(NUMERIC_ID, text) else text


def _sort_key(image_id: str) -> tuple[int, int, str]:
    """Numeric ids in numeric order, then any others by name."""
    return (0, int(image_id), "") if re.fullmatch(NUMERIC_ID, image_id) else (1, 0, image_id)


def omi_image_files(root: Path) -> dict[str, str]:
    """``stimulus id -> image path relative to root`` of every image under ``root/images``.

    Raises
    ------
    ImageSetError
        No ``images`` folder, no image in it, or two files for one stimulus (``7.jpg`` and ``7.png``).
    """
    folder = Path(root) / IMAGE_FOLDER
    if not folder.is_dir():
        raise ImageSetError(f"{folder}: no such folder (the OMI layout has images/1.jpg ... images/1004.jpg)")
    found: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file() or path.name.startswith(".") or path.suffix.lower() not in IMAGE_EXTENSIONS:
            continue
        stimulus = stimulus_id(path.stem)
        if stimulus in found:
            raise ImageSetError(
                f"{path}: field 'stimulus': a second image of stimulus {stimulus!r} "
                f"(first: {found[stimulus]})"
            )
        found[stimulus] = f"{IMAGE_FOLDER}/{path.name}"
    if not found:
        raise ImageSetError(f"{folder}: no images ({', '.join(IMAGE_EXTENSIONS)})")
    return dict(sorted(found.items(), key=lambda item: _sort_key(item[0])))


def load_omi(root: Path, variation_filter: VariationFilter, *, progress: bool = True) -> ImageSet:
    """Load the OMI faces under ``root/images`` as base images, one face each.

    Parameters
    ----------
    root
        The OMI folder; image paths are relative to it.
    variation_filter
        Unused by OMI (no variations); accepted like every loader's.
    progress
        Show a progress bar while hashing and checking the images.

    Raises
    ------
    ImageSetError
        Missing folder, no images, duplicate stimuli, undecodable image files.
    """
    root = Path(root)
    if not root.is_dir():
        raise ImageSetError(f"{root}: field 'root': no such folder")
    files = omi_image_files(root)
    faces = []
    images = []
    for stimulus, relative in files.items():
        where = Location(root / relative)
        faces.append(
            FaceRecord(
                face_id=stimulus, source=SOURCE, age=None, gender=None, ethnicity=None, body_type=None,
                where=where,
            )
        )  # fmt: skip
        images.append(
            ImageRecord(image_id=stimulus, face_id=stimulus, role="base", path=relative, where=where)
        )
    return assemble(SOURCE, root, faces, images, variation_filter, progress=progress)

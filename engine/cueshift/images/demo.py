"""The embedded demo image set: deterministic synthetic faces drawn with PIL, no download.

Sizes
-----
``'small'``
    90 faces, one per demographic configuration (3 ages x 2 genders x 5 ethnicities x
    3 body types, seed 000 Table 7).
``'paper'``
    500 faces whose marginals equal the paper's base-face set exactly (seed 000 App. B.2:
    274 male / 226 female; 186 normal / 160 obese / 154 thin; 110 Asian, 109 African,
    101 European, 95 Middle Eastern, 85 Latino; 260 young / 124 middle-aged / 116 elderly):
    the 90 configurations once, plus 410 faces whose attribute columns are fixed-count
    lists shuffled with a fixed seed.
``N`` (int)
    N faces cycling through the 90 configurations.

The first 90 faces are the same in every size. Every face has a base image and one image
per value of the full variation space (55 values of seed 000 Table 8; ``facial_hair_male``
only on male faces, ``makeup_female`` / ``lip_makeup_female`` only on female faces: 50 per
male face, 51 per female face). The study's variation filter marks which are evaluated
(paper filter: 31 per male face, 32 per female face; 15,726 at paper scale).

Cache
-----
Images are drawn on demand into ``<cache_dir>/<size>/<face_id>/``: ``base.png``,
``<feature_key>--<value-slug>.png`` and ``render.json`` (renderer version, face, sha256 and
size of every file). A face whose files all still match ``render.json`` is not drawn again;
files are written through a temporary file and :func:`os.replace`, so a killed render never
leaves a truncated PNG behind.

The faces and their images are listed by :mod:`._demo_sample`, drawn into the cache by
:mod:`._demo_render`; this module exports their names.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cueshift.images._assemble import FaceRecord, ImageRecord, finish, listed_frames
from cueshift.images._demo_render import render, render_face, render_png
from cueshift.images._demo_sample import (
    PAPER_MARGINALS,
    PAPER_SAMPLE_SEED,
    Configuration,
    DemoFace,
    DemoImage,
    configuration,
    face_images,
    sample_faces,
    size_label,
)
from cueshift.images._files import Location
from cueshift.images.base import ImageSet
from cueshift.images.placebos import list_placebos
from cueshift.study.config import ImageSetConfig
from cueshift.study.variations import VariationFilter

SOURCE = "cueshift-demo"


@dataclass(frozen=True)
class DemoListing:
    """What a demo size holds, before anything is drawn.

    ``image`` has every column of the image table except ``sha256``, ``width``, ``height``.
    """

    name: str
    face: pl.DataFrame
    image: pl.DataFrame


def _records(faces: list[DemoFace], root: Path) -> tuple[list[FaceRecord], list[ImageRecord]]:
    records, images = [], []
    for face in faces:
        where = Location(root / face.face_id)
        records.append(
            FaceRecord(face.face_id, SOURCE, face.age, face.gender, face.ethnicity, face.body_type, where)
        )
        base_id = f"{face.face_id}-base"
        for image in face_images(face):
            images.append(
                ImageRecord(
                    image_id=image.image_id,
                    face_id=face.face_id,
                    role="base" if image.feature_key is None else "variation",
                    path=image.path,
                    where=Location(root / image.path),
                    base_image_id=None if image.feature_key is None else base_id,
                    feature_key=image.feature_key,
                    variation_value=image.value,
                    framing=image.framing,
                )
            )
    return records, images


def list_demo(
    size: str | int = "small", variation_filter: VariationFilter | None = None, *, placebos: bool = False
) -> DemoListing:
    """List the faces and images of a demo size without drawing anything.

    Parameters
    ----------
    size
        ``'small'``, ``'paper'`` or a face count.
    variation_filter
        Fills ``evaluated`` / ``exclusion_reason``; default: the paper filter.
    placebos
        Add the two noise-floor placebos of every base (:mod:`cueshift.images.placebos`), as
        :func:`cueshift.images.load_image_set` does with ``[image_set] placebos``.

    Returns
    -------
    DemoListing
        Face frame (FaceSchema) and image frame without the file columns.
    """
    faces = sample_faces(size)
    records, images = _records(faces, Path(size_label(size)))
    variation_filter = variation_filter or VariationFilter()
    face_frame, image_frame = listed_frames(records, images, variation_filter)
    if placebos:
        image_frame = pl.concat([image_frame, list_placebos(image_frame, variation_filter)])
    return DemoListing(f"demo-{size_label(size)}", face_frame, image_frame)


def load_demo(
    config: ImageSetConfig, variation_filter: VariationFilter, *, progress: bool = True
) -> ImageSet:
    """List, draw what is missing, and return the demo image set of ``config.size``."""
    listed = list_demo(config.size, variation_filter)
    root, facts = render(config.size, config.cache_dir, progress=progress)
    return finish(listed.name, root, listed.face, listed.image, facts)


__all__ = [
    "PAPER_MARGINALS",
    "PAPER_SAMPLE_SEED",
    "SOURCE",
    "Configuration",
    "DemoFace",
    "DemoImage",
    "DemoListing",
    "configuration",
    "face_images",
    "list_demo",
    "load_demo",
    "render",
    "render_face",
    "render_png",
    "sample_faces",
    "size_label",
]

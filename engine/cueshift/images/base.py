"""The loaded image set handed to the runner."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from cueshift.images.croissant import CroissantInfo


@dataclass(frozen=True)
class ImageSet:
    """Faces and images of one image set; ``image.path`` is relative to ``root``."""

    name: str
    root: Path
    face: pl.DataFrame  # columns of schemas.FaceSchema
    image: pl.DataFrame  # columns of schemas.ImageSchema
    croissant: CroissantInfo | None = None  # the release's Croissant metadata, when it ships one

    def with_croissant(self, croissant: CroissantInfo) -> ImageSet:
        """The same image set, recording the release's Croissant metadata."""
        return replace(self, croissant=croissant)

"""The loaded image set handed to the runner."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl


@dataclass(frozen=True)
class Benchmark:
    """Identities and images of one image set; ``image.path`` is relative to ``root``."""

    name: str
    root: Path
    identity: pl.DataFrame  # columns of schemas.IdentitySchema
    image: pl.DataFrame  # columns of schemas.ImageSchema

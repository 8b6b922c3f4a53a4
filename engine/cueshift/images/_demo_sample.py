"""The faces of the demo image set and their images, before anything is drawn: the 90 demographic
configurations, the paper-size sample with the paper's exact marginals, and each face's base and
variation images (the sizes: :mod:`cueshift.images.demo`, which exports these names).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from functools import cached_property

from cueshift.images._demo_look import Look, base_look
from cueshift.images.labels import AGES, BODY_TYPES, ETHNICITIES, GENDERS, default_framing, slug
from cueshift.study.variations import FEATURES

PAPER_SAMPLE_SEED = 20_250_000  # fixed: the paper-size sample never changes

PAPER_MARGINALS: dict[str, dict[str, int]] = {
    "age": {"young adult": 260, "middle-aged adult": 124, "elderly": 116},
    "gender": {"male": 274, "female": 226},
    "ethnicity": {"Asian": 110, "African": 109, "European": 101, "Middle Eastern": 95, "Latino": 85},
    "body_type": {"thin": 154, "normal": 186, "obese": 160},
}


Configuration = tuple[str, str, str, str]  # (age, gender, ethnicity, body_type)


def configuration(index: int) -> Configuration:
    """The ``index``-th of the 90 demographic configurations (``index`` taken modulo 90).

    The order mixes all four attributes early (gender, age and ethnicity cycle with
    periods 2, 3 and 5), so a prefix of N < 90 faces is as balanced as it can be; the map
    is a bijection on 0..89 by the Chinese remainder theorem.
    """
    i = index % 90
    body = BODY_TYPES[(i // 30 + (i % 30) // 10) % 3]
    return AGES[i % 3], GENDERS[i % 2], ETHNICITIES[i % 5], body


def _paper_extras() -> list[Configuration]:
    """The 410 faces beyond the 90-configuration grid that make the paper marginals exact."""
    rng = random.Random(PAPER_SAMPLE_SEED)
    columns: list[list[str]] = []
    for counts in PAPER_MARGINALS.values():
        in_grid = 90 // len(counts)  # each level appears equally often in the grid
        column = [level for level, count in counts.items() for _ in range(count - in_grid)]
        rng.shuffle(column)
        columns.append(column)
    return [(age, gender, ethnicity, body) for age, gender, ethnicity, body in zip(*columns, strict=True)]


@dataclass(frozen=True)
class DemoFace:
    """One synthetic face."""

    face_id: str
    age: str
    gender: str
    ethnicity: str
    body_type: str

    @property
    def seed(self) -> int:
        """Per-face seed from the id and demographics (never the global RNG)."""
        key = f"{self.face_id}|{self.age}|{self.gender}|{self.ethnicity}|{self.body_type}"
        return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")

    @cached_property
    def look(self) -> Look:
        return base_look(self.seed, self.age, self.gender, self.ethnicity, self.body_type)


@dataclass(frozen=True)
class DemoImage:
    """One image of a face, drawn on demand; ``feature_key`` None for the base."""

    image_id: str
    face: DemoFace
    feature_key: str | None
    value: str | None
    framing: str
    file_name: str

    @property
    def path(self) -> str:
        return f"{self.face.face_id}/{self.file_name}"


def size_label(size: str | int) -> str:
    """Folder / image-set-name form of a size: ``'small'``, ``'paper'`` or ``'n<N>'``."""
    return size if isinstance(size, str) else f"n{size}"


def sample_faces(size: str | int) -> list[DemoFace]:
    """The faces of a demo size (see the docstring of :mod:`cueshift.images.demo`)."""
    if size == "small":
        configs = [configuration(i) for i in range(90)]
    elif size == "paper":
        configs = [configuration(i) for i in range(90)] + _paper_extras()
    elif isinstance(size, int) and size >= 1:
        configs = [configuration(i) for i in range(size)]
    else:
        raise ValueError(f"demo size must be 'small', 'paper' or a positive int, not {size!r}")
    return [DemoFace(f"demo-{n:04d}", *config) for n, config in enumerate(configs, start=1)]


def face_images(face: DemoFace) -> list[DemoImage]:
    """The base image and one image per applicable value of the full variation space."""
    images = [DemoImage(f"{face.face_id}-base", face, None, None, "face", "base.png")]
    for feature in FEATURES:
        if feature.only_gender and feature.only_gender != face.gender:
            continue
        for value in feature.values:
            tag = f"{feature.feature_key}-{slug(value)}"
            images.append(
                DemoImage(
                    f"{face.face_id}-{tag}",
                    face,
                    feature.feature_key,
                    value,
                    default_framing(feature.feature_key),
                    f"{feature.feature_key}--{slug(value)}.png",
                )
            )
    return images

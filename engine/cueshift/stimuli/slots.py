"""The images a build makes, before any is made: one slot per base face and per variation.

Bases are allocated evenly over the grid's cells: ``count // cells`` each, and the remainder one
apiece to cells drawn without replacement with the build's seed, so no two cells differ by more
than one face. A slot's id is stable (``base-00001``, ``base-00001--eyewear--sunglasses``): the
same study plans the same slots, which is what makes a build resumable and shardable.

>>> sorted(balanced_counts(5, 2, seed=0))
[2, 3]
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from cueshift.errors import ConfigError
from cueshift.images.labels import slug
from cueshift.stimuli.features import allowed, feature_space
from cueshift.stimuli.prompts import check_template, feature_label, fill
from cueshift.stimuli.prompts_release import (
    check_release_family,
    release_base_prompt,
    release_variation_prompt,
)
from cueshift.study.build_config import EDIT_SLOTS, BuildConfig


@dataclass(frozen=True)
class Slot:
    """One image to make (its tries share the slot)."""

    image_id: str
    face_id: str
    stage: str  # "base" or "variation"
    prompt: str
    cell: dict[str, str]  # the base's grid values
    parent_id: str | None = None
    feature_key: str | None = None
    value: str | None = None
    framing: str = "face"

    @property
    def cell_label(self) -> str:
        """The demographic cell as one string, e.g. ``'young adult / male / Asian / thin'``."""
        return " / ".join(self.cell.values())


def balanced_counts(count: int, n_cells: int, *, seed: int) -> list[int]:
    """Faces per cell: ``count // n_cells`` each, the remainder to cells drawn with ``seed``."""
    counts = [count // n_cells] * n_cells
    for index in random.Random(seed).sample(range(n_cells), count % n_cells):
        counts[index] += 1
    return counts


def check_prompts(config: BuildConfig) -> None:
    """The prompt family's templates against the slots each stage can fill."""
    check_template("[build.prompts] base", config.prompts.base, config.grid.fields)
    check_template("[build.prompts] face", config.prompts.face, EDIT_SLOTS | set(config.grid.fields))
    check_template("[build.prompts] body", config.prompts.body, EDIT_SLOTS | set(config.grid.fields))


def base_slots(config: BuildConfig) -> list[Slot]:
    """The base faces, cell by cell in round-robin order (a prefix is as balanced as can be)."""
    check_prompts(config)
    cells = config.grid.cells()
    left = balanced_counts(config.count, len(cells), seed=config.seed)
    order: list[int] = []
    while len(order) < config.count:
        for index, n in enumerate(left):
            if n:
                order.append(index)
                left[index] -= 1
    slots = []
    for number, index in enumerate(order, start=1):
        image_id = f"base-{number:05d}"
        cell = cells[index]
        release = config.prompts.family == "release"
        prompt = release_base_prompt(cell) if release else fill(config.prompts.base, cell)
        slots.append(Slot(image_id, image_id, "base", prompt, cell))
    return slots


def variation_slots(config: BuildConfig, bases: list[Slot]) -> list[Slot]:
    """One slot per base and allowed (feature, value), base by base."""
    space = feature_space(config.variations)
    if not space:
        raise ConfigError("[build.variations]: no feature value is left to make (check the whitelist)")
    body = set(config.variations.body_features)
    release = config.prompts.family == "release"
    if release:
        check_release_family(list(space))
    slots = []
    for base in bases:
        for key, values in space.items():
            template = config.prompts.body if key in body else config.prompts.face
            for value in values:
                if not allowed(config.variations, key, value, base.cell):
                    continue
                prompt = (
                    release_variation_prompt(base.cell, key, value)
                    if release
                    else fill(template, {**base.cell, "feature": feature_label(key), "value": value})
                )
                slots.append(
                    Slot(
                        f"{base.image_id}--{key}--{slug(value)}",
                        base.face_id,
                        "variation",
                        prompt,
                        base.cell,
                        parent_id=base.image_id,
                        feature_key=key,
                        value=value,
                        framing="body" if key in body else "face",
                    )
                )
    return slots


__all__ = ["Slot", "balanced_counts", "base_slots", "check_prompts", "variation_slots"]

"""Random face images and the prompt rows of a batch, for the tiny-model backend tests."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from PIL import Image

from cueshift.inference.backends.base import ImageRecord, StudyContext
from cueshift.study.scenarios import RELEASED_TEMPLATE, Scenario

if TYPE_CHECKING:
    from cueshift.inference.backends.hf import TransformersBackend


def random_faces(root: Path, seed: int, scenarios: dict[str, Scenario]) -> StudyContext:
    """Two random images of different sizes (40x30 and 64x64) under ``root``, with ``scenarios``."""
    rng = np.random.default_rng(seed)
    images = {}
    for i, size in enumerate([(40, 30), (64, 64)]):
        path = root / f"face{i}.png"
        Image.fromarray(rng.integers(0, 255, (size[1], size[0], 3), dtype=np.uint8)).save(path)
        images[f"face{i}"] = ImageRecord(
            f"face{i}", f"id{i}", path, "base", None, None, None, "portrait", None, None, None, None
        )
    return StudyContext(images=images, scenarios=scenarios, template=RELEASED_TEMPLATE)


def prompt_batch(context: StudyContext, seeds: list[int]) -> pl.DataFrame:
    """Every image x scenario x ordering x seed of ``context``, as the runner hands them to a backend."""
    rows = [
        (i, s, o, k) for i in context.images for s in context.scenarios for o in (1, 2, 3, 4) for k in seeds
    ]
    return pl.DataFrame(
        rows,
        schema={"image_id": pl.String, "scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32},
        orient="row",
    )


#: Descriptors of different token lengths: the rows of one call are padded to different widths.
VARIED_LENGTHS = frozenset({"competent", "emotionally_stable", "trustworthy", "intelligent"})
#: Sampled generate mode, hot enough that a wrong row shows in its answer.
HOT = {"mode": "generate", "temperature": 1.5, "max_new_tokens": 5}


def tiny_backend(context: StudyContext, loaded: Any, **settings: Any) -> TransformersBackend:
    """A transformers backend over an in-memory tiny model ``loaded`` (model, processor)."""
    from cueshift.inference.backends.hf import TransformersBackend
    from cueshift.study.config import ModelConfig

    cfg = ModelConfig(model_id="tiny", backend="transformers", checkpoint="in-memory", settings=settings)
    return TransformersBackend(cfg, context, loaded=loaded)

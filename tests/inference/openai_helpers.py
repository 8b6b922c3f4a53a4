"""Study pieces for the OpenAI-backend tests: three one-colour images, two scenarios, batches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from PIL import Image

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.inference.backends.base import ImageRecord, StudyContext
from cueshift.inference.backends.openai_compat import OpenAIBackend
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE
from tests.inference.chat_server import tag_of

#: Settings that keep the tests fast (short backoff, short deadlines, no cooldown).
FAST: dict[str, Any] = {
    "backoff_initial_s": 0.01,
    "backoff_max_s": 0.05,
    "timeout_s": 2.0,
    "down_cooldown_s": 0.0,
}


def make_context(tmp_path: Path) -> StudyContext:
    images = {}
    for i, colour in enumerate([(200, 30, 30), (30, 200, 30), (30, 30, 200)]):
        path = tmp_path / f"face{i}.png"
        Image.new("RGB", (16, 16), colour).save(path)
        images[f"img{i}"] = ImageRecord(
            image_id=f"img{i}",
            face_id=f"id{i}",
            path=path,
            role="base",
            feature_key=None,
            variation_category=None,
            variation_value=None,
            framing="face",
            age=None,
            gender=None,
            ethnicity=None,
            body_type=None,
        )
    scenarios = {s.scenario_id: s for s in STYLISTICBIAS_25[:2]}
    return StudyContext(images=images, scenarios=scenarios, template=RELEASED_TEMPLATE)


def make_batch(
    context: StudyContext, seeds: tuple[int, ...] = (1, 2), orderings: tuple[int, ...] = (1, 2, 3, 4)
) -> pl.DataFrame:
    rows = [
        (image_id, scenario_id, ordering, seed)
        for image_id in context.images
        for scenario_id in context.scenarios
        for ordering in orderings
        for seed in seeds
    ]
    frame = pl.DataFrame(
        rows,
        schema={"image_id": pl.String, "scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32},
        orient="row",
    )
    return frame.sample(fraction=1.0, shuffle=True, seed=3)  # row order is not the plan order


def expected_tags(context: StudyContext, batch: pl.DataFrame) -> list[str]:
    tags = []
    for image_id, scenario_id, ordering, seed in batch.iter_rows():
        prompt = ORDERING_BY_ID[ordering].render(context.template, context.scenarios[scenario_id])
        tags.append(tag_of(prompt, seed, context.images[image_id].path.read_bytes()))
    return tags


def make_model(urls: list[str], **settings: Any) -> ModelConfig:
    return ModelConfig(
        model_id="srv",
        backend="openai",
        checkpoint="tiny-vlm",
        settings={"base_urls": urls, **FAST, **settings},
    )


def make_backend(context: StudyContext, urls: list[str], **settings: Any) -> OpenAIBackend:
    return OpenAIBackend(make_model(urls, **settings), context)

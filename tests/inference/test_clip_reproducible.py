"""The CLIP backend's scores do not depend on how the rows were split into requests (D50).

A float32 embedding depends on the other inputs of its encoder call (another BLAS blocking,
text padding), so the scores are compared with ``==``: each split below puts the images and
probe texts into different requests, in different orders, and every fresh backend must store
the same bits for every (image, scenario).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import polars as pl
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from cueshift import store  # noqa: E402
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.inference.backends.base import ImageRecord, StudyContext  # noqa: E402
from cueshift.inference.backends.clip import ClipBackend  # noqa: E402
from cueshift.store.embedding_cache import DuckDBEmbeddingCache  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from cueshift.study.scenarios import RELEASED_TEMPLATE  # noqa: E402

pytestmark = pytest.mark.timeout(120)

TEMPLATES = ["a photo of someone who is {x}", "a close-up picture of a person who is {x}"]
N_IMAGES = 9


@pytest.fixture
def context(tmp_path: Path) -> StudyContext:
    rng = np.random.default_rng(49)
    images = {}
    for i in range(N_IMAGES):
        path = tmp_path / f"face{i}.png"
        size = (40 + 3 * i, 36 + 2 * i, 3)  # sizes differ: the processor resizes them
        Image.fromarray(rng.integers(0, 256, size=size, dtype=np.uint8)).save(path)
        images[f"img{i}"] = ImageRecord(
            f"img{i}", f"id{i}", path, "base", None, None, None, "face", None, None, None, None
        )
    # descriptors of different token lengths, so batched probe texts are padded
    scenarios = {s.scenario_id: s for s in (STYLISTICBIAS_25[0], STYLISTICBIAS_25[11], STYLISTICBIAS_25[14])}
    return StudyContext(images=images, scenarios=scenarios, template=RELEASED_TEMPLATE)


def all_rows(context: StudyContext) -> pl.DataFrame:
    rows = [(i, s, 1, 0) for i in context.images for s in context.scenarios]
    schema = {"image_id": pl.String, "scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32}
    return pl.DataFrame(rows, schema=schema, orient="row")


def backend(context: StudyContext, **settings: object) -> ClipBackend:
    model = ModelConfig(
        model_id="tiny-clip",
        backend="clip",
        checkpoint="cueshift:tiny-random-clip",
        settings={"device": "cpu", "templates": TEMPLATES, **settings},
    )
    return ClipBackend(model, context)


def scores(
    judge: ClipBackend, batches: list[pl.DataFrame]
) -> dict[tuple[str, str], tuple[float | None, float | None, str]]:
    """(p_favorable, association, answer) by (image_id, scenario_id), asked batch by batch."""
    found: dict[tuple[str, str], tuple[float | None, float | None, str]] = {}
    for batch in batches:
        answers = judge.judge(batch)
        assert answers.p_favorable is not None and answers.association is not None
        for key, p, m, text in zip(
            batch.select("image_id", "scenario_id").rows(),
            answers.p_favorable,
            answers.association,
            answers.response_text,
            strict=True,
        ):
            found[(str(key[0]), str(key[1]))] = (p, m, text)
    return found


def splits(rows: pl.DataFrame) -> dict[str, list[pl.DataFrame]]:
    """The same rows cut into requests in ways an adaptive batcher could."""
    shuffled = rows.sample(fraction=1.0, shuffle=True, seed=3)
    cuts = [0, 1, 3, 8, 13, 21, shuffled.height]
    return {
        "one request": [rows],
        "one row per request": [rows.slice(i, 1) for i in range(rows.height)],
        "uneven shuffled requests": [shuffled.slice(a, b - a) for a, b in zip(cuts, cuts[1:], strict=False)],
        "reversed pairs": [rows.reverse().slice(i, 2) for i in range(0, rows.height, 2)],
    }


def test_scores_are_bit_identical_however_the_requests_are_split(context: StudyContext) -> None:
    rows = all_rows(context)
    found = {name: scores(backend(context), batches) for name, batches in splits(rows).items()}
    reference = found.pop("one request")
    assert len(reference) == rows.height
    for name, other in found.items():
        different = [key for key in reference if other[key] != reference[key]]
        assert not different, (
            f"{name}: {len(different)} of {len(reference)} scores differ, e.g. {different[0]}"
        )


def test_an_interrupted_run_resumes_with_the_same_bits(context: StudyContext, tmp_path: Path) -> None:
    """Half the rows with a database cache, then the rest by a new backend reading that cache."""
    rows = all_rows(context)
    con = store.open_study(tmp_path / "study.duckdb")
    cached = dataclasses.replace(context, embeddings=DuckDBEmbeddingCache(con))
    first, rest = rows.slice(0, 10), rows.slice(10)
    resumed = scores(backend(cached), [first]) | scores(backend(cached), [rest.slice(0, 7), rest.slice(7)])
    whole = scores(backend(context), [rows.reverse()])
    con.close()
    assert resumed == whole

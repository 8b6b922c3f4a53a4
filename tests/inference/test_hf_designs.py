"""TransformersBackend.judge_pairs / rate on tiny random models (no hub, no network).

Two architectures that take several images per prompt (Qwen2-VL, LLaVA-NeXT): the chat
turn holds the left then the right image, generation is seeded per row (answers do not
depend on the batch or its order), and the pairwise design runs end to end on a tiny
checkpoint directory through ``run_study``. Tiny models answer gibberish: the tests check
the plumbing, not the answers.
"""

from __future__ import annotations

import tomllib  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import pytest  # noqa: E402

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("quiet_torch")  # torch on one thread (tests/inference/conftest.py)

from PIL import Image  # noqa: E402

from cueshift import store  # noqa: E402
from cueshift.designs.registry import parse_study  # noqa: E402
from cueshift.execution.run_options import RunOptions  # noqa: E402
from cueshift.execution.runner import run_study  # noqa: E402
from cueshift.inference.backends.base import ImageRecord, StudyContext  # noqa: E402
from cueshift.inference.backends.hf import TransformersBackend  # noqa: E402
from cueshift.inference.backends.hf_answers import pair_seed, rating_seed  # noqa: E402
from cueshift.inference.backends.hf_prompts import chat_text_images, encode_images  # noqa: E402
from cueshift.inference.stand_ins.tiny import build_tiny, build_tiny_model  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from cueshift.study.sections import PAIRWISE_PROMPT  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ARCHS = ["qwen2_vl", "llava_next"]
#: the per-image processor output whose rows follow the image order
PER_IMAGE = {"qwen2_vl": "image_grid_thw", "llava_next": "image_sizes"}


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> StudyContext:
    """Three small images of different sizes (so per-image processor outputs differ)."""
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    images = {}
    for i, (w, h) in enumerate([(40, 30), (32, 48), (64, 64)]):
        path = root / f"face{i}.png"
        Image.fromarray(rng.integers(0, 255, (h, w, 3), dtype=np.uint8)).save(path)
        images[f"face{i}"] = ImageRecord(
            f"face{i}", f"id{i}", path, "base", None, None, None, "portrait", None, None, None, None
        )
    return StudyContext(images=images, scenarios={}, template=PAIRWISE_PROMPT)


@pytest.fixture(scope="module", params=ARCHS)
def backend(
    request: pytest.FixtureRequest, context: StudyContext
) -> Iterator[tuple[str, TransformersBackend]]:
    arch = request.param
    model = ModelConfig(
        model_id=f"tiny-{arch}",
        backend="transformers",
        checkpoint="unused",
        settings={"mode": "generate", "device": "cpu", "max_new_tokens": 6},
    )
    b = TransformersBackend(model, context, loaded=build_tiny(arch))
    yield arch, b
    b.close()


def _pairs(rows: list[tuple[str, str, int]]) -> pl.DataFrame:
    return pl.DataFrame(
        [(a, b, "more-attractive", s) for a, b, s in rows],
        schema={
            "left_image_id": pl.String,
            "right_image_id": pl.String,
            "scenario_id": pl.String,
            "seed": pl.Int32,
        },
        orient="row",
    )


def test_two_images_in_order_in_one_chat_turn(backend: tuple[str, TransformersBackend]) -> None:
    arch, b = backend
    text = chat_text_images(b.processor, "Which?", 2)
    assert text.rfind("Which?") > 0
    big, small = Image.new("RGB", (64, 64)), Image.new("RGB", (40, 30))
    forward = encode_images(b.processor, [big, small], "Which?")
    backward = encode_images(b.processor, [small, big], "Which?")
    key = PER_IMAGE[arch]
    assert forward[key].shape[0] == 2  # both images reach the model
    assert torch.equal(forward[key], backward[key].flip(0))  # ... in the order given
    one = encode_images(b.processor, [big], "Rate.")
    assert one[key].shape[0] == 1


def test_judge_pairs_is_seeded_per_row_and_answers_in_row_order(
    backend: tuple[str, TransformersBackend],
) -> None:
    _, b = backend
    rows = [("face0", "face1", 0), ("face1", "face0", 0), ("face0", "face2", 3)]
    answers = b.judge_pairs(_pairs(rows))
    assert len(answers.response_text) == 3 and len(answers.latency_ms) == 3
    assert all(isinstance(t, str) for t in answers.response_text) and all(ms > 0 for ms in answers.latency_ms)
    assert answers.p_favorable is None
    # each row alone, in reverse order: the same answers (the RNG is seeded per row)
    alone = [b.judge_pairs(_pairs([row])).response_text[0] for row in reversed(rows)]
    assert alone[::-1] == answers.response_text
    # the question may come from the batch
    custom = b.judge_pairs(_pairs(rows[:1]).with_columns(pl.lit("Left or right?").alias("prompt")))
    assert len(custom.response_text) == 1


def test_rate_one_image_per_row(backend: tuple[str, TransformersBackend]) -> None:
    _, b = backend
    batch = pl.DataFrame(
        {
            "image_id": ["face2", "face0", "face2"],
            "attribute": ["western-aesthetic"] * 3,
            "seed": pl.Series([0, 0, 1], dtype=pl.Int32),
            "stimulus_group": ["local"] * 3,
        }
    )
    answers = b.rate(batch)
    assert len(answers.response_text) == 3
    assert b.rate(batch.reverse()).response_text == answers.response_text[::-1]


def test_seeds_depend_on_order_seed_and_attribute() -> None:
    assert pair_seed(0, "a", "b", "q") != pair_seed(0, "b", "a", "q")
    assert pair_seed(0, "a", "b", "q") != pair_seed(1, "a", "b", "q")
    assert rating_seed(0, "a", "x") != rating_seed(0, "a", "y")
    assert pair_seed(0, "a", "b", "q") == pair_seed(0, "a", "b", "q")


def test_pairwise_design_end_to_end_on_a_tiny_transformers_model(tmp_path: Path) -> None:
    checkpoint = build_tiny_model("qwen2_vl", tmp_path / "tiny-qwen2-vl")
    data: dict[str, Any] = tomllib.loads((REPO / "studies" / "pairwise-002.toml").read_text())
    data["database"] = str(tmp_path / "pairwise.duckdb")
    data["seeds"] = [0]
    data["pairwise"]["synthetic"] = {
        "races": ["White"],
        "genders": ["female"],
        "per_group": {"western": 1, "local": 2},
        "cache_dir": str(tmp_path / "img"),
    }
    data["pairwise"]["synthetic_humans"]["n_raters"] = 4
    data["models"] = [
        {
            "model_id": "tiny-qwen2-vl",
            "backend": "transformers",
            "checkpoint": str(checkpoint),
            "settings": {"mode": "generate", "device": "cpu", "max_new_tokens": 4, "trust_remote_code": True},
        }
    ]
    study = parse_study(data, "test")
    summary = run_study(study, RunOptions(progress=False))
    n_trials, n_ratings = 2 * 2, 3  # 2 pairs x both orders; 3 stimuli
    assert summary.n_written == n_trials + n_ratings
    assert run_study(study, RunOptions(progress=False)).n_written == 0  # resumes: nothing asked again
    con = store.open_study(study.database_path)
    try:
        trials = store.query(con, "SELECT * FROM pairwise_trial")
        ratings = store.query(con, "SELECT * FROM rating WHERE rater_kind = 'model'")
    finally:
        con.close()
    assert trials.height == n_trials and set(trials["model_id"]) == {"tiny-qwen2-vl"}
    assert trials["response_text"].null_count() == 0
    assert ratings.height == n_ratings and ratings["response_text"].null_count() == 0

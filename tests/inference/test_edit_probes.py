"""The edit audit's text probes share the CLIP judge's embeddings: its key, its encoding, its vectors.

The audit (:class:`~cueshift.inference.edit_probes.TextEncoder`) and a CLIP judge of the same
local checkpoint keep their text vectors in one study database. Since D57 the judge keys them with
its encoding version (``#encoding=2``: each text alone); vectors under the unversioned key may come
from the older batched encoding. Here a deliberately wrong vector under the unversioned key must
not be used, a vector under the versioned key must be reused (text-tower calls counted with a
forward hook), and what the audit encodes must be the judge's bits, so the judge may reuse it.
A tiny random CLIP is saved in the test (no hub).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from cueshift import store  # noqa: E402
from cueshift.inference.backends.base import StudyContext  # noqa: E402
from cueshift.inference.backends.clip import ClipBackend  # noqa: E402
from cueshift.inference.backends.clip_embeddings import encoder_key  # noqa: E402
from cueshift.inference.backends.clip_probe import ClipSettings  # noqa: E402
from cueshift.inference.edit_probes import TextEncoder, prompt_probabilities  # noqa: E402
from cueshift.inference.embedding_cache import EmbeddingCache, MemoryEmbeddingCache, Vectors  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import build_tiny_clip, save_tiny_clip  # noqa: E402
from cueshift.store.embedding_cache import DuckDBEmbeddingCache  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("quiet_torch")]

#: Prompts of different lengths: encoded together, the shorter ones would be padded.
PROMPTS = [
    "a photo of a person with red hair color",
    "a photo of a person",
    "a photo of a person wearing a wide hat and round glasses",
]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"), seed=0)


@pytest.fixture
def database(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = store.open_study(tmp_path / "study.duckdb")
    yield con
    con.close()


def judge(checkpoint: Path, cache: EmbeddingCache | None = None) -> ClipBackend:
    """A CLIP probe judge of the saved folder on the CPU, as a study names it."""
    settings = {"device": "cpu"}
    model = ModelConfig(model_id="clip", backend="clip", checkpoint=str(checkpoint), settings=settings)
    return ClipBackend(model, StudyContext(images={}, scenarios={}, template="", embeddings=cache))


def judge_raw_vectors(checkpoint: Path) -> dict[str, Vectors]:
    """The raw text vectors the judge stores (read back from its cache)."""
    cache = MemoryEmbeddingCache()
    backend = judge(checkpoint, cache)
    backend.text_vectors(PROMPTS)
    return cache.get(backend.encoder, "text", PROMPTS)


class TextTowerCalls:
    """Forward calls of a text encoder's text tower."""

    def __init__(self, texts: TextEncoder) -> None:
        self.n = 0
        texts.model.text_model.register_forward_hook(lambda *_: setattr(self, "n", self.n + 1))


def test_the_audit_keys_text_vectors_as_the_judge_does(checkpoint: Path) -> None:
    model = ModelConfig(model_id="any", backend="clip", checkpoint=str(checkpoint))
    assert TextEncoder(checkpoint).encoder == encoder_key(model, ClipSettings(), "float32")
    assert TextEncoder(checkpoint).encoder == f"{checkpoint.resolve()}@default:float32#encoding=2"


def test_a_vector_under_the_unversioned_key_is_not_used(
    checkpoint: Path, database: duckdb.DuckDBPyConnection
) -> None:
    cache = DuckDBEmbeddingCache(database)
    old_key = f"{checkpoint.resolve()}@default:float32"  # the key before D57
    wrong = np.full((1, 16), 7.0, dtype=np.float32)
    cache.put(old_key, "text", [PROMPTS[0]], wrong)

    texts = TextEncoder(checkpoint, cache=cache)
    calls = TextTowerCalls(texts)
    vectors = texts.vectors(PROMPTS)
    assert not np.allclose(vectors[PROMPTS[0]], 7.0)
    assert calls.n == 3  # every prompt encoded, each alone
    reference = judge_raw_vectors(checkpoint)
    for prompt in PROMPTS:  # the judge's encoding, bit for bit
        assert np.array_equal(vectors[prompt], reference[prompt]), prompt
    assert np.array_equal(cache.get(old_key, "text", [PROMPTS[0]])[PROMPTS[0]], wrong[0])  # kept


def test_a_vector_under_the_versioned_key_is_reused_and_the_judge_reuses_the_audits(
    checkpoint: Path, database: duckdb.DuckDBPyConnection
) -> None:
    cache = DuckDBEmbeddingCache(database)
    stored = np.random.default_rng(5).normal(size=(1, 16)).astype(np.float32)
    cache.put(f"{checkpoint.resolve()}@default:float32#encoding=2", "text", [PROMPTS[1]], stored)

    texts = TextEncoder(checkpoint, cache=cache)
    calls = TextTowerCalls(texts)
    vectors = texts.vectors(PROMPTS)
    assert np.array_equal(vectors[PROMPTS[1]], stored[0])
    assert calls.n == 2  # the stored prompt is not encoded again

    again = TextEncoder(checkpoint, cache=cache)
    again_calls = TextTowerCalls(again)
    assert all(np.array_equal(again.vectors(PROMPTS)[p], vectors[p]) for p in PROMPTS)
    assert again_calls.n == 0

    backend = judge(checkpoint, cache)
    backend.text_vectors(PROMPTS)
    assert backend.texts_encoded == 0  # the audit's vectors are the judge's encoding


def test_a_half_precision_checkpoint_is_encoded_in_float32(tmp_path: Path) -> None:
    model, processor = build_tiny_clip(0)
    model.half().save_pretrained(tmp_path)
    processor.save_pretrained(tmp_path)
    texts = TextEncoder(tmp_path)
    assert texts.encoder.endswith(":float32#encoding=2")
    assert texts.vectors(PROMPTS[:1])[PROMPTS[0]].dtype == np.float32
    assert all(p.dtype == torch.float32 for p in texts.model.parameters())  # as the key says


def test_prompt_probabilities_are_the_softmax_of_scaled_cosines() -> None:
    images = np.array([[3.0, 4.0], [0.0, 2.0]])
    texts = np.array([[1.0, 0.0], [0.0, 5.0]])
    # cosines: image 1 (0.6, 0.8), image 2 (0, 1); temperature 10
    expected = np.array(
        [
            [np.exp(6.0) / (np.exp(6.0) + np.exp(8.0)), np.exp(8.0) / (np.exp(6.0) + np.exp(8.0))],
            [1.0 / (1.0 + np.exp(10.0)), np.exp(10.0) / (1.0 + np.exp(10.0))],
        ]
    )
    np.testing.assert_allclose(prompt_probabilities(images, texts, 10.0), expected, rtol=1e-12)

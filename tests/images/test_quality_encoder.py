"""The identity encoder: a local CLIP vision tower (a tiny random CLIP saved in the test, no hub),
vectors equal to CLIPModel's image features, cached by encoder and content."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from cueshift.errors import ConfigError  # noqa: E402
from cueshift.inference.embedding_cache import MemoryEmbeddingCache, with_encoding  # noqa: E402
from cueshift.inference.identity import IdentityEncoder, encoder_name  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import build_tiny_clip, save_tiny_clip  # noqa: E402
from cueshift.stats import row_cosines  # noqa: E402


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"), seed=0)


def _pictures(folder: Path) -> list[Path]:
    rng = np.random.default_rng(3)
    base = rng.integers(0, 255, size=(32, 32, 3), dtype=np.uint8)
    near = base.copy()
    near[:2, :2] = 0  # a small cue
    other = rng.integers(0, 255, size=(32, 32, 3), dtype=np.uint8)  # another picture
    paths = []
    for name, pixels in (("base", base), ("near", near), ("other", other)):
        path = folder / f"{name}.png"
        Image.fromarray(pixels).save(path)
        paths.append(path)
    return paths


def test_vectors_equal_clipmodel_image_features_and_are_cached(checkpoint: Path, tmp_path: Path) -> None:
    paths = _pictures(tmp_path)
    cache = MemoryEmbeddingCache()
    encoder = IdentityEncoder(checkpoint, cache=cache)
    assert encoder.encoder == encoder_name(checkpoint) and str(checkpoint.resolve()) in encoder.encoder
    keys = ["k-base", "k-near", "k-other"]
    vectors = encoder.vectors(keys, paths)
    assert encoder.images_encoded == 3

    model, processor = build_tiny_clip(0)  # the same weights, through the full model
    with Image.open(paths[0]) as image:
        pixels = processor(images=[image.convert("RGB")], return_tensors="pt")["pixel_values"]
    with torch.no_grad():
        features = model.get_image_features(pixel_values=pixels)
    reference = features if isinstance(features, torch.Tensor) else features.pooler_output
    np.testing.assert_allclose(vectors["k-base"], reference[0].numpy(), rtol=1e-5, atol=1e-6)

    again = IdentityEncoder(checkpoint, cache=cache).vectors(keys, paths)
    assert all(np.array_equal(again[k], vectors[k]) for k in keys)
    assert {key for (_, kind, key) in cache.vectors if kind == "image"} == set(keys)

    near, other = row_cosines(
        np.stack([vectors["k-near"], vectors["k-other"]]), np.stack([vectors["k-base"]] * 2)
    )
    assert near > other  # a small cue keeps the picture closer to its base than another picture


def test_a_missing_or_bad_checkpoint_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a folder"):
        IdentityEncoder(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="cannot load a CLIP vision tower"):
        IdentityEncoder(tmp_path / "empty")


def test_it_reads_a_probe_judges_vectors_and_never_writes_under_its_key(
    checkpoint: Path, tmp_path: Path
) -> None:
    """A CLIP judge of the same folder keys its vectors with its encoding version (each image alone,
    D50); the quality encoder reads them, and what it encodes itself (batched) goes under its own key."""
    paths = _pictures(tmp_path)
    cache = MemoryEmbeddingCache()
    judge = with_encoding(encoder_name(checkpoint))
    planted = np.arange(16, dtype=np.float32)[None, :] + 1.0
    cache.put(judge, "image", ["k-base"], planted)
    encoder = IdentityEncoder(checkpoint, cache=cache)
    vectors = encoder.vectors(["k-base", "k-near"], paths[:2])
    assert encoder.images_encoded == 1 and np.array_equal(vectors["k-base"], planted[0])
    assert set(cache.vectors) == {(judge, "image", "k-base"), (encoder.encoder, "image", "k-near")}


def test_a_half_precision_checkpoint_is_encoded_in_float32(tmp_path: Path) -> None:
    """The key says float32 (``…@default:float32``), so the tower runs in float32 whatever was saved."""
    model, processor = build_tiny_clip(0)
    model.half().save_pretrained(tmp_path / "half")
    processor.save_pretrained(tmp_path / "half")
    encoder = IdentityEncoder(tmp_path / "half")
    assert all(p.dtype == torch.float32 for p in encoder.model.parameters())
    vectors = encoder.vectors(["k-base"], _pictures(tmp_path)[:1])
    assert vectors["k-base"].dtype == np.float32

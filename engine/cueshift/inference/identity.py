"""Image embeddings for counterfactual quality: a local CLIP vision tower, through the embedding cache.

:class:`IdentityEncoder` loads the vision tower and projection of a transformers CLIP checkpoint
from a **local folder** (``CLIPVisionModelWithProjection``; a full ``CLIPModel`` checkpoint
gives its vision half), never from the hub, and returns the projected image features of image
files. Vectors go through an :class:`~cueshift.inference.embedding_cache.EmbeddingCache` keyed by
the encoder and the image's content (SHA-256) (``'<folder>@default:float32'``, kind ``'image'``),
and a second ``analyze`` encodes nothing again. Where it has none, it reads what a CLIP probe judge
of the same checkpoint stored (the same key with the judge's encoding version, ``#encoding=2``:
each image alone, D50); it encodes the rest in batches and stores them under its own key, so the
judge never reads them.

The cosine of a variation with its base, the identity-preservation score, is computed by
:func:`cueshift.stats.row_cosines`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from cueshift.errors import ConfigError, CueshiftError
from cueshift.extras import importing
from cueshift.inference.embedding_cache import EmbeddingCache, Vectors, with_encoding


def encoder_name(checkpoint: Path) -> str:
    """The cache key of a local checkpoint: ``'<absolute folder>@default:float32'``."""
    return f"{Path(checkpoint).expanduser().resolve()}@default:float32"


@contextmanager
def quiet_loading() -> Iterator[None]:
    """transformers' loading without its reports (a full CLIPModel's unused weights) and bars."""
    from transformers.utils import logging as hf_logging

    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity(40)  # logging.ERROR
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]


def _load(checkpoint: Path) -> tuple[Any, Any]:
    """``(CLIPVisionModelWithProjection, CLIPImageProcessor)`` of a local folder (one-line errors)."""
    with importing("models", "the [quality] encoder"):
        import torch
        from transformers import AutoConfig, CLIPImageProcessor, CLIPVisionModelWithProjection
    folder = Path(checkpoint).expanduser()
    if not folder.is_dir():
        raise ConfigError(f"[quality] encoder {str(checkpoint)!r}: not a folder (a local CLIP checkpoint)")
    try:
        with quiet_loading():
            config = AutoConfig.from_pretrained(folder, local_files_only=True)
            if config.model_type == "clip":  # the vision half, with the projection of the full model
                vision = config.vision_config
                vision.projection_dim = config.projection_dim
                config = vision
            model = CLIPVisionModelWithProjection.from_pretrained(
                folder, config=config, local_files_only=True
            )
            processor = CLIPImageProcessor.from_pretrained(folder, local_files_only=True)
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(
            f"[quality] encoder {str(checkpoint)!r}: cannot load a CLIP vision tower: {first}"
        ) from None
    # a checkpoint saved in half precision loads so: float32, as the cache key says
    model = model.to(dtype=torch.float32)  # type: ignore[call-arg]  # transformers' stub wants self
    model.eval()
    return model, processor


class IdentityEncoder:
    """Projected CLIP image features of image files, cached by content.

    Parameters
    ----------
    checkpoint
        Local folder of a transformers CLIP (or CLIP vision) checkpoint.
    cache
        Where vectors are kept between runs (the study database's); ``None``: nothing is kept.
    batch_size
        Images per forward pass.

    Attributes
    ----------
    encoder : str
        The cache key of the checkpoint (:func:`encoder_name`).
    images_encoded : int
        Images that went through the vision tower (cache misses).
    """

    def __init__(
        self, checkpoint: Path, *, cache: EmbeddingCache | None = None, batch_size: int = 32
    ) -> None:
        self.encoder = encoder_name(checkpoint)
        self.cache = cache
        self.batch_size = batch_size
        self.model, self.processor = _load(checkpoint)
        self.images_encoded = 0

    def vectors(self, contents: Sequence[str], paths: Sequence[Path]) -> dict[str, Vectors]:
        """Raw projected features by content key (SHA-256); ``paths[i]`` holds ``contents[i]``."""
        path_of = dict(zip(contents, paths, strict=True))
        wanted = list(path_of)
        found: dict[str, Vectors] = {}
        for encoder in (self.encoder, with_encoding(self.encoder)):  # its own, then a probe judge's
            missing = [key for key in wanted if key not in found]
            if self.cache is not None and missing:
                found.update(self.cache.get(encoder, "image", missing))
        missing = [key for key in wanted if key not in found]
        for start in range(0, len(missing), self.batch_size):
            chunk = missing[start : start + self.batch_size]
            rows = self._encode([path_of[key] for key in chunk])
            if self.cache is not None:
                self.cache.put(self.encoder, "image", chunk, rows)
            found.update(zip(chunk, rows, strict=True))
        return {key: np.asarray(found[key], dtype=np.float32) for key in wanted}

    def _encode(self, paths: Sequence[Path]) -> Vectors:
        import torch
        from PIL import Image, UnidentifiedImageError

        pictures = []
        for path in paths:
            try:
                with Image.open(path) as image:
                    pictures.append(image.convert("RGB"))
            except (OSError, UnidentifiedImageError) as exc:
                raise CueshiftError(f"{path}: cannot read the image: {exc}") from None
        pixels = self.processor(images=pictures, return_tensors="pt")["pixel_values"]
        with torch.inference_mode():
            features = self.model(pixel_values=pixels).image_embeds
        self.images_encoded += len(paths)
        return np.asarray(features.float().cpu().numpy(), dtype=np.float32)


__all__ = ["IdentityEncoder", "encoder_name", "quiet_loading"]

r"""Zero-shot CLIP probes of an edit: the text tower, and softmax probabilities of prompts.

The edit audit asks a CLIP checkpoint two things about a variation and its base: how
detectable the intended value is (its prompt against the other values of the attribute) and
how much a confound moved (a probe's first prompt against the others). Both are the zero-shot
classifier of Radford et al. (2021, "Learning Transferable Visual Models From Natural Language
Supervision"):

.. math:: p_k(x) = \frac{\exp(s\,\cos(\vec e_x, \vec t_k))}{\sum_j \exp(s\,\cos(\vec e_x, \vec t_j))},

with :math:`\vec e_x` the projected image features, :math:`\vec t_k` the projected text features
of prompt :math:`k` and :math:`s` the checkpoint's learnt temperature ``exp(logit_scale)``.
Image vectors come from :class:`~cueshift.inference.identity.IdentityEncoder` (shared with identity
preservation); text vectors from :class:`TextEncoder`, encoded and keyed as the CLIP probe backend
encodes and keys them: each prompt alone, float32 on the CPU, on aligned weights
(:func:`~cueshift.inference.backends.clip_embeddings.encode_texts`), cached with kind ``'text'``
under :func:`~cueshift.inference.backends.clip_embeddings.checkpoint_key` of the folder, which ends
in the encoding version (``#encoding=2``). So the audit and a CLIP judge of the same folder share
their text vectors bit for bit, and vectors of the older batched encoding (the unversioned key)
are never read (D57).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cueshift._types import F64
from cueshift.errors import ConfigError
from cueshift.extras import importing
from cueshift.inference.backends.clip_embeddings import align_weights, checkpoint_key, encode_texts
from cueshift.inference.embedding_cache import EmbeddingCache, Vectors
from cueshift.inference.identity import quiet_loading


def has_text_tower(checkpoint: Path) -> bool:
    """Whether the local checkpoint is a full CLIP (``model_type == 'clip'``), not a vision tower only."""
    config_file = Path(checkpoint).expanduser() / "config.json"
    if not config_file.is_file():
        return False
    import json

    try:
        return bool(json.loads(config_file.read_text(encoding="utf-8")).get("model_type") == "clip")
    except (OSError, ValueError):
        return False


class TextEncoder:
    """Projected CLIP text features of prompts, cached by encoder and text, and the temperature.

    Parameters
    ----------
    checkpoint
        Local folder of a full transformers CLIP checkpoint (:func:`has_text_tower`).
    cache
        Where vectors are kept between runs; ``None``: nothing is kept.

    Attributes
    ----------
    encoder : str
        The cache key: the CLIP backend's (:func:`~cueshift.inference.backends.clip_embeddings.checkpoint_key`
        of the folder, ``'<absolute folder>@default:float32#encoding=2'``).
    logit_scale : float
        The temperature :math:`s = \\exp(\\text{logit\\_scale})` of the checkpoint.
    texts_encoded : int
        Prompts that went through the text tower (cache misses).
    """

    def __init__(self, checkpoint: Path, *, cache: EmbeddingCache | None = None) -> None:
        self.encoder = checkpoint_key(str(checkpoint))
        self.cache = cache
        self.model, self.tokenizer = _load_text(checkpoint)
        self.logit_scale = float(self.model.logit_scale.exp().item())
        self.texts_encoded = 0

    def vectors(self, texts: Sequence[str]) -> dict[str, Vectors]:
        """Raw projected text features by prompt."""
        wanted = list(dict.fromkeys(texts))
        found = self.cache.get(self.encoder, "text", wanted) if self.cache is not None else {}
        missing = [text for text in wanted if text not in found]
        if missing:
            rows = self._encode(missing)
            if self.cache is not None:
                self.cache.put(self.encoder, "text", missing, rows)
            found.update(zip(missing, rows, strict=True))
        return {text: np.asarray(found[text], dtype=np.float32) for text in wanted}

    def _encode(self, texts: list[str]) -> Vectors:
        import torch

        width = int(self.model.config.projection_dim)
        rows = encode_texts(self.model, self.tokenizer, texts, torch.device("cpu"), width)
        self.texts_encoded += len(texts)
        return rows


def _load_text(checkpoint: Path) -> tuple[Any, Any]:
    """``(CLIPModel, CLIPTokenizer)`` of a local folder, float32 as its key says (one-line errors)."""
    with importing("models", "the edit audit's CLIP probes"):
        import torch
        from transformers import CLIPModel, CLIPTokenizer
    folder = Path(checkpoint).expanduser()
    try:
        with quiet_loading():
            model = CLIPModel.from_pretrained(folder, local_files_only=True)
            tokenizer = CLIPTokenizer.from_pretrained(folder, local_files_only=True)
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise ConfigError(
            f"audit encoder {str(checkpoint)!r}: cannot load a CLIP text tower: {first}"
        ) from None
    # a checkpoint saved in half precision loads so: float32, weights aligned as the backend's (D50)
    model = model.to(dtype=torch.float32)  # type: ignore[call-arg]  # transformers' stub wants self
    model.eval()
    return align_weights(model), tokenizer


def prompt_probabilities(images: npt.ArrayLike, texts: npt.ArrayLike, logit_scale: float) -> F64:
    r"""Zero-shot softmax probabilities of every prompt for every image (module docstring).

    Parameters
    ----------
    images : array_like, shape (n, d)
        Projected image features (need not be normalised).
    texts : array_like, shape (k, d)
        Projected text features of the ``k`` competing prompts.
    logit_scale : float
        The temperature :math:`s` (``exp`` of the checkpoint's ``logit_scale``).

    Returns
    -------
    numpy.ndarray, shape (n, k)
        Rows sum to 1.
    """
    a = np.asarray(images, dtype=np.float64)
    b = np.asarray(texts, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    logits = logit_scale * (a @ b.T)
    logits -= logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    out: F64 = weights / weights.sum(axis=1, keepdims=True)
    return out


__all__ = ["TextEncoder", "has_text_tower", "prompt_probabilities"]

"""The embeddings of the CLIP backend: memory, then the study's embedding cache, then the encoder.

:func:`encoder_key` (:func:`checkpoint_key` of a study's model) names what determines an embedding
besides its input (checkpoint, revision, dtype, encoding version); :class:`ClipEmbeddings` (inherited by
:class:`~cueshift.inference.backends.clip.ClipBackend`) returns unit image embeddings keyed by
the image file's SHA-256 and unit text embeddings keyed by the probe text, encoding only what
neither its memory nor ``context.embeddings`` holds, ``settings.batch_size`` at a time per cache write.

Each image and each probe text goes through its encoder **alone** (a batch of one, no padding;
D50). A float32 embedding depends on the other inputs of its forward pass (another BLAS
blocking; padding for texts): about 1e-6 in the tiny model. Had the encoder seen the missing
inputs of each request together, the stored scores would have depended on how the runner's
adaptive batcher (:class:`~cueshift.execution.batching.BatchSizer`) cut the requests, which
follows the machine's load. Alone, an embedding is a function of the encoder and its input,
as the cache's key says, so a study run twice, resumed or sharded stores the same bits. The key
ends in the encoding version (``#encoding=2``): vectors stored by the batched encoding before D50
are encoded again, not reused. The edit audit's text probes encode by :func:`encode_texts` under
the same key, so the audit and a CLIP judge of one checkpoint share their text vectors (D57).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cueshift.errors import CueshiftError
from cueshift.inference.backends.base import StudyContext
from cueshift.inference.backends.clip_probe import ClipSettings, unit_rows
from cueshift.inference.embedding_cache import EmbeddingKind, Vectors, with_encoding
from cueshift.inference.stand_ins.checkpoints import is_stand_in
from cueshift.study.config import ModelConfig

if TYPE_CHECKING:
    import torch


def encoder_key(model: ModelConfig, settings: ClipSettings, dtype: str) -> str:
    """What determines an embedding besides its input:
    ``'<checkpoint>@<revision>:<dtype>#encoding=<CLIP_ENCODING>'`` (:func:`checkpoint_key` of the model)."""
    random_seed = settings.random_seed if settings.random_init else None
    return checkpoint_key(
        model.checkpoint, model.revision, dtype, tiny_seed=settings.tiny_seed, random_seed=random_seed
    )


def checkpoint_key(
    checkpoint: str,
    revision: str | None = None,
    dtype: str = "float32",
    *,
    tiny_seed: int = 0,
    random_seed: int | None = None,
) -> str:
    """The embedding cache's key of CLIP vectors encoded as the CLIP backend encodes them.

    A local checkpoint directory is named by its absolute path; the tiny random model by its
    weights seed (``cueshift:tiny-random-clip#seed=0``); ``random_init`` weights by their seed
    (``…#random-init=0``, ``random_seed`` given). A revision left out reads ``default``. The
    encoding version (:data:`~cueshift.inference.embedding_cache.CLIP_ENCODING`, each input alone
    since D50) keeps vectors stored by an older encoding out of a resumed study's scores. The edit
    audit's text probes (:class:`~cueshift.inference.edit_probes.TextEncoder`) key theirs here too.

    Examples
    --------
    >>> checkpoint_key("org/clip", "abc123", "float16")
    'org/clip@abc123:float16#encoding=2'
    """
    if is_stand_in(checkpoint):
        checkpoint = f"{checkpoint}#seed={tiny_seed}"
    elif Path(checkpoint).expanduser().is_dir():
        checkpoint = str(Path(checkpoint).expanduser().resolve())
    if random_seed is not None:
        checkpoint = f"{checkpoint}#random-init={random_seed}"
    return with_encoding(f"{checkpoint}@{revision or 'default'}:{dtype}")


class ClipEmbeddings:
    """Unit image and text embeddings of the CLIP backend (a mixin of
    :class:`~cueshift.inference.backends.clip.ClipBackend`, which sets the attributes declared here)."""

    settings: ClipSettings
    context: StudyContext
    clip_model: Any
    processor: Any
    device: torch.device
    dtype: torch.dtype
    encoder: str
    embed_dim: int
    images_encoded: int
    texts_encoded: int
    _memory: dict[EmbeddingKind, dict[str, Vectors]]
    _content: dict[str, str]
    _path_of: dict[str, Path]

    # ---- embeddings: memory, then the cache, then the encoder

    def image_vectors(self, image_ids: Sequence[str]) -> dict[str, Vectors]:
        """Unit image embeddings by image_id (cached by the image's content)."""
        contents = {image_id: self._content_of(image_id) for image_id in image_ids}
        found = self._vectors("image", list(dict.fromkeys(contents.values())), self._encode_images)
        return {image_id: found[content] for image_id, content in contents.items()}

    def text_vectors(self, texts: Sequence[str]) -> dict[str, Vectors]:
        """Unit text embeddings by probe text."""
        return self._vectors("text", texts, self._encode_texts)

    def _vectors(
        self, kind: EmbeddingKind, keys: Sequence[str], encode: Callable[[list[str]], Vectors]
    ) -> dict[str, Vectors]:
        memory = self._memory[kind]
        missing = [k for k in keys if k not in memory]
        cache = self.context.embeddings
        if missing and cache is not None:
            for key, raw in cache.get(self.encoder, kind, missing).items():
                if raw.shape != (self.embed_dim,):
                    raise CueshiftError(
                        f"embedding: encoder {self.encoder!r} has {kind} vectors of {raw.size} values stored "
                        f"but gives {self.embed_dim}; use a new database for a changed checkpoint"
                    )
                memory[key] = unit_rows(raw).astype(np.float32)
            missing = [k for k in missing if k not in memory]
        for start in range(0, len(missing), self.settings.batch_size):
            chunk = missing[start : start + self.settings.batch_size]
            raw_rows = encode(chunk)
            if cache is not None:
                cache.put(self.encoder, kind, chunk, raw_rows)
            for key, row in zip(chunk, raw_rows, strict=True):
                memory[key] = unit_rows(row).astype(np.float32)
        return {k: memory[k] for k in keys}

    def _content_of(self, image_id: str) -> str:
        """The SHA-256 of the image's file (read once per image)."""
        content = self._content.get(image_id)
        if content is None:
            path = self.context.images[image_id].path
            try:
                content = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as exc:
                raise CueshiftError(f"image {image_id}: cannot read {path}: {exc.strerror or exc}") from None
            self._content[image_id] = content
            self._path_of.setdefault(content, path)
        return content

    def _encode_images(self, contents: list[str]) -> Vectors:
        import torch
        from PIL import Image

        rows = []
        for content in contents:  # one image per forward pass: its bits do not depend on the others
            with Image.open(self._path_of[content]) as img:
                inputs = self.processor(images=[img.convert("RGB")], return_tensors="pt")
            pixels = inputs["pixel_values"].to(device=self.device, dtype=self.dtype)
            with torch.inference_mode():
                rows.append(_features(self.clip_model.get_image_features(pixel_values=pixels)))
        self.images_encoded += len(contents)
        return _stacked(rows, self.embed_dim)

    def _encode_texts(self, texts: list[str]) -> Vectors:
        rows = encode_texts(self.clip_model, self.processor, texts, self.device, self.embed_dim)
        self.texts_encoded += len(texts)
        return rows


def encode_texts(
    model: Any, tokenizer: Any, texts: Sequence[str], device: torch.device, width: int
) -> Vectors:
    """Raw projected text features of ``texts``, each through the text tower alone (D50).

    ``tokenizer`` is a ``CLIPProcessor`` or its ``CLIPTokenizer`` (both take ``text=``); ``model``
    a ``CLIPModel`` on ``device`` (its weights aligned: :func:`align_weights`).
    """
    import torch

    rows = []
    for text in texts:  # one text per forward pass: no padding to the longest of a batch
        inputs = tokenizer(text=[text], return_tensors="pt", truncation=True)
        tokens = {k: v.to(device) for k, v in inputs.items() if k in ("input_ids", "attention_mask")}
        with torch.inference_mode():
            rows.append(_features(model.get_text_features(**tokens)))
    return _stacked(rows, width)


def align_weights(model: Any) -> Any:
    """``model`` with every CPU parameter and buffer on a 64-byte boundary (copied where not).

    A batch of one makes the projections matrix-vector products, whose float32 sums follow the
    weights' address: a checkpoint memory-mapped from its file (``from_pretrained``) sits at
    the file's offsets and scored 2.4e-7 away from the same weights built in memory (D50).
    """
    import itertools

    for tensor in itertools.chain(model.parameters(), model.buffers()):
        if tensor.device.type == "cpu" and tensor.data_ptr() % 64:
            tensor.data = tensor.data.clone()  # torch's CPU allocator aligns to 64 bytes
    return model


def _stacked(rows: list[torch.Tensor], width: int) -> Vectors:
    """The ``(1, width)`` feature rows of single forward passes as one float32 array."""
    if not rows:
        return np.zeros((0, width), dtype=np.float32)
    return np.concatenate([np.asarray(row.float().cpu().numpy(), dtype=np.float32) for row in rows])


def _features(output: Any) -> torch.Tensor:
    """Projected features from ``get_*_features`` (a tensor before transformers 5, an output object since)."""
    import torch

    if isinstance(output, torch.Tensor):
        return output
    pooled: torch.Tensor = output.pooler_output
    return pooled


__all__ = ["ClipEmbeddings", "align_weights", "checkpoint_key", "encode_texts", "encoder_key"]

r"""CLIP bipolar probes as judges (seed 004, Eq. 1), through transformers ``CLIPModel``.

The probe's arithmetic and settings are in :mod:`cueshift.inference.backends.clip_probe`:
:math:`m = \cos(\vec i, \vec t_+) - \cos(\vec i, \vec t_-)` and
:math:`P(\text{favorable}) = \sigma(s\,m)` with the model's logit scale :math:`s`.

The backend is deterministic (``scores = True``) and letter-free
(``uses_orderings = False``): the runner plans ordering 1 and seed 0 only. Each judgment's
``response_text`` is the descriptor of the closer pole (``m >= 0``: favorable), which the
parser reads as a bare descriptor; ``p_favorable`` is :math:`\sigma(s\,m)`, ``p_neither``
is ``None``, and :math:`m` and :math:`s` are returned too (``association``,
``logit_scale``), so the study database keeps them.

Embedding cache
---------------
Embeddings go through the :class:`~cueshift.inference.embedding_cache.EmbeddingCache` of the
study context (the runner passes the study database's), keyed by the *encoder* (checkpoint,
revision, dtype; :func:`encoder_key`) and the image's content (SHA-256) or the probe text,
never by the study's ``model_id`` or templates. So a model entry with other templates (a new
``model_id``, same checkpoint) re-scores every image without running the vision tower again:
only the new probe texts are encoded.

Only transformers ``CLIPModel`` checkpoints are supported (open_clip is not). The
reserved checkpoint ``cueshift:tiny-random-clip`` is a tiny random model
(:mod:`cueshift.inference.stand_ins.tiny_clip`) so the pipeline runs without any download: it is
resolved to a directory saved once under ``.cueshift-cache/stand-ins/``
(:func:`~cueshift.inference.stand_ins.checkpoints.resolve_checkpoint`) and loaded by the same
``from_pretrained`` as any other checkpoint.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.errors import ConfigError, CueshiftError
from cueshift.extras import importing
from cueshift.inference.backends.base import Backend, BackendAnswers, StudyContext
from cueshift.inference.backends.checkpoints import checkpoint_source
from cueshift.inference.backends.clip_probe import (
    ClipSettings,
    favorable_probability,
    parse_settings,
    pole_vector,
    unit_rows,
)
from cueshift.inference.embedding_cache import EmbeddingKind, Vectors
from cueshift.inference.stand_ins.checkpoints import is_stand_in, resolve_checkpoint
from cueshift.study.config import ModelConfig

if TYPE_CHECKING:
    import torch


def encoder_key(model: ModelConfig, settings: ClipSettings, dtype: str) -> str:
    """What determines an embedding besides its input: ``'<checkpoint>@<revision>:<dtype>'``.

    A local checkpoint directory is named by its absolute path; the tiny random model by its
    weights seed (``cueshift:tiny-random-clip#seed=0``); ``random_init`` weights by their seed
    (``…#random-init=0``). A revision left out reads ``default``.
    """
    checkpoint = model.checkpoint
    if is_stand_in(checkpoint):
        checkpoint = f"{checkpoint}#seed={settings.tiny_seed}"
    elif Path(checkpoint).expanduser().is_dir():
        checkpoint = str(Path(checkpoint).expanduser().resolve())
    if settings.random_init:
        checkpoint = f"{checkpoint}#random-init={settings.random_seed}"
    return f"{checkpoint}@{model.revision or 'default'}:{dtype}"


class ClipBackend(Backend):
    """Bipolar CLIP probes with P(favorable) from the model's two-way softmax.

    Parameters
    ----------
    model
        ``checkpoint``: a local directory or hub id of a transformers CLIP checkpoint
        (hub ids only where the hub is reachable), or ``cueshift:tiny-random-clip``;
        ``settings`` validate as :class:`~cueshift.inference.backends.clip_probe.ClipSettings`.
    context
        Images and scenarios; ``context.embeddings`` (when not ``None``) keeps embeddings
        between runs.
    loaded
        An already built ``(CLIPModel, CLIPProcessor)`` pair to use instead of loading
        ``checkpoint`` (tests, notebooks); it is moved to the chosen device and dtype, and
        ``checkpoint`` must still name those weights: it keys the embedding cache.

    Attributes
    ----------
    encoder : str
        The embedding cache's key of this model (:func:`encoder_key`).
    logit_scale : float
        :math:`s`, the model's ``logit_scale.exp()``.
    images_encoded, texts_encoded : int
        How many images / probe texts went through the encoders (cache misses).
    """

    name: ClassVar[str] = "clip"
    scores: ClassVar[bool] = True
    uses_orderings: ClassVar[bool] = False

    def __init__(
        self, model: ModelConfig, context: StudyContext, *, loaded: tuple[Any, Any] | None = None
    ) -> None:
        super().__init__(model, context)
        self.settings = parse_settings(model)
        self.clip_model, self.processor, self.device, self.dtype = self._load(loaded)
        self.encoder = encoder_key(model, self.settings, str(self.dtype).removeprefix("torch."))
        self.logit_scale = float(self.clip_model.logit_scale.detach().float().exp().item())
        self.embed_dim = int(self.clip_model.config.projection_dim)
        self.images_encoded = 0
        self.texts_encoded = 0
        self._memory: dict[EmbeddingKind, dict[str, Vectors]] = {"image": {}, "text": {}}  # unit vectors
        self._content: dict[str, str] = {}  # image_id -> SHA-256 of the file
        self._path_of: dict[str, Path] = {}  # SHA-256 -> a file with that content

    # ---- loading

    def _load(self, loaded: tuple[Any, Any] | None) -> tuple[Any, Any, torch.device, torch.dtype]:
        with importing("models", "backend 'clip'"):
            import torch
        s, checkpoint = self.settings, self.model.checkpoint
        if not checkpoint:
            raise ConfigError(f"model {self.model.model_id!r}: checkpoint must name a CLIP checkpoint")
        device_name: str = s.device
        if device_name == "auto":
            if torch.cuda.is_available():
                device_name = "cuda"
            elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
                device_name = "mps"
            else:
                device_name = "cpu"
        dtype_name = s.dtype if s.dtype != "auto" else ("float16" if device_name == "cuda" else "float32")
        device, dtype = torch.device(device_name), getattr(torch, dtype_name)
        if loaded is not None:
            model, processor = loaded
        else:
            model, processor = load_clip(
                self.model.model_id,
                resolve_checkpoint(checkpoint, seed=s.tiny_seed),
                self.model.revision,
                random_seed=s.random_seed if s.random_init else None,
            )
        model = model.to(device=device, dtype=dtype).eval()
        return model, processor, device, dtype

    # ---- judging

    def judge(self, batch: pl.DataFrame) -> BackendAnswers:
        """Score every row of ``batch`` (its ordering and seed do not change the answer)."""
        started = time.perf_counter()
        m = self.associations(batch)
        if m.size == 0:
            return BackendAnswers(response_text=[], latency_ms=[], p_favorable=[], p_neither=[])
        p = favorable_probability(m, self.logit_scale)
        answer = [
            scenario.favorable if mi >= 0 else scenario.unfavorable
            for scenario, mi in zip(
                (self.context.scenarios[sid] for sid in batch["scenario_id"]), m, strict=True
            )
        ]
        latency = (time.perf_counter() - started) * 1000.0 / len(m)  # the batch's time, shared
        return BackendAnswers(
            response_text=answer,
            latency_ms=[latency] * len(m),
            p_favorable=[float(x) for x in p],
            p_neither=[None] * len(m),
            association=[float(x) for x in m],
            logit_scale=self.logit_scale,
        )

    def associations(self, batch: pl.DataFrame) -> F64:
        """Seed 004 Eq. 1 ``m`` of every row of ``batch`` (columns image_id, scenario_id)."""
        rows = batch.select("image_id", "scenario_id").rows()
        if not rows:
            return np.zeros(0)
        s = self.settings
        texts = {
            sid: (s.probe_texts(sc.favorable), s.probe_texts(sc.unfavorable))
            for sid, sc in ((sid, self.context.scenarios[sid]) for sid in dict.fromkeys(r[1] for r in rows))
        }
        images = self.image_vectors(list(dict.fromkeys(r[0] for r in rows)))
        probes = self.text_vectors(
            list(dict.fromkeys(t for pair in texts.values() for pole in pair for t in pole))
        )
        poles = {
            sid: (pole_vector([probes[t] for t in plus]), pole_vector([probes[t] for t in minus]))
            for sid, (plus, minus) in texts.items()
        }
        image = unit_rows(np.stack([images[iid] for iid, _ in rows]))
        plus = np.stack([poles[sid][0] for _, sid in rows])
        minus = np.stack([poles[sid][1] for _, sid in rows])
        m: F64 = np.einsum("ij,ij->i", image, plus) - np.einsum("ij,ij->i", image, minus)  # Eq. 1
        return m

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

        pictures = []
        for content in contents:
            with Image.open(self._path_of[content]) as img:
                pictures.append(img.convert("RGB"))
        inputs = self.processor(images=pictures, return_tensors="pt")
        pixels = inputs["pixel_values"].to(device=self.device, dtype=self.dtype)
        with torch.inference_mode():
            features = _features(self.clip_model.get_image_features(pixel_values=pixels))
        self.images_encoded += len(contents)
        return np.asarray(features.float().cpu().numpy(), dtype=np.float32)

    def _encode_texts(self, texts: list[str]) -> Vectors:
        import torch

        inputs = self.processor(text=texts, return_tensors="pt", padding=True, truncation=True)
        inputs = {k: v.to(self.device) for k, v in inputs.items() if k in ("input_ids", "attention_mask")}
        with torch.inference_mode():
            features = _features(self.clip_model.get_text_features(**inputs))
        self.texts_encoded += len(texts)
        return np.asarray(features.float().cpu().numpy(), dtype=np.float32)


def load_clip(
    model_id: str, path: str, revision: str | None, *, random_seed: int | None = None
) -> tuple[Any, Any]:
    """``CLIPModel`` and ``CLIPProcessor`` of ``path`` (a directory or hub id) by ``from_pretrained``.

    ``random_seed`` given: the checkpoint's architecture (its ``CLIPConfig``) with freshly
    initialised weights, drawn under ``torch.manual_seed(random_seed)`` in a forked RNG state
    (the caller's RNG is untouched); the processor is the checkpoint's. A checkpoint that
    cannot be loaded is one :class:`ConfigError` line naming ``model_id``.
    """
    with importing("models", "backend 'clip'"):
        import torch
        from transformers import CLIPConfig, CLIPModel, CLIPProcessor
    revision = revision or "main"  # transformers' default revision
    # a local folder or the cache, else one probe of the hub: unreachable fails in seconds
    source, where = checkpoint_source(model_id, path, revision, what="CLIP checkpoint")
    try:
        if random_seed is None:
            model = CLIPModel.from_pretrained(source, revision=revision, **where)
        else:
            config = CLIPConfig.from_pretrained(source, revision=revision, **where)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(random_seed)
                model = CLIPModel(config)
        processor = CLIPProcessor.from_pretrained(source, revision=revision, **where)
    except (OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"model {model_id!r}: cannot load CLIP checkpoint {path!r}: {first}") from None
    return model, processor


def _features(output: Any) -> torch.Tensor:
    """Projected features from ``get_*_features`` (a tensor before transformers 5, an output object since)."""
    import torch

    if isinstance(output, torch.Tensor):
        return output
    pooled: torch.Tensor = output.pooler_output
    return pooled


__all__ = ["ClipBackend", "ClipSettings", "encoder_key", "load_clip"]

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
revision, dtype, encoding version; :func:`~.clip_embeddings.encoder_key`) and the image's content
(SHA-256) or the probe text,
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

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.errors import ConfigError
from cueshift.extras import importing
from cueshift.inference.backends.base import Backend, BackendAnswers, StudyContext
from cueshift.inference.backends.checkpoints import checkpoint_source
from cueshift.inference.backends.clip_embeddings import ClipEmbeddings, align_weights, encoder_key
from cueshift.inference.backends.clip_probe import (
    ClipSettings,
    favorable_probability,
    parse_settings,
    pole_vector,
    unit_rows,
)
from cueshift.inference.embedding_cache import EmbeddingKind, Vectors
from cueshift.inference.stand_ins.checkpoints import resolve_checkpoint
from cueshift.study.config import ModelConfig

if TYPE_CHECKING:
    import torch


class ClipBackend(ClipEmbeddings, Backend):
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
        The embedding cache's key of this model (:func:`~.clip_embeddings.encoder_key`).
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
        model = align_weights(model.to(device=device, dtype=dtype).eval())
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


__all__ = ["ClipBackend", "ClipSettings", "load_clip"]

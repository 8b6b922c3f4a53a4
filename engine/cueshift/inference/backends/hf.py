r"""The transformers backend: any local or hub image-text-to-text chat model, two modes.

``generate`` (the paper's protocol)
    One sampled generation per judgment: temperature 0.2, at most 16 new tokens, the
    global RNG seeded from ``(seed, image_id, scenario_id, ordering)`` right before the call,
    so a rerun on the same hardware and software reproduces every answer. The decoded text
    goes to the runner's strict parser.

``score`` (default; exact, no seed noise)
    One forward pass per prompt gives :math:`\ell_a = \log P(\text{"(a)"})` and
    :math:`\ell_b = \log P(\text{"(b)"})` as the continuation of the assistant turn (each
    answer's full token sequence, chained; see :mod:`.hf_score`). With ``fav`` the
    ordering's favorable letter,

    .. math::

        p_\text{fav} = \frac{P(\text{fav})}{P(a) + P(b)} = \sigma(\ell_\text{fav} - \ell_\text{unfav}),
        \qquad p_\text{neither} = 1 - P(a) - P(b).

    For sampling at temperature :math:`T` restricted to the two answers (the answers the
    parser accepts), :math:`P_T(\text{fav}) = \sigma((\ell_\text{fav} - \ell_\text{unfav}) / T)`
    and greedy decoding picks fav iff :math:`\ell_\text{fav} > \ell_\text{unfav}`; so
    :math:`\varphi` at any temperature follows exactly from the stored :math:`T = 1`
    probability (:func:`phi_at_temperature`), with no seed noise. Seeds do not change the
    answer: :attr:`TransformersBackend.deterministic` is True and the runner should plan
    seed 0 only. ``response_text`` is the greedy answer among the two, ``"(a)"`` or ``"(b)"``
    (``"tie"`` on an exact tie).

    This is exact for temperature-only sampling; a checkpoint's own ``top_k``/``top_p``
    (kept in generate mode unless the settings override them) can cut a rare answer
    further, and probability mass on other spellings ("A", "a") is in ``p_neither``.

All prompts of one image share the image and the instruction up to the first option, so
score mode runs that prefix once per image and scores the batched suffixes on copies of
its key/value cache. Generate mode runs the prefix once per image too and then batches the
image's prompts (orderings x seeds x scenarios, grouped by prompt length, ``batch_size`` rows
per ``generate`` call) on copies of that cache, each row sampled with its own generator
seeded like the per-prompt call, so the answers equal one seeded call per judgment
(:mod:`.hf_generate`; ``batch_size = 1`` keeps that per-prompt loop). By default
(``shared_prefix_attention = true``) those rows share ONE copy of the prefix's cache: each row
attends to it and to its own suffix, merged exactly by log-sum-exp (cascade attention,
:mod:`.hf_shared_prefix`), so a decoding step reads the prefix once, not once per row; architectures
it was not tested on copy the cache per row. ``static_cache = true``
decodes those batches on a pre-allocated cache, rows padded to bucketed lengths, optionally
compiled (``compile = true``), with the same answers (:mod:`.hf_static`).

Further designs (:meth:`TransformersBackend.judge_pairs`, :meth:`TransformersBackend.rate`)
    Always the generate protocol, whatever ``mode`` (their answers are free text for the
    design's strict parser): one chat turn with the left and the right image (or the one
    image of a rating) and then the design's question, one seeded generation per row
    (:func:`pair_seed`, :func:`rating_seed`) with the generate settings, no prefix sharing.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import polars as pl

from cueshift.errors import ConfigError, CueshiftError
from cueshift.extras import importing
from cueshift.inference.backends.base import Backend, BackendAnswers, JudgmentRequest, StudyContext
from cueshift.inference.backends.checkpoints import checkpoint_source
from cueshift.inference.backends.hf_designs import FurtherDesigns
from cueshift.inference.backends.hf_settings import Mode, parse_settings, pick_device, pick_dtype
from cueshift.inference.backends.one_ahead import one_ahead
from cueshift.study.config import ModelConfig


class TransformersBackend(FurtherDesigns, Backend):
    """Judge with a transformers image-text-to-text model (see the module docstring).

    Parameters
    ----------
    model
        The study's model entry: ``checkpoint`` is a local directory or a hub id (the hub
        needs network access), ``revision`` a hub revision, ``settings`` see
        :class:`TransformersSettings`.
    context
        Images, scenarios and the prompt template.
    loaded
        An already built ``(model, processor)`` pair to use instead of loading ``checkpoint``
        (tests, notebooks, the tiny models of :mod:`.tiny`); it is moved to the chosen
        device and dtype.
    """

    name: ClassVar[str] = "transformers"
    #: per instance: see :attr:`deterministic` (the runner must read that, not this)
    scores: ClassVar[bool] = False

    def __init__(
        self, model: ModelConfig, context: StudyContext, *, loaded: tuple[Any, Any] | None = None
    ) -> None:
        super().__init__(model, context)
        self.settings = parse_settings(model)
        with importing("models", "the transformers backend"):
            import torch  # noqa: F401
            import transformers  # noqa: F401
        try:
            self.device = pick_device(self.settings.device)
            self.dtype = pick_dtype(self.settings.dtype, self.device)
        except ConfigError as exc:  # "settings.device = 'cuda' but ...": name the model
            raise ConfigError(f"model {model.model_id!r}: {exc}") from None
        hf_model, processor = loaded if loaded is not None else self._load()
        self.hf_model = hf_model.to(device=self.device, dtype=self.dtype).eval()
        self.processor = processor
        tokenizer = processor.tokenizer
        pad = tokenizer.pad_token_id
        self._pad_id = pad if pad is not None else tokenizer.eos_token_id
        self._static: Any = None  # the static cache of batched generate mode, kept between images
        self._tokenizer_lock = threading.Lock()  # the next image is encoded on another thread
        self._graph: Any = None  # the fixed-shape buffers of cuda_graph decoding, kept between images
        if self.settings.cuda_graph and self.settings.mode == "generate":
            from cueshift.inference.backends.hf_graph_decode import GraphDecoder, graph_refusal

            reason = graph_refusal(self.hf_model, self._sampling)
            if reason is not None:
                fix = "set cuda_graph = false"
                raise ConfigError(f"model {model.model_id!r}: settings.cuda_graph: {reason}; {fix}")
            self._graph = GraphDecoder(self.hf_model)

    # --- what the runner reads ---------------------------------------------------------------------------
    @property
    def deterministic(self) -> bool:
        """True in score mode: answers do not depend on the seed, so plan seed 0 only."""
        return self.settings.mode == "score"

    @property
    def mode(self) -> Mode:
        """``'score'`` or ``'generate'`` (from the settings)."""
        return self.settings.mode

    # --- loading -----------------------------------------------------------------------------------------
    def _load(self) -> tuple[Any, Any]:
        from transformers import AutoModelForImageTextToText, AutoProcessor

        cfg, s = self.model, self.settings
        if not cfg.checkpoint:
            raise ConfigError(f"model {cfg.model_id!r}: checkpoint is empty (a local directory or a hub id)")
        # a local folder or the cache, else one probe of the hub: unreachable fails in seconds
        source, where = checkpoint_source(cfg.model_id, cfg.checkpoint, cfg.revision)
        try:
            common: dict[str, Any] = {
                "revision": cfg.revision,
                "trust_remote_code": s.trust_remote_code,
                **where,
            }
            processor = AutoProcessor.from_pretrained(source, **common)  # type: ignore[no-untyped-call]
            extra = {"attn_implementation": s.attn_implementation} if s.attn_implementation else {}
            hf_model = AutoModelForImageTextToText.from_pretrained(
                source, dtype=self.dtype, **common, **extra
            )
        except (OSError, ValueError, ImportError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CueshiftError(f"model {cfg.model_id!r}: cannot load {cfg.checkpoint!r}: {first}") from None
        return hf_model, processor

    def close(self) -> None:
        """Drop the weights and free accelerator memory."""
        import torch

        self.hf_model = self._static = self._graph = None
        gc.collect()
        if self.device == "cuda":
            torch.cuda.empty_cache()

    # --- judging -----------------------------------------------------------------------------------------
    def judge(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer every row; rows are grouped by image so each image is processed once."""
        requests = list(self.requests(batch))
        n = len(requests)
        texts: list[str] = [""] * n
        latency: list[float] = [0.0] * n
        p_fav: list[float | None] = [None] * n
        p_neither: list[float | None] = [None] * n
        by_image: dict[str, list[int]] = {}
        for i, req in enumerate(requests):
            by_image.setdefault(req.image.image_id, []).append(i)
        images = [[requests[i] for i in rows] for rows in by_image.values()]
        t0 = time.perf_counter()  # an image's time: from the end of the one before (its wait included)
        # the next image is read, tiled and tokenised while this one is judged
        for rows, (image, encoded) in zip(by_image.values(), one_ahead(images, self._encode), strict=True):
            if self.settings.mode == "score":
                self._score_image(image, encoded, t0, rows, texts, latency, p_fav, p_neither)
            else:
                self._generate_image(image, encoded, t0, rows, texts, latency)
            t0 = time.perf_counter()
        if self.settings.mode == "score":
            return BackendAnswers(texts, latency, p_favorable=p_fav, p_neither=p_neither)
        return BackendAnswers(texts, latency)

    def _encode(self, requests: Sequence[JudgmentRequest]) -> tuple[Any, dict[tuple[str, int], int]]:
        """Encode the distinct prompts of one image; map (scenario_id, ordering) to a prompt index."""
        from PIL import Image

        from cueshift.inference.backends.hf_prompts import encode_image

        index: dict[tuple[str, int], int] = {}
        prompts: list[str] = []
        for req in requests:
            key = (req.scenario.scenario_id, req.ordering.ordering)
            if key not in index:
                index[key] = len(prompts)
                prompts.append(req.prompt)
        path = requests[0].image.path
        try:
            with Image.open(path) as im:
                image = im.convert("RGB")
        except OSError as exc:
            raise CueshiftError(f"image {requests[0].image.image_id}: cannot read {path}: {exc}") from None
        with self._tokenizer_lock:  # also decoding on the judging thread (one_ahead)
            enc = encode_image(self.processor, image, prompts, answer_prefix=self.settings.answer_prefix)
        return enc, index


__all__ = ["TransformersBackend"]

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
from cueshift.inference.backends.hf_answers import answer_from_logprobs, judgment_seed, pair_seed, rating_seed
from cueshift.inference.backends.hf_settings import Mode, parse_settings, pick_device, pick_dtype
from cueshift.inference.backends.one_ahead import one_ahead
from cueshift.study.config import ModelConfig


class TransformersBackend(Backend):
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
        self.device = pick_device(self.settings.device)
        self.dtype = pick_dtype(self.settings.dtype, self.device)
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
                raise ConfigError(f"model {model.model_id}: settings.cuda_graph: {reason}; {fix}")
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
            raise ConfigError(f"model {cfg.model_id}: checkpoint is empty (a local directory or a hub id)")
        # a local folder or the cache, else one probe of the hub: unreachable fails in seconds
        source, where = checkpoint_source(cfg.model_id, cfg.checkpoint, cfg.revision)
        try:
            common: dict[str, Any] = {
                "revision": cfg.revision, "trust_remote_code": s.trust_remote_code, **where
            }
            processor = AutoProcessor.from_pretrained(source, **common)  # type: ignore[no-untyped-call]
            extra = {"attn_implementation": s.attn_implementation} if s.attn_implementation else {}
            hf_model = AutoModelForImageTextToText.from_pretrained(
                source, dtype=self.dtype, **common, **extra
            )
        except (OSError, ValueError, ImportError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CueshiftError(f"model {cfg.model_id}: cannot load {cfg.checkpoint!r}: {first}") from None
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

    def _score_image(
        self,
        requests: list[JudgmentRequest],
        encoded: tuple[Any, dict[tuple[str, int], int]],
        t0: float,
        rows: list[int],
        texts: list[str],
        latency: list[float],
        p_fav: list[float | None],
        p_neither: list[float | None],
    ) -> None:
        from cueshift.inference.backends.hf_score import score_full, score_shared_prefix
        from cueshift.inference.backends.hf_shared_prefix import supports_shared_prefix
        from cueshift.inference.backends.hf_static import rows_per_call

        enc, index = encoded
        if self.settings.shared_prefix:
            rows_per = rows_per_call(self.settings.batch_size, self.hf_model, len(enc.prefix_ids) + 128)
            one_copy = self.settings.shared_prefix_attention and supports_shared_prefix(self.hf_model)
            logps = score_shared_prefix(self.hf_model, enc, batch_size=rows_per, shared_attention=one_copy)
        else:
            logps = score_full(self.hf_model, enc)
        per_row = (time.perf_counter() - t0) * 1000.0 / len(rows)
        for i, req in zip(rows, requests, strict=True):
            la, lb = logps[index[(req.scenario.scenario_id, req.ordering.ordering)]]
            text, p_a, neither = answer_from_logprobs(la, lb)
            texts[i] = text
            latency[i] = per_row
            p_neither[i] = neither
            p_fav[i] = None if p_a is None else (p_a if req.ordering.favorable_letter == "a" else 1.0 - p_a)

    def _generate_image(
        self,
        requests: list[JudgmentRequest],
        encoded: tuple[Any, dict[tuple[str, int], int]],
        t0: float,
        rows: list[int],
        texts: list[str],
        latency: list[float],
    ) -> None:
        """Seeded generations of one image's prompts: batched on the image prefix's cache when
        ``shared_prefix`` and ``batch_size > 1`` (:mod:`.hf_generate`), else one call per prompt."""
        from cueshift.inference.backends.hf_generate import sampling_warpers
        from cueshift.inference.backends.hf_score import prefix_cache

        enc, index = encoded
        model = self.hf_model
        cache = prefix_cache(model, enc) if self.settings.shared_prefix else None
        shared_ms = (time.perf_counter() - t0) * 1000.0 / len(rows)
        keys = [index[(req.scenario.scenario_id, req.ordering.ordering)] for req in requests]
        seeds = [
            judgment_seed(req.seed, req.image.image_id, req.scenario.scenario_id, req.ordering.ordering)
            for req in requests
        ]
        warpers = sampling_warpers(model, self._sampling) if cache is not None else None
        if warpers is not None and self.settings.batch_size != 1:
            self._generate_batched(enc, cache, keys, seeds, warpers, rows, texts, latency, shared_ms)
        else:
            self._generate_each(enc, cache, keys, seeds, rows, texts, latency, shared_ms)

    def _generate_batched(
        self,
        enc: Any,
        cache: Any,
        keys: list[int],
        seeds: list[int],
        warpers: Any,
        rows: list[int],
        texts: list[str],
        latency: list[float],
        shared_ms: float,
    ) -> None:
        """Rows of equal (static cache: bucketed) prompt length in ``generate`` calls of
        ``batch_size`` rows, each row sampled with its own seeded generator (equal to
        :meth:`_generate_each`)."""
        from cueshift.inference.backends.hf_generate import dynamic_batches
        from cueshift.inference.backends.hf_shared_prefix import shared_prefix_batches, supports_shared_prefix
        from cueshift.inference.backends.hf_static import StaticPrefix, rows_per_call, static_batches

        tokenizer, s = self.processor.tokenizer, self.settings
        prompts = [enc.full_ids(k) for k in keys]
        if s.static_cache:
            self._static = self._static or StaticPrefix(self.hf_model)
            calls = static_batches(
                self._static, cache, prompts, seeds, self._sampling, warpers,
                prefix_len=len(enc.prefix_ids), batch_size=s.batch_size, compile=s.compile,
            )  # fmt: skip
        elif s.shared_prefix_attention and supports_shared_prefix(self.hf_model):
            calls = shared_prefix_batches(
                self.hf_model, cache, prompts, seeds, self._sampling, warpers,
                prefix_len=len(enc.prefix_ids), batch_size=s.batch_size, graph=self._graph,
            )  # fmt: skip
        else:
            size = rows_per_call(s.batch_size, self.hf_model, len(prompts[0]) + s.max_new_tokens)
            calls = dynamic_batches(
                self.hf_model, cache, prompts, seeds, self._sampling, warpers, batch_size=size
            )
        t1 = time.perf_counter()
        for group, new in calls:
            per_row = shared_ms + (time.perf_counter() - t1) * 1000.0 / len(group)
            t1 = time.perf_counter()
            with self._tokenizer_lock:
                for j, tokens in zip(group, new, strict=True):
                    texts[rows[j]] = tokenizer.decode(tokens, skip_special_tokens=True).strip()
                    latency[rows[j]] = per_row

    def _generate_each(
        self,
        enc: Any,
        cache: Any,
        keys: list[int],
        seeds: list[int],
        rows: list[int],
        texts: list[str],
        latency: list[float],
        shared_ms: float,
    ) -> None:
        """One seeded ``generate`` call per judgment (the reference the batched path equals)."""
        import copy

        import torch

        from cueshift.inference.backends.hf_score import move_inputs

        model = self.hf_model
        image_inputs = move_inputs(enc.image_inputs, model)
        tokenizer = self.processor.tokenizer
        for i, k, seed in zip(rows, keys, seeds, strict=True):
            t1 = time.perf_counter()
            ids = torch.tensor([enc.full_ids(k)], device=model.device)
            if cache is not None:  # the cache holds the image: pass only the ids and a full mask
                inputs: dict[str, Any] = {
                    "attention_mask": torch.ones_like(ids),
                    "cache": copy.deepcopy(cache),
                }
            else:  # the release protocol: the whole prompt with the image, every time
                inputs = {**image_inputs, **move_inputs(enc.full_token_inputs(k), model)}
            with torch.inference_mode():
                out = model.generate(input_ids=ids, **inputs, **self._seeded_sampling(seed, ids.device))
            with self._tokenizer_lock:
                texts[i] = tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True).strip()
            latency[i] = shared_ms + (time.perf_counter() - t1) * 1000.0

    # --- further designs: two-image pairwise trials, 0-10 ratings --------------------------------------
    def judge_pairs(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer two-image trials in row order (columns ``left_image_id, right_image_id,
        scenario_id, seed``; the question is the batch's ``prompt`` column or the study template)."""
        from cueshift.inference.backends.base import pairwise_prompts

        texts: list[str] = []
        latency: list[float] = []
        rows = batch.select("left_image_id", "right_image_id", "scenario_id", "seed").iter_rows()
        for (left, right, scenario_id, seed), prompt in zip(
            rows, pairwise_prompts(batch, self.context), strict=True
        ):
            text, ms = self._generate_images([left, right], prompt, pair_seed(seed, left, right, scenario_id))
            texts.append(text)
            latency.append(ms)
        return BackendAnswers(texts, latency)

    def rate(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer rating requests in row order (columns ``image_id, attribute, seed``; the prompt is
        the batch's ``prompt`` column or the design's rating prompt, see ``rating_prompts``)."""
        from cueshift.inference.backends.base import rating_prompts

        texts: list[str] = []
        latency: list[float] = []
        rows = batch.select("image_id", "attribute", "seed").iter_rows()
        prompts = rating_prompts(batch, self.context)
        for (image_id, attribute, seed), prompt in zip(rows, prompts, strict=True):
            text, ms = self._generate_images([image_id], prompt, rating_seed(seed, image_id, attribute))
            texts.append(text)
            latency.append(ms)
        return BackendAnswers(texts, latency)

    def _generate_images(self, image_ids: Sequence[str], prompt: str, rng_seed: int) -> tuple[str, float]:
        """One seeded generation for a chat turn with ``image_ids`` (in order) and then ``prompt``."""
        import torch
        from PIL import Image

        from cueshift.inference.backends.hf_prompts import encode_images
        from cueshift.inference.backends.hf_score import move_inputs

        t0 = time.perf_counter()
        images = []
        for image_id in image_ids:
            path = self.context.images[image_id].path
            try:
                with Image.open(path) as im:
                    images.append(im.convert("RGB"))
            except OSError as exc:
                raise CueshiftError(f"image {image_id}: cannot read {path}: {exc}") from None
        model = self.hf_model
        inputs = move_inputs(encode_images(self.processor, images, prompt), model)
        n_prompt = inputs["input_ids"].shape[1]
        with torch.inference_mode():
            out = model.generate(**inputs, **self._seeded_sampling(rng_seed, inputs["input_ids"].device))
        text = self.processor.tokenizer.decode(out[0, n_prompt:], skip_special_tokens=True).strip()
        return text, (time.perf_counter() - t0) * 1000.0

    def _seeded_sampling(self, seed: int, device: Any) -> dict[str, Any]:
        """``generate`` keywords for one generation seeded with ``seed``: the per-row sampler of
        :mod:`.hf_generate` (the draw batched decoding makes), else transformers' own sampling
        under ``torch.manual_seed(seed)`` where that sampler cannot reproduce the config."""
        import torch

        from cueshift.inference.backends.hf_generate import seeded_generate_kwargs

        kwargs = seeded_generate_kwargs(self.hf_model, self._sampling, [seed], device)
        if kwargs is None:
            torch.manual_seed(seed)
            return self._sampling
        return kwargs

    @property
    def _sampling(self) -> dict[str, Any]:
        s = self.settings
        kw: dict[str, Any] = {
            "do_sample": s.temperature > 0,
            "max_new_tokens": s.max_new_tokens,
            "pad_token_id": self._pad_id,
        }
        if s.temperature > 0:
            kw["temperature"] = s.temperature
            if s.top_k is not None:
                kw["top_k"] = s.top_k
            if s.top_p is not None:
                kw["top_p"] = s.top_p
        return kw


__all__ = ["TransformersBackend"]

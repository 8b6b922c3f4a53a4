r"""How :class:`~cueshift.inference.backends.hf.TransformersBackend` answers one image's prompts.

Score mode turns each prompt's two answer log-probabilities into ``p_favorable`` and
``p_neither`` (:mod:`.hf_score`); generate mode makes one seeded generation per judgment,
batched on the image prefix's key/value cache (:mod:`.hf_generate`, :mod:`.hf_static`,
:mod:`.hf_shared_prefix`) or one ``generate`` call per prompt, the reference the batched paths
equal. :class:`ImageJudging` holds these methods and the ``generate`` keywords of every seeded
generation; the backend inherits them.

``batch_size = "auto"`` is a function of the card, the model and the image's prompts, never of
the memory free at the moment (:mod:`.hf_batch_size`); a call that runs out of CUDA memory fails
the batch with one line naming the model (:class:`~.hf_batch_size.CallOutOfMemory`), and nothing
of it is stored.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from cueshift.inference.backends.base import JudgmentRequest
from cueshift.inference.backends.hf_answers import answer_from_logprobs, judgment_seed
from cueshift.inference.backends.hf_settings import TransformersSettings
from cueshift.study.config import ModelConfig


class ImageJudging:
    """The per-image methods of the transformers backend (score and generate mode).

    A mixin of :class:`~cueshift.inference.backends.hf.TransformersBackend`, which sets the
    attributes declared here.
    """

    model: ModelConfig
    hf_model: Any
    processor: Any
    settings: TransformersSettings
    _pad_id: Any
    _static: Any
    _graph: Any
    _tokenizer_lock: threading.Lock

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
        from cueshift.inference.backends.hf_batch_size import CallOutOfMemory, calls_of
        from cueshift.inference.backends.hf_score import score_full, score_rows, score_shared_prefix
        from cueshift.inference.backends.hf_shared_prefix import supports_shared_prefix
        from cueshift.inference.backends.hf_static import rows_per_call

        enc, index = encoded
        s = self.settings
        if s.shared_prefix:
            n_rows = len(score_rows(enc))
            cache_len = len(enc.prefix_ids) + 128
            rows_per = rows_per_call(s.batch_size, self.hf_model, cache_len, n_rows, share=s.gpus_per_replica)
            one_copy = s.shared_prefix_attention and supports_shared_prefix(self.hf_model)
            try:
                with calls_of(rows_per, s.batch_size):
                    logps = score_shared_prefix(
                        self.hf_model, enc, batch_size=rows_per, shared_attention=one_copy
                    )
            except CallOutOfMemory as exc:
                raise exc.named(self.model.model_id) from None  # nothing of the batch is stored
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
        from cueshift.inference.backends.hf_score import prefix_cache
        from cueshift.inference.backends.hf_warpers import sampling_warpers

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
        from cueshift.inference.backends.hf_batch_size import CallOutOfMemory, guarded
        from cueshift.inference.backends.hf_generate import dynamic_batches
        from cueshift.inference.backends.hf_shared_prefix import shared_prefix_batches, supports_shared_prefix
        from cueshift.inference.backends.hf_static import StaticPrefix, rows_per_call, static_batches

        tokenizer, s = self.processor.tokenizer, self.settings
        prompts = [enc.full_ids(k) for k in keys]
        if s.static_cache:
            self._static = self._static or StaticPrefix(self.hf_model)
            calls = static_batches(
                self._static, cache, prompts, seeds, self._sampling, warpers, prefix_len=len(enc.prefix_ids),
                batch_size=s.batch_size, compile=s.compile, share=s.gpus_per_replica,
            )  # fmt: skip
        elif s.shared_prefix_attention and supports_shared_prefix(self.hf_model):
            calls = shared_prefix_batches(
                self.hf_model, cache, prompts, seeds, self._sampling, warpers, prefix_len=len(enc.prefix_ids),
                batch_size=s.batch_size, graph=self._graph, share=s.gpus_per_replica,
            )  # fmt: skip
        else:
            cache_len, share = len(prompts[0]) + s.max_new_tokens, s.gpus_per_replica
            model = self.hf_model
            size = rows_per_call(s.batch_size, model, cache_len, len(prompts), share=share)
            each = dynamic_batches(model, cache, prompts, seeds, self._sampling, warpers, batch_size=size)
            calls = guarded(each, size, s.batch_size)
        t1 = time.perf_counter()
        try:  # each path raises CallOutOfMemory with its rows per call
            for group, new in calls:
                per_row = shared_ms + (time.perf_counter() - t1) * 1000.0 / len(group)
                t1 = time.perf_counter()
                with self._tokenizer_lock:
                    for j, tokens in zip(group, new, strict=True):
                        texts[rows[j]] = tokenizer.decode(tokens, skip_special_tokens=True).strip()
                        latency[rows[j]] = per_row
        except CallOutOfMemory as exc:
            raise exc.named(self.model.model_id) from None  # nothing of the batch is stored

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

    def _seeded_sampling(self, seed: int, device: Any) -> dict[str, Any]:
        """``generate`` keywords for one generation seeded with ``seed``: the per-row sampler of
        :mod:`.hf_sampler` (the draw batched decoding makes), else transformers' own sampling
        under ``torch.manual_seed(seed)`` where that sampler cannot reproduce the config."""
        import torch

        from cueshift.inference.backends.hf_sampler import seeded_generate_kwargs

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


__all__ = ["ImageJudging"]

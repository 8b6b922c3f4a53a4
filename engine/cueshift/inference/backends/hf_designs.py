"""The further designs of :class:`~cueshift.inference.backends.hf.TransformersBackend`.

Two-image pairwise trials (:meth:`FurtherDesigns.judge_pairs`) and 0-10 ratings
(:meth:`FurtherDesigns.rate`) always follow the generate protocol, whatever ``mode``: one chat
turn with the images and then the design's question, one seeded generation per row
(:func:`~cueshift.inference.backends.hf_answers.pair_seed`,
:func:`~cueshift.inference.backends.hf_answers.rating_seed`), no prefix sharing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import polars as pl

from cueshift.errors import CueshiftError
from cueshift.inference.backends.base import BackendAnswers, StudyContext
from cueshift.inference.backends.hf_answers import pair_seed, rating_seed
from cueshift.inference.backends.hf_image_judging import ImageJudging


class FurtherDesigns(ImageJudging):
    """The pairwise and rating methods of the transformers backend (a mixin, see the module
    docstring); they sample through :meth:`ImageJudging._seeded_sampling`."""

    context: StudyContext

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


__all__ = ["FurtherDesigns"]

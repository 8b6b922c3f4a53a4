"""The further designs of :class:`~cueshift.inference.backends.openai_compat.OpenAIBackend`.

A pairwise trial is one request whose user message holds the left image, the right image and
the design's question; a rating is one request with one image and the design's rating prompt.
Both go through the backend's retries, load spreading and key scrubbing
(:class:`~.openai_requests.ChatRequests`) and ask for no logprobs.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import polars as pl

from cueshift.inference.backends.base import BackendAnswers, pairwise_prompts, rating_prompts
from cueshift.inference.backends.openai_messages import chat_body
from cueshift.inference.backends.openai_requests import ChatRequests


class OpenAIDesigns(ChatRequests):
    """The pairwise and rating methods of the OpenAI-compatible backend (a mixin, see the module
    docstring)."""

    def judge_pairs(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer two-image trials, in row order: one request per row with the left image, the
        right image and the design's question (column ``prompt`` if the batch has one, else the
        study template); columns ``left_image_id, right_image_id, seed`` are read."""
        prompts = pairwise_prompts(batch, self.context)
        rows = list(batch.select("left_image_id", "right_image_id", "seed").iter_rows())
        makers = [
            functools.partial(self._design_body, (left, right), prompt, int(seed))
            for (left, right, seed), prompt in zip(rows, prompts, strict=True)
        ]
        return self._answers(
            self._ask(makers, [f"{left}|{right}" for left, right, _ in rows], text_only=True)
        )

    def rate(self, batch: pl.DataFrame) -> BackendAnswers:
        """Answer rating requests, in row order: one request per row with the image and the
        design's rating prompt (see :func:`rating_prompts`); columns ``image_id, seed`` are read."""
        prompts = rating_prompts(batch, self.context)
        rows = list(batch.select("image_id", "seed").iter_rows())
        makers = [
            functools.partial(self._design_body, (image_id,), prompt, int(seed))
            for (image_id, seed), prompt in zip(rows, prompts, strict=True)
        ]
        return self._answers(self._ask(makers, [str(image_id) for image_id, _ in rows], text_only=True))

    def _design_body(self, image_ids: Sequence[str], prompt: str, seed: int) -> dict[str, Any]:
        """The request of a design row: the images in order, then the prompt; no logprobs."""
        images = [self._data_url(self.context.images[i].path) for i in image_ids]
        return chat_body(self.settings, self.model.checkpoint, images, prompt, seed)


__all__ = ["OpenAIDesigns"]

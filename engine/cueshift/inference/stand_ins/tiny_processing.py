"""Processors of the tiny models that transformers cannot build without torchvision.

The Qwen-VL and InternVL processors need a video processor, and transformers' own
PixtralProcessor module imports torchvision. The classes here are the real processors
without video (Pixtral: LLaVA's processor with Pixtral's image expansion). A tiny checkpoint
directory of these architectures carries this file as its processor code
(:func:`cueshift.inference.stand_ins.tiny.build_tiny_model`), the way hub checkpoints carry
custom code: ``AutoProcessor.from_pretrained(directory, trust_remote_code=True)`` loads it,
offline. Self-contained on purpose: it imports nothing but transformers.
"""

from __future__ import annotations

from typing import Any

from transformers import (
    InternVLProcessor,
    LlavaProcessor,
    Qwen2_5_VLProcessor,
    Qwen2VLProcessor,
    Qwen3VLProcessor,
)


class NoVideo:
    """Drop the ``video_processor`` sub-processor: it is neither built, checked, saved nor loaded."""

    video_processor: Any = None

    @classmethod
    def get_attributes(cls) -> list[str]:
        attributes: list[str] = super().get_attributes()  # type: ignore[misc]
        return [name for name in attributes if name != "video_processor"]


class TinyQwen2VLProcessor(NoVideo, Qwen2VLProcessor):
    """Qwen2-VL's processor without video."""


class TinyQwen2_5_VLProcessor(NoVideo, Qwen2_5_VLProcessor):  # noqa: N801
    """Qwen2.5-VL's processor without video."""


class TinyQwen3VLProcessor(NoVideo, Qwen3VLProcessor):
    """Qwen3-VL's processor without video."""


class TinyInternVLProcessor(NoVideo, InternVLProcessor):
    """InternVL's processor without video."""


class PixtralLikeProcessor(LlavaProcessor):
    """PixtralProcessor's image expansion: rows of [IMG] closed by [IMG_BREAK], the last by [IMG_END]."""

    image_break_token = "[IMG_BREAK]"
    image_end_token = "[IMG_END]"

    def replace_image_token(self, image_inputs: dict[str, Any], image_idx: int, **kwargs: Any) -> str:
        height, width = (int(v) for v in image_inputs["image_sizes"][image_idx])
        patch = int(self.patch_size)
        row = str(self.image_token) * (width // patch) + self.image_break_token
        return (row * (height // patch))[: -len(self.image_break_token)] + self.image_end_token


__all__ = [
    "NoVideo",
    "PixtralLikeProcessor",
    "TinyInternVLProcessor",
    "TinyQwen2VLProcessor",
    "TinyQwen2_5_VLProcessor",
    "TinyQwen3VLProcessor",
]

"""The tiny architectures: for each, its tokenizer and image processor, its processor, its model.

Each is the real transformers class at toy width (see :mod:`cueshift.inference.stand_ins.tiny`);
:data:`ARCH_BUILDERS` maps an architecture name to its :class:`~.tiny_parts.ArchBuilder`.
LLaVA-NeXT, Pixtral and InternVL3 are built here, the Qwen-VL family in :mod:`.tiny_qwen`,
Gemma-3 and Idefics3 in :mod:`.tiny_siglip`.
"""

from __future__ import annotations

from typing import Any

from transformers import PreTrainedModel, PreTrainedTokenizerFast, ProcessorMixin

from cueshift.inference.stand_ins.tiny_parts import (
    TINY_VISION,
    ArchBuilder,
    ChatTemplate,
    build_tokenizer,
    text_config,
)
from cueshift.inference.stand_ins.tiny_qwen import QWEN_BUILDERS
from cueshift.inference.stand_ins.tiny_siglip import SIGLIP_BUILDERS

_MISTRAL = ChatTemplate("<s>", "[INST] ", "<image>\n", " [/INST]", "", "</s>")
_PIXTRAL = ChatTemplate("<s>", "[INST]", "[IMG]", "[/INST]", "", "</s>")
_INTERNVL = ChatTemplate(
    "<|im_start|>system\nYou are InternVL.<|im_end|>\n",
    "<|im_start|>user\n",
    "<IMG_CONTEXT>\n",
    "<|im_end|>\n",
    "<|im_start|>assistant\n",
    "<|im_end|>\n",
)


# LLaVA-NeXT (LLaVA-v1.6-Mistral): CLIP tower, Mistral text model, any-resolution tiles
_PINPOINTS = [[32, 32], [32, 64], [64, 32], [64, 64]]


def _llava_next_parts(whole: bool) -> tuple[PreTrainedTokenizerFast, Any]:
    from transformers import LlavaNextImageProcessorPil

    tok = build_tokenizer({"image_token": "<image>"}, ["[INST]", "[/INST]"], whole_answers=whole, bos="<s>")
    return tok, LlavaNextImageProcessorPil(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}, image_grid_pinpoints=_PINPOINTS
    )


def _llava_next_processor(tok: PreTrainedTokenizerFast, ip: Any) -> ProcessorMixin:
    from transformers import LlavaNextProcessor

    return LlavaNextProcessor(  # type: ignore[no-untyped-call]  # untyped in transformers
        ip,
        tok,
        patch_size=8,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=_MISTRAL.jinja(),
    )


def _llava_next_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import (
        CLIPVisionConfig,
        LlavaNextConfig,
        LlavaNextForConditionalGeneration,
        MistralConfig,
    )

    return LlavaNextForConditionalGeneration(
        LlavaNextConfig(
            vision_config=CLIPVisionConfig(**TINY_VISION, image_size=32, patch_size=8),
            text_config=MistralConfig(**text_config(tok)),
            image_token_index=tok.image_token_id,
            image_grid_pinpoints=_PINPOINTS,
            vision_feature_layer=-1,
            image_seq_length=16,
        )
    )


# Pixtral: LlavaForConditionalGeneration with a Pixtral tower and rows of [IMG] ... [IMG_BREAK]
def _pixtral_parts(whole: bool) -> tuple[PreTrainedTokenizerFast, Any]:
    from transformers import PixtralImageProcessorPil

    tok = build_tokenizer(
        {"image_token": "[IMG]"},
        ["[IMG_BREAK]", "[IMG_END]", "[INST]", "[/INST]"],
        whole_answers=whole,
        bos="<s>",
    )
    return tok, PixtralImageProcessorPil(size={"longest_edge": 32}, patch_size={"height": 8, "width": 8})


def _pixtral_processor(tok: PreTrainedTokenizerFast, ip: Any) -> ProcessorMixin:
    from cueshift.inference.stand_ins.tiny_processing import PixtralLikeProcessor

    return PixtralLikeProcessor(  # type: ignore[no-untyped-call]  # untyped in transformers
        ip, tok, patch_size=8, vision_feature_select_strategy="full", chat_template=_PIXTRAL.jinja()
    )


def _pixtral_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import LlavaConfig, LlavaForConditionalGeneration, MistralConfig, PixtralVisionConfig

    return LlavaForConditionalGeneration(
        LlavaConfig(
            vision_config=PixtralVisionConfig(**TINY_VISION, image_size=32, patch_size=8),
            text_config=MistralConfig(**text_config(tok)),
            image_token_index=tok.image_token_id,
            vision_feature_layer=-1,
            vision_feature_select_strategy="full",
            multimodal_projector_bias=False,
        )
    )


# InternVL3: InternViT tower, Qwen2 text model, <img><IMG_CONTEXT>...</img>, image tiles
def _internvl_parts(whole: bool) -> tuple[PreTrainedTokenizerFast, Any]:
    from transformers import GotOcr2ImageProcessorPil

    specials = {
        "start_image_token": "<img>",
        "end_image_token": "</img>",
        "context_image_token": "<IMG_CONTEXT>",
        "video_token": "<video>",
    }
    tok = build_tokenizer(specials, ["<|im_start|>", "<|im_end|>"], whole_answers=whole, eos="<|im_end|>")
    return tok, GotOcr2ImageProcessorPil(size={"height": 32, "width": 32}, max_patches=4)


def _internvl_processor(tok: PreTrainedTokenizerFast, ip: Any) -> ProcessorMixin:
    from cueshift.inference.stand_ins.tiny_processing import TinyInternVLProcessor

    return TinyInternVLProcessor(ip, tok, image_seq_length=4, chat_template=_INTERNVL.jinja())


def _internvl_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import (
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLVisionConfig,
        Qwen2Config,
    )

    return InternVLForConditionalGeneration(
        InternVLConfig(
            vision_config=InternVLVisionConfig(**TINY_VISION, image_size=32, patch_size=8),
            text_config=Qwen2Config(**text_config(tok)),
            image_token_id=tok.context_image_token_id,
            image_seq_length=4,
            downsample_ratio=0.5,
        )
    )


ARCH_BUILDERS: dict[str, ArchBuilder] = {
    "llava_next": ArchBuilder(_llava_next_parts, _llava_next_processor, _llava_next_model),
    **QWEN_BUILDERS,
    "pixtral": ArchBuilder(_pixtral_parts, _pixtral_processor, _pixtral_model),
    "internvl": ArchBuilder(_internvl_parts, _internvl_processor, _internvl_model),
    **SIGLIP_BUILDERS,
}


__all__ = ["ARCH_BUILDERS"]

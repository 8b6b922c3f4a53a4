"""The tiny architectures: for each, its tokenizer and image processor, its processor, its model.

Each is the real transformers class at toy width (see :mod:`cueshift.inference.stand_ins.tiny`);
:data:`ARCH_BUILDERS` maps an architecture name to its :class:`~.tiny_parts.ArchBuilder`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transformers import PreTrainedModel, PreTrainedTokenizerFast, ProcessorMixin

from cueshift.inference.stand_ins.tiny_parts import (
    TINY_VISION,
    ArchBuilder,
    ChatTemplate,
    build_tokenizer,
    text_config,
)

_MISTRAL = ChatTemplate("<s>", "[INST] ", "<image>\n", " [/INST]", "", "</s>")
_PIXTRAL = ChatTemplate("<s>", "[INST]", "[IMG]", "[/INST]", "", "</s>")
_QWEN2 = ChatTemplate(
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n",
    "<|im_start|>user\n",
    "<|vision_start|><|image_pad|><|vision_end|>",
    "<|im_end|>\n",
    "<|im_start|>assistant\n",
    "<|im_end|>\n",
)
_QWEN3 = ChatTemplate(
    "",
    "<|im_start|>user\n",
    "<|vision_start|><|image_pad|><|vision_end|>",
    "<|im_end|>\n",
    "<|im_start|>assistant\n",
    "<|im_end|>\n",
)
_INTERNVL = ChatTemplate(
    "<|im_start|>system\nYou are InternVL.<|im_end|>\n",
    "<|im_start|>user\n",
    "<IMG_CONTEXT>\n",
    "<|im_end|>\n",
    "<|im_start|>assistant\n",
    "<|im_end|>\n",
)
_GEMMA3 = ChatTemplate(
    "<bos>",
    "<start_of_turn>user\n",
    "<start_of_image>",
    "<end_of_turn>\n",
    "<start_of_turn>model\n",
    "<end_of_turn>\n",
)
_IDEFICS3 = ChatTemplate(
    "<|im_start|>", "User:", "<image>", "<end_of_utterance>\n", "Assistant:", "<end_of_utterance>\n"
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


# Qwen2-VL, Qwen2.5-VL, Qwen3-VL: dynamic resolution, 3-axis rotary positions
_QWEN_SPECIALS = {
    "image_token": "<|image_pad|>",
    "video_token": "<|video_pad|>",
    "vision_start_token": "<|vision_start|>",
    "vision_end_token": "<|vision_end|>",
}
_MROPE = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]}


def _qwen_parts(whole: bool) -> tuple[PreTrainedTokenizerFast, Any]:
    from transformers import Qwen2VLImageProcessorPil

    tok = build_tokenizer(
        _QWEN_SPECIALS, ["<|im_start|>", "<|im_end|>"], whole_answers=whole, eos="<|im_end|>"
    )
    return tok, Qwen2VLImageProcessorPil(
        patch_size=8,
        merge_size=2,
        temporal_patch_size=2,
        size={"shortest_edge": 16 * 16, "longest_edge": 64 * 64},
    )


def _qwen_processor(name: str, template: ChatTemplate) -> Callable[[PreTrainedTokenizerFast, Any], Any]:
    def make(tok: PreTrainedTokenizerFast, ip: Any) -> ProcessorMixin:
        from cueshift.inference.stand_ins import tiny_processing

        cls = getattr(tiny_processing, name)
        return cls(ip, tok, chat_template=template.jinja())  # type: ignore[no-any-return]

    return make


def _qwen_ids(tok: PreTrainedTokenizerFast) -> dict[str, Any]:
    names = ("image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id")
    return {name: getattr(tok, name) for name in names}


def _qwen2_vl_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

    return Qwen2VLForConditionalGeneration(
        Qwen2VLConfig(
            text_config=text_config(tok, rope_parameters=_MROPE),
            vision_config={
                "depth": 2,
                "embed_dim": 32,
                "hidden_size": 64,
                "num_heads": 2,
                "mlp_ratio": 2,
                "patch_size": 8,
                "spatial_merge_size": 2,
                "temporal_patch_size": 2,
            },
            **_qwen_ids(tok),
        )
    )


def _qwen2_5_vl_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

    return Qwen2_5_VLForConditionalGeneration(
        Qwen2_5_VLConfig(
            text_config=text_config(tok, rope_parameters=_MROPE),
            vision_config={
                "depth": 2,
                "hidden_size": 32,
                "intermediate_size": 64,
                "out_hidden_size": 64,
                "num_heads": 2,
                "patch_size": 8,
                "spatial_merge_size": 2,
                "temporal_patch_size": 2,
                "window_size": 32,
                "fullatt_block_indexes": [1],
            },
            **_qwen_ids(tok),
        )
    )


def _qwen3_vl_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import Qwen3VLConfig, Qwen3VLForConditionalGeneration

    return Qwen3VLForConditionalGeneration(
        Qwen3VLConfig(
            text_config=text_config(tok, rope_parameters={**_MROPE, "mrope_interleaved": True}, head_dim=16),
            vision_config={
                "depth": 2,
                "hidden_size": 32,
                "intermediate_size": 64,
                "out_hidden_size": 64,
                "num_heads": 2,
                "patch_size": 8,
                "spatial_merge_size": 2,
                "temporal_patch_size": 2,
                "num_position_embeddings": 64,
                "deepstack_visual_indexes": [0],
            },
            **_qwen_ids(tok),
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


# Gemma-3: SigLIP tower pooled to a square of soft tokens, sliding-window text layers
def _gemma3_parts(whole: bool) -> tuple[PreTrainedTokenizerFast, Any]:
    from transformers import Gemma3ImageProcessorPil

    specials = {
        "boi_token": "<start_of_image>",
        "eoi_token": "<end_of_image>",
        "image_token": "<image_soft_token>",
    }
    tok = build_tokenizer(
        specials, ["<start_of_turn>", "<end_of_turn>"], whole_answers=whole, bos="<bos>", eos="<eos>"
    )
    return tok, Gemma3ImageProcessorPil(size={"height": 32, "width": 32})


def _gemma3_processor(tok: PreTrainedTokenizerFast, ip: Any) -> ProcessorMixin:
    from transformers import Gemma3Processor

    return Gemma3Processor(ip, tok, image_seq_length=4, chat_template=_GEMMA3.jinja())


def _gemma3_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import (
        Gemma3Config,
        Gemma3ForConditionalGeneration,
        Gemma3TextConfig,
        SiglipVisionConfig,
    )

    text = Gemma3TextConfig(**text_config(tok, head_dim=16, query_pre_attn_scalar=16, sliding_window=64))
    return Gemma3ForConditionalGeneration(
        Gemma3Config(
            text_config=text,
            vision_config=SiglipVisionConfig(**TINY_VISION, image_size=32, patch_size=8),
            mm_tokens_per_image=4,
            boi_token_index=tok.boi_token_id,
            eoi_token_index=tok.eoi_token_id,
            image_token_index=tok.image_token_id,
        )
    )


# SmolVLM / Idefics3: SigLIP tower, pixel shuffle, image split into <row_i_col_j> tiles + a global image
def _idefics3_parts(whole: bool) -> tuple[PreTrainedTokenizerFast, Any]:
    from transformers import Idefics3ImageProcessorPil

    tiles = [f"<row_{i}_col_{j}>" for i in range(1, 7) for j in range(1, 7)]
    extra = ["<fake_token_around_image>", "<global-img>", "<end_of_utterance>", "<|im_start|>", *tiles]
    tok = build_tokenizer({"image_token": "<image>"}, extra, whole_answers=whole, eos="<end_of_utterance>")
    return tok, Idefics3ImageProcessorPil(
        size={"longest_edge": 64}, max_image_size={"longest_edge": 32}, do_image_splitting=True
    )


def _idefics3_processor(tok: PreTrainedTokenizerFast, ip: Any) -> ProcessorMixin:
    from transformers import Idefics3Processor

    return Idefics3Processor(ip, tok, image_seq_len=4, chat_template=_IDEFICS3.jinja())


def _idefics3_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import (
        Idefics3Config,
        Idefics3ForConditionalGeneration,
        Idefics3VisionConfig,
        LlamaConfig,
    )

    return Idefics3ForConditionalGeneration(
        Idefics3Config(
            vision_config=Idefics3VisionConfig(**TINY_VISION, image_size=32, patch_size=8),
            text_config=LlamaConfig(**text_config(tok)),
            scale_factor=2,
            image_token_id=tok.image_token_id,
        )
    )


ARCH_BUILDERS: dict[str, ArchBuilder] = {
    "llava_next": ArchBuilder(_llava_next_parts, _llava_next_processor, _llava_next_model),
    "qwen2_vl": ArchBuilder(_qwen_parts, _qwen_processor("TinyQwen2VLProcessor", _QWEN2), _qwen2_vl_model),
    "qwen2_5_vl": ArchBuilder(
        _qwen_parts, _qwen_processor("TinyQwen2_5_VLProcessor", _QWEN2), _qwen2_5_vl_model
    ),
    "qwen3_vl": ArchBuilder(_qwen_parts, _qwen_processor("TinyQwen3VLProcessor", _QWEN3), _qwen3_vl_model),
    "pixtral": ArchBuilder(_pixtral_parts, _pixtral_processor, _pixtral_model),
    "internvl": ArchBuilder(_internvl_parts, _internvl_processor, _internvl_model),
    "gemma3": ArchBuilder(_gemma3_parts, _gemma3_processor, _gemma3_model),
    "idefics3": ArchBuilder(_idefics3_parts, _idefics3_processor, _idefics3_model),
}


__all__ = ["ARCH_BUILDERS"]

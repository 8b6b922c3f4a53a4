"""The tiny Qwen-VL architectures: Qwen2-VL, Qwen2.5-VL and Qwen3-VL at toy width.

Dynamic-resolution image processors, 3-axis rotary positions and the real model classes;
:data:`QWEN_BUILDERS` maps each architecture name to its :class:`~.tiny_parts.ArchBuilder`
(merged into :data:`~cueshift.inference.stand_ins.tiny_archs.ARCH_BUILDERS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from transformers import PreTrainedModel, PreTrainedTokenizerFast, ProcessorMixin

from cueshift.inference.stand_ins.tiny_parts import ArchBuilder, ChatTemplate, build_tokenizer, text_config

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


QWEN_BUILDERS: dict[str, ArchBuilder] = {
    "qwen2_vl": ArchBuilder(_qwen_parts, _qwen_processor("TinyQwen2VLProcessor", _QWEN2), _qwen2_vl_model),
    "qwen2_5_vl": ArchBuilder(
        _qwen_parts, _qwen_processor("TinyQwen2_5_VLProcessor", _QWEN2), _qwen2_5_vl_model
    ),
    "qwen3_vl": ArchBuilder(_qwen_parts, _qwen_processor("TinyQwen3VLProcessor", _QWEN3), _qwen3_vl_model),
}


__all__ = ["QWEN_BUILDERS"]

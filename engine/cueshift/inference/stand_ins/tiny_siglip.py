"""The tiny SigLIP-tower architectures: Gemma-3 and SmolVLM / Idefics3 at toy width.

Each is the real transformers class with its tokenizer, image processor and processor;
:data:`SIGLIP_BUILDERS` maps each architecture name to its :class:`~.tiny_parts.ArchBuilder`
(merged into :data:`~cueshift.inference.stand_ins.tiny_archs.ARCH_BUILDERS`).
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


SIGLIP_BUILDERS: dict[str, ArchBuilder] = {
    "gemma3": ArchBuilder(_gemma3_parts, _gemma3_processor, _gemma3_model),
    "idefics3": ArchBuilder(_idefics3_parts, _idefics3_processor, _idefics3_model),
}


__all__ = ["SIGLIP_BUILDERS"]

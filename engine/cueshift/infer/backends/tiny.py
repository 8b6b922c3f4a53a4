"""Tiny, randomly initialised image-text-to-text models of the real architecture classes.

They exist to prove every code path of the transformers backend without a hub or a GPU:
a byte-level BPE tokenizer is trained locally, the ``...Pil`` image processor (no
torchvision) and the model's own processor class are built in code, and the model is
built from a config of the real class with 2 text layers of width 64 and a 2-layer
vision tower of width 32. Their answers mean nothing.

Run ``python -m cueshift.infer.backends.tiny <arch> <dir>`` to save a local checkpoint
directory (see :func:`build_tiny_model`).

Notes
-----
Without torchvision, the Qwen-VL and InternVL processors cannot build their video
processor, so they are built with ``video_processor=None`` (a subclass relaxes the
argument check) and cannot be saved and reloaded with ``AutoProcessor``. For those,
the checkpoint directory holds the tokenizer and the image processor, and
:func:`load_tiny` rebuilds the processor in code; the backend does this on its own when
it finds the ``cueshift_tiny.json`` marker written by :func:`build_tiny_model`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import AutoModelForImageTextToText, PreTrainedModel, PreTrainedTokenizerFast, ProcessorMixin

from cueshift.study.scenarios import ORDERINGS, RELEASED_TEMPLATE, STYLISTICBIAS_25

#: architecture name -> the real model it stands for
ARCHS: dict[str, str] = {
    "llava_next": "LLaVA-v1.6-Mistral (LlavaNextForConditionalGeneration)",
    "qwen2_vl": "Qwen2-VL (Qwen2VLForConditionalGeneration)",
    "qwen2_5_vl": "Qwen2.5-VL (Qwen2_5_VLForConditionalGeneration)",
    "qwen3_vl": "Qwen3-VL (Qwen3VLForConditionalGeneration)",
    "pixtral": "Pixtral (LlavaForConditionalGeneration with a Pixtral vision tower)",
    "internvl": "InternVL3 (InternVLForConditionalGeneration)",
    "gemma3": "Gemma-3 (Gemma3ForConditionalGeneration)",
    "idefics3": "SmolVLM / Idefics3 (Idefics3ForConditionalGeneration)",
}
#: architectures whose processor cannot be saved/reloaded without torchvision
NO_PROCESSOR_ROUNDTRIP = frozenset({"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "internvl", "pixtral"})
MARKER = "cueshift_tiny.json"

_TEXT: dict[str, Any] = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 2048,
}
_VISION: dict[str, Any] = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
}


@dataclass(frozen=True)
class _Template:
    """The pieces of a chat template (the real model's layout, shortened)."""

    bos: str
    user_start: str
    image: str
    user_end: str
    assistant_start: str
    assistant_end: str

    def jinja(self) -> str:
        def lit(s: str) -> str:
            return "{{ " + json.dumps(s) + " }}"

        return (
            lit(self.bos)
            + "{% for m in messages %}{% if m['role'] == 'user' %}"
            + lit(self.user_start)
            + "{% for c in m['content'] %}{% if c['type'] == 'image' %}"
            + lit(self.image)
            + "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}"
            + lit(self.user_end)
            + "{% else %}"
            + lit(self.assistant_start)
            + "{% for c in m['content'] %}{% if c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}"
            + lit(self.assistant_end)
            + "{% endif %}{% endfor %}"
            + "{% if add_generation_prompt %}"
            + lit(self.assistant_start)
            + "{% endif %}"
        )


_MISTRAL = _Template("<s>", "[INST] ", "<image>\n", " [/INST]", "", "</s>")
_PIXTRAL = _Template("<s>", "[INST]", "[IMG]", "[/INST]", "", "</s>")
_QWEN2 = _Template(
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n",
    "<|im_start|>user\n",
    "<|vision_start|><|image_pad|><|vision_end|>",
    "<|im_end|>\n",
    "<|im_start|>assistant\n",
    "<|im_end|>\n",
)
_QWEN3 = _Template(
    "",
    "<|im_start|>user\n",
    "<|vision_start|><|image_pad|><|vision_end|>",
    "<|im_end|>\n",
    "<|im_start|>assistant\n",
    "<|im_end|>\n",
)
_INTERNVL = _Template(
    "<|im_start|>system\nYou are InternVL.<|im_end|>\n",
    "<|im_start|>user\n",
    "<IMG_CONTEXT>\n",
    "<|im_end|>\n",
    "<|im_start|>assistant\n",
    "<|im_end|>\n",
)
_GEMMA3 = _Template(
    "<bos>",
    "<start_of_turn>user\n",
    "<start_of_image>",
    "<end_of_turn>\n",
    "<start_of_turn>model\n",
    "<end_of_turn>\n",
)
_IDEFICS3 = _Template(
    "<|im_start|>", "User:", "<image>", "<end_of_utterance>\n", "Assistant:", "<end_of_utterance>\n"
)


def _corpus() -> list[str]:
    texts = [o.render(RELEASED_TEMPLATE, s) for s in STYLISTICBIAS_25 for o in ORDERINGS]
    return texts + ["(a)", "(b)", "(a) (b) a b A B", "You are a helpful assistant.", "User: Assistant:"]


def build_tokenizer(
    specials: dict[str, str],
    extra: list[str],
    *,
    whole_answers: bool,
    bos: str | None = None,
    eos: str = "</s>",
    vocab_size: int = 400,
) -> PreTrainedTokenizerFast:
    """Train a tiny byte-level BPE tokenizer on the prompts.

    Parameters
    ----------
    specials
        Named special tokens exposed as attributes (``tok.image_token``, ``tok.image_token_id``...).
    extra
        Further special tokens of the model (chat markers, tile tags).
    whole_answers
        Add "(a)" and "(b)" as whole tokens; otherwise they split into "(" "a" ")".
    """
    named = list(dict.fromkeys(specials.values()))
    all_special = list(dict.fromkeys([*(t for t in (bos, eos, "<pad>") if t), *named, *extra]))
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size + len(all_special),
        special_tokens=all_special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_corpus(), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=bos,
        eos_token=eos,
        pad_token="<pad>",
        extra_special_tokens=specials,
    )
    if whole_answers:
        fast.add_tokens(["(a)", "(b)"])
    return fast


def _perturb(model: PreTrainedModel, seed: int, scale: float = 0.2) -> PreTrainedModel:
    """Add seeded noise to every weight so that logits are far from uniform."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=gen, dtype=p.dtype) * scale)
    return model.eval()


class _NoVideoMixin:
    """Accept ``video_processor=None`` (torchvision is needed to build a video processor)."""

    def check_argument_for_proper_class(self, argument_name: str, argument: Any) -> Any:
        if argument_name == "video_processor" and argument is None:
            return None
        return super().check_argument_for_proper_class(argument_name, argument)  # type: ignore[misc]


def _no_video(cls: type) -> type:
    return type(cls.__name__, (_NoVideoMixin, cls), {})


# --- per architecture: tokenizer + image processor, the processor around them, the model config ---------

Built = tuple[PreTrainedModel, ProcessorMixin]


@dataclass(frozen=True)
class _Arch:
    """How to build one tiny architecture."""

    parts: Callable[[bool], tuple[PreTrainedTokenizerFast, Any]]  # whole_answers -> (tokenizer, image proc.)
    processor: Callable[[PreTrainedTokenizerFast, Any], ProcessorMixin]
    model: Callable[[PreTrainedTokenizerFast], PreTrainedModel]


def _text_cfg(tok: PreTrainedTokenizerFast, **kw: Any) -> dict[str, Any]:
    return {
        **_TEXT,
        "vocab_size": len(tok),
        "pad_token_id": tok.pad_token_id,
        "eos_token_id": tok.eos_token_id,
        "bos_token_id": tok.bos_token_id,
        **kw,
    }


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

    return LlavaNextProcessor(
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
            vision_config=CLIPVisionConfig(**_VISION, image_size=32, patch_size=8),
            text_config=MistralConfig(**_text_cfg(tok)),
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
    from transformers import LlavaProcessor

    class PixtralLikeProcessor(LlavaProcessor):  # type: ignore[misc]
        """PixtralProcessor's image expansion (rows of [IMG] closed by [IMG_BREAK], last [IMG_END]).

        transformers' own PixtralProcessor module imports torchvision, which is unusable here;
        a real Pixtral checkpoint loads its own processor with ``AutoProcessor``.
        """

        image_break_token = "[IMG_BREAK]"
        image_end_token = "[IMG_END]"

        def replace_image_token(self, image_inputs: dict[str, Any], image_idx: int, **kwargs: Any) -> str:
            height, width = (int(v) for v in image_inputs["image_sizes"][image_idx])
            row = self.image_token * (width // self.patch_size) + self.image_break_token
            return (row * (height // self.patch_size))[: -len(self.image_break_token)] + self.image_end_token

    return PixtralLikeProcessor(
        ip, tok, patch_size=8, vision_feature_select_strategy="full", chat_template=_PIXTRAL.jinja()
    )


def _pixtral_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import LlavaConfig, LlavaForConditionalGeneration, MistralConfig, PixtralVisionConfig

    return LlavaForConditionalGeneration(
        LlavaConfig(
            vision_config=PixtralVisionConfig(**_VISION, image_size=32, patch_size=8),
            text_config=MistralConfig(**_text_cfg(tok)),
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


def _qwen_processor(name: str, template: _Template) -> Callable[[PreTrainedTokenizerFast, Any], Any]:
    def make(tok: PreTrainedTokenizerFast, ip: Any) -> ProcessorMixin:
        import transformers

        cls = _no_video(getattr(transformers, name))
        return cls(ip, tok, None, chat_template=template.jinja())  # type: ignore[no-any-return]

    return make


def _qwen_ids(tok: PreTrainedTokenizerFast) -> dict[str, Any]:
    names = ("image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id")
    return {name: getattr(tok, name) for name in names}


def _qwen2_vl_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

    return Qwen2VLForConditionalGeneration(
        Qwen2VLConfig(
            text_config=_text_cfg(tok, rope_parameters=_MROPE),
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
            text_config=_text_cfg(tok, rope_parameters=_MROPE),
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
            text_config=_text_cfg(tok, rope_parameters={**_MROPE, "mrope_interleaved": True}, head_dim=16),
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
    from transformers import InternVLProcessor

    cls = _no_video(InternVLProcessor)
    return cls(ip, tok, None, image_seq_length=4, chat_template=_INTERNVL.jinja())  # type: ignore[no-any-return]


def _internvl_model(tok: PreTrainedTokenizerFast) -> PreTrainedModel:
    from transformers import (
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLVisionConfig,
        Qwen2Config,
    )

    return InternVLForConditionalGeneration(
        InternVLConfig(
            vision_config=InternVLVisionConfig(**_VISION, image_size=32, patch_size=8),
            text_config=Qwen2Config(**_text_cfg(tok)),
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

    text = Gemma3TextConfig(**_text_cfg(tok, head_dim=16, query_pre_attn_scalar=16, sliding_window=64))
    return Gemma3ForConditionalGeneration(
        Gemma3Config(
            text_config=text,
            vision_config=SiglipVisionConfig(**_VISION, image_size=32, patch_size=8),
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
            vision_config=Idefics3VisionConfig(**_VISION, image_size=32, patch_size=8),
            text_config=LlamaConfig(**_text_cfg(tok)),
            scale_factor=2,
            image_token_id=tok.image_token_id,
        )
    )


_ARCH_BUILD: dict[str, _Arch] = {
    "llava_next": _Arch(_llava_next_parts, _llava_next_processor, _llava_next_model),
    "qwen2_vl": _Arch(_qwen_parts, _qwen_processor("Qwen2VLProcessor", _QWEN2), _qwen2_vl_model),
    "qwen2_5_vl": _Arch(_qwen_parts, _qwen_processor("Qwen2_5_VLProcessor", _QWEN2), _qwen2_5_vl_model),
    "qwen3_vl": _Arch(_qwen_parts, _qwen_processor("Qwen3VLProcessor", _QWEN3), _qwen3_vl_model),
    "pixtral": _Arch(_pixtral_parts, _pixtral_processor, _pixtral_model),
    "internvl": _Arch(_internvl_parts, _internvl_processor, _internvl_model),
    "gemma3": _Arch(_gemma3_parts, _gemma3_processor, _gemma3_model),
    "idefics3": _Arch(_idefics3_parts, _idefics3_processor, _idefics3_model),
}


def build_tiny(arch: str, *, seed: int = 0, whole_answers: bool = True) -> Built:
    """Build a tiny model and its processor in memory.

    Parameters
    ----------
    arch
        One of :data:`ARCHS`.
    seed
        Seeds the initialisation and the weight perturbation.
    whole_answers
        Whether "(a)"/"(b)" are single tokens (else they split into three).

    Returns
    -------
    tuple
        ``(model, processor)``, the model in eval mode on the CPU in float32.
    """
    if arch not in _ARCH_BUILD:
        raise ValueError(f"unknown tiny architecture {arch!r}; known: {', '.join(ARCHS)}")
    spec = _ARCH_BUILD[arch]
    tok, image_processor = spec.parts(whole_answers)
    processor = spec.processor(tok, image_processor)
    torch.manual_seed(seed)
    return _perturb(spec.model(processor.tokenizer), seed), processor


def build_tiny_model(arch: str, out_dir: Path, *, seed: int = 0, whole_answers: bool = True) -> Path:
    """Save a tiny model as a local checkpoint directory and return it.

    The directory loads with ``AutoModelForImageTextToText``; its processor loads with
    ``AutoProcessor`` except for :data:`NO_PROCESSOR_ROUNDTRIP` (use :func:`load_tiny`,
    which the backend calls by itself when it sees the ``cueshift_tiny.json`` marker).
    """
    out_dir = Path(out_dir)
    model, processor = build_tiny(arch, seed=seed, whole_answers=whole_answers)
    model.save_pretrained(out_dir)
    processor.tokenizer.save_pretrained(out_dir)
    processor.image_processor.save_pretrained(out_dir)
    if arch not in NO_PROCESSOR_ROUNDTRIP:
        processor.save_pretrained(out_dir)
    marker = {"arch": arch, "seed": seed, "whole_answers": whole_answers, "stands_for": ARCHS[arch]}
    (out_dir / MARKER).write_text(json.dumps(marker, indent=2), encoding="utf-8")
    return out_dir


def load_tiny(path: Path) -> Built:
    """Load a directory written by :func:`build_tiny_model`, rebuilding the processor in code."""
    path = Path(path)
    marker = json.loads((path / MARKER).read_text(encoding="utf-8"))
    model = AutoModelForImageTextToText.from_pretrained(path).eval()
    if marker["arch"] not in NO_PROCESSOR_ROUNDTRIP:  # the same path as a real checkpoint
        from transformers import AutoProcessor

        return model, AutoProcessor.from_pretrained(path)
    return model, load_tiny_processor(path, marker["arch"])


def load_tiny_processor(path: Path, arch: str) -> ProcessorMixin:
    """Rebuild the processor of a saved tiny model from its saved tokenizer and image processor."""
    from transformers import AutoImageProcessor, AutoTokenizer

    tok: Any = AutoTokenizer.from_pretrained(path)
    image_processor = AutoImageProcessor.from_pretrained(path)
    return _ARCH_BUILD[arch].processor(tok, image_processor)


def main(argv: list[str] | None = None) -> int:
    """``python -m cueshift.infer.backends.tiny <arch> <out_dir> [--split-answers]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    whole = "--split-answers" not in args
    args = [a for a in args if a != "--split-answers"]
    if len(args) != 2 or args[0] not in ARCHS:
        archs = "|".join(ARCHS)
        usage = f"usage: python -m cueshift.infer.backends.tiny <{archs}> <out_dir> [--split-answers]"
        print(usage, file=sys.stderr)
        return 2
    out = build_tiny_model(args[0], Path(args[1]), whole_answers=whole)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

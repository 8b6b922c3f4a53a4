"""Shared pieces of the tiny test models: toy sizes, chat templates, a locally trained tokenizer.

See :mod:`cueshift.inference.stand_ins.tiny`; the architectures themselves are in
:mod:`cueshift.inference.stand_ins.tiny_archs` (with :mod:`.tiny_qwen`, :mod:`.tiny_siglip`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedModel, PreTrainedTokenizerFast, ProcessorMixin

from cueshift.inference.stand_ins.tiny_corpus import prompt_corpus

TINY_TEXT: dict[str, Any] = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 2048,
}
TINY_VISION: dict[str, Any] = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
}


@dataclass(frozen=True)
class ChatTemplate:
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
    tok.train_from_iterator(prompt_corpus(), trainer)
    fast = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]  # untyped in transformers
        tokenizer_object=tok,
        bos_token=bos,
        eos_token=eos,
        pad_token="<pad>",
        extra_special_tokens=specials,
    )
    if whole_answers:
        fast.add_tokens(["(a)", "(b)"])
    return fast


def perturb(model: PreTrainedModel, seed: int, scale: float = 0.2) -> PreTrainedModel:
    """Add seeded noise to every weight so that logits are far from uniform."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=gen, dtype=p.dtype) * scale)
    model.eval()  # type: ignore[no-untyped-call]  # untyped in transformers
    return model


# --- per architecture: tokenizer + image processor, the processor around them, the model config ---------

Built = tuple[PreTrainedModel, ProcessorMixin]


@dataclass(frozen=True)
class ArchBuilder:
    """How to build one tiny architecture."""

    parts: Callable[[bool], tuple[PreTrainedTokenizerFast, Any]]  # whole_answers -> (tokenizer, image proc.)
    processor: Callable[[PreTrainedTokenizerFast, Any], ProcessorMixin]
    model: Callable[[PreTrainedTokenizerFast], PreTrainedModel]


def text_config(tok: PreTrainedTokenizerFast, **kw: Any) -> dict[str, Any]:
    return {
        **TINY_TEXT,
        "vocab_size": len(tok),
        "pad_token_id": tok.pad_token_id,
        "eos_token_id": tok.eos_token_id,
        "bos_token_id": tok.bos_token_id,
        **kw,
    }


__all__ = [
    "TINY_TEXT",
    "TINY_VISION",
    "ArchBuilder",
    "Built",
    "ChatTemplate",
    "build_tokenizer",
    "perturb",
    "prompt_corpus",
    "text_config",
]

"""A tiny randomly initialised ``CLIPModel`` built locally (no hub): for tests and the tiny-clip study.

The architecture is the real transformers CLIP (text and vision transformers, projections,
learned logit scale) at toy width; the tokenizer is a CLIP BPE tokenizer whose vocabulary
is the 256 byte-level symbols (with and without the ``</w>`` end-of-word mark) and no
merges, and the image processor is the PIL one (no torchvision needed). Its judgments
mean nothing: it exists to run every code path of :mod:`cueshift.inference.backends.clip`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from transformers import CLIPModel, CLIPProcessor

#: ``checkpoint`` value of this model: the CLIP backend loads the directory it resolves to
#: (:func:`cueshift.inference.stand_ins.checkpoints.resolve_checkpoint`, written by :func:`save_tiny_clip`).
TINY_CLIP_CHECKPOINT = "cueshift:tiny-random-clip"
#: The logit scale of trained CLIP checkpoints (clamped at 100 during training).
TRAINED_LOGIT_SCALE = 100.0


def build_tiny_clip(seed: int = 0) -> tuple[CLIPModel, CLIPProcessor]:
    """Build the tiny CLIP model and its processor.

    Parameters
    ----------
    seed
        Seed of the random initialisation (same seed, same weights).

    Returns
    -------
    (CLIPModel, CLIPProcessor)
        The model in eval mode (about 60k parameters, 32×32 images, 16-d embeddings) and a
        processor that tokenizes text and resizes images for it.
    """
    import math

    import torch
    from tokenizers.pre_tokenizers import ByteLevel
    from transformers import CLIPConfig, CLIPImageProcessorPil, CLIPModel, CLIPProcessor, CLIPTokenizer

    symbols = sorted(ByteLevel.alphabet())
    vocab: dict[str, int] = {}
    for symbol in symbols:
        vocab[symbol] = len(vocab)
    for symbol in symbols:
        vocab[f"{symbol}</w>"] = len(vocab)
    for special in ("<|startoftext|>", "<|endoftext|>"):
        vocab[special] = len(vocab)
    tokenizer = CLIPTokenizer(vocab=vocab, merges=[])
    image_processor = CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    processor = CLIPProcessor(  # type: ignore[no-untyped-call]  # untyped in transformers
        image_processor=image_processor, tokenizer=tokenizer
    )
    config = CLIPConfig(
        text_config={
            "vocab_size": len(tokenizer),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "max_position_embeddings": 77,
            "bos_token_id": tokenizer.bos_token_id,
            "eos_token_id": tokenizer.eos_token_id,
            "pad_token_id": tokenizer.pad_token_id,
        },
        vision_config={
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": 32,
            "patch_size": 8,
        },
        projection_dim=16,
    )
    generator_state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        model = CLIPModel(config)
        model.eval()  # type: ignore[no-untyped-call]  # untyped in transformers
    finally:
        torch.random.set_rng_state(generator_state)  # leave the caller's generator alone
    with torch.no_grad():
        model.logit_scale.fill_(math.log(TRAINED_LOGIT_SCALE))
    return model, processor


def save_tiny_clip(directory: str | Path, seed: int = 0) -> Path:
    """Write the tiny model and processor to ``directory`` (loadable by ``from_pretrained``), quietly."""
    from transformers.utils import logging as hf_logging

    directory = Path(directory)
    model, processor = build_tiny_clip(seed)
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # no "Writing model shards" bar
    try:
        model.save_pretrained(directory)
        processor.save_pretrained(directory)
    finally:
        if bars:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
    return directory

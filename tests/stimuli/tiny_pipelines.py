"""Tiny randomly initialised diffusers pipelines of the real classes, saved to a folder (no hub)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _tokenizer(folder: Path) -> Any:
    from transformers import CLIPTokenizer

    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1, "!": 2}
    for letter in letters:
        vocab[letter] = len(vocab)
        vocab[f"{letter}</w>"] = len(vocab)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.json").write_text(json.dumps(vocab))
    (folder / "merges.txt").write_text("#version: 0.2\n")
    return CLIPTokenizer(str(folder / "vocab.json"), str(folder / "merges.txt"), model_max_length=77)


def _text_config(vocab_size: int, *, projection_dim: int = 512) -> Any:
    """The tiny CLIP text encoder's configuration (``projection_dim``: SDXL's pooled prompt; 512 is
    ``CLIPTextConfig``'s own default)."""
    from transformers import CLIPTextConfig

    return CLIPTextConfig(
        vocab_size=vocab_size, hidden_size=32, intermediate_size=37, num_attention_heads=4,
        num_hidden_layers=2, max_position_embeddings=77, bos_token_id=0, eos_token_id=1, pad_token_id=1,
        projection_dim=projection_dim,
    )  # fmt: skip


def _vae() -> Any:
    """The tiny AutoencoderKL both pipelines share (randomly initialised from torch's current seed)."""
    import diffusers

    classes: Any = diffusers  # untyped constructors
    return classes.AutoencoderKL(
        block_out_channels=(16, 32), in_channels=3, out_channels=3, latent_channels=4, norm_num_groups=16,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
    )  # fmt: skip


def tiny_pipeline(folder: Path, *, edit: bool) -> Path:
    """A StableDiffusionPipeline (``edit``: StableDiffusionInstructPix2PixPipeline) saved in ``folder``."""
    import diffusers
    import torch
    from diffusers import StableDiffusionInstructPix2PixPipeline, StableDiffusionPipeline
    from transformers import CLIPTextModel

    classes: Any = diffusers  # untyped constructors
    torch.manual_seed(0)
    tokenizer = _tokenizer(folder / "_tok")
    text = CLIPTextModel(_text_config(len(tokenizer)))
    unet = classes.UNet2DConditionModel(
        block_out_channels=(32, 64), layers_per_block=1, sample_size=16, in_channels=8 if edit else 4,
        out_channels=4, down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), cross_attention_dim=32, attention_head_dim=4,
        norm_num_groups=16,
    )  # fmt: skip
    vae = _vae()
    cls: Any = StableDiffusionInstructPix2PixPipeline if edit else StableDiffusionPipeline
    pipe = cls(
        unet=unet, vae=vae, text_encoder=text, tokenizer=tokenizer, scheduler=classes.DDIMScheduler(),
        safety_checker=None, feature_extractor=None, requires_safety_checker=False,
    )  # fmt: skip
    target = folder / ("edit" if edit else "base")
    pipe.save_pretrained(target)
    return target


def tiny_sdxl_pipeline(folder: Path) -> Path:
    """A StableDiffusionXLPipeline saved in ``folder``: a UNet with the ``text_time`` added
    conditioning, a CLIPTextModel and a CLIPTextModelWithProjection (the pooled prompt) and their
    tokenizers (diffusers' own tiny SDXL test components, in the sizes above)."""
    import diffusers
    import torch
    from diffusers import StableDiffusionXLPipeline
    from transformers import CLIPTextModel, CLIPTextModelWithProjection

    classes: Any = diffusers  # untyped constructors
    torch.manual_seed(0)
    tokenizer = _tokenizer(folder / "_tok_xl")
    config = _text_config(len(tokenizer), projection_dim=32)
    time_dim = 8  # six time ids (original size, crop, target size) of 8 each + the pooled 32
    unet = classes.UNet2DConditionModel(
        block_out_channels=(32, 64), layers_per_block=1, sample_size=16, in_channels=4, out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"), attention_head_dim=(2, 4),
        use_linear_projection=True, addition_embed_type="text_time", addition_time_embed_dim=time_dim,
        projection_class_embeddings_input_dim=6 * time_dim + 32, cross_attention_dim=32 + 32,
        norm_num_groups=16,
    )  # fmt: skip
    vae = _vae()
    cls: Any = StableDiffusionXLPipeline
    pipe = cls(
        unet=unet, vae=vae, text_encoder=CLIPTextModel(config), tokenizer=tokenizer,
        text_encoder_2=CLIPTextModelWithProjection(config), tokenizer_2=tokenizer,
        scheduler=classes.EulerDiscreteScheduler(), add_watermarker=False,
    )  # fmt: skip
    target = folder / "sdxl"
    pipe.save_pretrained(target)
    return target

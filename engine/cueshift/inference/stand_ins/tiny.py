"""Tiny, randomly initialised image-text-to-text models of the real architecture classes.

They exist to prove every code path of the transformers backend without a hub or a GPU:
a byte-level BPE tokenizer is trained locally, the ``...Pil`` image processor (no
torchvision) and the model's own processor class are built in code, and the model is
built from a config of the real class with 2 text layers of width 64 and a 2-layer
vision tower of width 32. Their answers mean nothing.

Run ``python -m cueshift.inference.stand_ins.tiny <arch> <dir>`` to save a local checkpoint
directory (see :func:`build_tiny_model`).

Notes
-----
Without torchvision, transformers cannot build the Qwen-VL and InternVL processors (they
need a video processor) nor import its PixtralProcessor. Those architectures use the
processors of :mod:`cueshift.inference.stand_ins.tiny_processing`, and their checkpoint
directory carries that file as custom code (:data:`REMOTE_CODE`): like any hub checkpoint
with custom code, it loads through the ordinary path with ``trust_remote_code = true``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from cueshift.inference.stand_ins.tiny_archs import ARCH_BUILDERS
from cueshift.inference.stand_ins.tiny_parts import Built, perturb

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
#: architectures whose checkpoint carries its processor's code (load with trust_remote_code)
REMOTE_CODE = frozenset({"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "internvl", "pixtral"})


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
    if arch not in ARCH_BUILDERS:
        raise ValueError(f"unknown tiny architecture {arch!r}; known: {', '.join(ARCHS)}")
    spec = ARCH_BUILDERS[arch]
    tok, image_processor = spec.parts(whole_answers)
    processor = spec.processor(tok, image_processor)
    torch.manual_seed(seed)
    return perturb(spec.model(processor.tokenizer), seed), processor


def build_tiny_model(arch: str, out_dir: Path, *, seed: int = 0, whole_answers: bool = True) -> Path:
    """Save a tiny model as a local checkpoint directory and return it.

    The directory loads with ``AutoModelForImageTextToText`` and ``AutoProcessor``, offline;
    for :data:`REMOTE_CODE` architectures with ``trust_remote_code=True`` (the directory holds
    the processor's code, ``tiny_processing.py``).
    """
    out_dir = Path(out_dir)
    model, processor = build_tiny(arch, seed=seed, whole_answers=whole_answers)
    model.save_pretrained(out_dir)
    if arch in REMOTE_CODE:
        processor.register_for_auto_class("AutoProcessor")  # type: ignore[no-untyped-call]  # untyped in transformers
    processor.save_pretrained(out_dir)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    """``python -m cueshift.inference.stand_ins.tiny <arch> <out_dir> [--split-answers]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    whole = "--split-answers" not in args
    args = [a for a in args if a != "--split-answers"]
    if len(args) != 2 or args[0] not in ARCHS:
        archs = "|".join(ARCHS)
        usage = f"usage: python -m cueshift.inference.stand_ins.tiny <{archs}> <out_dir> [--split-answers]"
        print(usage, file=sys.stderr)
        return 2
    out = build_tiny_model(args[0], Path(args[1]), whole_answers=whole)
    print(out)
    if args[0] in REMOTE_CODE:
        print("its processor is custom code: set trust_remote_code = true in [models.settings]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "ARCHS",
    "REMOTE_CODE",
    "build_tiny",
    "build_tiny_model",
    "main",
]

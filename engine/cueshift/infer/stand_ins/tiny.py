"""Tiny, randomly initialised image-text-to-text models of the real architecture classes.

They exist to prove every code path of the transformers backend without a hub or a GPU:
a byte-level BPE tokenizer is trained locally, the ``...Pil`` image processor (no
torchvision) and the model's own processor class are built in code, and the model is
built from a config of the real class with 2 text layers of width 64 and a 2-layer
vision tower of width 32. Their answers mean nothing.

Run ``python -m cueshift.infer.stand_ins.tiny <arch> <dir>`` to save a local checkpoint
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
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForImageTextToText, ProcessorMixin

from cueshift.infer.stand_ins.tiny_archs import ARCH_BUILDERS
from cueshift.infer.stand_ins.tiny_parts import Built, perturb

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
    model = AutoModelForImageTextToText.from_pretrained(path)
    model.eval()  # type: ignore[no-untyped-call]  # untyped in transformers
    if marker["arch"] not in NO_PROCESSOR_ROUNDTRIP:  # the same path as a real checkpoint
        from transformers import AutoProcessor

        return model, AutoProcessor.from_pretrained(path)  # type: ignore[no-untyped-call]  # untyped in transformers
    return model, load_tiny_processor(path, marker["arch"])


def load_tiny_processor(path: Path, arch: str) -> ProcessorMixin:
    """Rebuild the processor of a saved tiny model from its saved tokenizer and image processor."""
    from transformers import AutoImageProcessor, AutoTokenizer

    tok: Any = AutoTokenizer.from_pretrained(path)
    image_processor = AutoImageProcessor.from_pretrained(path)  # type: ignore[no-untyped-call]  # untyped in transformers
    return ARCH_BUILDERS[arch].processor(tok, image_processor)


def main(argv: list[str] | None = None) -> int:
    """``python -m cueshift.infer.stand_ins.tiny <arch> <out_dir> [--split-answers]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    whole = "--split-answers" not in args
    args = [a for a in args if a != "--split-answers"]
    if len(args) != 2 or args[0] not in ARCHS:
        archs = "|".join(ARCHS)
        usage = f"usage: python -m cueshift.infer.stand_ins.tiny <{archs}> <out_dir> [--split-answers]"
        print(usage, file=sys.stderr)
        return 2
    out = build_tiny_model(args[0], Path(args[1]), whole_answers=whole)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "ARCHS",
    "MARKER",
    "NO_PROCESSOR_ROUNDTRIP",
    "build_tiny",
    "build_tiny_model",
    "load_tiny",
    "load_tiny_processor",
    "main",
]

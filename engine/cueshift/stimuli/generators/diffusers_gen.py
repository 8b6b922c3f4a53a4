"""The ``diffusers`` generator: a local text-to-image pipeline for bases, an instruction or
reference editing pipeline for variations (e.g. StableDiffusionPipeline / SDXL;
StableDiffusionInstructPix2PixPipeline, FluxKontextPipeline, QwenImageEditPipeline).

The model is a local pipeline folder (``save_pretrained``); it is loaded with
``local_files_only=True``, never from a hub. ``pipeline`` names the class (default: the folder's
``model_index.json`` picks it); ``steps``, ``guidance``, ``image_guidance``, ``dtype`` and
``device`` are the study's settings (:mod:`.diffusers_settings`). A call that raises is a failed
try; a safety checker's NSFW flag is a refusal. Needs the ``build`` extra.
"""

from __future__ import annotations

import io
import time
from collections.abc import Mapping
from typing import Any

from cueshift.extras import importing
from cueshift.stimuli.generators.base import ImageRequest, ImageResult
from cueshift.stimuli.generators.diffusers_settings import parse_settings


class DiffusersGenerator:
    """A diffusers pipeline, built as ``DiffusersGenerator(model, settings)``."""

    name = "diffusers"

    def __init__(self, model: str, settings: Mapping[str, object]) -> None:
        self.model = model
        self.settings = parse_settings(model, settings)
        with importing("build", "the diffusers generator of cueshift build"):
            import diffusers
            import torch
        self._torch = torch
        cls: Any = getattr(diffusers, self.settings.pipeline or "DiffusionPipeline", None)
        if cls is None:
            from cueshift.errors import ConfigError

            raise ConfigError(
                f"diffusers settings: no pipeline class {self.settings.pipeline!r} in diffusers"
            )
        dtype = getattr(torch, self.settings.dtype)
        self.pipe = cls.from_pretrained(model, torch_dtype=dtype, local_files_only=True)
        device = self.settings.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.pipe = self.pipe.to(device)
        self.pipe.set_progress_bar_config(disable=True)

    def generate(self, request: ImageRequest) -> ImageResult:
        """One base (text to image) or one edit (``parent_png`` as the image)."""
        started = time.perf_counter()
        try:
            png, refused = self._run(request)
        except Exception as exc:  # noqa: BLE001 - a failed call is an outcome, never raised
            message = f"{type(exc).__name__}: {exc}".splitlines()[0][:500]
            return ImageResult("failed", None, message, time.perf_counter() - started)
        seconds = time.perf_counter() - started
        if refused:
            return ImageResult("refused", None, "the pipeline's safety checker flagged the image", seconds)
        return ImageResult("ok", png, "", seconds)

    def _run(self, request: ImageRequest) -> tuple[bytes, bool]:
        from PIL import Image

        s = self.settings
        kwargs: dict[str, Any] = {
            "prompt": request.prompt,
            "num_inference_steps": s.steps,
            "guidance_scale": s.guidance,
            "generator": self._torch.Generator(device=self.device).manual_seed(request.seed),
            "output_type": "pil",
        }
        if s.negative_prompt is not None:
            kwargs["negative_prompt"] = s.negative_prompt
        if request.parent_png is not None:
            with Image.open(io.BytesIO(request.parent_png)) as parent:
                kwargs["image"] = parent.convert("RGB")
            if s.image_guidance is not None:
                kwargs["image_guidance_scale"] = s.image_guidance
        else:
            kwargs["height"], kwargs["width"] = request.height, request.width
        output = self.pipe(**kwargs)
        flagged = getattr(output, "nsfw_content_detected", None)
        if flagged and flagged[0]:
            return b"", True
        buffer = io.BytesIO()
        output.images[0].save(buffer, format="PNG")
        return buffer.getvalue(), False


__all__ = ["DiffusersGenerator"]

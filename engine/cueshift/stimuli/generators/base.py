"""The image-generator protocol: one request in, one result out, never an exception for a refusal.

A generator makes one image per call: a base face from a text prompt (``stage="base"``), or an
edit of a base (``stage="variation"``: ``parent_png`` holds the base). A call the service refuses
(a content filter) or that fails (an error, an empty answer) is returned as an outcome, never
raised, so the build loop records it and carries on; only bad settings raise
:class:`~cueshift.errors.ConfigError`, when the generator is built.

>>> request = ImageRequest("base", "a face", seed=3, parent_png=None, width=64, height=64)
>>> ImageResult("refused", None, "content filter", 0.5).outcome
'refused'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, Protocol, runtime_checkable

#: The two stages of a build.
Stage = Literal["base", "variation"]
#: What one call gave; the build loop adds ``"rejected"`` for an image the edit audit turned down.
Outcome = Literal["ok", "refused", "failed"]
#: The stages, in build order.
STAGES: Final[tuple[Stage, ...]] = ("base", "variation")


@dataclass(frozen=True)
class ImageRequest:
    """One image to make.

    Attributes
    ----------
    stage
        ``"base"`` (text to image) or ``"variation"`` (an edit of ``parent_png``).
    prompt
        The whole prompt (slots filled).
    seed
        The random seed of this try (a retry gets a new one).
    parent_png
        The base image as PNG bytes for an edit; ``None`` for a base.
    width, height
        The size asked for, in pixels.
    """

    stage: Stage
    prompt: str
    seed: int
    parent_png: bytes | None
    width: int
    height: int


@dataclass(frozen=True)
class ImageResult:
    """What one call gave.

    Attributes
    ----------
    outcome
        ``"ok"`` (``png`` holds the image), ``"refused"`` (the generator declined the prompt)
        or ``"failed"`` (an error; ``message`` says which).
    png
        The image as PNG bytes when ``outcome == "ok"``, else ``None``.
    message
        Why a call was refused or failed (empty when ok).
    seconds
        Wall-clock seconds the call took.
    """

    outcome: Outcome
    png: bytes | None
    message: str
    seconds: float


@runtime_checkable
class ImageGenerator(Protocol):
    """What the build loop asks of a generator.

    Attributes
    ----------
    name
        The registry name (the study's ``generator`` value), recorded with every call.
    model
        The model it runs (a checkpoint path, an API model name), recorded with every call.
    """

    name: str
    model: str

    def generate(self, request: ImageRequest) -> ImageResult:
        """Make one image.

        Parameters
        ----------
        request
            What to make.

        Returns
        -------
        ImageResult
            The image, or the refusal or failure as an outcome (never raised).
        """
        ...


__all__ = ["STAGES", "ImageGenerator", "ImageRequest", "ImageResult", "Outcome", "Stage"]

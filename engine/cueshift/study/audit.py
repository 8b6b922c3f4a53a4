"""The study-file section ``[audit]``: what the edit audit checks and where it draws the lines.

``cueshift audit`` (and ``analyze --audit``) measures, for every evaluated variation and its
base, whether the intended cue appeared (zero-shot CLIP detectability of the value) and what
else changed (image statistics of :mod:`cueshift.images.pixel_stats`, CLIP confound probes,
identity preservation), and stores one ``edit_audit`` row per variation and measure. The
section is optional: every key has a default (docs/decisions.md, the edit audit entry).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from cueshift.study.sections import Section

#: The face region of the demo renderer's 96 x 96 portraits as fractions (x0, y0, x1, y1).
DEFAULT_FACE_BOX: tuple[float, float, float, float] = (0.2, 0.1, 0.8, 0.75)

#: Largest |variation - base| of each image statistic before an edit fails (sharpness on a log10
#: scale). Calibrated on the demo's drawn edits (hair and hats fill the face box) so that no clean
#: demo edit fails; a study of photographs should tighten them.
DEFAULT_BOUNDS: dict[str, float] = {
    "brightness": 0.2,
    "contrast": 0.24,
    "red_green": 0.075,
    "blue_yellow": 0.08,
    "saturation": 0.19,
    "log_sharpness": 0.86,
    "face_brightness": 0.44,
    "face_contrast": 0.37,
    "face_red_green": 0.17,
    "face_blue_yellow": 0.18,
    "face_saturation": 0.42,
    "face_log_sharpness": 1.05,
    "width": 0.0,
    "height": 0.0,
    "aspect": 0.0,
    "subject_area": 0.19,
    "subject_cx": 0.025,
    "subject_cy": 0.17,
}
#: Largest |difference| of a confound probe's probability before an edit fails.
DEFAULT_PROBE_BOUND = 0.5


class ConfoundProbe(Section):
    """One CLIP confound probe: the softmax probability of its first prompt among ``prompts``."""

    name: str = Field(min_length=1, pattern=r"^[a-z0-9_]+$", description="the measure is probe_<name>")
    prompts: list[str] = Field(
        min_length=2, description="the first is the pole whose probability is compared"
    )
    skip_for: list[str] = Field(default_factory=list, description="feature keys whose cue IS this confound")


#: The default confound probes: (name, first prompt, second prompt, feature keys skipped).
_PROBES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("expression", "a photo of a smiling person", "a photo of a person with a neutral expression", ()),
    ("lighting", "a brightly lit photo of a person", "a dimly lit photo of a person", ()),
    ("background", "a person on a plain background", "a person on a cluttered background", ()),
    ("head_pose", "a photo of a person facing the camera", "a photo of a person with the head turned", ()),
    ("glasses", "a photo of a person wearing glasses", "a photo of a person without glasses", ("eyewear",)),
)  # fmt: skip


def _confounds() -> list[ConfoundProbe]:
    return [ConfoundProbe(name=n, prompts=[a, b], skip_for=list(skip)) for n, a, b, skip in _PROBES]


class FacesConfig(Section):
    """``[audit.faces]``: the real face models of the audit (the ``faces`` extra; docs/faces.md)."""

    detector: Literal["dlib-hog", "dlib-cnn", "mtcnn"] = Field(
        default="mtcnn", description="finds the face (box, landmarks, score) of every base and variation"
    )
    recognizer: Literal["dlib-resnet", "none"] = Field(
        default="dlib-resnet", description='identity distance base <-> variation; "none": no recogniser'
    )
    ita_bound: float = Field(default=8.0, gt=0.0, description="largest |ITA° change| before an edit fails")
    min_face_share: float = Field(
        default=0.25,
        ge=0.0,
        le=1.0,
        description="a face counts only where its box side is at least this share of the largest face's "
        "(tiny background faces and false hits are not 'several faces'); 0: every detection counts",
    )
    skin_tone_cues: list[str] = Field(
        default_factory=list, description="feature keys whose cue IS skin tone (ITA never fails them)"
    )
    identity_filter: bool = Field(
        default=False,
        description="--min-identity also drops variations the face models cannot verify: distance > 0.6, "
        "or no single face on base and variation (docs/faces.md)",
    )


class AuditConfig(Section):
    """``[audit]``: thresholds of the cue check, the confound probes, and the bounds on side changes."""

    encoder: Path | None = Field(
        default=None, description="local CLIP checkpoint of the CLIP checks; default: the [quality] encoder"
    )
    cue_threshold: float = Field(
        default=0.0,
        ge=-1.0,
        lt=1.0,
        description="the cue fails when p(value|variation) - p(value|base) <= it",
    )
    cue_thresholds: dict[str, float] = Field(default_factory=dict, description="per feature_key overrides")
    confounds: list[ConfoundProbe] = Field(default_factory=_confounds)
    robust_z: float = Field(
        default=3.5, gt=0.0, description="|robust z| within the attribute beyond which an edit is an outlier"
    )
    outlier_share: float = Field(
        default=0.8,
        ge=0.0,
        description="an outlier fails when its |difference| also exceeds this share of the bound",
    )
    bounds: dict[str, float] = Field(default_factory=dict, description="absolute bounds over DEFAULT_BOUNDS")
    probe_bound: float = Field(default=DEFAULT_PROBE_BOUND, gt=0.0, le=1.0)
    min_changed_pixels: float = Field(
        default=1e-4, ge=0.0, le=1.0, description="the cue fails when fewer pixels than this share changed"
    )
    face_box: tuple[float, float, float, float] = DEFAULT_FACE_BOX
    batch_size: int = Field(default=32, ge=1, description="images per CLIP forward pass")
    faces: FacesConfig | None = Field(
        default=None, description="real face models (detector, recogniser, skin tone); None: off"
    )

    @field_validator("cue_thresholds")
    @classmethod
    def _lifts(cls, value: dict[str, float]) -> dict[str, float]:
        for key, threshold in value.items():
            if not -1.0 <= threshold < 1.0:
                raise ValueError(
                    f"cue threshold of {key!r} ({threshold:g}) is not a probability lift (-1 to 1)"
                )
        return value

    @field_validator("bounds")
    @classmethod
    def _known_measures(cls, value: dict[str, float]) -> dict[str, float]:
        for measure, bound in value.items():
            if measure not in DEFAULT_BOUNDS:
                raise ValueError(f"bounds: unknown measure {measure!r}; known: {', '.join(DEFAULT_BOUNDS)}")
            if bound < 0:
                raise ValueError(f"bounds: {measure} = {bound:g} is negative")
        return value

    @field_validator("face_box")
    @classmethod
    def _fractions(cls, value: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = value
        if not (0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0):
            raise ValueError("face_box is [x0, y0, x1, y1] with 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1")
        return value

    @field_validator("confounds")
    @classmethod
    def _unique_names(cls, value: list[ConfoundProbe]) -> list[ConfoundProbe]:
        names = [probe.name for probe in value]
        if len(set(names)) != len(names):
            raise ValueError("confounds: two probes share a name")
        return value

    def bound(self, measure: str) -> float:
        """The absolute bound of an image statistic (the study's, else :data:`DEFAULT_BOUNDS`)."""
        return self.bounds.get(measure, DEFAULT_BOUNDS[measure])

    def cue_threshold_of(self, feature_key: str) -> float:
        """The lift a variation of ``feature_key`` must exceed."""
        return self.cue_thresholds.get(feature_key, self.cue_threshold)


__all__ = ["DEFAULT_BOUNDS", "DEFAULT_FACE_BOX", "DEFAULT_PROBE_BOUND", "AuditConfig", "ConfoundProbe"]

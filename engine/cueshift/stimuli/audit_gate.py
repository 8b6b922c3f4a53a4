"""The edit audit of one new variation, as a gate: passed, or rejected with the reason.

The measures are the edit audit's (:mod:`cueshift.designs.audit`), applied to one pair at once
with the study's ``[audit]`` bounds; ``[build.audit] measures`` picks which:

- ``changed_pixels``: the share of pixels the edit changed must reach ``[audit] min_changed_pixels``
  (an edit that did nothing is rejected);
- ``unintended``: every image statistic of :mod:`cueshift.images.pixel_stats` (sharpness on a
  log10 scale) must move less than its absolute ``[audit]`` bound; a full-body edit of a
  head-and-shoulders base is not compared;
- ``identity``: the cosine of the CLIP image embeddings must reach ``[build.audit] min_identity``;
- ``cue``: the CLIP probability of the value's prompt against the feature's other values must
  rise by more than ``[audit] cue_threshold`` (per feature: ``cue_thresholds``).

The CLIP measures need ``[audit] encoder`` (or ``[quality] encoder``): without one the study is
refused before anything is made.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cueshift.designs.audit_pixels import LOG_MEASURES, audit_measure
from cueshift.errors import ConfigError
from cueshift.images.pixel_stats import PIXEL_MEASURES, changed_fraction_of, read_rgb, statistics_of
from cueshift.stimuli.prompts import feature_label
from cueshift.study.audit import AuditConfig
from cueshift.study.build_config import BuildAudit
from cueshift.study.config import Study

_CLIP = frozenset({"identity", "cue"})


def _encoder(study: Study) -> Path | None:
    """``[audit] encoder``, else ``[quality] encoder`` (a stand-in id resolved to its folder)."""
    from cueshift.inference.stand_ins.checkpoints import resolve_checkpoint

    audit = study.audit or AuditConfig()
    quality: Any = getattr(study, "quality", None)
    encoder = audit.encoder if audit.encoder is not None else getattr(quality, "encoder", None)
    return None if encoder is None else Path(resolve_checkpoint(str(encoder)))


class EditGate:
    """The measures ``gate`` names, with ``study``'s ``[audit]`` bounds; ``features`` is the build's
    feature space (the competing values of the cue measure)."""

    def __init__(self, study: Study, gate: BuildAudit, features: dict[str, list[str]]) -> None:
        self.measures, self.min_identity, self.features = set(gate.measures), gate.min_identity, features
        self.config = study.audit or AuditConfig()
        self.images: Any = None
        self.texts: Any = None
        if self.measures & _CLIP:
            checkpoint = _encoder(study)
            if checkpoint is None:
                raise ConfigError(
                    "[build.audit] measures: 'identity' and 'cue' need a CLIP encoder: set [audit] encoder"
                )
            from cueshift.inference.identity import IdentityEncoder

            self.images = IdentityEncoder(checkpoint)
            if "cue" in self.measures:
                from cueshift.inference.edit_probes import TextEncoder

                self.texts = TextEncoder(checkpoint)

    @property
    def active(self) -> bool:
        """Whether any measure is applied (else every edit passes unaudited)."""
        return bool(self.measures)

    def reason(self, base: Path, variation: Path, feature_key: str, value: str, same_framing: bool) -> str:
        """Why the edit ``base`` -> ``variation`` is rejected; ``""`` when it passes."""
        base_rgb, variation_rgb = read_rgb(base), read_rgb(variation)
        if "changed_pixels" in self.measures:
            changed = changed_fraction_of(base_rgb, variation_rgb)
            if changed < self.config.min_changed_pixels:
                floor = self.config.min_changed_pixels
                return f"changed_pixels {changed:.2g} < {floor:g}: the edit changed nothing"
        if "unintended" in self.measures and same_framing and base_rgb.shape == variation_rgb.shape:
            before = statistics_of(base_rgb, face_box=self.config.face_box)
            after = statistics_of(variation_rgb, face_box=self.config.face_box)
            for name in PIXEL_MEASURES:
                measure = audit_measure(name)
                moved = abs(_scale(name, after[name]) - _scale(name, before[name]))
                if moved > self.config.bound(measure):
                    return f"{measure} moved {moved:.3g} > bound {self.config.bound(measure):g}"
        if self.images is not None:
            return self._clip_reason(base, variation, feature_key, value)
        return ""

    def _clip_reason(self, base: Path, variation: Path, feature_key: str, value: str) -> str:
        from cueshift.inference.edit_probes import prompt_probabilities

        vectors = self.images.vectors(["base", "variation"], [base, variation])
        a, b = vectors["base"], vectors["variation"]
        if "identity" in self.measures:
            cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
            if cosine < self.min_identity:
                return f"identity_cosine {cosine:.3f} < {self.min_identity:g}: not the same person"
        if self.texts is not None:
            values = list(dict.fromkeys([value, *self.features.get(feature_key, [])]))
            label = feature_label(feature_key)
            prompts = [f"a photo of a person with {v.lower()} {label}" for v in values]
            if len(prompts) == 1:
                prompts.append("a photo of a person")
            text = self.texts.vectors(prompts)
            matrix = np.stack([text[p] for p in prompts])
            p = prompt_probabilities(np.stack([a, b]), matrix, self.texts.logit_scale)[:, 0]
            lift, threshold = float(p[1] - p[0]), self.config.cue_threshold_of(feature_key)
            if lift <= threshold:
                return f"cue_probability rose {lift:.3f} <= {threshold:g}: the cue is not visible"
        return ""


def _scale(name: str, value: float) -> float:
    return float(np.log10(max(value, 1e-12))) if name in LOG_MEASURES else value


__all__ = ["EditGate"]

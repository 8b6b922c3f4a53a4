"""The study-file section ``[quality]``: counterfactual quality of the variations (docs/decisions.md#d9).

With ``encoder`` set, ``cueshift analyze`` measures each variation's identity preservation
against its base (cosine of CLIP image embeddings; :mod:`cueshift.stats` ``identity_outliers``)
and stores it in ``image_identity``; ``--min-identity X`` re-runs the analyses without the
variations below ``X`` and reports what each of ``thresholds`` would drop.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from cueshift.study.sections import Section


def _thresholds() -> list[float]:
    return [0.5, 0.6, 0.7, 0.8, 0.9]


class QualityConfig(Section):
    """``[quality]``: the vision tower that measures identity preservation, and what to report."""

    encoder: Path = Field(description="local folder of a transformers CLIP (or CLIP vision) checkpoint")
    thresholds: list[float] = Field(
        default_factory=_thresholds, min_length=1, description="--min-identity values the report counts"
    )
    outlier_z: float = Field(default=-3.5, lt=0.0, description="robust z below which a variation is flagged")
    batch_size: int = Field(default=32, ge=1, description="images per forward pass")

    @field_validator("thresholds")
    @classmethod
    def _cosines(cls, value: list[float]) -> list[float]:
        for threshold in value:
            if not -1.0 <= threshold <= 1.0:
                raise ValueError(f"threshold {threshold:g} is not a cosine (-1 to 1)")
        return sorted(set(value))


__all__ = ["QualityConfig"]

"""The image records the simulated judge reads: an identity's base image or one variation of it."""

from __future__ import annotations

from pathlib import Path

from cueshift.inference.backends.base import ImageRecord


def judged_image(
    image_id: str,
    identity: str,
    feature_key: str | None,
    value: str | None,
    age: str | None,
    gender: str | None,
    ethnicity: str | None,
    body_type: str | None,
    *,
    path: Path,
) -> ImageRecord:
    """A face image: the base image when ``feature_key`` is None, else the variation ``value`` of it."""
    return ImageRecord(
        image_id=image_id,
        face_id=identity,
        path=path,
        role="base" if feature_key is None else "variation",
        feature_key=feature_key,
        variation_category=feature_key,
        variation_value=value,
        framing="face",
        age=age,
        gender=gender,
        ethnicity=ethnicity,
        body_type=body_type,
    )

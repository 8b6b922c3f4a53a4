"""The face model's identity verdicts in ``cueshift analyze --min-identity`` (docs/decisions.md D38).

With ``[audit.faces] identity_filter = true`` and a recogniser, ``--min-identity X`` drops a
variation when its CLIP cosine is below ``X`` **or** the stored face-model audit says the face
recogniser cannot call it the same person: its ``face_identity_distance`` exceeds the
recogniser's same-person threshold (0.6 for dlib's ResNet), or its ``face_count`` row failed (no
face, or several faces, on the base or the variation). :func:`face_identity_of` reads those
verdicts from ``edit_audit`` (written by ``cueshift audit``); :func:`dropped_by_models` is the
console's count of who dropped what.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl

from cueshift.errors import ConfigError
from cueshift.study.config import Study


@dataclass(frozen=True)
class FaceIdentity:
    """Variations the face models cannot call the same person as their base.

    Attributes
    ----------
    recognizer
        The recogniser of ``[audit.faces]`` (e.g. ``'dlib-resnet'``).
    threshold
        Its same-person distance (the stored rows' ``bound``).
    too_far
        One face on each image, at a descriptor distance beyond ``threshold``.
    not_one_face
        No face or several faces on the base or the variation (a failed ``face_count`` row).
    """

    recognizer: str
    threshold: float
    too_far: frozenset[str]
    not_one_face: frozenset[str]

    @property
    def failed(self) -> frozenset[str]:
        """Every variation the face models drop."""
        return self.too_far | self.not_one_face

    @property
    def reasons(self) -> dict[str, str]:
        """Image id → why the face models drop it: ``'distance'`` or ``'face_count'`` (the
        ``face_drops`` of :func:`cueshift.stats.identity_drops`)."""
        return {**dict.fromkeys(self.too_far, "distance"), **dict.fromkeys(self.not_one_face, "face_count")}

    def describe(self) -> str:
        """``'3 by face recognition (2 at dlib-resnet distance > 0.6, 1 without one face on each
        image)'``."""
        return (
            f"{len(self.failed):,} by face recognition ({len(self.too_far):,} at {self.recognizer} "
            f"distance > {self.threshold:g}, {len(self.not_one_face):,} without one face on each image)"
        )


def face_identity_of(con: duckdb.DuckDBPyConnection, study: Study) -> FaceIdentity | None:
    """The face-model verdicts of the study's evaluated variations (placebos left out), or
    ``None`` unless ``[audit.faces]`` has a recogniser and ``identity_filter = true``.

    Raises
    ------
    ConfigError
        A variation has no stored face-model row (one line: run ``cueshift audit``).
    """
    faces = study.audit.faces if study.audit is not None else None
    if faces is None or not faces.identity_filter or faces.recognizer == "none":
        return None
    from cueshift.designs.stylisticbias.edit_audit import evaluated_variations, read_stored_rows

    variations = evaluated_variations(con)
    stored = read_stored_rows(con)
    if stored.height == 0:
        stored = pl.DataFrame(schema={"image_id": pl.String, "measure": pl.String, "failed": pl.Boolean,
                                      "bound": pl.Float64})  # fmt: skip
    rows = stored.filter(pl.col("measure").is_in(["face_count", "face_identity_distance"]))
    counted = set(rows.filter(pl.col("measure") == "face_count")["image_id"])
    missing = sorted(set(variations) - counted)
    if missing:
        raise ConfigError(
            f"--min-identity with [audit.faces] identity_filter = true: {len(missing):,} of "
            f"{len(variations):,} variations (e.g. {missing[0]!r}) have no face-model audit row: "
            "run `cueshift audit` first"
        )
    failed = rows.filter(pl.col("failed"))
    not_one = frozenset(failed.filter(pl.col("measure") == "face_count")["image_id"].to_list())
    far = failed.filter(pl.col("measure") == "face_identity_distance")
    bounds = rows.filter(pl.col("measure") == "face_identity_distance")["bound"].drop_nulls()
    return FaceIdentity(
        recognizer=faces.recognizer,
        threshold=float(bounds[0]) if bounds.len() else float("nan"),
        too_far=frozenset(far["image_id"].to_list()) - not_one,
        not_one_face=not_one,
    )


def dropped_by_models(
    n_variations: int, min_identity: float, by_clip: frozenset[str], faces: FaceIdentity
) -> str:
    """The console's account of what ``--min-identity`` dropped, by model.

    Examples
    --------
    >>> faces = FaceIdentity("dlib-resnet", 0.6, frozenset({"a", "b"}), frozenset({"c"}))
    >>> print(dropped_by_models(120, 0.85, frozenset({"a", "d", "e"}), faces))
    5 of 120 variations dropped from the analyses: 3 by CLIP cosine < 0.85,
    3 by face recognition (2 at dlib-resnet distance > 0.6, 1 without one face on each image), 1 by both
    """
    both = by_clip & faces.failed
    return (
        f"{len(by_clip | faces.failed):,} of {n_variations:,} variations dropped from the analyses: "
        f"{len(by_clip):,} by CLIP cosine < {min_identity:g}, {faces.describe()}, {len(both):,} by both"
    )


__all__ = ["FaceIdentity", "dropped_by_models", "face_identity_of"]

"""Counterfactual quality in ``cueshift analyze``: identity preservation measured, stored, applied.

:func:`measure_identity` embeds every evaluated variation and its base with the study's
``[quality] encoder`` (through the study database's embedding cache: a second run encodes
nothing), takes their cosine and its robust z within the attribute (:mod:`cueshift.stats`),
and replaces the encoder's rows of ``image_identity``. :func:`dropped_below` names the
variations a ``--min-identity`` threshold leaves out of the analyses.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import polars as pl
from rich.console import Console

from cueshift.designs.audit import edit_pairs_of
from cueshift.designs.stylisticbias.face_identity import FaceIdentity, dropped_by_models
from cueshift.images import load_image_set
from cueshift.inference.identity import IdentityEncoder
from cueshift.stats import identity_outliers, row_cosines
from cueshift.store.embedding_cache import DuckDBEmbeddingCache
from cueshift.store.image_identity import replace_image_identity
from cueshift.study.config import Study
from cueshift.study.quality import QualityConfig


@dataclass(frozen=True)
class IdentityQuality:
    """The counterfactual quality an analysis run reads.

    Attributes
    ----------
    identity
        ``image_identity`` rows of the study's encoder with each variation's ``face_id`` and
        ``variation_value`` (:func:`measure_identity`).
    config
        The study's ``[quality]`` section (thresholds counted in ``result_identity_drops``).
    min_identity
        ``--min-identity``: variations below it are left out of the Δ rows; ``None``: none.
    faces
        The face models' verdicts, dropped with ``min_identity`` where ``[audit.faces]
        identity_filter = true`` (:func:`~.face_identity.face_identity_of`); ``None``: CLIP only.
    """

    identity: pl.DataFrame
    config: QualityConfig
    min_identity: float | None = None
    faces: FaceIdentity | None = None

    @property
    def dropped(self) -> frozenset[str]:
        """Image ids of the variations ``min_identity`` leaves out (empty without one): below the
        cosine, and (``faces``) those the face recogniser cannot call the same person."""
        if self.min_identity is None:
            return frozenset()
        by_faces = self.faces.failed if self.faces is not None else frozenset()
        return dropped_below(self.identity, self.min_identity) | by_faces

    def kept(self, delta: pl.DataFrame) -> pl.DataFrame:
        """The Δ rows of the variations ``min_identity`` keeps (a Δ row names its variation by face,
        feature key and value)."""
        cells = ["face_id", "feature_key", "variation_value"]
        dropped = self.identity.filter(pl.col("image_id").is_in(sorted(self.dropped))).select(cells)
        return delta.join(dropped, on=cells, how="anti", nulls_equal=True) if dropped.height else delta


def variation_pairs(image: pl.DataFrame) -> pl.DataFrame:
    """Evaluated variations (placebos left out) with their base's path and content: ``image_id,
    base_image_id, face_id, feature_key, variation_value, path, sha256, base_path, base_sha256``
    (the edit audit's pairs, :func:`~cueshift.designs.audit.edit_pairs_of`, without framing)."""
    return edit_pairs_of(image).drop("framing", "base_framing")


def measure_identity(
    con: duckdb.DuckDBPyConnection, study: Study, quality: QualityConfig, *, write: bool = True
) -> pl.DataFrame:
    """Identity preservation of every evaluated variation of ``study`` (rows of ``image_identity``).

    Returns
    -------
    polars.DataFrame
        ``encoder, image_id, base_image_id, feature_key, cosine, robust_z, outlier`` (stored,
        replacing the encoder's earlier rows, when ``write``), ``face_id, variation_value``.
    """
    image_set = load_image_set(study.image_set, study.variations, progress=False)
    pairs = variation_pairs(image_set.image)
    encoder = IdentityEncoder(
        quality.encoder, cache=DuckDBEmbeddingCache(con) if write else None, batch_size=quality.batch_size
    )
    contents = [*pairs["sha256"], *pairs["base_sha256"]]
    paths = [image_set.root / p for p in (*pairs["path"], *pairs["base_path"])]
    vectors = encoder.vectors(contents, paths) if contents else {}
    width = next(iter(vectors.values())).shape[0] if vectors else 0

    def stacked(keys: pl.Series) -> np.ndarray:
        return np.stack([vectors[k] for k in keys]) if keys.len() else np.zeros((0, width))

    cosine = row_cosines(stacked(pairs["sha256"]), stacked(pairs["base_sha256"]))
    measured = pairs.select(
        "image_id", "base_image_id", "face_id", "feature_key", "variation_value"
    ).with_columns(cosine=pl.Series(cosine, dtype=pl.Float64))
    rows = identity_outliers(measured, cutoff=quality.outlier_z).select(
        pl.lit(encoder.encoder).alias("encoder"),
        "image_id",
        "base_image_id",
        "feature_key",
        "cosine",
        "robust_z",
        "outlier",
        "face_id",
        "variation_value",
    )
    if write:
        replace_image_identity(con, encoder.encoder, rows.drop("face_id", "variation_value"))
    return rows


def dropped_below(identity: pl.DataFrame, min_identity: float) -> frozenset[str]:
    """Image ids of the variations whose cosine with their base is below ``min_identity``."""
    return frozenset(identity.filter(pl.col("cosine") < min_identity)["image_id"].to_list())


def print_identity(
    identity: pl.DataFrame, min_identity: float | None, console: Console, faces: FaceIdentity | None = None
) -> None:
    """One line: variations measured, outliers, and what ``--min-identity`` dropped (by CLIP
    cosine and, with ``faces``, by face recognition)."""
    n_outliers = int(identity["outlier"].sum()) if identity.height else 0
    plural = "" if n_outliers == 1 else "s"
    line = f"identity preservation: {identity.height:,} variations, {n_outliers:,} outlier{plural}"
    if min_identity is not None:
        by_clip = dropped_below(identity, min_identity)
        if faces is None:
            dropped = f"{len(by_clip):,} of {identity.height:,} variations dropped from the analyses"
        else:
            dropped = dropped_by_models(identity.height, min_identity, by_clip, faces)
        line += f"; --min-identity {min_identity:g}: {dropped} (result_identity_drops)"
    console.print(line, markup=False, highlight=False, soft_wrap=True)


__all__ = ["IdentityQuality", "dropped_below", "measure_identity", "print_identity", "variation_pairs"]

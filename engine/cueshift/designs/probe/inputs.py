"""The inputs of the probe analyses (seed 004): what :mod:`.analyses` reads from the study database.

The SQL of the stored judgments and human ratings, :func:`model_scores` (the score each model's
analyses use), the frozen :class:`Inputs` with its shared intermediate tables (reliability,
similarity, registry, attribute structure) and :func:`probe_inputs`, which builds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.probe import stats as pst
from cueshift.designs.probe.section import ProbeConfig
from cueshift.designs.probe.structure import attribute_structure
from cueshift.errors import CueshiftError
from cueshift.stats import Resampling

SCORES_SQL = """
SELECT p.model_id, p.image_id, p.scenario_id AS attribute, p.phi, p.phi_expected
FROM phi AS p JOIN image AS i ON i.image_id = p.image_id AND i.role = 'base'
"""
HUMANS_SQL = (
    "SELECT rater_id, image_id, attribute, rating FROM rating "
    "WHERE rater_kind = 'human' AND rating IS NOT NULL"
)
MEANS_SQL = "SELECT image_id, attribute, mean FROM human_rating_mean"


def model_scores(con: duckdb.DuckDBPyConnection, score: str, models: Sequence[str] = ()) -> pl.DataFrame:
    """``model_id, image_id, attribute, score``: P(favorable) of scoring backends ('auto'), else phi.

    Raises
    ------
    CueshiftError
        No judgment of a base face is stored (of ``models``, when given).
    """
    where = f" WHERE p.model_id IN ({', '.join('?' for _ in models)})" if models else ""
    raw = store.query(con, SCORES_SQL + where, list(models) or None)
    if raw.height == 0:
        raise CueshiftError(
            "probe: no judgments of base faces in the study database (run `cueshift infer` first)"
        )
    if score == "phi":
        return raw.select("model_id", "image_id", "attribute", pl.col("phi").alias("score"))
    if score == "phi_expected":
        return raw.select("model_id", "image_id", "attribute", pl.col("phi_expected").alias("score"))
    scoring = raw.group_by("model_id").agg(pl.col("phi_expected").is_not_null().all().alias("__scores"))
    return raw.join(scoring, on="model_id").select(
        "model_id",
        "image_id",
        "attribute",
        pl.when(pl.col("__scores")).then(pl.col("phi_expected")).otherwise(pl.col("phi")).alias("score"),
    )


@dataclass(frozen=True)
class Inputs:
    """Model scores, long human ratings, published means and reliability, the ``[probe]`` settings
    and the run's resampling (:meth:`.section.ProbeConfig.resampling`: the split-half reliability's
    random splits and seed, the level of every interval; passed whole to the tables).

    Build it with :func:`probe_inputs` (which refuses a study without any human data).
    ``pixels``: ``image_id`` and the image statistics of each base face (``None``: no image
    baselines); ``twins``: trained model id -> its random-weight twin's.
    """

    scores: pl.DataFrame
    humans: pl.DataFrame
    means: pl.DataFrame
    published_reliability: pl.DataFrame | None
    config: ProbeConfig
    resampling: Resampling
    pixels: pl.DataFrame | None = None
    twins: dict[str, str] = field(default_factory=dict)

    @cached_property
    def reliability(self) -> pl.DataFrame:
        """Split-half and Krippendorff reliability of the long ratings, and the published values."""
        config = self.config
        reliability = pl.DataFrame()
        if self.humans.height:
            reliability = pst.reliability_table(self.humans, self.resampling, method=config.split_correlation)
        published = self.published_reliability
        if published is not None and published.height:
            published = published.rename({"reliability": "estimate"}).with_columns(
                pl.lit("published").alias("source")
            )
            reliability = (
                pl.concat([reliability, published], how="diagonal_relaxed")
                if reliability.height
                else published
            )
        return reliability

    @cached_property
    def used_reliability(self) -> pl.DataFrame:
        """The reliability the similarity is related to: split-half where computed, else published."""
        reliability = self.reliability
        if reliability.height and (reliability["source"] == "split-half").any():
            return reliability.filter(pl.col("source") == "split-half")
        return reliability

    @cached_property
    def similarity(self) -> pl.DataFrame:
        return pst.model_human_similarity(
            self.scores, self.means, confidence=self.resampling.confidence_level
        )

    @cached_property
    def registry(self) -> pl.DataFrame:
        """The ``[probe] registry`` of models (family and scale) as a frame."""
        schema = {
            "model_id": pl.String,
            "family": pl.String,
            "dataset_size": pl.Float64,
            "samples_seen": pl.Float64,
            "image_params": pl.Float64,
            "text_params": pl.Float64,
        }
        return pl.DataFrame([m.model_dump() for m in self.config.registry], schema=schema)

    @cached_property
    def structure(self) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        """(correlations, clusters, structure); empty frames when too few attributes."""
        return attribute_structure(
            self.scores, self.means, self.config.n_clusters, off_diagonal=self.config.frobenius_off_diagonal
        )


def probe_inputs(
    scores: pl.DataFrame,
    humans: pl.DataFrame,
    published_means: pl.DataFrame,
    published_reliability: pl.DataFrame | None,
    config: ProbeConfig,
    *,
    pixels: pl.DataFrame | None = None,
    twins: dict[str, str] | None = None,
    resampling: Resampling | None = None,
) -> Inputs:
    """The inputs of the probe analyses; human means from the long ratings, published means winning
    where both exist. ``resampling``: the run's (default: ``config.resampling()``, the study's).

    Raises
    ------
    CueshiftError
        Neither long human ratings nor published means.
    """
    means = humans.group_by(["image_id", "attribute"]).agg(pl.col("rating").mean().alias("mean"))
    if published_means.height:  # published means win where both exist
        means = pl.concat(
            [
                published_means.select("image_id", "attribute", "mean"),
                means.join(published_means, on=["image_id", "attribute"], how="anti"),
            ]
        )
    if means.height == 0:
        raise CueshiftError("probe: no human ratings or means in the study database")
    return Inputs(
        scores,
        humans,
        means,
        published_reliability,
        config,
        resampling or config.resampling(),
        pixels,
        dict(twins or {}),
    )

"""The work of the probe design (seed 004): forced-choice judgments of the base faces on the
attribute scenarios, and the human data stored once.

Models judge with the ordinary protocol (:mod:`cueshift.designs.forced_choice`) — CLIP bipolar
probes (``backend = "clip"``, score P(favorable) = sigma(s m), monotone in m) or any
forced-choice judge (score phi) — on the base faces only. The human data are long ratings
(``rating``, ``rater_kind = 'human'``), published means (``human_rating_mean``) or
deterministic synthetic raters.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.forced_choice import judgment_workload
from cueshift.designs.probe.section import ProbeConfig, ProbeStudy
from cueshift.designs.registry import study_scenarios
from cueshift.designs.work import StoredRows, Workload
from cueshift.images import load_image_set
from cueshift.images.human_ratings import rating_rows, read_long_ratings, read_means
from cueshift.images.reliability_files import read_study_reliability
from cueshift.study.variations import VariationFilter


def prepared_study(study: ProbeStudy) -> ProbeStudy:
    """Probes judge the base faces only: every variation is left out."""
    return study.model_copy(update={"variations": VariationFilter(whitelist={}, rules=[])})


def human_frames(
    study: ProbeStudy, config: ProbeConfig, images: pl.DataFrame
) -> tuple[pl.DataFrame | None, pl.DataFrame | None]:
    """(long ratings, published means) from the configured files or the synthetic raters."""
    attributes = {s.scenario_id for s in study_scenarios(study)}
    stimuli = set(images["image_id"].to_list())
    long = means = None
    if config.human_ratings is not None:
        long = read_long_ratings(config.human_ratings, stimuli=stimuli, attributes=attributes)
    elif config.synthetic_humans is not None:
        from cueshift.images.synthetic_raters import synthetic_human_ratings
        from cueshift.inference.stand_ins.impressions import SYNTHETIC_CLUSTERS, SYNTHETIC_CONSISTENCY
        from cueshift.inference.stand_ins.simulated_design_latents import latent_impressions

        ordered = sorted(attributes)
        z = latent_impressions(images["face_id"].to_list(), ordered, SYNTHETIC_CLUSTERS)
        latent = pl.DataFrame(
            {
                "image_id": np.repeat(images["image_id"].to_numpy(), len(ordered)),
                "attribute": ordered * images.height,
                "latent": z.ravel(),
            }
        )
        long = synthetic_human_ratings(
            latent, config.synthetic_humans, default_consistency=SYNTHETIC_CONSISTENCY
        )
    if config.human_means is not None:
        means = read_means(config.human_means, stimuli=stimuli, attributes=attributes)
    if config.reliability is not None:  # read by the analyses; checked now, before any judgment
        read_study_reliability(config.reliability, attributes=attributes)
    return long, means


def probe_workload(study: ProbeStudy, *, progress: bool = False) -> Workload:
    """The base faces × attributes × orderings × seeds per model; the human data once."""
    prepared = prepared_study(study)
    image_set = load_image_set(prepared.image_set, prepared.variations, progress=progress)
    images = image_set.image.filter(pl.col("role") == "base").select("image_id", "face_id")
    long, means = human_frames(study, study.probe, images)
    stored = []
    if long is not None:
        stored.append(StoredRows("rating", rating_rows(long), "image_id"))
    if means is not None:
        stored.append(StoredRows("human_rating_mean", means, "image_id"))
    return judgment_workload(prepared, image_set, stored=tuple(stored))

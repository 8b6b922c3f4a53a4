"""The stimuli of a pairwise study (seed 002) and its human ratings.

The images and their stimulus table (``image_id, cohort, stimulus_group``) come from the
``stimuli`` CSV over the study's image set, or from the synthetic portraits of
``[pairwise.synthetic]``; the long human ratings from ``human_ratings`` (CSV) or the synthetic
raters of ``[pairwise.synthetic_humans]``. :mod:`cueshift.designs.pairwise.workload` builds the
work units on them.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.pairwise.section import PairwiseConfig, PairwiseStudy
from cueshift.errors import ConfigError
from cueshift.images import load_image_set
from cueshift.images.base import ImageSet
from cueshift.images.human_ratings import read_long_ratings, read_stimuli
from cueshift.images.manifest import load_manifest
from cueshift.study.variations import VariationFilter

#: Latent "Westernness" of the synthetic human raters per group (target +1, other -1) plus 0.5 z_j.
HUMAN_GROUP_LATENT = (1.0, -1.0)


def stimuli_and_image_set(study: PairwiseStudy, *, progress: bool = False) -> tuple[ImageSet, pl.DataFrame]:
    """The images of the study and their stimulus table (``image_id, cohort, stimulus_group``)."""
    config = study.pairwise
    if config.synthetic is not None:
        from cueshift.images.synthetic import pairwise_portraits

        manifest, stimuli, _ = pairwise_portraits(config.synthetic)
        return load_manifest(manifest, VariationFilter(whitelist=None, rules=[]), progress=progress), stimuli
    if config.stimuli is None:  # the section's validator requires one of the two
        raise ConfigError("[pairwise]: needs stimuli = <csv> or a [pairwise.synthetic] section")
    image_set = load_image_set(study.image_set, study.variations, progress=progress)
    return image_set, read_stimuli(config.stimuli, images=set(image_set.image["image_id"].to_list()))


def human_ratings_frame(config: PairwiseConfig, stimuli: pl.DataFrame) -> pl.DataFrame | None:
    """Long human ratings from the CSV or the synthetic raters (None when neither is configured)."""
    if config.human_ratings is not None:
        return read_long_ratings(
            config.human_ratings,
            stimuli=set(stimuli["image_id"].to_list()),
            low=config.rating_min,
            high=config.rating_max,
        )
    if config.synthetic_humans is None:
        return None
    from cueshift.images.synthetic_raters import synthetic_human_ratings
    from cueshift.inference.stand_ins.simulated_design_latents import stimulus_latent

    group_latent = dict(zip((config.target_group, config.other_group), HUMAN_GROUP_LATENT, strict=True))
    latent = stimuli.select("image_id", pl.lit(config.rating_attribute).alias("attribute")).with_columns(
        pl.Series(
            "latent",
            stimulus_latent(stimuli["image_id"].to_list(), stimuli["stimulus_group"].to_list(), group_latent),
        )
    )
    return synthetic_human_ratings(
        latent, config.synthetic_humans, default_consistency={config.rating_attribute: 0.7}
    )


__all__ = ["HUMAN_GROUP_LATENT", "human_ratings_frame", "stimuli_and_image_set"]

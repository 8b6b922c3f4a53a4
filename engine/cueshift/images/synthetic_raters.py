r"""Synthetic human raters (no download): deterministic ratings in long form around a latent truth,
each attribute as consistent across raters as the study's ``synthetic_humans`` section says
(:class:`cueshift.study.sections.SyntheticRaters`; the human data of seeds 002 and 004).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.study.sections import SyntheticRaters


def synthetic_human_ratings(
    latent: pl.DataFrame, config: SyntheticRaters, *, default_consistency: dict[str, float] | None = None
) -> pl.DataFrame:
    r"""Deterministic synthetic human ratings in long form (``stimulus, attribute, rater, rating``).

    Input ``latent``: ``image_id, attribute, latent`` (the societal truth, roughly standard).
    Rater :math:`r` rates stimulus :math:`j` on attribute :math:`a` as

    .. math::

        y_{rja} = \operatorname{clip}\Big(\operatorname{round}\big(m + \tfrac{w}{6}
            (\sqrt{c_a}\, \ell_{ja} + \sqrt{1 - c_a}\, e_{rja})\big)\Big),
        \qquad m, w = \text{scale centre and width},

    with :math:`e \sim N(0, 1)` from a seeded generator, :math:`c_a` the attribute's
    consistency (``config.consistency``, then ``default_consistency``, else 0.5). Each rater
    rates ``ratings_per_rater`` random stimuli (all by default). The expected split-half
    correlation of one rater with another is :math:`c_a` (for standardised latents).
    """
    rng = np.random.default_rng(config.seed)
    consistency = {**(default_consistency or {}), **config.consistency}
    stimuli = latent["image_id"].unique(maintain_order=True).to_list()
    center = (config.scale_min + config.scale_max) / 2
    unit = (config.scale_max - config.scale_min) / 6
    frames = []
    for r in range(config.n_raters):
        rater = f"human-{r + 1:03d}"
        if config.ratings_per_rater is not None and config.ratings_per_rater < len(stimuli):
            chosen = set(rng.choice(stimuli, size=config.ratings_per_rater, replace=False).tolist())
            part = latent.filter(pl.col("image_id").is_in(list(chosen)))
        else:
            part = latent
        c = np.array([consistency.get(a, 0.5) for a in part["attribute"].to_list()])
        noise = rng.standard_normal(part.height)
        value = center + unit * (np.sqrt(c) * part["latent"].to_numpy() + np.sqrt(1 - c) * noise)
        if config.integer:
            value = np.rint(value)
        value = np.clip(value, config.scale_min, config.scale_max)
        frames.append(
            pl.DataFrame(
                {
                    "stimulus": part["image_id"],
                    "attribute": part["attribute"],
                    "rater": [rater] * part.height,
                    "rating": value,
                }
            )
        )
    return pl.concat(frames)

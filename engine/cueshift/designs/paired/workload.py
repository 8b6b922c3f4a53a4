"""The paired study as the runner sees it: the forced-choice protocol over original and filtered photos."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from cueshift.designs.paired.section import PairedStudy
from cueshift.errors import ImageSetError
from cueshift.study.config import ImageSetConfig
from cueshift.study.variations import PLACEBO_FEATURE_KEY, VariationFilter

if TYPE_CHECKING:
    from cueshift.images.base import ImageSet


def prepared_study(study: PairedStudy) -> PairedStudy:
    """The study as the runner sees it: synthetic images drawn and linked, every filtered image judged."""
    config = study.paired
    update: dict[str, object] = {"variations": VariationFilter(whitelist=None, rules=[])}
    if config.synthetic is not None:
        from cueshift.images.synthetic import paired_image_set

        manifest = paired_image_set(config.synthetic, config.filter_feature_key)
        update["image_set"] = ImageSetConfig(kind="manifest", manifest=manifest)
    return study.model_copy(update=update)


def paired_images(image_set: ImageSet, study: PairedStudy) -> ImageSet:
    """The originals and their filtered photos evaluated; any other variation kept, not judged.

    Raises
    ------
    ImageSetError
        When no variation carries ``[paired] filter_feature_key``: there is nothing to pair.
    """
    import polars as pl  # not at import: finding the design loads no data library (D90)

    key = study.paired.filter_feature_key
    variation = pl.col("role") == "variation"
    other = variation & (pl.col("feature_key") != key) & (pl.col("feature_key") != PLACEBO_FEATURE_KEY)
    if image_set.image.filter(variation & (pl.col("feature_key") == key)).is_empty():
        keys = sorted(set(image_set.image.filter(variation)["feature_key"].drop_nulls().to_list()))
        held = f"its variations are of {', '.join(repr(k) for k in keys)}" if keys else "it has no variation"
        raise ImageSetError(
            f"{_source(study)}: no filtered photo: no variation has feature_key '{key}' "
            f"([paired] filter_feature_key) and {held}; give the filtered photos that key"
        )
    image = image_set.image.with_columns(
        evaluated=pl.when(other).then(pl.lit(False)).otherwise(pl.col("evaluated")),
        exclusion_reason=pl.when(other)
        .then(pl.lit(f"not the paired filter '{key}'"))
        .otherwise(pl.col("exclusion_reason")),
    )
    return replace(image_set, image=image)


def _source(study: PairedStudy) -> str:
    """The file (or folder) the image set is read from, for a one-line message."""
    config = study.image_set
    where = config.manifest if config.kind == "manifest" else config.root
    return str(where) if where is not None else f"[image_set] kind '{config.kind}'"


__all__ = ["paired_images", "prepared_study"]

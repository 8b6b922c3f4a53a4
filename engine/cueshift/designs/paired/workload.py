"""The paired study as the runner sees it: the forced-choice protocol over original and filtered photos."""

from __future__ import annotations

from cueshift.designs.paired.section import PairedStudy
from cueshift.study.config import ImageSetConfig
from cueshift.study.variations import VariationFilter


def prepared_study(study: PairedStudy) -> PairedStudy:
    """The study as the runner sees it: synthetic images drawn and linked, every filtered image judged."""
    config = study.paired
    update: dict[str, object] = {"variations": VariationFilter(whitelist=None, rules=[])}
    if config.synthetic is not None:
        from cueshift.images.synthetic import paired_image_set

        manifest = paired_image_set(config.synthetic, config.filter_feature_key)
        update["image_set"] = ImageSetConfig(kind="manifest", manifest=manifest)
    return study.model_copy(update=update)


__all__ = ["prepared_study"]

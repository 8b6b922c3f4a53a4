"""Image sets: the embedded demo faces, the StylisticBias release layout, a generic manifest, OMI.

Each loader returns a :class:`ImageSet` with ``face`` and ``image`` frames shaped
like the tables of the same names (``schemas/tables.py``), with the study's variation
filter already applied (``evaluated`` / ``exclusion_reason``).
"""

from __future__ import annotations

from cueshift.errors import ImageSetError
from cueshift.images.base import ImageSet
from cueshift.images.pixel_stats import DEFAULT_FACE_BOX, PIXEL_MEASURES, pixel_frame, pixel_statistics
from cueshift.study.config import ImageSetConfig
from cueshift.study.variations import VariationFilter

__all__ = [
    "DEFAULT_FACE_BOX",
    "PIXEL_MEASURES",
    "ImageSet",
    "load_image_set",
    "pixel_frame",
    "pixel_statistics",
]


def load_image_set(
    config: ImageSetConfig, variation_filter: VariationFilter, *, progress: bool = True
) -> ImageSet:
    """Load the image set ``config`` describes.

    Parameters
    ----------
    config
        ``kind`` picks the loader: ``'demo'`` (drawn on demand into ``cache_dir``),
        ``'stylisticbias'`` (release layout under ``root``), ``'manifest'`` (CSV/Parquet) or
        ``'omi'`` (the One Million Impressions faces under ``root/images``).
    variation_filter
        Decides ``evaluated`` / ``exclusion_reason`` of every variation (bases are always
        evaluated).

        With ``config.placebos`` every base image gets its two noise-floor placebos
        (:mod:`cueshift.images.placebos`; the lossless re-encodes are written under
        ``<root>/.cueshift-placebos``).
    progress
        Show a progress bar on stderr while drawing or reading many images.

    Returns
    -------
    ImageSet
        Identity and image frames that pass ``FaceSchema`` / ``ImageSchema``; image
        paths are relative to ``ImageSet.root``.

    Raises
    ------
    ImageSetError
        On any bad input, with a one-line message naming the file, row and field.
    """
    image_set = _load(config, variation_filter, progress=progress)
    if not config.placebos:
        return image_set
    from cueshift.images.placebos import with_placebos

    return with_placebos(image_set, variation_filter, progress=progress)


def _load(config: ImageSetConfig, variation_filter: VariationFilter, *, progress: bool) -> ImageSet:
    """The image set of ``config`` as its loader reads it (no placebos)."""
    if config.kind == "demo":
        from cueshift.images.demo import load_demo

        return load_demo(config, variation_filter, progress=progress)
    if config.kind == "stylisticbias":
        from cueshift.images.stylisticbias import load_stylisticbias

        if config.root is None:  # ImageSetConfig already refuses this
            raise ImageSetError("image set: field 'root': kind 'stylisticbias' needs a root folder")
        return load_stylisticbias(config.root, variation_filter, progress=progress)
    if config.kind == "omi":
        from cueshift.images.omi import load_omi

        if config.root is None:  # ImageSetConfig already refuses this
            raise ImageSetError("image set: field 'root': kind 'omi' needs a root folder")
        return load_omi(config.root, variation_filter, progress=progress)
    from cueshift.images.manifest import load_manifest

    if config.manifest is None:  # ImageSetConfig already refuses this
        raise ImageSetError("image set: field 'manifest': kind 'manifest' needs a manifest file")
    return load_manifest(config.manifest, variation_filter, progress=progress)

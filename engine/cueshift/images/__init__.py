"""Image sets: the embedded demo faces, the StylisticBias release layout, a generic manifest, OMI.

Each loader returns a :class:`Benchmark` with ``identity`` and ``image`` frames shaped
like the tables of the same names (``schemas/tables.py``), with the study's variation
filter already applied (``evaluated`` / ``exclusion_reason``).
"""

from __future__ import annotations

from cueshift.errors import BenchmarkError
from cueshift.images.base import Benchmark
from cueshift.images.pixel_stats import DEFAULT_FACE_BOX, PIXEL_MEASURES, pixel_frame, pixel_statistics
from cueshift.study.config import BenchmarkConfig
from cueshift.study.variations import VariationFilter

__all__ = [
    "DEFAULT_FACE_BOX",
    "PIXEL_MEASURES",
    "Benchmark",
    "load_benchmark",
    "pixel_frame",
    "pixel_statistics",
]


def load_benchmark(
    config: BenchmarkConfig, variation_filter: VariationFilter, *, progress: bool = True
) -> Benchmark:
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
    Benchmark
        Identity and image frames that pass ``IdentitySchema`` / ``ImageSchema``; image
        paths are relative to ``Benchmark.root``.

    Raises
    ------
    BenchmarkError
        On any bad input, with a one-line message naming the file, row and field.
    """
    bench = _load(config, variation_filter, progress=progress)
    if not config.placebos:
        return bench
    from cueshift.images.placebos import with_placebos

    return with_placebos(bench, variation_filter, progress=progress)


def _load(config: BenchmarkConfig, variation_filter: VariationFilter, *, progress: bool) -> Benchmark:
    """The image set of ``config`` as its loader reads it (no placebos)."""
    if config.kind == "demo":
        from cueshift.images.demo import load_demo

        return load_demo(config, variation_filter, progress=progress)
    if config.kind == "stylisticbias":
        from cueshift.images.stylisticbias import load_stylisticbias

        if config.root is None:  # BenchmarkConfig already refuses this
            raise BenchmarkError("benchmark: field 'root': kind 'stylisticbias' needs a root folder")
        return load_stylisticbias(config.root, variation_filter, progress=progress)
    if config.kind == "omi":
        from cueshift.images.omi import load_omi

        if config.root is None:  # BenchmarkConfig already refuses this
            raise BenchmarkError("benchmark: field 'root': kind 'omi' needs a root folder")
        return load_omi(config.root, variation_filter, progress=progress)
    from cueshift.images.manifest import load_manifest

    if config.manifest is None:  # BenchmarkConfig already refuses this
        raise BenchmarkError("benchmark: field 'manifest': kind 'manifest' needs a manifest file")
    return load_manifest(config.manifest, variation_filter, progress=progress)

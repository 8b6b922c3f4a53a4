"""The edit audit's image statistics: ``changed_pixels`` and every statistic of
:mod:`cueshift.images.pixel_stats` of each base/variation pair, variation minus base on the
audit's scale (sharpness on log10, :data:`LOG_MEASURES`), with robust z and verdicts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
from rich.console import Console

from cueshift.designs._audit_rows import (
    EditPairs,
    changed_pixel_rows,
    measure_rows,
    unintended_verdicts,
    with_robust_z,
)
from cueshift.images.pixel_stats import PIXEL_MEASURES, changed_fraction_of, read_rgb, statistics_of
from cueshift.study.audit import AuditConfig

#: Image statistics compared on a log10 scale in the audit (a blur divides them).
LOG_MEASURES = frozenset({"sharpness", "face_sharpness"})


def audit_measure(name: str) -> str:
    """The audit's name of an image statistic (``sharpness`` is compared as ``log_sharpness``)."""
    return name.replace("sharpness", "log_sharpness") if name in LOG_MEASURES else name


def pixel_rows(
    edits: EditPairs,
    config: AuditConfig,
    *,
    progress: bool,
    face_boxes: dict[str, tuple[float, float, float, float]] | None = None,
) -> pl.DataFrame:
    """``changed_pixels`` and every image statistic of every pair, with robust z and verdicts.

    ``face_boxes`` (image path to fractional box): the detected faces, used instead of ``[audit]
    face_box`` for the ``face_*`` statistics of the images they hold.
    """
    boxes = face_boxes or {}
    pairs = edits.pairs
    stats: dict[str, dict[str, float]] = {}
    changed = np.zeros(pairs.height)
    pixels: dict[str, np.ndarray] = {}
    with _bar(progress, "Edit audit: image statistics", pairs.height) as advance:
        for i, (path, base_path) in enumerate(zip(pairs["path"], pairs["base_path"], strict=True)):
            for name in (base_path, path):
                if name not in stats:
                    pixels[name] = read_rgb(edits.root / name)
                    stats[name] = statistics_of(pixels[name], face_box=boxes.get(name, config.face_box))
            changed[i] = changed_fraction_of(pixels[base_path], pixels[path])
            pixels.pop(path, None)  # a variation has one base: keep only bases
            advance()
    same = (pairs["framing"] == pairs["base_framing"]).to_list()
    frames = [changed_pixel_rows(pairs, changed, config)]
    for name in PIXEL_MEASURES:
        measure = audit_measure(name)
        base = _scaled(name, [stats[p][name] for p in pairs["base_path"]])
        variation = _scaled(name, [stats[p][name] for p in pairs["path"]])
        bounds = [config.bound(measure) if s else None for s in same]
        frames.append(
            measure_rows(pairs, measure, "unintended", "pixels", base, variation, variation - base, bounds)
        )
    unintended = unintended_verdicts(with_robust_z(pl.concat(frames[1:])), config)
    return pl.concat([frames[0], unintended.select(frames[0].columns)])


def _scaled(name: str, values: list[float]) -> np.ndarray:
    """``values`` on the audit's scale of the statistic ``name`` (log10 for :data:`LOG_MEASURES`)."""
    array = np.asarray(values, dtype=np.float64)
    return np.log10(np.maximum(array, 1e-12)) if name in LOG_MEASURES else array


class _bar:
    """A transient rich progress bar (or nothing) whose ``__enter__`` returns an advance callable."""

    def __init__(self, show: bool, description: str, total: int) -> None:
        from rich.progress import Progress

        self.progress = Progress(console=Console(stderr=True), transient=True, disable=not show)
        self.task = self.progress.add_task(description, total=total)

    def __enter__(self) -> Any:
        self.progress.start()
        return lambda: self.progress.advance(self.task)

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


__all__ = ["LOG_MEASURES", "audit_measure", "pixel_rows"]

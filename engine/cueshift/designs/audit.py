"""The edit audit: did the cue appear, did anything else change — per variation, stored.

For every evaluated variation (placebos left out) and its base, :func:`measure_edit_audit`
measures

- the cue: ``changed_pixels`` (an edit that changed nothing fails) and, with a CLIP encoder,
  ``cue_probability`` — the zero-shot probability of the value's prompt against the other
  values of the attribute (:mod:`cueshift.inference.edit_probes`), on the variation minus on
  the base (the lift must exceed the ``[audit]`` threshold);
- unintended changes: every image statistic of :mod:`cueshift.images.pixel_stats` (sharpness
  on a log10 scale, ``log_sharpness``) and, with a CLIP encoder, each confound probe
  (``probe_<name>``), as variation minus base, flagged by :mod:`._audit_rows`;
- identity preservation: ``identity_cosine`` (the cosine of the image embeddings).

The CLIP encoder is ``[audit] encoder``, else ``[quality] encoder``; its vectors go through the
study database's embedding cache. Without one the CLIP measures are skipped (one printed
line); a vision-only checkpoint gives the identity cosine but no prompt probes. Image
statistics of a base and a variation drawn in different framings (a face and a full body)
get no bound. A design offers its base/variation pairs by an ``edit_pairs(study, *,
progress)`` method; a design without one has nothing to audit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl
from rich.console import Console

from cueshift._console import FitTable
from cueshift.designs._audit_clip import clip_rows
from cueshift.designs._audit_face_print import FACE_MEASURES, print_face_findings
from cueshift.designs._audit_rows import (
    EditPairs,
    changed_pixel_rows,
    empty_audit,
    measure_rows,
    unintended_verdicts,
    with_robust_z,
)
from cueshift.designs._audit_skin import skin_tone_summary
from cueshift.errors import ConfigError
from cueshift.images import load_image_set
from cueshift.images.pixel_stats import PIXEL_MEASURES, changed_fraction_of, read_rgb, statistics_of
from cueshift.store.edit_audit import read_skin_tone, replace_edit_audit
from cueshift.study.audit import AuditConfig
from cueshift.study.config import Study
from cueshift.views import PLACEBO_FEATURE_KEY

#: Image statistics compared on a log10 scale in the audit (a blur divides them).
LOG_MEASURES = frozenset({"sharpness", "face_sharpness"})


def edit_pairs_of(image: pl.DataFrame) -> pl.DataFrame:
    """Evaluated variations (placebos out) and their bases: ``image_id, base_image_id, face_id,
    feature_key, variation_value, path, sha256, framing, base_path, base_sha256, base_framing``."""
    bases = image.filter(pl.col("role") == "base").select(
        base_image_id="image_id", base_path="path", base_sha256="sha256", base_framing="framing"
    )
    variations = image.filter(
        (pl.col("role") == "variation")
        & pl.col("evaluated")
        & (pl.col("feature_key").str.to_lowercase() != PLACEBO_FEATURE_KEY)
    )
    return (
        variations.select(
            "image_id",
            "base_image_id",
            "face_id",
            "feature_key",
            "variation_value",
            "path",
            "sha256",
            "framing",
        )
        .join(bases, on="base_image_id", how="inner")
        .sort("image_id")
    )


def image_set_edit_pairs(study: Study, *, progress: bool) -> EditPairs:
    """The pairs of the study's image set as its variation filter leaves them."""
    image_set = load_image_set(study.image_set, study.variations, progress=progress)
    return EditPairs(image_set.root, edit_pairs_of(image_set.image))


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


def _face_model_rows(
    edits: EditPairs, config: AuditConfig, console: Console
) -> tuple[list[pl.DataFrame], dict[str, tuple[float, float, float, float]] | None, pl.DataFrame | None]:
    """``[audit.faces]``: the face-model rows, the detected face boxes and the ``face_detection``
    rows (none when it is off)."""
    if config.faces is None or not edits.pairs.height:
        return [], None, None
    from cueshift.designs._audit_detections import detection_rows
    from cueshift.designs._audit_faces import face_boxes, face_rows, measure_faces

    pairs = edits.pairs
    measured = measure_faces(edits.root, [*pairs["base_path"], *pairs["path"]], config.faces)
    rows = face_rows(edits, config.faces, measured)
    found = rows.filter(pl.col("measure") == "face_count")
    _say(
        console,
        f"edit audit: face models ({config.faces.detector}): {found['failed'].sum():,} of "
        f"{found.height:,} pairs without exactly one face on each image",
    )
    return [rows], face_boxes(measured), detection_rows(edits, config.faces.detector, measured)


def _encoder_of(study: Study, config: AuditConfig) -> Path | None:
    """``[audit] encoder``, else ``[quality] encoder`` (a stand-in id resolved to its folder)."""
    from cueshift.inference.stand_ins.checkpoints import resolve_checkpoint

    quality: Any = getattr(study, "quality", None)
    encoder = config.encoder if config.encoder is not None else getattr(quality, "encoder", None)
    return None if encoder is None else Path(resolve_checkpoint(str(encoder)))


def measure_edit_audit(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    design: object,
    *,
    console: Console,
    progress: bool,
    write: bool,
) -> pl.DataFrame:
    """Audit every edit of ``study`` and (``write``) replace the ``edit_audit`` table with it (and,
    with ``[audit.faces]``, ``face_detection`` and ``audit_skin_tone``; emptied without).

    Parameters
    ----------
    con
        The study database (its embedding cache; written when ``write``).
    study, design
        The study and its design; a design without ``edit_pairs`` has nothing to audit.
    console, progress
        Where the one-line notes go; whether to show a progress bar.
    write
        Store the rows (and new vectors) in the database.

    Returns
    -------
    polars.DataFrame
        The ``edit_audit`` rows (empty when the design has no pairs).
    """
    config = study.audit or AuditConfig()
    offer = getattr(design, "edit_pairs", None)
    edits: EditPairs | None = offer(study, progress=progress) if offer is not None else None
    if edits is None:
        _say(console, f"design {study.design} has no base/variation pairs: nothing to audit")
        return empty_audit()
    face_frames, boxes, detections = _face_model_rows(edits, config, console)
    frames = [pixel_rows(edits, config, progress=progress, face_boxes=boxes), *face_frames]
    encoder = _encoder_of(study, config)
    if encoder is None:
        _say(
            console,
            "edit audit: no CLIP encoder ([audit] or [quality] encoder): cue and confound probes skipped",
        )
    elif edits.pairs.height:
        from cueshift.inference.stand_ins.checkpoints import is_stand_in_dir

        if is_stand_in_dir(encoder):
            _say(
                console,
                f"edit audit: encoder {encoder.name} is the tiny random-weight CLIP stand-in: its cue and "
                "confound probes are noise (a pipeline check), not a detector: use a trained CLIP",
            )
        frames.append(clip_rows(con, edits, encoder, config, console=console, write=write))
    rows = pl.concat(frames).sort("image_id", "check_kind", "measure")
    if write:
        skin = None if detections is None else skin_tone_summary(rows, _base_demographics(study))
        replace_edit_audit(con, rows, detections=detections, skin_tone=skin)
    return rows


def stored_or_measured(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    design: object,
    stored: pl.DataFrame,
    *,
    console: Console,
    progress: bool,
    write: bool,
) -> pl.DataFrame:
    """``stored`` (the ``edit_audit`` rows an analysis reads) when there are any; else the audit
    measured first, as ``cueshift audit`` does (stored when ``write``), said in one line."""
    if stored.height:
        return stored
    _say(console, "edit audit: none stored - measuring it first (cueshift audit)")
    return measure_edit_audit(con, study, design, console=console, progress=progress, write=write)


def audit_study(study: Study, database: Path, *, console: Console, progress: bool) -> pl.DataFrame:
    """``cueshift audit``: audit every edit of ``study`` into ``edit_audit`` of ``database``, print it.

    The database is created when missing (an image set can be audited before any model runs); a
    failed audit leaves none behind, and an existing one as it was.

    Raises
    ------
    CueshiftError
        The encoder is not a folder, the database cannot be opened or an image cannot be read
        (one line).
    """
    from cueshift.designs.registry import design_of
    from cueshift.store import open_study
    from cueshift.store.files import close_quietly, remove_database

    design = design_of(study)
    if getattr(design, "edit_pairs", None) is None:
        _say(console, f"design {study.design} has no base/variation pairs: nothing to audit")
        return empty_audit()
    _check_encoder(study)  # before the database opens: a missing checkpoint is one line
    created = not database.exists()
    con = open_study(database)
    try:
        rows = measure_edit_audit(con, study, design, console=console, progress=progress, write=True)
        skin_tone = read_skin_tone(con)
    except BaseException:
        close_quietly(con)
        if created:
            remove_database(database)
        raise
    con.close()
    print_audit(rows, console)
    if rows.filter(pl.col("measure").is_in(FACE_MEASURES)).height:
        print_face_findings(rows, _base_demographics(study), console, summary=skin_tone)
    return rows


def _base_demographics(study: Study) -> pl.DataFrame:
    """``face_id, ethnicity, gender`` of the image set's faces (the face findings' groups)."""
    faces = load_image_set(study.image_set, study.variations, progress=False).face  # not .image
    return faces.select("face_id", "ethnicity", "gender").unique("face_id", keep="first")


def _check_encoder(study: Study) -> None:
    """Refuse an encoder (``[audit]``, else ``[quality]``) that names no folder."""
    config = study.audit or AuditConfig()
    encoder = _encoder_of(study, config)
    if encoder is not None and not encoder.expanduser().is_dir():
        section = "[audit]" if config.encoder is not None else "[quality]"
        raise ConfigError(f"{section} encoder {str(encoder)!r}: not a folder (a local CLIP checkpoint)")


def print_audit(rows: pl.DataFrame, console: Console) -> None:
    """One line ("12 of 1,530 variations failed the audit") and the failures by measure."""
    n_variations = rows["image_id"].n_unique()
    failed = rows.filter(pl.col("failed"))
    n_failed = failed["image_id"].n_unique()
    plural = "" if n_variations == 1 else "s"
    _say(console, f"{n_failed:,} of {n_variations:,} variation{plural} failed the audit")
    if not failed.height:
        return
    table = FitTable("check", "measure", title="Failures by measure")
    table.add_column("variations failed", justify="right")
    by_measure = failed.group_by("check_kind", "measure").agg(n=pl.col("image_id").n_unique())
    for kind, measure, n in by_measure.sort("n", "measure", descending=[True, False]).iter_rows():
        table.add_row(kind, measure, f"{n:,}")
    console.print(table)


def _say(console: Console, line: str) -> None:
    console.print(line, markup=False, highlight=False, soft_wrap=True)


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


__all__ = [
    "EditPairs",
    "audit_study",
    "audit_measure",
    "image_set_edit_pairs",
    "edit_pairs_of",
    "measure_edit_audit",
    "pixel_rows",
    "print_audit",
]

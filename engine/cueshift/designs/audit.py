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
progress)`` method; ``cueshift audit`` of a design without one is refused in one line.

The image statistics are :mod:`.audit_pixels`'s; the face models, the encoder and the faces'
demographics :mod:`._audit_sources`'s; the console lines :mod:`._audit_print`'s.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
from rich.console import Console

from cueshift.designs._audit_clip import clip_rows
from cueshift.designs._audit_face_print import FACE_MEASURES, print_face_findings
from cueshift.designs._audit_print import _say, print_audit
from cueshift.designs._audit_rows import EditPairs, empty_audit
from cueshift.designs._audit_skin import skin_tone_summary
from cueshift.designs._audit_sources import _base_demographics, _check_encoder, _encoder_of, _face_model_rows
from cueshift.designs.audit_pixels import audit_measure, pixel_rows
from cueshift.errors import ConfigError
from cueshift.images import load_image_set
from cueshift.store.edit_audit import read_skin_tone, replace_edit_audit
from cueshift.study.audit import AuditConfig
from cueshift.study.config import Study
from cueshift.views import PLACEBO_FEATURE_KEY


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
    ConfigError
        The study's design makes no base/variation edits (pairwise, probe): one line, nothing written.
    CueshiftError
        The encoder is not a folder, the database cannot be opened or an image cannot be read
        (one line).
    """
    from cueshift.designs.discovery import designs
    from cueshift.designs.registry import design_of
    from cueshift.store import open_study
    from cueshift.store.files import close_quietly, remove_database

    design = design_of(study)
    if getattr(design, "edit_pairs", None) is None:  # refused, as multiverse and build refuse a design
        audited = " or ".join(repr(n) for n, d in designs().items() if getattr(d, "edit_pairs", None))
        raise ConfigError(
            f"cueshift audit: study {study.name!r} has design {study.design!r}, which makes no "
            f"base/variation edits; the edit audit checks those of a {audited} study"
        )
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

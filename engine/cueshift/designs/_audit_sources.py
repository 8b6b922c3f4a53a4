"""What the edit audit measures with besides the pixels: the face models' rows and boxes
(``[audit.faces]``), the CLIP encoder (``[audit] encoder``, else ``[quality] encoder``, refused
when it names no folder) and the demographics of the image set's faces.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
from rich.console import Console

from cueshift.designs._audit_print import _say
from cueshift.designs._audit_rows import EditPairs
from cueshift.errors import ConfigError
from cueshift.images import load_image_set
from cueshift.study.audit import AuditConfig
from cueshift.study.config import Study


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

"""``cueshift audit``: the edit audit of every variation, stored in the study database."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cueshift.cli._common import DbOption, StudyOption, console


def audit(
    study: StudyOption = "default",
    db: DbOption = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Audit every edit: did the cue appear, did anything else change (the edit_audit table).

    For each evaluated variation and its base: changed pixels, image statistics (brightness,
    contrast, colour balance, sharpness, framing; global and face region), and with a CLIP
    encoder (\\[audit] or \\[quality] encoder) the cue's zero-shot detectability, the confound
    probes and the identity cosine. Thresholds and bounds: the study file's \\[audit] section.
    Replaces the table's earlier rows; `cueshift analyze --audit` reads it.
    """
    from cueshift.designs import load_study

    spec = load_study(study)  # a bad study file is one line before the audit machinery loads (D93)
    from cueshift.designs.audit import audit_study

    path = Path(db) if db is not None else spec.database_path
    audit_study(spec, path, console=console, progress=progress and sys.stderr.isatty())

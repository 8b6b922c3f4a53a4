"""The finished set written out: the study's manifest (with provenance), the release's folder layout
and its Croissant record.

The manifest is the file the study's ``[image_set] manifest`` names, so ``cueshift infer`` and
``analyze --audit`` read the built set with no conversion; besides the manifest's columns
(:mod:`cueshift.images.manifest`) each row says how the image was made: ``generator``, ``model``,
``prompt``, ``seed``, ``tries`` and ``verdict`` (``passed``: the edit audit passed it;
``not audited``: a base, or no measure configured). The release layout
(``release/output/final_dataset/<face>/``, the compact metadata spelling of
:mod:`cueshift.images.stylisticbias_metadata`) links the same files, beside ``release/croissant.json``
(:mod:`cueshift.stimuli.croissant_record`).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import polars as pl

from cueshift.images.labels import DEMOGRAPHIC_FIELDS
from cueshift.stimuli.files import content_path
from cueshift.stimuli.slots import Slot

#: The provenance columns a built manifest adds (optional columns of every manifest).
PROVENANCE_COLUMNS: tuple[str, ...] = ("generator", "model", "prompt", "seed", "tries", "verdict")
SOURCE = "cueshift-build"


def _kept(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, object]]:
    """The kept try of every slot that has one: backend, model, seed, try, sha256."""
    rows = con.execute(
        "SELECT image_id, backend, model, seed, try, sha256 FROM generation WHERE outcome = 'ok'"
    ).fetchall()
    return {
        str(r[0]): dict(zip(("backend", "model", "seed", "try", "sha256"), r[1:], strict=True)) for r in rows
    }


def manifest_rows(con: duckdb.DuckDBPyConnection, slots: list[Slot], audited: bool) -> pl.DataFrame:
    """One manifest row per slot kept (a variation only with its base), in slot order."""
    kept = _kept(con)
    rows = []
    for slot in slots:
        made = kept.get(slot.image_id)
        if made is None or (slot.parent_id is not None and slot.parent_id not in kept):
            continue
        is_base = slot.parent_id is None
        rows.append(
            {
                "image_id": slot.image_id,
                "face_id": slot.face_id,
                "path": content_path(Path("."), str(made["sha256"])).as_posix(),
                "role": "base" if is_base else "variation",
                "base_image_id": slot.parent_id,
                "feature_key": slot.feature_key,
                "variation_value": slot.value,
                **{name: slot.cell.get(name) for name in DEMOGRAPHIC_FIELDS},
                "framing": slot.framing,
                "source": SOURCE,
                "generator": str(made["backend"]),
                "model": str(made["model"]),
                "prompt": slot.prompt,
                "seed": str(made["seed"]),
                "tries": str(made["try"]),
                "verdict": "passed" if audited and not is_base else "not audited",
            }
        )
    columns = ["image_id", "face_id", "path", "role", "base_image_id", "feature_key", "variation_value",
               *DEMOGRAPHIC_FIELDS, "framing", "source", *PROVENANCE_COLUMNS]  # fmt: skip
    return pl.DataFrame(rows, schema=dict.fromkeys(columns, pl.String))


def write_manifest(rows: pl.DataFrame, path: Path) -> None:
    """The manifest CSV, through a temporary file (a reader never sees half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    rows.write_csv(temporary)
    os.replace(temporary, path)


def _link(source: Path, target: Path) -> None:
    if target.exists():
        return
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def release_stem(row: dict[str, object]) -> str:
    """The release's file stem of a manifest row: ``<face>`` or ``<face>_<face|body>_<feature>-<value>``."""
    face = str(row["face_id"])
    if row["role"] == "base":
        return face
    tag = str(row["image_id"]).removeprefix(f"{face}--").replace("--", "-")
    return f"{face}_{'body' if row['framing'] == 'body' else 'face'}_{tag}"


def write_release_layout(rows: pl.DataFrame, root: Path) -> Path:
    """``root/release/output/final_dataset/<face>/`` with every image and its metadata; returns the folder."""
    final = root / "release" / "output" / "final_dataset"
    for row in rows.iter_rows(named=True):
        folder = final / str(row["face_id"])
        folder.mkdir(parents=True, exist_ok=True)
        stem = release_stem(row)
        _link(root / str(row["path"]), folder / f"{stem}.png")
        characteristics: dict[str, object] = {name: row[name] for name in DEMOGRAPHIC_FIELDS}
        if row["role"] != "base":
            characteristics["variation"] = {row["feature_key"]: row["variation_value"]}
        metadata = {"image": f"{stem}.png", "characteristics": characteristics, "prompt": row["prompt"]}
        (folder / f"{stem}_metadata.json").write_text(json.dumps(metadata, indent=1), encoding="utf-8")
    return final


__all__ = ["PROVENANCE_COLUMNS", "manifest_rows", "release_stem", "write_manifest", "write_release_layout"]

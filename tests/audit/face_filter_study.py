"""A tiny study analysed with ``[audit.faces] identity_filter = true`` on planted face-model rows
(for the stored-table, report and viewer tests of what each identity model dropped).

Three people, each a base and two variations (``eyewear`` Sunglasses, ``hair_style`` Mohawk;
``q2`` shows another picture: the CLIP cosine's planted failure); a tiny random CLIP saved in the
test measures the cosines; :func:`tests.audit.planted_face_models.plant` plants the face models'
audit of all six variations (no face on ``p0``, several on ``p2``, none on ``q1``, ``r2`` past the
same-person distance). :func:`analysed` runs ``cueshift infer``, plants, and runs ``cueshift
analyze --min-identity`` at a threshold between the second and third lowest cosine.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl
from typer.testing import CliRunner

from cueshift.cli import app
from tests.audit.planted_face_models import THRESHOLD, Planted, plant
from tests.images.quality_study import write_quality_study

RUNNER = CliRunner()


@dataclass(frozen=True)
class Analysed:
    """The analysed study: its file, database, the planted face rows, each variation's stored
    cosine and the ``--min-identity`` applied."""

    study: Path
    db: Path
    encoder: Path
    planted: Planted
    cosines: dict[str, float]
    min_identity: float

    def face_reasons(self) -> dict[str, str]:
        """Variation → why the face models drop it (``distance`` / ``face_count``), from the plant."""
        v = self.planted.variations
        reasons = {}
        for row in v.iter_rows(named=True):
            if row["base_faces"] != 1 or row["variation_faces"] != 1:
                reasons[row["image_id"]] = "face_count"
            elif row["distance"] > THRESHOLD:
                reasons[row["image_id"]] = "distance"
        return reasons

    def feature_keys(self) -> dict[str, str]:
        return dict(self.planted.variations.select("image_id", "feature_key").iter_rows())


def write_study(folder: Path, encoder: Path, *, identity_filter: bool) -> Path:
    """The study folder (images, manifest, study file) with or without the identity filter."""
    faces = f"[audit.faces]\nidentity_filter = {'true' if identity_filter else 'false'}\n"
    return write_quality_study(folder, encoder, extra=faces)


def run(*args: str) -> str:
    """One ``cueshift`` command; its stdout (the test fails with its output when it fails)."""
    result = RUNNER.invoke(app, [*args, "--no-progress"])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stdout


def analysed(folder: Path, encoder: Path) -> Analysed:
    """Infer, plant the face rows, analyse without and then with ``--min-identity`` (in ``folder``)."""
    study = write_study(folder, encoder, identity_filter=True)
    db = folder / "s.duckdb"
    run("infer", "--study", str(study))
    planted = plant(db, per_value=3)
    assert planted.variations.height == 6
    run("analyze", "--study", str(study), "--resamples", "100")  # measures the cosines
    with duckdb.connect(str(db), read_only=True) as con:
        cosines = {
            str(k): float(c) for k, c in con.execute("SELECT image_id, cosine FROM image_identity").fetchall()
        }
    low = sorted(cosines.values())
    threshold = round((low[1] + low[2]) / 2, 7)  # drops the two lowest: q2 (swapped) and one more
    assert low[2] - low[1] > 1e-5
    run("analyze", "--study", str(study), "--resamples", "100", "--min-identity", f"{threshold}")
    return Analysed(study, db, encoder, planted, cosines, threshold)


def stored_drops(db: Path) -> pl.DataFrame:
    """``result_identity_drops`` as stored."""
    with duckdb.connect(str(db), read_only=True) as con:
        query = "SELECT * FROM result_identity_drops ORDER BY threshold, feature_key"
        frame: pl.DataFrame = con.sql(query).pl()
    return frame

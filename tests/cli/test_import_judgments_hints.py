"""``import judgments`` says what it needs: a study file (refused up front without ``--study``), and
``[[models]]`` naming the imported judges' backend before ``analyze`` can read what it wrote.

Before the fix, ``import judgments DIR`` matched the release's files to the default study's demo
images and failed on the first one ("image ... is not in the study's image set"); a study file
without ``[[models]]`` was imported into, and ``analyze`` then suggested ``backend = "simulated"``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cueshift.errors import CueshiftError
from cueshift.imports.judgments import import_judgments
from tests.cli.untouched import error_line, fingerprint, run
from tests.images.release_layout import release_study, write_release_images, write_release_judgments

JUDGE = "llava-1.5-7b"  # the model folder of the release layout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    checkout = write_release_images(tmp_path / "StylisticBias")
    write_release_judgments(checkout)
    return checkout


def test_without_a_study_file_the_import_is_refused_up_front(checkout: Path, tmp_path: Path) -> None:
    before = fingerprint(tmp_path)
    line = error_line(run("import", "judgments", checkout, "--no-progress", "--workers", "1"))
    assert line == (
        "error: import judgments needs a study file (--study F) whose image set holds the judged images: "
        '[image_set] kind = "stylisticbias", root = the release checkout (docs/importing.md)'
    )
    assert fingerprint(tmp_path) == before and not (tmp_path / "runs").exists()
    for study in (None, "default"):
        with pytest.raises(CueshiftError, match=r"needs a study file \(--study F\)"):
            import_judgments(checkout, study)


def test_a_study_without_models_is_told_to_name_the_imported_backend(checkout: Path, tmp_path: Path) -> None:
    study = release_study(checkout, tmp_path, models=())
    assert "[[models]]" not in study.read_text(encoding="utf-8")
    imported = run("import", "judgments", checkout, "--study", study, "--no-progress", "--workers", "1")
    assert imported.exit_code == 0, imported.stderr
    table = f'[[models]] model_id = "{JUDGE}" backend = "release-import"'
    assert (
        "note: the study file lists no [[models]]; for analyze and report to read these judgments "
        f"add {table}" in (" ".join(imported.stdout.split()))
    )
    before = fingerprint(tmp_path)
    line = error_line(run("analyze", "--study", study, "--no-progress"))
    assert line == (
        f"error: {study}: field 'models': no judge: its database holds the judgments of {JUDGE} read by "
        f"'cueshift import judgments' (backend 'release-import'); add {table}"
    )
    assert "simulated" not in line and fingerprint(tmp_path) == before
    study.write_text(
        study.read_text(encoding="utf-8")
        + table.replace(" model_id", "\nmodel_id").replace(" backend", "\nbackend")
        + "\n",
        encoding="utf-8",
    )
    analyzed = run("analyze", "--study", study, "--resamples", "100", "--no-progress")
    assert analyzed.exit_code == 0, analyzed.stderr  # the hinted tables are what analyze needs


def test_a_study_without_models_and_no_database_keeps_the_generic_hint(tmp_path: Path) -> None:
    study = tmp_path / "empty.toml"
    study.write_text(f'name = "empty"\ndatabase = "{tmp_path / "none.duckdb"}"\n', encoding="utf-8")
    line = error_line(run("analyze", "--study", study, "--no-progress"))
    assert 'backend = "simulated"' in line and not (tmp_path / "none.duckdb").exists()

"""`cueshift import judgments`: runs of the StylisticBias release code into a study database."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from cueshift.cli import app
from cueshift.designs.imported_judges import IMPORT_BACKEND
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.errors import CueshiftError
from cueshift.images.release_judgments import read_judgment_tree
from cueshift.imports.judgments import import_judgments
from cueshift.inference.parser import parse_answer
from cueshift.study.scenarios import ORDERING_BY_ID
from tests.images.release_layout import (
    FACES,
    image_stems,
    release_parser,
    release_study,
    write_release_images,
    write_release_judgments,
)

N_IMAGES = len(image_stems())  # 7
N_FILES = N_IMAGES * 3 * 4 * 2  # 3 scenarios x 4 orders x 2 seeds


@pytest.fixture
def release(tmp_path: Path) -> tuple[Path, Path]:
    checkout = write_release_images(tmp_path / "StylisticBias")
    write_release_judgments(checkout)
    return checkout, release_study(checkout, tmp_path)


def _table(database: Path, sql: str) -> pl.DataFrame:
    con = duckdb.connect(str(database), read_only=True)
    try:
        frame: pl.DataFrame = con.sql(sql).pl()
        return frame
    finally:
        con.close()


def test_import_reparses_and_keeps_the_release_reading(release: tuple[Path, Path], tmp_path: Path) -> None:
    checkout, study = release
    result = import_judgments(checkout, study, workers=2)
    assert (result.n_files, result.n_written, result.n_already_stored) == (N_FILES, N_FILES, 0)
    rows = _table(
        tmp_path / "release.duckdb",
        "SELECT j.*, r.chosen_option, r.release_letter, r.source_file, r.release_timestamp "
        "FROM judgment j JOIN release_judgment r USING (model_id, image_id, scenario_id, ordering, seed)",
    )
    assert rows.height == N_FILES and set(rows["ordering"].to_list()) == {1, 2, 3, 4}
    scenarios = {s.scenario_id: s for s in STYLISTICBIAS_25}
    assert set(rows["scenario_id"].to_list()) == {"competent", "likeable", "intelligent"}
    for row in rows.iter_rows(named=True):
        ordering = ORDERING_BY_ID[row["ordering"]]
        expected = parse_answer(
            row["response_text"], ordering.descriptor_by_letter(scenarios[row["scenario_id"]])
        )
        assert row["chosen_letter"] == expected.letter
        outcome = "invalid" if expected.letter is None else (
            "favorable" if expected.letter == ordering.favorable_letter else "unfavorable"
        )  # fmt: skip
        assert row["outcome"] == outcome
        assert row["chosen_option"] == release_parser(row["response_text"]) == row["release_letter"]
        assert row["source_file"].startswith(
            f"llava-1.5-7b/{row['image_id'].split('_face_')[0].split('_body_')[0]}/"
        )
        assert row["release_timestamp"] == "2025-04-01T12:00:00"
    # the release reads "I would say (a) or (b)" and "I cannot tell from a photo" as (a); we do not
    hedged = rows.filter(
        pl.col("response_text").is_in(["I would say (a) or (b)", "I cannot tell from a photo"])
    )
    assert (
        hedged.height and (hedged["release_letter"] == "a").all() and hedged["chosen_letter"].is_null().all()
    )
    both = rows.filter(pl.col("response_text") == "Answer: (b)")  # 'a' in 'Answer'
    assert (both["chosen_letter"] == "b").all() and (both["release_letter"] == "a").all()
    agreement = result.agreement.row(0, named=True)
    differ = rows.filter(~pl.col("chosen_letter").eq_missing(pl.col("release_letter")))
    assert agreement["n"] == N_FILES and agreement["disagree"] == differ.height
    assert agreement["we_invalid_release_letter"] == hedged.height
    assert agreement["letters_differ"] == both.height
    model = _table(tmp_path / "release.duckdb", "SELECT backend FROM model").to_series().to_list()
    assert model == ["simulated"]  # the study lists the model: its own entry


def test_import_is_idempotent_and_unlisted_models_get_an_import_entry(
    release: tuple[Path, Path], tmp_path: Path
) -> None:
    checkout, study = release
    write_release_judgments(checkout, models=("gpt-4o",), scenario_indices=(4,), orders=(0,), seeds=(0,))
    first = import_judgments(checkout, study, workers=1)
    assert first.n_written == N_FILES + N_IMAGES and first.models == ("gpt-4o", "llava-1.5-7b")
    again = import_judgments(checkout, study, workers=2)
    assert (again.n_written, again.n_already_stored) == (0, N_FILES + N_IMAGES)
    counts = _table(
        tmp_path / "release.duckdb",
        "SELECT (SELECT count(*) FROM judgment) AS j, (SELECT count(*) FROM release_judgment) AS r, "
        "(SELECT count(*) FROM run) AS runs",
    ).row(0)
    assert counts == (N_FILES + N_IMAGES, N_FILES + N_IMAGES, 2)
    backends = dict(_table(tmp_path / "release.duckdb", "SELECT model_id, backend FROM model").iter_rows())
    assert backends == {"gpt-4o": IMPORT_BACKEND, "llava-1.5-7b": "simulated"}


def test_parallel_and_serial_reads_agree(release: tuple[Path, Path]) -> None:
    checkout, _ = release
    serial = read_judgment_tree(checkout, workers=1)
    assert serial.height == N_FILES
    assert serial.equals(read_judgment_tree(checkout / "output", workers=2))


def _one_file(checkout: Path, index: int = 5) -> Path:
    """A judgment file of the first image (sorted: index 0 is scenario 1, order 0, seed 0)."""
    face, img = image_stems()[0]
    folder = checkout / "output" / "judgements" / "llava-1.5-7b" / face / img
    return sorted(folder.iterdir())[index]


def _edit(path: Path, **changes: object) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def _malformed(checkout: Path) -> tuple[Path, str]:
    path = _one_file(checkout)
    path.write_text('{"order": 1,')
    return path, "malformed judgment JSON"


def _order_differs(checkout: Path) -> tuple[Path, str]:
    path = _one_file(checkout)
    _edit(path, order=json.loads(path.read_text())["order"] + 1)
    return path, "field 'order'"


def _options_unknown(checkout: Path) -> tuple[Path, str]:
    path = _one_file(checkout)
    _edit(path, options={"a": "Tall", "b": "Short"})
    return path, "field 'options'"


def _raw_output_number(checkout: Path) -> tuple[Path, str]:
    path = _one_file(checkout)
    _edit(path, raw_output=7)
    return path, "field 'raw_output'"


def _image_not_in_image_set(checkout: Path) -> tuple[Path, str]:
    source = _one_file(checkout)
    folder = source.parent.parent / "face_9_20250101_000000_deadbeef"
    folder.mkdir()
    target = folder / source.name.replace(source.parent.name, folder.name)
    target.write_text(source.read_text().replace(source.parent.name, folder.name))
    return target, "field 'face_image_name'"


def _prompt_order_inconsistent(checkout: Path) -> tuple[Path, str]:
    path = _one_file(checkout, 0)  # a file of order 0 (ordering 1) now shows ordering 2's prompt
    data = json.loads(path.read_text())
    scenario = next(s for s in STYLISTICBIAS_25 if s.favorable == data["options"]["a"])
    _edit(
        path,
        prompt=ORDERING_BY_ID[2].render("({first_letter}) {first} or ({second_letter}) {second}", scenario),
    )
    return path, "field 'order'"


def _stray_file(checkout: Path) -> tuple[Path, str]:
    path = _one_file(checkout).parent / "notes.json"
    path.write_text("{}")
    return path, "field 'file name'"


BREAKS = {
    "malformed": _malformed,
    "order differs from name": _order_differs,
    "options of no scenario": _options_unknown,
    "raw_output not text": _raw_output_number,
    "image not in image set": _image_not_in_image_set,
    "prompt ordering inconsistent": _prompt_order_inconsistent,
    "stray file": _stray_file,
}


@pytest.mark.parametrize("case", list(BREAKS))
def test_bad_file_names_file_and_field_and_writes_nothing(
    release: tuple[Path, Path], tmp_path: Path, case: str
) -> None:
    checkout, study = release
    path, fragment = BREAKS[case](checkout)
    with pytest.raises(CueshiftError) as exc:
        import_judgments(checkout, study, workers=2 if case == "malformed" else 1)
    message = str(exc.value)
    assert "\n" not in message and fragment in message, message
    assert path.name in message
    assert not (tmp_path / "release.duckdb").exists()


def test_scenario_numbering_from_zero_is_read(tmp_path: Path) -> None:
    checkout = write_release_images(tmp_path / "rel")
    write_release_judgments(checkout, scenario_base=0, scenario_indices=(1,), orders=(2,), seeds=(0,))
    result = import_judgments(checkout, release_study(checkout, tmp_path), workers=1)
    stored = _table(tmp_path / "release.duckdb", "SELECT DISTINCT scenario_id, ordering FROM judgment")
    assert result.n_written == N_IMAGES and stored.rows() == [("likeable", 3)]


def test_cli_import_then_analyze(release: tuple[Path, Path]) -> None:
    checkout, study = release
    runner = CliRunner()
    imported = runner.invoke(
        app, ["import", "judgments", str(checkout), "--study", str(study), "--no-progress"]
    )
    assert imported.exit_code == 0, imported.output
    assert f"{N_FILES:,} judgments written" in imported.output and "opposite letters" in imported.output
    analyzed = runner.invoke(app, ["analyze", "--study", str(study), "--resamples", "100", "--no-progress"])
    assert analyzed.exit_code == 0, analyzed.output
    missing = runner.invoke(app, ["import", "judgments", str(checkout / "nowhere"), "--study", str(study)])
    assert missing.exit_code == 2 and "Traceback" not in missing.output
    assert len(FACES) == 2


def _tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones too) by relative path, with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_import_adds_no_placebos_and_leaves_the_source_folder_as_it_was(
    release: tuple[Path, Path], tmp_path: Path
) -> None:
    # a StylisticBias study includes noise-floor placebos by default; the release has no judgment of
    # them, and their re-encodes would be written under the release's image root
    checkout, study = release
    before = _tree(checkout)
    result = import_judgments(checkout, study, workers=1)
    assert result.n_written == N_FILES
    assert _tree(checkout) == before  # the same files, the same bytes: nothing written there
    assert not (checkout / ".cueshift-placebos").exists()
    stored = _table(
        tmp_path / "release.duckdb", "SELECT count(*) AS n FROM image WHERE feature_key = 'placebo'"
    )
    assert stored["n"][0] == 0
    assert import_judgments(checkout, study, workers=1).n_written == 0  # again: still nothing there
    assert _tree(checkout) == before


def test_a_study_without_models_takes_the_model_folders_as_imported_judges(tmp_path: Path) -> None:
    checkout = write_release_images(tmp_path / "rel")
    write_release_judgments(checkout, models=("llava-v1.6", "phi-4"), scenario_indices=(0,), seeds=(0,))
    study = release_study(checkout, tmp_path, models=())
    assert "[[models]]" not in study.read_text(encoding="utf-8")
    result = import_judgments(checkout, study, workers=1)
    assert result.models == ("llava-v1.6", "phi-4") and result.n_written == 2 * N_IMAGES * 4
    stored = _table(tmp_path / "release.duckdb", "SELECT model_id, backend, checkpoint FROM model ORDER BY 1")
    assert stored.rows() == [("llava-v1.6", IMPORT_BACKEND, "llava-v1.6"), ("phi-4", IMPORT_BACKEND, "phi-4")]


def test_a_study_without_models_names_what_to_add_elsewhere(tmp_path: Path) -> None:
    checkout = write_release_images(tmp_path / "rel")
    study = release_study(checkout, tmp_path, models=())
    analyzed = CliRunner().invoke(app, ["analyze", "--study", str(study), "--no-progress"])
    assert analyzed.exit_code == 2 and "Traceback" not in analyzed.output
    line = " ".join(analyzed.output.split())
    assert "field 'models': no judge: add one [[models]] table per model" in line
    assert 'model_id = "llava-v1.6" backend = "simulated"' in line


def test_cli_analyze_compat_release_writes_the_release_tables(
    release: tuple[Path, Path], tmp_path: Path
) -> None:
    checkout, study = release
    runner = CliRunner()
    assert (
        runner.invoke(
            app, ["import", "judgments", str(checkout), "--study", str(study), "--no-progress"]
        ).exit_code
        == 0
    )
    bogus = runner.invoke(app, ["analyze", "--study", str(study), "--compat", "paper", "--no-progress"])
    assert bogus.exit_code == 2 and "--compat 'paper': 'default' or 'release'" in bogus.output
    analyzed = runner.invoke(
        app, ["analyze", "--study", str(study), "--resamples", "100", "--compat", "release", "--no-progress"]
    )
    assert analyzed.exit_code == 0, analyzed.output
    assert "compat release: ON" in analyzed.output
    database = tmp_path / "release.duckdb"
    assert _table(database, "SELECT DISTINCT compat FROM result_manifest")["compat"].to_list() == ["release"]
    names = set(_table(database, "SELECT name FROM result_manifest")["name"].to_list())
    assert {"table5", "release_table5", "compat_differences"} <= names

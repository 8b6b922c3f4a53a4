"""Counterfactual quality end to end: ``[quality] encoder`` (a tiny random CLIP saved in the test),
``cueshift analyze`` stores every variation's identity preservation, ``--min-identity`` drops the
planted off-identity variation from the analyses and says how many it dropped."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from typer.testing import CliRunner  # noqa: E402

from cueshift.cli import app  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import save_tiny_clip  # noqa: E402
from tests.hardening.failing import one_line  # noqa: E402
from tests.images.quality_study import SWAPPED, write_quality_study  # noqa: E402

RUNNER = CliRunner()


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"), seed=0)


def _analyze(study: Path, *more: str) -> str:
    result = RUNNER.invoke(
        app, ["analyze", "--study", str(study), "--resamples", "100", "--no-progress", *more]
    )
    assert result.exit_code == 0, (result.stderr, result.exception)
    return result.stdout


def test_identity_is_stored_and_min_identity_drops_the_swapped_variation(
    tmp_path: Path, encoder: Path
) -> None:
    study = write_quality_study(tmp_path, encoder)
    assert RUNNER.invoke(app, ["infer", "--study", str(study), "--no-progress"]).exit_code == 0
    out = _analyze(study)
    assert "identity preservation: 6 variations" in out
    db = str(tmp_path / "s.duckdb")
    with duckdb.connect(db, read_only=True) as con:
        cosines = dict(con.execute("SELECT image_id, cosine FROM image_identity").fetchall())
        n_cached = con.execute("SELECT count(*) FROM embedding WHERE kind = 'image'").fetchone()
        assert con.execute("SELECT count(*) FROM result_identity_drops WHERE applied").fetchone() == (0,)
        assert con.execute("SELECT DISTINCT min_identity FROM result_manifest").fetchall() == [(None,)]
    assert set(cosines) == {"p1", "p2", "q1", "q2", "r1", "r2"}
    assert min(cosines, key=cosines.__getitem__) == SWAPPED  # the planted failure is the least similar
    assert n_cached == (9,)  # 3 bases + 6 variations, keyed by content

    rest = sorted(v for k, v in cosines.items() if k != SWAPPED)
    threshold = (cosines[SWAPPED] + rest[0]) / 2
    out = _analyze(study, "--min-identity", f"{threshold:.6f}")
    assert "1 of 6 variations dropped" in out
    with duckdb.connect(db, read_only=True) as con:
        applied = con.execute(
            "SELECT feature_key, n_dropped, n_variations FROM result_identity_drops WHERE applied ORDER BY 1"
        ).fetchall()
        survives = con.execute(
            "SELECT sbs_all, sbs_kept FROM result_identity_drops WHERE applied AND feature_key = 'hair_style'"
        ).fetchone()
        recorded = con.execute("SELECT DISTINCT min_identity FROM result_manifest").fetchall()
        faces = con.execute(
            "SELECT n FROM result_sbs WHERE level = 'variation_value' AND variation_value = 'Mohawk' "
            "AND model_id = 'sim'"
        ).fetchall()
    assert applied == [("all", 1, 6), ("eyewear", 0, 3), ("hair_style", 1, 3)]
    assert survives is not None and survives[0] > 0 and survives[1] > 0  # the planted Mohawk effect stays
    assert recorded == [(pytest.approx(round(threshold, 6)),)]  # every table says what it left out
    assert faces and all(n == 2 for (n,) in faces)  # the swapped face's Mohawk is out of the Δ rows


def test_min_identity_without_an_encoder_is_one_line(tmp_path: Path, encoder: Path) -> None:
    study = write_quality_study(tmp_path, encoder, quality=False)
    assert RUNNER.invoke(app, ["infer", "--study", str(study), "--no-progress"]).exit_code == 0
    line = one_line(RUNNER.invoke(app, ["analyze", "--study", str(study), "--min-identity", "0.8"]))
    assert "[quality] encoder" in line


def test_min_identity_is_refused_by_designs_without_quality(tmp_path: Path) -> None:
    from tests.hardening.inputs_layout import study_file

    study = study_file(tmp_path, "probe")
    line = one_line(RUNNER.invoke(app, ["analyze", "--study", str(study), "--min-identity", "0.8"]))
    assert "--min-identity" in line and "probe" in line
    assert not (tmp_path / "s.duckdb").exists()

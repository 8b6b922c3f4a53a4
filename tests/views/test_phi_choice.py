"""``cueshift analyze --phi``: φ at any temperature from the stored scores (``sql/views/phi_at.sql``),
checked against the transformers backend's own ``phi_at_temperature`` and by hand."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.errors import ConfigError, CueshiftError
from cueshift.inference.backends.hf_answers import phi_at_temperature
from cueshift.views import GREEDY, PhiChoice, check_scored, parse_phi, read_base_phi, read_delta
from tests import dbrows

P_BASE = [0.9, 0.6, 0.5, 0.2, 0.0, 1.0, 0.7, 0.45, 0.55, 0.3, 0.8, 0.65]
P_VARIATION = [0.95, 0.7, 0.6, 0.4, 0.1, 1.0, 0.75, 0.5, 0.52, 0.35, 0.85, 0.9]


@pytest.fixture()
def con(tmp_path):
    con = store.open_study(tmp_path / "phi.duckdb")
    store.write_tables(
        con,
        {
            "face": dbrows.faces(("f1", "male", "elderly")),
            "image": dbrows.images(
                ("f1_base", "f1", None, None), ("f1_glasses", "f1", "f1_base", "Thick-rimmed")
            ),
            "scenario": dbrows.scenarios("kind"),
        },
    )
    cells = [(o, s) for o in (1, 2, 3, 4) for s in (1, 2, 3)]
    frames = []
    for image_id, scores in (("f1_base", P_BASE), ("f1_glasses", P_VARIATION)):
        rows = [
            (image_id, "kind", o, s, "favorable" if p > 0.5 else "unfavorable")
            for (o, s), p in zip(cells, scores, strict=True)
        ]
        frames.append(dbrows.judgments("scored", rows).with_columns(pl.Series("p_favorable", scores)))
    store.write_tables(con, {"judgment": pl.concat(frames)})
    yield con
    con.close()


@pytest.mark.parametrize(
    ("text", "temperature", "label"),
    [
        ("greedy", None, "greedy"),
        ("expected", 1.0, "expected"),
        ("T=0.2", 0.2, "T=0.2"),
        ("0.5", 0.5, "T=0.5"),
        (" t=0 ", 0.0, "T=0"),
    ],
)
def test_parse_phi_reads_every_spelling(text: str, temperature: float | None, label: str) -> None:
    choice = parse_phi(text)
    assert choice.temperature == temperature and choice.label == label


@pytest.mark.parametrize("text", ["T=-1", "hot", "T=nan", "T=inf", ""])
def test_parse_phi_refuses_other_values_in_one_line(text: str) -> None:
    with pytest.raises(ConfigError, match="use 'greedy', 'expected' or 'T="):
        parse_phi(text)


@pytest.mark.parametrize("temperature", [0.0, 0.2, 1.0, 3.0])
def test_phi_at_matches_the_backend_formula(con, temperature: float) -> None:
    phi = dict(con.execute(f"SELECT image_id, phi FROM phi_at({temperature})").fetchall())
    for image_id, scores in (("f1_base", P_BASE), ("f1_glasses", P_VARIATION)):
        expected = float(np.mean([phi_at_temperature(p, temperature) for p in scores]))
        assert phi[image_id] == pytest.approx(expected, abs=1e-14)


def test_expected_is_the_mean_score_and_greedy_is_the_stored_answers(con) -> None:
    expected = read_delta(con, phi=PhiChoice(1.0))
    assert expected["delta"][0] == pytest.approx(np.mean(P_VARIATION) - np.mean(P_BASE), abs=1e-14)
    greedy = read_delta(con, phi=GREEDY)
    by_hand = np.mean([p > 0.5 for p in P_VARIATION]) - np.mean([p > 0.5 for p in P_BASE])
    assert greedy["delta"][0] == pytest.approx(by_hand, abs=1e-15)
    sharp = read_base_phi(con, phi=PhiChoice(0.2))["phi"][0]
    # T = 0.2 sharpens each score: sigma(logit(p) / 0.2) = p^5 / (p^5 + (1 - p)^5)
    assert sharp == pytest.approx(np.mean([p**5 / (p**5 + (1 - p) ** 5) for p in P_BASE]), abs=1e-14)
    assert not math.isclose(sharp, read_base_phi(con)["phi"][0])


def test_a_temperature_needs_stored_scores(con) -> None:
    unscored = dbrows.judgments("generated", [("f1_base", "kind", 1, 1, "favorable")])
    store.write_tables(con, {"judgment": unscored})
    check_scored(con, GREEDY, None)  # greedy reads the stored answers of every backend
    check_scored(con, PhiChoice(0.2), ["scored"])
    with pytest.raises(CueshiftError, match="--phi T=0.2: model\\(s\\) generated stored no score"):
        check_scored(con, PhiChoice(0.2), None)


def test_analyze_phi_is_recorded_in_the_manifest_and_refused_where_meaningless(tmp_path: Path) -> None:
    db = tmp_path / "tiny.duckdb"
    study = tmp_path / "tiny.toml"
    study.write_text(
        f'name = "tiny"\ndatabase = "{db}"\n'
        '[image_set]\nkind = "demo"\nsize = 4\nplacebos = false\n'
        '[scenarios]\nonly = ["competent", "trustworthy"]\n'
        '[[models]]\nmodel_id = "sim"\nbackend = "simulated"\ncheckpoint = "sim"\n'
    )
    cli = [sys.executable, "-m", "cueshift.cli"]

    def analyze(*options: str) -> subprocess.CompletedProcess[str]:
        command = [*cli, "analyze", "--study", str(study), "--resamples", "200", "--no-progress", *options]
        return subprocess.run(command, capture_output=True, text=True)

    run = subprocess.run(
        [*cli, "infer", "--study", str(study), "--no-progress"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    unscored = analyze("--phi", "T=0.2")  # the simulated judge answers; it stores no scores
    assert (
        unscored.returncode == 2
        and "stored no score" in unscored.stderr
        and "Traceback" not in unscored.stderr
    )
    con = store.open_study(db)
    # give every judgment a score, as a scoring backend would (a fixed function of its key)
    con.execute(
        "UPDATE judgment SET p_favorable = (hash(image_id, scenario_id, ordering, seed) % 997 + 1) / 999.0"
    )
    con.close()
    run = analyze("--phi", "T=0.2")
    assert run.returncode == 0, run.stderr
    con = store.open_study(db, read_only=True)
    try:
        assert {row[0] for row in con.execute("SELECT DISTINCT phi FROM result_manifest").fetchall()} == {
            "T=0.2"
        }
        (sbs,) = con.execute(
            "SELECT estimate FROM result_sbs WHERE level = 'model' AND model_id = 'sim'"
        ).fetchall()[0]
        (by_faces,) = con.execute(
            "SELECT avg(m) FROM (SELECT face_id, avg(delta) AS m FROM delta_at(0.2) GROUP BY face_id)"
        ).fetchall()[0]
        (greedy,) = con.execute(
            "SELECT avg(m) FROM (SELECT face_id, avg(delta) AS m FROM delta GROUP BY face_id)"
        ).fetchall()[0]
    finally:
        con.close()
    assert sbs == pytest.approx(by_faces, abs=1e-9) and not math.isclose(sbs, greedy)
    bad = analyze("--phi", "warm")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "--phi 'warm'" in bad.stderr


def test_phi_computed_once_gives_the_same_rows_and_is_dropped_after(con) -> None:
    from cueshift.views import phi_computed_once

    before = (read_delta(con), read_base_phi(con))
    with phi_computed_once(con):
        plan = str(con.sql("EXPLAIN SELECT * FROM delta").fetchall())
        assert "judgment" not in plan  # the views read the temporary table, not the judgments
        inside = (read_delta(con), read_base_phi(con))
    assert all(a.equals(b) for a, b in zip(before, inside, strict=True))
    assert con.execute("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchall()[0][0] == 0
    assert "judgment" in str(con.sql("EXPLAIN SELECT * FROM delta").fetchall())

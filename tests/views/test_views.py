"""φ (seed 000 Eq. 1) and Δ (Eq. 2) views against values computed by hand."""

from __future__ import annotations

import math

import pytest

from cueshift import store
from tests import dbrows


@pytest.fixture()
def con(tmp_path):
    con = store.open_study(tmp_path / "views.duckdb")
    store.write_tables(
        con,
        {
            "face": dbrows.faces(("f1", "male", "elderly"), ("f2", "female", "young adult")),
            "image": dbrows.images(
                ("f1_base", "f1", None, None),
                ("f1_glasses", "f1", "f1_base", "Thick-rimmed"),
                ("f2_base", "f2", None, None),
                ("f2_glasses", "f2", "f2_base", "Thick-rimmed"),
            ),
            "scenario": dbrows.scenarios("kind"),
        },
    )
    yield con
    con.close()


def _twelve(image_id: str, n_favorable: int, n_invalid: int) -> list[tuple[str, str, int, int, str]]:
    """12 prompts (4 orderings x 3 seeds) of one cell with the given counts."""
    outcomes = ["favorable"] * n_favorable + ["invalid"] * n_invalid
    outcomes += ["unfavorable"] * (12 - len(outcomes))
    cells = [(o, s) for o in (1, 2, 3, 4) for s in (1, 2, 3)]
    return [(image_id, "kind", o, s, out) for (o, s), out in zip(cells, outcomes, strict=True)]


def test_phi_excludes_invalid_answers_from_the_denominator(con):
    # f1_base: 6 favorable, 2 invalid, 4 unfavorable -> phi = 6 / (12 - 2) = 0.6
    # f1_glasses: 9 favorable, 0 invalid -> phi = 9 / 12 = 0.75
    rows = _twelve("f1_base", 6, 2) + _twelve("f1_glasses", 9, 0)
    store.write_tables(con, {"judgment": dbrows.judgments("m", rows)})
    phi = dict(con.execute("SELECT image_id, phi FROM phi").fetchall())
    assert phi["f1_base"] == pytest.approx(0.6, abs=1e-15)
    assert phi["f1_glasses"] == pytest.approx(0.75, abs=1e-15)
    n = dict(con.execute("SELECT image_id, n_valid || '/' || n_total FROM phi").fetchall())
    assert n == {"f1_base": "10/12", "f1_glasses": "12/12"}


def test_phi_is_null_when_no_answer_is_valid(con):
    store.write_tables(con, {"judgment": dbrows.judgments("m", _twelve("f2_base", 0, 12))})
    (phi,) = con.execute("SELECT phi FROM phi WHERE image_id = 'f2_base'").fetchone()
    assert phi is None


def test_delta_subtracts_the_base_of_the_same_face_model_and_scenario(con):
    # f1: 0.75 - 0.6 = +0.15; f2: phi(glasses) = 3/12 = 0.25, phi(base) = 8/11 -> 0.25 - 8/11
    rows = (
        _twelve("f1_base", 6, 2)
        + _twelve("f1_glasses", 9, 0)
        + _twelve("f2_base", 8, 1)
        + _twelve("f2_glasses", 3, 0)
    )
    store.write_tables(con, {"judgment": dbrows.judgments("m1", rows)})
    # a second model whose answers must not leak into m1's deltas
    store.write_tables(
        con, {"judgment": dbrows.judgments("m2", _twelve("f1_base", 0, 0) + _twelve("f1_glasses", 12, 0))}
    )
    got = {
        (m, face): (d, gender, age, value)
        for m, face, d, gender, age, value in con.execute(
            "SELECT model_id, face_id, delta, gender, age, variation_value FROM delta"
        ).fetchall()
    }
    assert got[("m1", "f1")][0] == pytest.approx(0.15, abs=1e-12)
    assert got[("m1", "f2")][0] == pytest.approx(0.25 - 8 / 11, abs=1e-12)
    assert got[("m2", "f1")][0] == pytest.approx(1.0, abs=1e-12)
    assert ("m2", "f2") not in got  # m2 never judged f2
    assert got[("m1", "f1")][1:] == ("male", "elderly", "Thick-rimmed")


def test_delta_is_null_when_the_base_has_no_valid_answer(con):
    rows = _twelve("f1_base", 0, 12) + _twelve("f1_glasses", 5, 0)
    store.write_tables(con, {"judgment": dbrows.judgments("m", rows)})
    (delta,) = con.execute("SELECT delta FROM delta").fetchone()
    assert delta is None or math.isnan(delta)


def test_views_work_from_a_plain_duckdb_connection(tmp_path):
    """The .sql files are usable as they are: load them with plain duckdb, no cueshift code."""
    import duckdb

    from cueshift.store import VIEWS, sql_text

    raw = duckdb.connect(str(tmp_path / "raw.duckdb"))
    raw.execute(sql_text("schema.sql"))
    for name in VIEWS:
        raw.execute(sql_text(f"views/{name}.sql"))
    assert {
        r[0] for r in raw.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
    } >= set(VIEWS)

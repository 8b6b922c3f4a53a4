"""``result_equivalence``'s VS rows on planted base faces, and every row kind's verdict shown in
place of a bare "n.s." in the report (Tables E1-E3) and the console.

References: Table 2 (:func:`variation_strength`) for the VS estimates, numpy group means for the
planted truth; the stored rows for what the report and console must show.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from rich.console import Console

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console_equivalence import print_equivalence
from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.designs.stylisticbias.stats import equivalence_table, variation_strength
from cueshift.render import Report
from cueshift.schemas.results_stylisticbias_equivalence import EquivalenceSchema
from cueshift.stats import Resampling, vs_tost
from cueshift.study.equivalence import EquivalenceConfig
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

MARGINS = EquivalenceConfig(delta=0.04, vs=0.05, model_difference=0.06)
SCENARIOS = {"s1": "warmth", "s2": "warmth", "s3": "competence", "s4": "competence"}


def planted_base_phi(n_faces: int, seed: int) -> pl.DataFrame:
    """Base-face φ of two models: a large gender gap (VS 0.12 ≫ the margin), no ethnicity
    difference (VS 0), 12 answers per face and scenario; age labels on three faces only."""
    rng = np.random.default_rng(seed)
    gender = np.array(["female", "male"])[np.arange(n_faces) % 2]
    ethnicity = np.array(["Asian", "African", "European"])[rng.integers(0, 3, n_faces)]
    age = [("young adult", "elderly", "young adult")[i] if i < 3 else None for i in range(n_faces)]
    rows = []
    for model in ("m1", "m2"):
        for scenario, category in SCENARIOS.items():
            p = 0.5 + np.where(gender == "male", 0.12, -0.12) + rng.uniform(-0.1, 0.1, n_faces)
            phi = rng.binomial(12, p) / 12
            rows.append(
                pl.DataFrame(
                    {
                        "model_id": model,
                        "face_id": [f"f{i:03d}" for i in range(n_faces)],
                        "scenario_id": scenario,
                        "scenario_category": category,
                        "phi": phi,
                        "gender": gender,
                        "ethnicity": ethnicity,
                        "age": pl.Series(age, dtype=pl.String),
                        "body_type": pl.Series([None] * n_faces, dtype=pl.String),
                    }
                )
            )
    return pl.concat(rows)


def test_vs_rows_are_table2s_vs_with_their_verdicts() -> None:
    base_phi = planted_base_phi(400, seed=1)
    table = equivalence_table(None, MARGINS, base_phi=base_phi)
    EquivalenceSchema.validate(table)
    assert set(table["quantity"]) == {"vs"} and set(table["level"]) == {"dimension"}
    overall = table.filter(pl.col("scenario_category").is_null())
    table2 = variation_strength(base_phi, dimensions=("gender", "ethnicity", "age"))
    joined = overall.join(table2, on=["model_id", "dimension"], suffix="_t2")
    assert joined.height == overall.height == 6  # 2 models x 3 dimensions (body_type has no labels)
    np.testing.assert_allclose(joined["estimate"], joined["estimate_t2"], rtol=1e-12)
    verdict = dict(zip(overall["dimension"], overall["verdict"], strict=False))
    assert verdict["gender"] == "shift"  # planted gap: VS 0.12
    assert verdict["ethnicity"] == "equivalent to no shift"  # planted none, 400 faces
    assert verdict["age"] is None  # three faces, one of them alone in its group: no test
    # the per-category rows: the VS of the category's scenarios only, faces counted once
    row = table.filter(
        (pl.col("scenario_category") == "warmth")
        & (pl.col("dimension") == "gender")
        & (pl.col("model_id") == "m2")
    ).row(0, named=True)
    sub = base_phi.filter((pl.col("model_id") == "m2") & (pl.col("scenario_category") == "warmth"))
    groups = sub.group_by("scenario_id", "gender").agg(
        pl.col("phi").mean().alias("mean"), (pl.col("phi").var(ddof=1) / pl.len()).alias("var_mean")
    )
    per_scenario = groups.group_by("scenario_id").agg(  # Searle et al.'s between-group component
        (pl.col("mean").var(ddof=0) - 0.5 * pl.col("var_mean").mean()).clip(0.0).sqrt().alias("vs")
    )
    assert row["n"] == 400
    assert row["estimate"] == pytest.approx(per_scenario["vs"].to_numpy().mean(), rel=1e-9)
    # BH over the model's VS family (3 dimensions x 3 splits, one untested)
    family = table.filter(pl.col("model_id") == "m1")
    assert (family["p_adj"].drop_nulls() >= family["p"].drop_nulls() - 1e-15).all()


def test_vs_tost_p_is_the_smallest_level_whose_bound_is_below_the_margin() -> None:
    base = planted_base_phi(200, seed=2).filter(pl.col("model_id") == "m1")
    faces = sorted(set(base["face_id"]))
    x = base.pivot(on="scenario_id", index="face_id", values="phi").sort("face_id").drop("face_id").to_numpy()
    codes = np.array(
        [
            ["African", "Asian", "European"].index(e)
            for e in base.unique("face_id").sort("face_id")["ethnicity"]
        ]
    )
    res = vs_tost(x, codes, 3, np.zeros(x.shape[1], dtype=np.int64), MARGINS.vs)
    assert len(faces) == 200 and 0 < res.p[0] < 0.5
    below = vs_tost(x, codes, 3, np.zeros(x.shape[1], dtype=np.int64), MARGINS.vs, alpha=res.p[0] * 1.001)
    above = vs_tost(x, codes, 3, np.zeros(x.shape[1], dtype=np.int64), MARGINS.vs, alpha=res.p[0] * 0.999)
    assert below.ci_high[0] < MARGINS.vs < above.ci_high[0]


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = SimulationSpec(
        n_faces=40,
        models=("m1", "m2"),
        scenario_ids=("independent", "obedient", "peaceful"),
        variation_values=("Beanie", "Freckles", "Acne"),
        demographic_scale=0.0,
        seed=3,
    )
    path = tmp_path_factory.mktemp("eq") / "eq.duckdb"
    con = store.open_study(path)
    try:
        write_study(con, simulate_study(spec))
        run_analyses(con, Resampling(resamples=50, seed=1), equivalence=MARGINS, progress=False)
    finally:
        con.close()
    return path


def test_every_row_kind_gets_its_verdict_in_the_report(analysed: Path) -> None:
    with Report.open(analysed, None, CATALOG) as report:
        stored = report.query("SELECT * FROM result_equivalence WHERE scenario_category IS NULL")
        shown = {
            key: report.styled(key).texts() for key in ("equivalence", "model_equivalence", "vs_equivalence")
        }
        summary = report.text("equivalence_summary").text
    expected = {
        "equivalence": stored.filter(
            (pl.col("quantity") == "delta") & (pl.col("level") == "variation_category")
        ),
        "model_equivalence": stored.filter(
            (pl.col("quantity") == "model_difference") & (pl.col("level") == "variation_category")
        ),
        "vs_equivalence": stored.filter(pl.col("quantity") == "vs"),
    }
    for key, rows in expected.items():
        assert len(shown[key]) == rows.height > 0, key
        verdicts = sorted(r["verdict"] or "—" for r in rows.iter_rows(named=True))
        assert sorted(next(c for c in row if c in VERDICT_TEXTS) for row in shown[key]) == verdicts, key
        assert not any("n.s." in cell for row in shown[key] for cell in row)
    assert all(not cell.startswith("[+") for row in shown["vs_equivalence"] for cell in row)  # unsigned
    assert "dimension × model VS rows" in summary and "attribute × model SBS rows" in summary


VERDICT_TEXTS = {"shift", "equivalent to no shift", "inconclusive", "—"}


def test_every_row_kind_gets_its_verdict_in_the_console(analysed: Path) -> None:
    con = store.open_study(analysed)
    try:
        stored = con.sql("SELECT * FROM result_equivalence WHERE scenario_category IS NULL").pl()
        console = Console(record=True, width=200)
        print_equivalence(con, console)
    finally:
        con.close()
    lines = console.export_text().splitlines()
    for row in stored.filter(pl.col("quantity") != "model_difference").iter_rows(named=True):
        key = row["dimension"] or row["variation_category"]
        if row["level"] == "variation_value":
            continue
        verdict = row["verdict"] or "(no test)"
        assert any(key in line and row["model_id"] in line and verdict in line for line in lines), row
    pairs = stored.filter(
        (pl.col("quantity") == "model_difference") & (pl.col("level") == "variation_category")
    )
    counts = dict(pairs.group_by("verdict").len().iter_rows())
    line = next(line for line in lines if "m1 - m2" in line)
    shown = [int(cell) for cell in line.replace("│", " ").split() if cell.isdigit()]
    verdicts = ("shift", "equivalent to no shift", "inconclusive", None)
    assert shown == [counts.get(v, 0) for v in verdicts] and sum(shown) == pairs.height > 0

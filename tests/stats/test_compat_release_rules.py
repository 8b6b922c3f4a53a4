"""``--compat release`` reproduces three more of the release's choices, each checked against the
release's own procedure re-done here from the stored answers (numpy/scipy, following its
``evaluate_mllm_outputs.py`` and ``check_significance_independent.py`` line by line):

* cells of fewer than 3 faces get no p-value and enter BH as p = 1, as do the cells without faces
  (Tables 3 and 11);
* Table 5's SBS and Cohen's d are taken over a model's Δ rows, not its faces;
* answers whose release reading is stored (``release_judgment``) are counted as the release read them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.compat_phi import release_phi
from cueshift.designs.stylisticbias.compat_rules import TABLE3_CATEGORIES, rows_mean_sbs
from cueshift.designs.stylisticbias.constants import TABLE3_CATEGORY_MAP
from cueshift.designs.stylisticbias.stats import MEAN_OF_GROUPS
from cueshift.stats import MEAN_OF_MODELS, Resampling, RunChoices
from tests.scalars import real
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study
from tests.stats.release_reference import (
    bh_correct,
    face_means,
    release_deltas,
    release_phi_reference,
    wilcoxon_vs_zero,
)

DIMENSIONS = ("age", "gender", "ethnicity", "body_type")
#: Five values of four categories: Table 3's other six categories have no face at all.
VALUES = ("Freckles", "Acne", "Full beard", "Red lipstick", "Sunglasses")


def _store_release_reading(con) -> None:
    """A release reading for model m-a's answers, as its pipeline would have stored it: the letter
    we read, a guess of (a) where we found none, "unknown" for some, and an empty chosen_option for
    others (the release then reads the raw output's first "(a)"/"(b)", or drops the answer)."""
    con.execute(
        """
        UPDATE judgment SET response_text = 'Hard to say'
        WHERE model_id = 'm-a' AND hash(image_id || scenario_id || ordering || seed) % 11 = 0
        """
    )
    con.execute(
        """
        INSERT INTO release_judgment
        SELECT model_id, image_id, scenario_id, ordering, seed,
               CASE WHEN h % 13 = 0 THEN NULL WHEN h % 17 = 0 THEN 'unknown'
                    ELSE coalesce(chosen_letter, 'a') END,
               CASE WHEN h % 13 = 0 OR h % 17 = 0 THEN NULL ELSE coalesce(chosen_letter, 'a') END,
               'file.json', NULL, run_id
        FROM (SELECT *, hash(image_id || scenario_id || seed || ordering) AS h FROM judgment)
        WHERE model_id = 'm-a'
        """
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A small study (12 faces, five values) with the release's reading of one model's answers,
    analysed in release mode."""
    con = store.open_study(tmp_path_factory.mktemp("compat_rules") / "study.duckdb")
    spec = SimulationSpec(
        n_faces=12, models=("m-a", "m-b"), seed=7, invalid_rate=0.2, variation_values=VALUES
    )
    write_study(con, simulate_study(spec))
    _store_release_reading(con)
    results = run_analyses(
        con, Resampling(resamples=100, seed=2), RunChoices(compat="release"), progress=False
    )
    yield con, results
    con.close()


def _check(
    cells: Sequence[tuple[tuple[str, ...], list[float]]],
    table: pl.DataFrame,
    keys: list[str],
    *,
    empty_rows: bool = False,
) -> int:
    """Compare the release's p and BH (over every cell, p = 1 where untested) with ``table``;
    returns how many cells had fewer than 3 faces. ``empty_rows``: a cell without faces has its row
    (Table 3's file lists it), else none (Table 11's)."""
    raw = [wilcoxon_vs_zero(means) for _, means in cells]
    adjusted = bh_correct([1.0 if math.isnan(p) else p for p in raw])
    written = {tuple(r[:-2]): r[-2:] for r in table.select(*keys, "p", "p_adj").iter_rows()}
    few = 0
    for (key, means), p, p_adj in zip(cells, raw, adjusted, strict=True):
        if not means and not empty_rows:
            assert key not in written  # the release writes no row for a cell without faces
            continue
        ours_p, ours_adj = written[key]
        few += len(means) < 3
        if math.isnan(p):
            assert ours_p is None, key
        else:
            assert ours_p == pytest.approx(p, rel=1e-9), key
        assert ours_adj == pytest.approx(p_adj, rel=1e-9), key
    assert len(written) == sum(1 for _, means in cells if means or empty_rows)
    return few


def test_table11_untested_below_3_faces_and_empty_cells_enter_bh_as_one(run):
    con, results = run
    deltas = release_deltas(con)
    faces = con.sql("SELECT * FROM face").pl()
    groups = [(d, g) for d in DIMENSIONS for g in sorted(faces[d].drop_nulls().unique())]
    cells = []
    for category, value in sorted(
        deltas.select("variation_category", "variation_value").unique().iter_rows()
    ):
        of_value = deltas.filter(pl.col("variation_value") == value)
        for dim, group in groups:
            cells.append(((category, value, dim, group), face_means(of_value.filter(pl.col(dim) == group))))
    assert any(not means for _, means in cells)  # e.g. lipstick x male
    keys = ["variation_category", "variation_value", "dimension", "group"]
    few = _check(cells, results["release_table11"], keys)
    assert few > 0
    default = results["table11"].filter(pl.col("n") < 3)
    assert default["p"].null_count() < default.height  # the default tests them: the rule is the release's


def test_table3_untested_below_3_faces_and_all_forty_cells_in_one_family(run):
    con, results = run
    deltas = release_deltas(con).with_columns(pl.col("variation_category").replace(dict(TABLE3_CATEGORY_MAP)))
    assert len(TABLE3_CATEGORIES) == 10 and deltas["variation_category"].n_unique() == 4
    cells = []
    for category in TABLE3_CATEGORIES:
        of_category = deltas.filter(pl.col("variation_category") == category)
        for dim in DIMENSIONS:
            pooled = face_means(of_category.filter(pl.col(dim).is_not_null()))
            cells.append(((category, dim, MEAN_OF_GROUPS), pooled))
    table = results["release_table3"].filter(pl.col("group") == MEAN_OF_GROUPS)
    _check(cells, table, ["variation_category", "dimension", "group"], empty_rows=True)
    groups = results["release_table3"].filter(pl.col("group") != MEAN_OF_GROUPS)
    assert (groups.filter(pl.col("n") < 3)["p"].is_null()).all() and (groups["n"] < 3).any()


def test_table3_lists_each_cell_without_faces_as_the_release_file_does(run):
    """The release's ``table3_significance_independent.csv`` has a row for each of the 40 cells:
    one without faces with n_faces 0, no mean and p_adj 1; its faces counted here from the answers."""
    con, _ = run
    deltas = release_deltas(con).with_columns(pl.col("variation_category").replace(dict(TABLE3_CATEGORY_MAP)))
    faces = {
        (category, dim): deltas.filter(pl.col("variation_category") == category, pl.col(dim).is_not_null())[
            "face_id"
        ].n_unique()
        for category in TABLE3_CATEGORIES
        for dim in DIMENSIONS
    }
    empty = {cell for cell, n in faces.items() if n == 0}
    assert len(empty) == 24 and len(faces) - len(empty) == 16  # 6 categories without faces here
    stored = store.query(
        con,
        "SELECT variation_category, dimension, n, n_obs, estimate, ci_low, p, p_adj "
        f"FROM result_release_table3 WHERE \"group\" = '{MEAN_OF_GROUPS}'",
    )
    rows = {(r["variation_category"], r["dimension"]): r for r in stored.iter_rows(named=True)}
    assert stored.height == len(rows) == len(faces)  # one row per cell, none twice
    for cell, n in faces.items():
        row = rows[cell]
        assert row["n"] == n, cell
        if n == 0:
            assert row["p_adj"] == 1.0, cell
            assert row["n_obs"] == 0 and row["estimate"] is row["ci_low"] is row["p"] is None, cell
        else:
            assert row["estimate"] is not None and row["p_adj"] is not None, cell


def test_table5_cohens_d_is_over_the_delta_rows(run):
    con, results = run
    deltas = release_deltas(con)
    table = results["release_table5"]
    d = {}
    for (model,), rows in deltas.group_by("model_id"):
        values = rows["delta"].to_numpy()
        d[model] = values.mean() / values.std(ddof=1)
    for model, expected in d.items():
        assert table.filter(pl.col("model_id") == model)["cohens_d"].item() == pytest.approx(
            expected, rel=1e-9
        )
    mean_row = table.filter(pl.col("model_id") == MEAN_OF_MODELS)["cohens_d"].item()
    assert mean_row == pytest.approx(np.mean(list(d.values())), rel=1e-9)
    default = results["table5"].filter(pl.col("model_id") != MEAN_OF_MODELS)
    assert default["cohens_d"].to_list() != pytest.approx([d[m] for m in default["model_id"]], rel=1e-3)


def test_table5_sbs_is_the_mean_of_the_delta_rows(run):
    con, results = run
    deltas = release_deltas(con)
    table = results["release_table5"]
    sbs = {model: real(rows["delta"].mean()) for (model,), rows in deltas.group_by("model_id")}
    for model, expected in sbs.items():
        row = table.filter(pl.col("model_id") == model)
        assert row["estimate"].item() == pytest.approx(expected, rel=1e-12)
    mean_row = table.filter(pl.col("model_id") == MEAN_OF_MODELS)["estimate"].item()
    assert mean_row == pytest.approx(np.mean(list(sbs.values())), rel=1e-12)


def test_rows_mean_sbs_worked_example():
    """Face f1 has Δ rows 0.5, 0.25, 0 and face f2 one row -0.25: the rows' mean is 0.5 / 4 =
    0.125, the faces' mean (0.25 - 0.25) / 2 = 0; model m2's one row is 0.1 (a NaN row is left
    out); the mean of models is (0.125 + 0.1) / 2."""
    delta = pl.DataFrame(
        {
            "model_id": ["m1"] * 4 + ["m2", "m2"],
            "delta": [0.5, 0.25, 0.0, -0.25, 0.1, float("nan")],
        }
    )
    table5 = pl.DataFrame(
        {"model_id": ["m1", "m2", MEAN_OF_MODELS], "estimate": [0.0, 0.1, 0.05], "ci_low": [-1.0, -1.0, None]}
    )
    out = rows_mean_sbs(table5, delta)
    assert out["estimate"].to_list() == pytest.approx([0.125, 0.1, 0.1125], abs=1e-15)
    assert out["ci_low"].to_list() == [-1.0, -1.0, None]


def test_answers_are_counted_as_the_release_read_them(run):
    con, results = run
    reference = release_phi_reference(con)
    with release_phi(con):
        ours = con.sql("SELECT model_id, image_id, scenario_id, phi FROM phi").pl()
    both = reference.join(ours, on=["model_id", "image_id", "scenario_id"], how="full", coalesce=True)
    assert both.height == reference.height == ours.height
    np.testing.assert_allclose(
        both["phi"].to_numpy().astype(float), both["phi_right"].to_numpy().astype(float), rtol=0, atol=1e-15
    )
    with release_phi(con, release_reading=False):
        plain = con.sql("SELECT model_id, image_id, scenario_id, phi FROM phi").pl()
    moved = plain.join(reference, on=["model_id", "image_id", "scenario_id"], suffix="_r").filter(
        pl.col("phi").ne_missing(pl.col("phi_r"))
    )
    assert moved.height > 0 and set(moved["model_id"]) == {"m-a"}  # only the model with a stored reading
    choices = set(results["compat_differences"]["choice"].str.split("+").explode())
    assert {"release_reading", "min_faces", "untestable_p1", "cohens_d_rows"} <= choices

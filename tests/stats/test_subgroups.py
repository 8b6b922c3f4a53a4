"""Crossed subgroups (age × gender, every pair) and per-model versions of Tables 2, 3, 9 and 11.

References: per-face means recomputed with numpy from the Δ / φ rows, ``scipy.stats.wilcoxon``
and ``scipy.stats.kruskal`` for the tests, ``scipy.stats.false_discovery_control`` for BH; a
planted effect in one age × gender cell of the φ-level simulator (``tests/simulate/study.py``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl
import pytest
import scipy.stats as st

from cueshift.designs.stylisticbias.stats import (
    ALL_PAIRS,
    add_crossed_dimensions,
    category_table_by_model,
    crossed_category_table,
    crossed_demographic_tests,
    crossed_significance_share,
    crossed_variation_strength,
    crossed_variation_table,
    demographic_tests,
    demographic_variation_table,
    min_signed_rank_faces,
    significance_share,
    variation_table_by_model,
)
from cueshift.errors import CueshiftError
from cueshift.stats import Resampling
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study

BOOT = Resampling(resamples=300, seed=1)
SCENARIOS = ("independent", "obedient", "peaceful")
VALUES = ("Beanie", "Cap", "Freckles", "Moles")
PLANTED_VALUE, PLANTED = "Beanie", 0.15


def _study(n_faces: int, models: tuple[str, ...], seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``delta`` and ``base_phi`` frames of a null simulated study (no planted effect)."""
    spec = SimulationSpec(
        n_faces=n_faces,
        models=models,
        scenario_ids=SCENARIOS,
        variation_values=VALUES,
        planted=False,
        interactions=False,
        seed=seed,
    )
    study = simulate_study(spec)
    base_images = study.tables["image"].filter(pl.col("role") == "base")
    base = (
        study.counts.join(base_images.select("image_id", "face_id"), on="image_id")
        .join(
            study.tables["face"].select("face_id", "age", "gender", "ethnicity", "body_type"),
            on="face_id",
        )
        .with_columns(n_valid=pl.col("n_total") - pl.col("n_invalid"))
        .with_columns(phi=pl.col("n_favorable") / pl.col("n_valid"), scenario_category=pl.lit("Behavioral"))
        .sort("model_id", "face_id", "scenario_id")
    )
    return delta_frame(study), base


@pytest.fixture(scope="module")
def one_model() -> tuple[pl.DataFrame, pl.DataFrame]:
    return _study(240, ("sim-a",), seed=3)


@pytest.fixture(scope="module")
def two_models() -> tuple[pl.DataFrame, pl.DataFrame]:
    return _study(80, ("sim-a", "sim-b"), seed=5)


def _face_means(rows: pl.DataFrame) -> np.ndarray:
    """Per-face mean Δ of ``rows`` in exact rationals (Δ = k_v/n_v − k_b/n_b from the counts), sorted
    by face: ties between faces are exact ties, as the engine's exact sums make them."""
    sums: dict[str, Fraction] = {}
    counts: dict[str, int] = {}
    for face, phi_v, n_v, phi_b, n_b, delta in rows.select(
        "face_id", "phi_variation", "n_valid_variation", "phi_base", "n_valid_base", "delta"
    ).iter_rows():
        exact = Fraction(round(phi_v * n_v), n_v) - Fraction(round(phi_b * n_b), n_b)
        if abs(float(exact) - delta) > 1e-12:  # a planted shift on top of the counts
            exact += Fraction(delta - float(exact)).limit_denominator(1000)
        sums[face] = sums.get(face, Fraction(0)) + exact
        counts[face] = counts.get(face, 0) + 1
    return np.array([float(sums[f] / counts[f]) for f in sorted(sums)])


def test_min_signed_rank_faces_is_where_scipy_first_reaches_alpha() -> None:
    for alpha in (0.05, 0.1, 0.01):
        n = min_signed_rank_faces(alpha)
        assert st.wilcoxon(np.arange(1.0, n + 1), method="exact").pvalue < alpha
        assert st.wilcoxon(np.arange(1.0, n), method="exact").pvalue >= alpha
    assert min_signed_rank_faces(0.05) == 6


def test_planted_age_x_gender_cell_found_crossed_and_diluted_marginally(one_model) -> None:
    delta, _ = one_model
    target = (pl.col("age") == "elderly") & (pl.col("gender") == "female")
    planted = delta.with_columns(
        delta=pl.when(target & (pl.col("variation_value") == PLANTED_VALUE))
        .then(pl.col("delta") + PLANTED)
        .otherwise(pl.col("delta"))
    )
    crossed = crossed_variation_table(planted, resampling=BOOT).filter(
        pl.col("variation_value") == PLANTED_VALUE
    )
    cell = crossed.filter(pl.col("group") == "elderly × female").row(0, named=True)
    assert cell["p_adj"] < 0.01 and abs(cell["estimate"] - PLANTED) < 0.05
    assert cell["ci_low"] <= PLANTED <= cell["ci_high"]
    assert (crossed.filter(pl.col("group") != "elderly × female")["p_adj"] > 0.05).all()
    # the marginal cells mix the planted faces with unplanted ones: the effect shrinks by their share
    faces = planted.select("face_id", "age", "gender").unique()
    elderly_female_share = {
        "elderly": faces.filter(pl.col("age") == "elderly")["gender"].eq("female").mean(),
        "female": faces.filter(pl.col("gender") == "female")["age"].eq("elderly").mean(),
    }
    marginal = demographic_variation_table(planted, resampling=BOOT).filter(
        pl.col("variation_value") == PLANTED_VALUE
    )
    for group, share in elderly_female_share.items():
        est = marginal.filter(pl.col("group") == group)["estimate"].item()
        assert isinstance(share, float) and share < 0.6
        assert abs(est - PLANTED * share) < 0.04 and est < cell["estimate"] - 0.04
    # ... and, at these 240 faces, is not significant in either marginal table (BH over all cells)
    assert (marginal.filter(pl.col("group").is_in(["elderly", "female"]))["p_adj"] > 0.05).all()


def test_crossed_cells_by_numpy_and_scipy(one_model) -> None:
    delta, _ = one_model
    table = crossed_variation_table(delta, resampling=BOOT)
    assert set(table["dimension"]) == {"age_x_gender"} and table["group"].n_unique() == 6
    for value, group in [("Cap", "young adult × male"), ("Moles", "middle-aged adult × female")]:
        age, gender = group.split(" × ")
        rows = delta.filter(
            (pl.col("variation_value") == value) & (pl.col("age") == age) & (pl.col("gender") == gender)
        )
        means = _face_means(rows)
        row = table.filter((pl.col("variation_value") == value) & (pl.col("group") == group)).row(
            0, named=True
        )
        assert row["n"] == means.size and row["estimate"] == pytest.approx(means.mean(), abs=1e-12)
        assert row["p"] == pytest.approx(st.wilcoxon(means).pvalue, rel=1e-9)
    tested = table.filter(pl.col("p").is_not_null())
    assert np.allclose(tested["p_adj"], st.false_discovery_control(tested["p"].to_numpy()), atol=1e-12)


def test_small_crossed_cells_are_not_tested_and_leave_the_family(two_models) -> None:
    delta, _ = two_models  # 80 faces: ethnicity × body type groups of a few faces
    table = crossed_variation_table(delta, pairs=ALL_PAIRS, resampling=BOOT)
    assert table["dimension"].n_unique() == 6
    small = table.filter(pl.col("n") < 6)
    assert small.height > 0 and small["untested_reason"].is_not_null().all()
    assert small.select("p", "p_adj", "statistic", "ci_low").null_count().row(0) == (small.height,) * 4
    tested = table.filter(pl.col("n") >= 6)
    assert tested["untested_reason"].is_null().all() and tested["p"].is_not_null().all()
    expected = st.false_discovery_control(tested["p"].to_numpy())
    assert np.allclose(tested["p_adj"], expected, atol=1e-12)
    category = crossed_category_table(delta, pairs=ALL_PAIRS, resampling=BOOT)
    assert "(mean of groups)" not in category["group"].to_list()
    assert category.filter(pl.col("n") < 6)["p"].null_count() == category.filter(pl.col("n") < 6).height


def test_table11_by_model_equals_pooled_function_on_each_model(two_models) -> None:
    delta, _ = two_models
    by_model = variation_table_by_model(delta, resampling=BOOT)
    keys = ["variation_value", "dimension", "group"]
    for model in ("sim-a", "sim-b"):
        alone = demographic_variation_table(delta.filter(pl.col("model_id") == model), resampling=BOOT)
        mine = by_model.filter(pl.col("model_id") == model).sort(keys)
        for col in ("estimate", "ci_low", "ci_high", "statistic", "p", "n", "n_obs"):
            assert np.allclose(mine[col].to_numpy(), alone.sort(keys)[col].to_numpy(), atol=1e-12), col
    # two cells from the Δ rows: numpy face means, scipy's WSRT; BH over every model's cells
    for model, value, group, dim in [
        ("sim-b", "Freckles", "female", "gender"),
        ("sim-a", "Cap", "obese", "body_type"),
    ]:
        rows = delta.filter(
            (pl.col("model_id") == model) & (pl.col("variation_value") == value) & (pl.col(dim) == group)
        )
        means = _face_means(rows)
        row = by_model.filter(
            (pl.col("model_id") == model) & (pl.col("variation_value") == value) & (pl.col("group") == group)
        ).row(0, named=True)
        assert row["estimate"] == pytest.approx(means.mean(), abs=1e-12)
        assert row["p"] == pytest.approx(st.wilcoxon(means).pvalue, rel=1e-9)
    assert np.allclose(by_model["p_adj"], st.false_discovery_control(by_model["p"].to_numpy()), atol=1e-12)


def test_table3_by_model_cells_by_numpy(two_models) -> None:
    delta, _ = two_models
    table = category_table_by_model(delta, resampling=BOOT)
    assert set(table["model_id"]) == {"sim-a", "sim-b"}
    rows = delta.filter(
        (pl.col("model_id") == "sim-b")
        & (pl.col("variation_category") == "Accessories")
        & (pl.col("age") == "elderly")
    )
    cell = table.filter(
        (pl.col("model_id") == "sim-b")
        & (pl.col("variation_category") == "Accessories")
        & (pl.col("group") == "elderly")
    ).row(0, named=True)
    assert cell["estimate"] == pytest.approx(_face_means(rows).mean(), abs=1e-12)
    assert cell["p"] == pytest.approx(st.wilcoxon(_face_means(rows)).pvalue, rel=1e-9)
    groups = table.filter(
        (pl.col("model_id") == "sim-b")
        & (pl.col("variation_category") == "Accessories")
        & (pl.col("dimension") == "age")
    )
    mean_row = groups.filter(pl.col("group") == "(mean of groups)")["estimate"].item()
    assert mean_row == pytest.approx(groups.filter(pl.col("group") != "(mean of groups)")["estimate"].mean())


def test_crossed_variation_strength_by_numpy(two_models) -> None:
    _, base = two_models
    table = crossed_variation_strength(base, resampling=BOOT)
    crossed = add_crossed_dimensions(base)
    for model in ("sim-a", "sim-b"):
        plugin, corrected = [], []
        for _, part in crossed.filter(pl.col("model_id") == model).group_by("scenario_id"):
            samples = [g["phi"].to_numpy() for _, g in part.group_by("age_x_gender")]
            means = np.array([x.mean() for x in samples])
            k = means.size  # bias of the population variance of noisy means: (k-1)/k * mean(s_g^2/n_g)
            noise = (k - 1) / k * np.mean([x.var(ddof=1) / x.size for x in samples])
            plugin.append(means.std())
            corrected.append(np.sqrt(max(0.0, means.var() - noise)))
        row = table.filter(pl.col("model_id") == model).row(0, named=True)
        assert row["plugin_estimate"] == pytest.approx(np.mean(plugin), abs=1e-12)
        assert row["estimate"] == pytest.approx(np.mean(corrected), abs=1e-12)
        assert row["n_groups"] == 6 and row["n"] == len(SCENARIOS)
    sizes = crossed.group_by("age_x_gender").agg(pl.col("face_id").n_unique())["face_id"]
    assert (table["n_faces_min"] == sizes.min()).all()


def test_crossed_demographic_tests_of_a_constant_scenario_are_untested_and_say_why(two_models) -> None:
    """A scenario where every base face has the same φ (a judge that always answers one way): H is
    0/0, so no test, no place in the BH family, and the reason is not 'fewer than two groups'."""
    _, base = two_models
    constant = (pl.col("model_id") == "sim-a") & (pl.col("scenario_id") == "obedient")
    base = base.with_columns(phi=pl.when(constant).then(pl.lit(0.75)).otherwise(pl.col("phi")))
    tests = crossed_demographic_tests(base, resampling=BOOT)
    row = tests.filter(constant).row(0, named=True)
    assert row["test"] == "kruskal-wallis" and row["df"] >= 1
    assert row["p"] is None and row["p_adj"] is None and row["statistic"] is None
    assert row["untested_reason"] == "every face has the same φ"
    others = tests.filter(~constant)
    assert others["p"].is_not_null().all() and others["untested_reason"].is_null().all()
    # Table 9 itself: the scenario is not tested, so not counted, let alone as significant
    table9 = significance_share(demographic_tests(base, resampling=BOOT))
    age = table9.filter((pl.col("model_id") == "sim-a") & (pl.col("dimension") == "age")).row(0, named=True)
    assert age["n"] == len(SCENARIOS) - 1


def test_crossed_demographic_tests_by_scipy_and_small_groups(two_models) -> None:
    _, base = two_models
    tests = crossed_demographic_tests(base, resampling=BOOT)
    crossed = add_crossed_dimensions(base)
    rows = crossed.filter((pl.col("model_id") == "sim-a") & (pl.col("scenario_id") == "obedient"))
    samples = [part["phi"].to_numpy() for _, part in rows.group_by("age_x_gender")]
    row = tests.filter((pl.col("model_id") == "sim-a") & (pl.col("scenario_id") == "obedient")).row(
        0, named=True
    )
    assert row["test"] == "kruskal-wallis" and row["untested_reason"] is None
    assert row["statistic"] == pytest.approx(st.kruskal(*samples).statistic, rel=1e-9)
    assert row["p"] == pytest.approx(st.kruskal(*samples).pvalue, rel=1e-9)
    # every crossed pair, BH within model over all of them; where a crossed group has < 5 faces the
    # chi-square approximation of H is replaced by the label-permutation test (exact at any size)
    every = crossed_demographic_tests(base, pairs=ALL_PAIRS, resampling=BOOT)
    small = every.filter(pl.col("n_group_min") < 5)
    assert small.height > 0 and (small["test"] == "label-permutation").all()
    assert (every.filter(pl.col("n_group_min") >= 5)["test"] == "kruskal-wallis").all()
    assert every["p"].is_not_null().all() and every["untested_reason"].is_null().all()
    row = small.filter(pl.col("model_id") == "sim-b").row(0, named=True)
    cell = add_crossed_dimensions(base, ALL_PAIRS).filter(
        (pl.col("model_id") == "sim-b") & (pl.col("scenario_id") == row["scenario_id"])
    )
    samples = [part["phi"].to_numpy() for _, part in cell.group_by(row["dimension"])]

    def between(*groups: np.ndarray) -> float:  # sum_g n_g (mean_g - grand mean)^2
        grand = np.concatenate(groups).mean()
        return float(sum(g.size * (g.mean() - grand) ** 2 for g in groups))

    assert row["statistic"] == pytest.approx(between(*samples), rel=1e-9)
    reference = st.permutation_test(samples, between, n_resamples=3000, alternative="greater", rng=0)
    assert abs(row["p"] - reference.pvalue) < 0.1  # Monte Carlo error of 300 and 3000 resamples
    for model in ("sim-a", "sim-b"):
        mine = every.filter((pl.col("model_id") == model) & pl.col("p").is_not_null())
        expected = st.false_discovery_control(mine["p"].to_numpy())
        assert np.allclose(mine["p_adj"], expected, atol=1e-12)
    share = crossed_significance_share(every)
    tested = every.filter(pl.col("p_adj").is_not_null())
    assert (
        share.filter(pl.col("model_id") == "sim-a")["n"].sum()
        == tested.filter(pl.col("model_id") == "sim-a").height
    )


def test_missing_dimension_and_unfoldable_model_id_are_one_clear_error(two_models) -> None:
    delta, _ = two_models
    with pytest.raises(CueshiftError, match="no column 'age'"):
        add_crossed_dimensions(delta.drop("age"))
    with pytest.raises(CueshiftError, match="model_id"):
        variation_table_by_model(delta.with_columns(model_id=pl.lit("a\x1fb")), resampling=BOOT)


def test_planted_cell_also_found_in_crossed_table3(one_model) -> None:
    delta, _ = one_model
    target = (pl.col("age") == "elderly") & (pl.col("gender") == "female")
    planted = delta.with_columns(
        delta=pl.when(target & (pl.col("variation_category") == "Skin irregularities"))
        .then(pl.col("delta") + 0.1)
        .otherwise(pl.col("delta"))
    )
    table = crossed_category_table(planted, resampling=BOOT).filter(
        pl.col("variation_category") == "Skin irregularities"
    )
    found = table.filter(pl.col("p_adj") < 0.05)["group"].to_list()
    assert found == ["elderly × female"]
    assert table.filter(pl.col("group") == "elderly × female")["estimate"].item() == pytest.approx(
        0.1, abs=0.04
    )


def test_suite_writes_the_tables_with_the_larger_family_and_the_report_shows_them(tmp_path) -> None:
    from cueshift import store
    from cueshift.designs.stylisticbias.analyses import run_analyses
    from cueshift.designs.stylisticbias.report.subgroups import SUBGROUPS_TABLES
    from cueshift.stats import Resampling
    from tests.render.study_db import build_study_db

    names = ["table3_by_model", "table11_by_model", "table2_crossed", "demographic_tests_crossed"]
    names += [
        "table9_crossed",
        "table3_crossed",
        "table11_crossed",
        "table2_vs",
        "demographic_tests",
        "table9",
    ]
    con = store.open_study(
        build_study_db(tmp_path / "s.duckdb", n_faces=30, scenarios_per_category=1, n_seeds=1)
    )
    try:
        results = run_analyses(con, Resampling(resamples=100, seed=1), only=names, progress=False)
        family = dict(con.sql("SELECT name, family FROM result_manifest").fetchall())
        assert "every model" in family["table11_by_model"] and "every crossed" in family["table11_crossed"]
        assert set(results["table2_crossed"]["dimension"]) == {f"{a}_x_{b}" for a, b in ALL_PAIRS}
        assert set(results["table11_crossed"]["dimension"]) == {"age_x_gender"}
        for spec in SUBGROUPS_TABLES:
            assert spec.build(spec.fetch(con, {"models": ["sim-a", "sim-b"]})).rows, spec.key
    finally:
        con.close()

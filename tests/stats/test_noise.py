"""The noise floor: placebo |SBS| distribution, placebo SBS, attributes read against the floor.

References: numpy (cell means, quantiles) and scipy.stats.wilcoxon on per-face values computed
here by hand; planted effects and planted serving noise from a binomial simulated judge.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from cueshift.designs.stylisticbias.stats import ALL_PLACEBOS, attributes_vs_floor, cell_abs_sbs, noise_floor
from cueshift.stats import POOLED, Resampling
from tests.scalars import real

PLACEBOS = ("Identical copy", "Lossless re-encode")
FAST = Resampling(resamples=400, seed=1, ci_method="percentile")


def simulate(
    *,
    reps: int = 1,
    faces: int = 60,
    scenarios: int = 8,
    effects: dict[str, float] | None = None,
    jitter: float = 0.0,
    prompts: int = 12,
    seed: int = 0,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Δ rows (attributes, placebos) of ``reps`` independent judges, one ``model_id`` each.

    φ is a share of ``prompts`` binomial answers with logit scenario + face + effect, plus, with
    ``jitter``, N(0, jitter²) per image × scenario (serving noise); placebos have effect 0.
    """
    rng = np.random.default_rng(seed)
    effects = {"Null": 0.0, "Strong": 0.8} if effects is None else effects
    values = [("placebo", v, 0.0) for v in PLACEBOS] + [("Attr", v, e) for v, e in effects.items()]
    face_ids = np.repeat([f"f{i:03d}" for i in range(faces)], scenarios)
    scenario_ids = np.tile([f"s{j:02d}" for j in range(scenarios)], faces)
    frames = []
    for r in range(reps):
        logit = rng.normal(0, 1, scenarios)[None, :] + rng.normal(0, 1, faces)[:, None]

        def phi(effect: float, logit: np.ndarray = logit) -> np.ndarray:
            noisy = logit + effect + (rng.normal(0, jitter, logit.shape) if jitter else 0.0)
            return rng.binomial(prompts, 1 / (1 + np.exp(-noisy))) / prompts

        base = phi(0.0)
        for category, value, effect in values:
            frames.append(
                pl.DataFrame(
                    {
                        "model_id": f"m{r:03d}",
                        "face_id": face_ids,
                        "scenario_id": scenario_ids,
                        "variation_category": category,
                        "variation_value": value,
                        "delta": (phi(effect) - base).ravel(),
                    }
                )
            )
    rows = pl.concat(frames)
    return rows.filter(pl.col("variation_category") != "placebo"), rows.filter(
        pl.col("variation_category") == "placebo"
    )


def test_cell_abs_sbs_and_the_floor_against_numpy():
    _, placebo = simulate(faces=60, scenarios=5, seed=4)  # > 50 faces: the normal approximation
    cube = placebo.sort("variation_value", "face_id", "scenario_id")["delta"].to_numpy().reshape(2, 60, 5)
    expected = np.abs(cube.mean(axis=1))  # placebo x scenario: |mean over faces|
    cells = cell_abs_sbs(placebo).sort("variation_value", "scenario_id")
    np.testing.assert_allclose(cells["abs_sbs"].to_numpy(), expected.ravel(), rtol=0, atol=1e-15)
    floor = noise_floor(placebo, quantile=0.9, resampling=FAST)
    row = floor.filter((pl.col("model_id") == "m000") & (pl.col("variation_value") == ALL_PLACEBOS)).row(
        0, named=True
    )
    assert row["n_cells"] == 10 and row["n"] == 60 and row["n_obs"] == 600
    assert row["abs_sbs_mean"] == pytest.approx(expected.mean(), abs=1e-15)
    assert row["abs_sbs_quantile"] == pytest.approx(np.quantile(expected, 0.9), abs=1e-15)
    assert row["abs_sbs_max"] == pytest.approx(expected.max(), abs=1e-15)
    # the face's mean over both placebos and every scenario: a multiple of 1/120 (Δ on a 1/12 grid),
    # rounded onto it so that ties are ties whatever the summation order
    per_face = np.round(cube.mean(axis=(0, 2)) * 120) / 120
    assert row["estimate"] == pytest.approx(per_face.mean(), abs=1e-12)
    reference = sps.wilcoxon(per_face, method="approx")
    assert row["p"] == pytest.approx(reference.pvalue, rel=1e-9)
    one = floor.filter((pl.col("model_id") == "m000") & (pl.col("variation_value") == PLACEBOS[0]))
    assert one["estimate"][0] == pytest.approx(cube[0].mean(), abs=1e-12)


def test_the_face_level_test_against_scipy():
    attr, placebo = simulate(faces=70, scenarios=6, effects={"Mild": 0.3}, seed=5)
    out = (
        attributes_vs_floor(attr, placebo, resampling=FAST)
        .filter(pl.col("model_id") == "m000")
        .row(0, named=True)
    )
    a = attr.sort("face_id", "scenario_id")["delta"].abs().to_numpy().reshape(70, 6).mean(axis=1)
    p = placebo.sort("face_id")["delta"].abs().to_numpy().reshape(70, -1)  # both placebos, every scenario
    d = np.round((a - p.mean(axis=1)) * 1440) / 1440  # on its exact grid (ties stay ties)
    assert out["estimate"] == pytest.approx(d.mean(), abs=1e-12)
    assert out["p"] == pytest.approx(sps.wilcoxon(d, alternative="greater", method="approx").pvalue, rel=1e-9)
    cells = np.abs(attr.sort("scenario_id", "face_id")["delta"].to_numpy().reshape(6, 70).mean(axis=1))
    assert out["abs_sbs"] == pytest.approx(cells.mean(), abs=1e-15)
    floor = cell_abs_sbs(placebo)["abs_sbs"].to_numpy()
    assert out["floor_mean"] == pytest.approx(floor.mean(), abs=1e-15)
    assert out["share_cells_above"] == pytest.approx((cells > np.quantile(floor, 0.95)).mean())
    assert out["ratio"] == pytest.approx(cells.mean() / floor.mean())


@pytest.mark.parametrize("ci_method", ["percentile", "bca"])
def test_placebo_sbs_intervals_cover_zero_at_the_nominal_rate(ci_method):
    _, placebo = simulate(reps=200, seed=11)
    rows = noise_floor(placebo, resampling=replace(FAST, ci_method=ci_method)).filter(
        (pl.col("variation_value") == ALL_PLACEBOS) & (pl.col("model_id") != POOLED)
    )
    assert rows.height == 200
    covered = real(((rows["ci_low"] <= 0) & (rows["ci_high"] >= 0)).mean())
    assert 0.90 <= covered <= 0.99  # 95 % +- 3 Monte Carlo SE (60 faces)
    assert real((rows["p"] < 0.05).mean()) <= 0.09  # the WSRT keeps its level


def test_serving_noise_raises_the_floor_and_keeps_the_placebo_sbs_at_zero():
    def pooled(jitter: float) -> dict[str, float]:
        _, placebo = simulate(reps=20, jitter=jitter, seed=2)
        floor = noise_floor(placebo, resampling=FAST)
        return floor.filter((pl.col("model_id") == POOLED) & (pl.col("variation_value") == ALL_PLACEBOS)).row(
            0, named=True
        )

    quiet, noisy = pooled(0.0), pooled(1.0)
    assert noisy["abs_sbs_mean"] > 1.15 * quiet["abs_sbs_mean"]
    assert noisy["abs_sbs_quantile"] > quiet["abs_sbs_quantile"]
    for row in (quiet, noisy):
        assert row["ci_low"] <= 0.0 <= row["ci_high"]


def test_planted_attributes_pass_the_floor_and_null_ones_rarely_do():
    attr, placebo = simulate(reps=100, effects={"Null": 0.0, "Strong": 0.8}, jitter=0.5, seed=9)
    out = attributes_vs_floor(attr, placebo, resampling=FAST).filter(pl.col("model_id") != POOLED)
    strong = out.filter(pl.col("variation_value") == "Strong")
    null = out.filter(pl.col("variation_value") == "Null")
    assert strong["above_floor"].all() and (strong["ratio"] > 3).all()
    assert real(strong["passes"].mean()) >= 0.9  # the face-level |Δ| test: power ~0.97 here
    assert real((null["p"] < 0.05).mean()) <= 0.12  # level 0.05 (+- 3 SE at 100 judges)
    assert not null["above_floor"].any()
    assert 0.7 < real(null["ratio"].mean()) < 1.3  # a null attribute sits on the floor


def test_the_face_level_floor_test_keeps_its_level_at_the_design_shape():
    # d_fv averages 25 |Δ| of the value against 50 of the placebos: under the null their means
    # agree but d_fv need not be symmetric about 0, and the WSRT tests its pseudo-median. Planted
    # null values at the design's shape (25 scenarios, both placebos, 12 answers per image ×
    # scenario, the demo's 90 faces), one per judge, 600 judges: the one-sided rejection rate
    # stays at alpha (measured 5.3 % over 5,600 judges, this seed 6.2 %; 0.05 + 3 SE = 0.077)
    attr, placebo = simulate(reps=600, faces=90, scenarios=25, effects={"Null": 0.0}, seed=21)
    out = attributes_vs_floor(attr, placebo, resampling=replace(FAST, resamples=100))
    null = out.filter(pl.col("model_id") != POOLED)
    assert null.height == 600
    assert 0.025 <= real((null["p"] < 0.05).mean()) <= 0.077


def test_a_study_plans_judges_analyses_and_shows_its_noise_floor(tmp_path):
    import io

    from rich.console import Console

    from cueshift import store
    from cueshift.designs import load_study
    from cueshift.designs.stylisticbias.analyses import run_analyses
    from cueshift.designs.stylisticbias.console import print_headlines
    from cueshift.designs.stylisticbias.report import CATALOG
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.runner import run_study
    from cueshift.render import Report
    from cueshift.stats import Resampling

    path = tmp_path / "s.toml"
    path.write_text(
        f'name = "s"\nseeds = [1]\ndatabase = "{(tmp_path / "s.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "demo"\nsize = 6\ncache_dir = "{(tmp_path / "demo").as_posix()}"\n'
        '[scenarios]\nonly = ["competent", "wealthy"]\n'
        '[[models]]\nmodel_id = "sim"\nbackend = "simulated"\n[models.settings]\nseed = 3\n'
    )
    database = run_study(load_study(path), RunOptions(progress=False)).database
    con = store.open_study(database)
    try:
        placebo_judgments = con.execute(
            "SELECT count(*) FROM judgment j JOIN image i USING (image_id) WHERE i.feature_key = 'placebo'"
        ).fetchall()[0]
        assert placebo_judgments == (6 * 2 * 2 * 4,)  # faces x placebos x scenarios x orderings
        results = run_analyses(
            con,
            Resampling(resamples=200),
            progress=False,
            only=["sbs", "table5", "noise_floor", "noise_floor_attributes"],
        )
        floor = results["noise_floor"]
        assert set(floor["variation_value"]) == {*PLACEBOS, ALL_PLACEBOS} and set(floor["n"]) == {6}
        buffer = io.StringIO()
        print_headlines(con, Console(file=buffer, width=200))
        text = buffer.getvalue()
        assert "Noise floor" in text and "× floor" in text and "placebo SBS" in text
    finally:
        con.close()
    with Report.open(database, None, CATALOG) as report:
        assert report.query("SELECT * FROM result_noise_floor_attributes WHERE model_id = 'sim'").height > 20
        kinds = [type(o).__name__ for o in report.outputs("noise_floor")]
        assert kinds == ["MarkdownOutput", "TableOutput", "TableOutput", "FigureOutput"]
        assert "placebo SBS" in report.text("noise_floor_summary").text


def test_results_do_not_depend_on_the_order_of_the_rows():
    attr, placebo = simulate(reps=2, faces=30, scenarios=4, effects={"Mild": 0.3, "Null": 0.0}, seed=8)
    first = attributes_vs_floor(attr, placebo, resampling=FAST)
    again = attributes_vs_floor(
        attr.sample(fraction=1.0, shuffle=True, seed=1), placebo.reverse(), resampling=FAST
    )
    assert first.equals(again)
    shuffled = placebo.sample(fraction=1.0, shuffle=True, seed=2)
    assert noise_floor(placebo, resampling=FAST).equals(noise_floor(shuffled, resampling=FAST))

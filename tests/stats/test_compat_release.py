"""Replication mode (``cueshift analyze --compat release``): the seed release's choices, each checked
against an independent computation, written beside unchanged default tables with every differing
cell named."""

from __future__ import annotations

import io
import math

import numpy as np
import polars as pl
import pytest
from rich.console import Console
from statsmodels.stats.multitest import multipletests

from cueshift import store
from cueshift.designs.protocol import AnalysisRequest
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.compat import TABLE_CELLS, table3_release_bh, untestable_as_one
from cueshift.designs.stylisticbias.compat_phi import release_phi
from cueshift.designs.stylisticbias.console import print_compat
from cueshift.designs.stylisticbias.design import StylisticBiasDesign
from cueshift.errors import ConfigError
from cueshift.stats import Resampling, RunChoices
from cueshift.views import read_base_phi
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

RELEASE_TABLES = [f"release_{name}" for name in TABLE_CELLS] + ["compat_differences"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One study with 15% invalid answers, analysed in default mode and then in release mode."""
    con = store.open_study(tmp_path_factory.mktemp("compat") / "study.duckdb")
    write_study(
        con, simulate_study(SimulationSpec(n_faces=24, models=("m-a", "m-b"), seed=4, invalid_rate=0.15))
    )
    default = run_analyses(con, Resampling(resamples=100, seed=2), progress=False)
    default_manifest = con.sql("SELECT DISTINCT compat FROM result_manifest").fetchall()
    release = run_analyses(
        con,
        Resampling(resamples=100, seed=2),
        RunChoices(compat="release"),
        progress=False,
    )
    yield con, default, default_manifest, release
    con.close()


def test_default_mode_is_unchanged_and_release_mode_adds_its_tables(runs):
    con, default, default_manifest, release = runs
    assert default_manifest == [("default",)] and not set(RELEASE_TABLES) & set(default)
    for name, frame in default.items():
        assert release[name].equals(frame), name  # the default tables are the same in release mode
    assert set(RELEASE_TABLES) <= set(release)
    modes = con.sql("SELECT DISTINCT compat FROM result_manifest").fetchall()
    assert modes == [("release",)]
    for name in RELEASE_TABLES:
        assert con.sql(f"SELECT count(*) FROM result_{name}").fetchall()[0][0] == release[name].height


def test_release_phi_counts_invalid_answers_in_the_denominator(runs):
    con = runs[0]
    answers = con.sql(
        "SELECT j.model_id, i.face_id, j.scenario_id, j.outcome FROM judgment j "
        "JOIN image i USING (image_id) WHERE i.role = 'base'"
    ).pl()
    expected = answers.group_by("model_id", "face_id", "scenario_id").agg(
        ((pl.col("outcome") == "favorable").sum() / pl.len()).alias("expected")
    )
    with release_phi(con):
        base = read_base_phi(con)
    joined = base.join(expected, on=["model_id", "face_id", "scenario_id"])
    assert joined.height == expected.height and (answers["outcome"] == "invalid").any()
    np.testing.assert_allclose(joined["phi"].to_numpy(), joined["expected"].to_numpy(), rtol=0, atol=1e-15)
    assert con.sql("SELECT count(*) FROM duckdb_tables() WHERE temporary").fetchall()[0][0] == 0


def test_release_vs_is_the_sample_std(runs):
    release, differences = runs[3]["release_table2_vs"], runs[3]["compat_differences"]
    assert (release["ddof"] == 1).all()
    assert differences.filter(pl.col("table") == "table2_vs")["choice"].str.contains("vs_ddof").all()
    default = runs[1]["table2_vs"].join(release, on=["model_id", "dimension"], suffix="_release")
    assert (default["plugin_estimate_release"] != default["plugin_estimate"]).all()


def test_sample_std_scales_the_plugin_vs_by_sqrt_k_over_k_minus_1(runs):
    """With every scenario's groups present, VS(ddof 1) = VS(ddof 0) · √(k/(k−1)) exactly."""
    from cueshift.designs.stylisticbias.stats import variation_strength

    con = runs[0]
    with release_phi(con):
        base = read_base_phi(con)
    zero = variation_strength(base, resampling=Resampling(resamples=0))
    one = variation_strength(base, ddof=1, resampling=Resampling(resamples=0))
    both = zero.join(one, on=["model_id", "dimension"], suffix="_1").filter(pl.col("n_groups") > 1)
    for row in both.iter_rows(named=True):
        k = row["n_groups"]
        assert row["plugin_estimate_1"] == pytest.approx(
            row["plugin_estimate"] * math.sqrt(k / (k - 1)), rel=1e-12
        )


def test_untestable_cells_enter_bh_as_p_one():
    frame = pl.DataFrame({"cell": list("abcde"), "p": [0.01, 0.02, None, 0.04, None], "p_adj": [0.0] * 5})
    out = untestable_as_one(frame, [])
    expected = multipletests([0.01, 0.02, 1.0, 0.04, 1.0], method="fdr_bh")[1]
    np.testing.assert_allclose(out["p_adj"].to_numpy(), expected, rtol=1e-12)
    assert out["p"].null_count() == 2 and out.columns == frame.columns


def test_table3_cells_are_corrected_all_at_once():
    dims = ["age", "gender"]
    p = [0.001, 0.03, 0.2, 0.04, 0.5, None]
    frame = pl.DataFrame(
        {
            "variation_category": ["c1", "c2", "c3"] * 2,
            "dimension": [d for d in dims for _ in range(3)],
            "group": ["(mean of groups)"] * 6,
            "p": p,
            "p_adj": [None] * 6,
        },
        schema_overrides={"p_adj": pl.Float64},
    )
    at_once = table3_release_bh(frame, untestable_p1=True, one_family=True)
    expected = multipletests([x if x is not None else 1.0 for x in p], method="fdr_bh")[1]
    np.testing.assert_allclose(at_once["p_adj"].to_numpy(), expected, rtol=1e-12)
    per_dimension = table3_release_bh(frame, untestable_p1=False, one_family=False)
    first = multipletests(p[:3], method="fdr_bh")[1]
    np.testing.assert_allclose(per_dimension["p_adj"].to_numpy()[:3], first, rtol=1e-12)
    assert per_dimension["p_adj"][5] is None


def test_every_differing_cell_is_listed_with_its_values_and_cause(runs):
    _, default, _, release = runs
    differences = release["compat_differences"]
    for name, (keys, columns) in TABLE_CELLS.items():
        ours, theirs = default[name], release[f"release_{name}"]
        key = pl.concat_str(
            [pl.lit(f"{k}=") + pl.col(k).cast(pl.String).fill_null("") for k in keys], separator="; "
        )
        listed = differences.filter(pl.col("table") == name)
        assert listed.height > 0, name
        both = ours.with_columns(key.alias("key")).join(
            theirs.with_columns(key.alias("key")), on="key", suffix="_r"
        )
        for column in columns:
            a, b = both[column].cast(pl.Float64), both[f"{column}_r"].cast(pl.Float64)
            differ = (a.is_null() != b.is_null()) | (
                (a - b).abs() > 1e-12 * np.maximum(1.0, a.abs())
            ).fill_null(False)
            assert set(both.filter(differ)["key"]) == set(listed.filter(pl.col("column") == column)["key"]), (
                name,
                column,
            )
        for row in listed.head(20).iter_rows(named=True):
            cell = both.filter(pl.col("key") == row["key"]).row(0, named=True)
            assert row["default_value"] == pytest.approx(cell[row["column"]], nan_ok=True)
            assert row["release_value"] == pytest.approx(cell[f"{row['column']}_r"], nan_ok=True)
    table5 = differences.filter(pl.col("table") == "table5")
    shares = table5.filter(~pl.col("column").is_in(["cohens_d", "estimate"]))
    assert set(shares["choice"]) == {"phi_denominator"}
    assert set(table5.filter(pl.col("column") == "estimate")["choice"]) <= {
        "phi_denominator+sbs_rows", "sbs_rows", "phi_denominator"
    }  # fmt: skip
    assert set(table5.filter(pl.col("column") == "cohens_d")["choice"]) <= {
        "phi_denominator+cohens_d_rows", "cohens_d_rows"
    }  # fmt: skip
    assert set(differences.filter(pl.col("table") == "table2_vs")["choice"]) <= {
        "phi_denominator+vs_ddof", "vs_ddof", "phi_denominator", "combined"
    }  # fmt: skip
    out = io.StringIO()
    print_compat(release, Console(file=out, width=200))
    assert (
        "compat release: ON" in out.getvalue()
        and "invalid answers counted in phi's denominator" in out.getvalue()
    )


def test_compat_option_is_checked():
    options = StylisticBiasDesign.options
    options.check("stylisticbias", AnalysisRequest(compat="release"))
    with pytest.raises(ConfigError, match="'default' or 'release'"):
        options.check("stylisticbias", AnalysisRequest(compat="paper"))
    from cueshift.designs.protocol import OptionSupport

    with pytest.raises(ConfigError, match="no release to reproduce"):
        OptionSupport(tests=("rank",), ci_methods=("bca",)).check("paired", AnalysisRequest(compat="release"))

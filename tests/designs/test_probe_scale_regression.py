"""Seed 004 Table 2's cluster columns (:func:`cueshift.designs.probe.stats.scale_regression`):
CR2 with Satterthwaite df by model against R's clubSandwich on probe-shaped tables (models ×
attributes, unequal counts, model-level scale predictors), and the nulls with a reason where CR2
is undefined."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm

from cueshift.designs.probe import stats as pst
from tests.stats.clubsandwich import clubsandwich_cr2

RELATIVE = 1e-8
PREDICTORS = ["reliability", "dataset_size", "samples_seen"]


def _probe_table(seed: int, registry: dict[str, tuple[float, float]], n_attributes: int = 34) -> pl.DataFrame:
    """One row per model × attribute (a few attributes missing per model), the model effect random."""
    rng = np.random.default_rng(seed)
    reliability = rng.uniform(0.2, 0.95, n_attributes)
    rows = []
    for model, (size, samples) in registry.items():
        kept = np.sort(rng.choice(n_attributes, n_attributes - int(rng.integers(0, 8)), replace=False))
        effect = rng.normal(scale=0.2)
        for a in kept:
            similarity = 0.6 * reliability[a] + effect + rng.normal(scale=0.1)
            rows.append((model, f"a{a:02d}", similarity, reliability[a], size, samples))
    names = ["model_id", "attribute", "similarity", "reliability", "dataset_size", "samples_seen"]
    return pl.DataFrame(rows, schema=names, orient="row")


def _for_r(data: pl.DataFrame) -> pl.DataFrame:
    """The regression's inputs as R reads them: scale divided by its maximum, models as clusters."""
    return data.select(
        y=pl.col("similarity"),
        cl=pl.col("model_id"),
        reliability=pl.col("reliability"),
        dataset_size=pl.col("dataset_size") / pl.col("dataset_size").max(),
        samples_seen=pl.col("samples_seen") / pl.col("samples_seen").max(),
    )


TABLES = {
    "four": _probe_table(
        1, {"m80": (80e6, 13e9), "m400": (407e6, 13e9), "m2a": (2.32e9, 34e9), "m2b": (2.32e9, 20e9)}
    ),
    "six": _probe_table(
        2,
        {
            f"m{i}": (s, t)
            for i, (s, t) in enumerate(
                zip([80e6, 80e6, 4e8, 4e8, 2e9, 5e9], [13e9, 20e9, 13e9, 34e9, 34e9, 40e9], strict=True)
            )
        },
    ),
    "eight": _probe_table(3, {f"m{i}": (1e8 * (i + 1) ** 2, 1e9 * (10 + 3 * (i % 3))) for i in range(8)}),
}


def test_cluster_columns_are_clubsandwich_cr2_satterthwaite(tmp_path: Path) -> None:
    reference = clubsandwich_cr2({name: _for_r(t) for name, t in TABLES.items()}, tmp_path, level=0.9)
    for name, table in TABLES.items():
        ours = pst.scale_regression(table, PREDICTORS, confidence=0.9)
        ref = reference[name]
        assert ours["term"].to_list() == ref["term"].to_list() and ours["cluster_reason"].null_count() == 4
        for column in ("se", "df", "p", "ci_low", "ci_high"):
            np.testing.assert_allclose(
                ours[f"cluster_{column}"].to_numpy(), ref[column].to_numpy(), rtol=RELATIVE, err_msg=name
            )
        assert ours["n_clusters"].to_list() == [table["model_id"].n_unique()] * 4
        x = sm.add_constant(_for_r(table).drop("y", "cl").to_numpy())
        ols = sm.OLS(table["similarity"].to_numpy(), x).fit()
        np.testing.assert_allclose(ours["se"].to_numpy(), ols.bse)  # the paper's OLS columns kept
        np.testing.assert_allclose(ours["p"].to_numpy(), ols.pvalues)


def test_a_model_singled_out_by_its_scale_nulls_the_terms_resting_on_it(tmp_path: Path) -> None:
    """The seed study's registry: only sim-2b-b saw 34B samples, so samples_seen (and with it the
    constant) rest on that one model: null with a reason; the other terms are clubSandwich's."""
    registry = {"sim-80m": (80e6, 13e9), "sim-400m": (407e6, 13e9), "sim-2b-a": (2.32e9, 13e9)}
    table = _probe_table(4, registry | {"sim-2b-b": (2.32e9, 34e9)})
    ref = clubsandwich_cr2({"seed": _for_r(table)}, tmp_path)["seed"]
    ours = pst.scale_regression(table, PREDICTORS)
    defined = ours["cluster_reason"].is_null().to_numpy()
    assert ours.filter(~pl.col("cluster_reason").is_null())["term"].to_list() == ["const", "samples_seen"]
    assert ours["cluster_reason"].drop_nulls().str.contains("sim-2b-b").all()
    assert ours.filter(~pl.col("cluster_reason").is_null())["cluster_se"].null_count() == 2
    for column in ("se", "df", "p"):
        np.testing.assert_allclose(
            ours[f"cluster_{column}"].to_numpy()[defined], ref[column].to_numpy()[defined], rtol=RELATIVE
        )


def test_cluster_columns_null_with_a_reason_without_two_models() -> None:
    table = TABLES["four"]
    alone = pst.scale_regression(table.drop("model_id"), PREDICTORS[:2])
    assert alone["cluster_se"].null_count() == 3 and alone["n_clusters"].null_count() == 3
    assert alone["cluster_reason"].to_list() == ["no model_id column"] * 3
    one = pst.scale_regression(table.filter(pl.col("model_id") == "m80"), ["reliability"])
    assert one["cluster_p"].null_count() == 2 and one["n_clusters"].to_list() == [1, 1]
    assert one["cluster_reason"].to_list() == ["fewer than two clusters"] * 2


@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_cluster_interval_is_centred_on_the_ols_estimate(confidence: float) -> None:
    ours = pst.scale_regression(TABLES["six"], PREDICTORS, confidence=confidence)
    centre = (ours["cluster_ci_low"] + ours["cluster_ci_high"]) / 2
    np.testing.assert_allclose(centre.to_numpy(), ours["estimate"].to_numpy())

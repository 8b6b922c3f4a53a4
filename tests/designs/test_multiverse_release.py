"""The release's path as one specification of ``cueshift multiverse``: its claims are the cells
``cueshift analyze --compat release`` stores (read back from the database), its SBS tests are the
release's (scipy's Wilcoxon on the release's face means, none below 3 faces, BH with the untested
cells as p = 1, re-done here), and a claim it reverses is reported as such."""

from __future__ import annotations

import math

import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.multiverse import MultiverseConfig
from cueshift.designs.stylisticbias.multiverse.run import run_multiverse
from cueshift.designs.stylisticbias.stats import MEAN_OF_GROUPS
from cueshift.schemas.multiverse import validate_multiverse
from cueshift.stats import Resampling, RunChoices
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study
from tests.stats.release_reference import bh_correct, face_means, release_deltas, wilcoxon_vs_zero

RESAMPLING = Resampling(resamples=100, seed=4)
#: The release read m-a's answers on these images as favourable where cueshift read them unfavourable.
REVERSED = "Acne"
VALUES = ("Freckles", "Acne", "Full beard", "Red lipstick", "Sunglasses")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """12 faces, five values, some invalid answers; m-a's Acne variations unfavourable to cueshift's
    parser but stored by the release's pipeline as the favourable letter; analysed with --compat
    release, and the multiverse (orderings all or 1) beside it."""
    con = store.open_study(tmp_path_factory.mktemp("multiverse_release") / "study.duckdb")
    spec = SimulationSpec(
        n_faces=12, models=("m-a", "m-b"), seed=7, invalid_rate=0.2, variation_values=VALUES
    )
    write_study(con, simulate_study(spec))
    # one face's Freckles unanswered by m-a: its faces weigh unequally in a mean over the Δ rows
    con.execute(
        "DELETE FROM judgment WHERE model_id = 'm-a' AND image_id = (SELECT min(image_id) FROM image "
        "WHERE variation_value = 'Freckles')"
    )
    acne = f"image_id IN (SELECT image_id FROM image WHERE variation_value = '{REVERSED}')"
    unfavorable = "CASE WHEN ordering IN (1, 2) THEN 'b' ELSE 'a' END"
    favorable = "CASE WHEN ordering IN (1, 2) THEN 'a' ELSE 'b' END"
    con.execute(
        f"UPDATE judgment SET outcome = 'unfavorable', chosen_letter = {unfavorable}, invalid_reason = NULL, "
        f"response_text = 'Answer: (' || {unfavorable} || ')' WHERE model_id = 'm-a' AND {acne}"
    )
    con.execute(
        "INSERT INTO release_judgment SELECT model_id, image_id, scenario_id, ordering, seed, "
        f"CASE WHEN {acne} THEN {favorable} ELSE coalesce(chosen_letter, 'unknown') END, "
        f"CASE WHEN {acne} THEN {favorable} ELSE chosen_letter END, 'file.json', NULL, run_id "
        "FROM judgment WHERE model_id = 'm-a'"
    )
    run_analyses(con, RESAMPLING, RunChoices(compat="release"), progress=False, workers=1)
    result = run_multiverse(
        con, MultiverseConfig(phi=["greedy"], orderings=["all", "1"]), resampling=RESAMPLING
    )
    yield con, result
    con.close()


def _release_rows(result, kind: str) -> pl.DataFrame:
    rows: pl.DataFrame = result.claims.filter(pl.col("path") == "release", kind=kind)
    return rows


def test_the_release_path_is_one_specification_with_its_own_choices(run):
    _, result = run
    specs = result.claims.select(
        "specification", "path", "parsing", "phi", "invalid", "generalise", "orderings"
    )
    release = specs.filter(path="release").unique()
    assert release.rows() == [(16, "release", "release", "greedy", "unfavorable", "faces", "all")]
    assert specs.filter(path="cueshift")["specification"].n_unique() == 16  # 2 x 2 x 2 x 2, not crossed
    validate_multiverse("multiverse", result.claims)
    validate_multiverse("multiverse_summary", result.summary)


def test_table3_claims_are_the_stored_release_table3(run):
    con, result = run
    stored = store.query(
        con,
        "SELECT variation_category || ' (mean of ' || dimension || ' groups)' AS subject, "
        "estimate, p, p_adj, n "
        f"FROM result_release_table3 WHERE \"group\" = '{MEAN_OF_GROUPS}' AND n > 0",
    )  # a cell without faces is listed there (p_adj 1), not claimed
    claims = _release_rows(result, "sbs_category").join(stored, on="subject", suffix="_stored")
    assert claims.height == stored.height == _release_rows(result, "sbs_category").height > 0
    for column in ("estimate", "p", "p_adj"):
        assert claims[column].to_list() == claims[f"{column}_stored"].to_list(), column
    # the release's family (all 40 category x dimension cells) differs from cueshift's (per dimension)
    cueshift = result.claims.filter(pl.col("is_reference"), kind="sbs_category").sort("subject")
    assert cueshift["p_adj"].to_list() != claims.sort("subject")["p_adj"].to_list()


def test_vs_and_model_sbs_are_the_stored_release_tables(run):
    con, result = run
    vs = store.query(
        con,
        "SELECT model_id, dimension, plugin_estimate AS estimate FROM result_release_table2_vs "
        "WHERE plugin_estimate IS NOT NULL",
    )
    top = (
        vs.sort("estimate", "dimension", descending=[True, False])
        .group_by("model_id", maintain_order=True)
        .first()
    )
    claims = _release_rows(result, "vs_top")
    assert dict(claims.select("model_id", "verdict").iter_rows()) == dict(
        top.select("model_id", "dimension").iter_rows()
    )
    reference = result.claims.filter(pl.col("is_reference"), kind="vs_top").select(
        "model_id", dimension="verdict"
    )
    expected = vs.join(reference, on=["model_id", "dimension"]).sort("model_id")
    got = claims.sort("model_id")
    assert got["estimate"].to_list() == expected["estimate"].to_list()  # the release's plug-in VS
    assert got["ci_low"].null_count() == got["ci_high"].null_count() == got.height  # the release has none
    table5 = store.query(
        con,
        "SELECT model_id, estimate, ci_low, ci_high FROM result_release_table5 WHERE model_id LIKE 'm-%'",
    )
    sbs = _release_rows(result, "sbs_model").join(table5, on="model_id", suffix="_table5")
    assert sbs.height == 2
    for column in ("estimate", "ci_low", "ci_high"):  # a float mean over the rows, in their order
        assert sbs[column].to_list() == pytest.approx(sbs[f"{column}_table5"].to_list(), rel=1e-12), column
    # the release's SBS is the mean of the Δ rows, not of the faces' means (they differ for m-a here)
    rows = release_deltas(con).filter(model_id="m-a")
    m_a = sbs.filter(model_id="m-a")["estimate"].item()
    assert m_a == pytest.approx(rows["delta"].mean(), rel=1e-12)
    assert abs(m_a - sum(face_means(rows)) / len(face_means(rows))) > 1e-6


def test_attribute_tests_are_the_release_wilcoxon_and_bh(run):
    con, result = run
    deltas = release_deltas(con)
    for model in ("m-a", "m-b"):
        rows = deltas.filter(model_id=model)
        values = sorted(rows["variation_value"].unique().to_list())
        # face means rounded: equal |means| summed in another order must tie (cueshift's exact sums
        # do; the release's float sums may not: the tie artefact compat does not reproduce)
        means = [[round(m, 12) for m in face_means(rows.filter(variation_value=v))] for v in values]
        raw = [wilcoxon_vs_zero(m) for m in means]
        adjusted = bh_correct([1.0 if math.isnan(p) else p for p in raw])
        claims = _release_rows(result, "sbs_attribute").filter(model_id=model)
        got = {s: (p, q) for s, p, q in claims.select("subject", "p", "p_adj").iter_rows()}
        assert sorted(got) == values
        for value, p, p_adj in zip(values, raw, adjusted, strict=True):
            assert got[value][0] == pytest.approx(p, rel=1e-9), (model, value)
            assert got[value][1] == pytest.approx(p_adj, rel=1e-9), (model, value)


def test_a_claim_the_release_path_reverses_is_reported(run):
    _, result = run
    summary = result.summary.filter(kind="sbs_attribute", model_id="m-a", subject=REVERSED).row(0, named=True)
    assert summary["reference_verdict"] == "-"
    assert summary["release_verdict"] == "+"
    assert summary["holds_release"] is False
    assert summary["n_holds"] == summary["n_specifications"] - 1  # every cueshift path agrees
    assert summary["moved_most"] == "path"
    row = _release_rows(result, "sbs_attribute").filter(model_id="m-a", subject=REVERSED).row(0, named=True)
    assert (row["verdict"], row["holds"]) == ("+", False)
    steady = result.summary.filter(kind="sbs_attribute", model_id="m-b", subject=REVERSED).row(0, named=True)
    assert steady["moved_most"] != "path" or steady["holds_shift"] == 0.0


def test_table_m1_names_the_claim_the_release_path_reverses(run):
    from cueshift.designs.stylisticbias.report.multiverse import MULTIVERSE_FRAGILE

    con, result = run
    store.replace_results(
        con,
        {
            "multiverse": validate_multiverse("multiverse", result.claims),
            "multiverse_summary": validate_multiverse("multiverse_summary", result.summary),
        },
    )
    rows = store.query(con, MULTIVERSE_FRAGILE.sql.replace("$models", "['m-a', 'm-b']"))
    row = rows.filter(pl.col("claim") == f"m-a: SBS of {REVERSED} < 0").row(0, named=True)
    assert (row["moved_most"], row["on_release"]) == ("path", "differs (+)")

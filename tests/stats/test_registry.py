"""Declared analyses end to end: every design's analyses are declared with a schema, a suite runs
on a stored study into validated tables with its ``result_manifest`` rows, a rerun replaces them,
and the console summary points at them."""

from __future__ import annotations

import io

import polars as pl
import pytest
from rich.console import Console

import cueshift.stats._deprecated_registry as _deprecated_registry
from cueshift import store
from cueshift.designs import designs, registry
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console import print_headlines
from cueshift.designs.stylisticbias.inputs import SUITE
from cueshift.errors import CueshiftError, SchemaViolation
from cueshift.schemas.results import RESULT_SCHEMAS, RESULT_SCHEMAS_BY_DESIGN
from cueshift.stats import ANALYSES, Declarations, Resampling, RunChoices, RunSettings, analysis, run_suite
from cueshift.stats._checked import validate_result
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study


@pytest.fixture(scope="module")
def study_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("stats") / "study.duckdb"
    con = store.open_study(path)
    write_study(con, simulate_study(SimulationSpec(n_faces=36, models=("m-a", "m-b"), seed=9)))
    yield con
    con.close()


def test_every_analysis_is_declared_with_a_schema():
    declared = registry.analyses()
    assert set(declared) == set(RESULT_SCHEMAS) - {"manifest"}
    assert [item.suite for item in declared.values()] == [  # designs in order, each's declarations in order
        name for name, design in designs().items() for _ in design.analyses()
    ]
    assert list(ANALYSES) == list(declared)  # the global view is derived from the designs
    for item in declared.values():
        assert item.table == f"result_{item.name}" and item.family and item.statistic and item.description
    for design, schemas in RESULT_SCHEMAS_BY_DESIGN.items():
        names = set(designs()[design].analyses().names)
        assert names == {name if design == SUITE else f"{design}_{name}" for name in schemas}


def test_an_analysis_cannot_be_declared_twice_and_only_names_the_suite():
    with pytest.raises(ValueError, match="registered twice"):
        Declarations(SUITE, designs()[SUITE].analyses(), designs()[SUITE].analyses())
    declared = Declarations("x")
    declared("a", description="", source="", grouping="", statistic="", family="")(lambda ctx: None)
    with pytest.raises(ValueError, match="registered twice"):
        declared("a", description="", source="", grouping="", statistic="", family="")(lambda ctx: None)
    with pytest.raises(CueshiftError, match="not declared for 'stylisticbias'"):
        run_suite(None, designs()[SUITE].analyses(), None, RunSettings(), only=["paired_halo"], write=False)  # type: ignore[arg-type]


def test_the_deprecated_import_time_registry_still_runs(tmp_path, monkeypatch):
    monkeypatch.setattr(_deprecated_registry, "ANALYSES", {})
    monkeypatch.setattr(_deprecated_registry, "_LEGACY_SUITES", {})
    import pandera.polars as pa

    class _X(pa.DataFrameModel):
        x: float

    monkeypatch.setitem(RESULT_SCHEMAS, "_test_old", _X)
    with pytest.warns(DeprecationWarning, match="cueshift.stats.analysis is deprecated"):
        analysis(
            "_test_old", suite="old", description="d", source="s", grouping="g", statistic="t", family="f"
        )(lambda ctx: ctx.inputs)
    assert list(_deprecated_registry.ANALYSES) == ["_test_old"]
    with pytest.raises(ValueError, match="registered twice"), pytest.warns(DeprecationWarning):
        analysis("_test_old", suite="old", description="", source="", grouping="", statistic="", family="")(
            lambda ctx: None
        )
    with pytest.warns(DeprecationWarning, match="run_suite"):
        out = run_suite(None, "old", pl.DataFrame({"x": [1.0]}), RunSettings(), write=False)  # type: ignore[arg-type]
    assert list(out) == ["_test_old"]


def test_a_suite_skips_analyses_that_do_not_apply_and_writes_their_manifest_rows(tmp_path):
    suite = Declarations("test-suite-skips")

    @suite("_test_applies", description="d", source="s", grouping="g", statistic="t", family="f")
    def _applies(ctx):
        return ctx.inputs

    @suite("_test_skipped", description="d", source="s", grouping="g", statistic="t", family="f")
    def _skipped(ctx):
        return None

    import pandera.polars as pa

    class _X(pa.DataFrameModel):
        x: float | None = pa.Field(nullable=True)

    frame = pl.DataFrame({"x": [1.0, float("nan")]})
    RESULT_SCHEMAS["_test_applies"] = _X
    try:
        con = store.open_study(tmp_path / "suite.duckdb")
        try:
            out = run_suite(con, suite, frame, RunSettings(n_resamples=0, seed=None, test="exact"))
            assert (
                set(out) == {"_test_applies"} and out["_test_applies"]["x"].null_count() == 1
            )  # NaN -> NULL
            manifest = con.sql("SELECT name, n_resamples, seed, test FROM result_manifest").fetchall()
            assert manifest == [("_test_applies", 0, None, "exact")]
            tables = {r[0] for r in con.sql("SHOW TABLES").fetchall()}
            assert "result__test_applies" in tables and "result__test_skipped" not in tables
        finally:
            con.close()
    finally:
        del RESULT_SCHEMAS["_test_applies"]


def test_a_full_run_drops_the_tables_an_earlier_run_wrote_and_it_did_not(tmp_path):
    """An option-gated table (e.g. --audit's) does not outlive its manifest row; a run of named
    analyses (``only``) leaves the other tables alone."""
    suite = Declarations("test-suite-stale")
    applies = {"gated": True}

    @suite("_test_kept", description="d", source="s", grouping="g", statistic="t", family="f")
    def _kept(ctx):
        return ctx.inputs

    @suite("_test_gated", description="d", source="s", grouping="g", statistic="t", family="f")
    def _gated(ctx):
        return ctx.inputs if applies["gated"] else None

    import pandera.polars as pa

    class _X(pa.DataFrameModel):
        x: float

    frame = pl.DataFrame({"x": [1.0]})
    RESULT_SCHEMAS["_test_kept"] = RESULT_SCHEMAS["_test_gated"] = _X
    settings = RunSettings(n_resamples=0, seed=None, test="exact")

    def tables(con) -> set[str]:
        return {r[0] for r in con.sql("SHOW TABLES").fetchall() if r[0].startswith("result__test")}

    try:
        con = store.open_study(tmp_path / "suite.duckdb")
        try:
            run_suite(con, suite, frame, settings, progress=False)
            assert tables(con) == {"result__test_kept", "result__test_gated"}
            applies["gated"] = False
            run_suite(con, suite, frame, settings, only=["_test_kept", "_test_gated"], progress=False)
            assert tables(con) == {"result__test_kept", "result__test_gated"}  # named: left alone
            run_suite(con, suite, frame, settings, progress=False)
            assert tables(con) == {"result__test_kept"}
            assert con.sql("SELECT name FROM result_manifest").fetchall() == [("_test_kept",)]
        finally:
            con.close()
    finally:
        del RESULT_SCHEMAS["_test_kept"], RESULT_SCHEMAS["_test_gated"]


def test_run_analyses_writes_all_tables_and_replaces_on_rerun(study_db):
    results = run_analyses(study_db, Resampling(resamples=300, seed=1), progress=False)
    tables = {
        r[0]
        for r in study_db.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'result_%'"
        ).fetchall()
    }
    no_placebos = {"noise_floor", "noise_floor_attributes"}  # skipped: the simulated study has no placebos
    no_placebos |= {"identity_drops"}  # skipped: the study has no [quality] encoder
    no_placebos |= {"equivalence"}  # skipped: no [equivalence] margins given
    no_placebos |= {"audit_sensitivity"}  # written only with --audit
    no_placebos |= {  # written only with --compat release
        n for n in RESULT_SCHEMAS_BY_DESIGN["stylisticbias"] if n.startswith(("release_", "compat_"))
    }
    expected = [*RESULT_SCHEMAS_BY_DESIGN["stylisticbias"], "manifest"]
    assert tables == {f"result_{name}" for name in expected if name not in no_placebos}
    for name, frame in results.items():
        stored = study_db.sql(f"SELECT count(*) FROM result_{name}").fetchall()[0][0]
        assert stored == frame.height > 0, name
    again = run_analyses(study_db, Resampling(resamples=300, seed=1), progress=False, only=["table5", "sbs"])
    assert study_db.sql("SELECT count(*) FROM result_sbs").fetchall()[0][0] == again["sbs"].height
    assert again["table5"].equals(results["table5"])  # same seed, same numbers
    manifest = study_db.sql("SELECT name, n_resamples, seed FROM result_manifest").fetchall()
    # the rerun's rows, and the first run's rows of the tables it did not rewrite (D68)
    assert sorted(manifest) == sorted((name, 300, 1) for name in results)


def test_models_filter_and_permutation_variant(study_db):
    out = run_analyses(
        study_db,
        Resampling(resamples=200, test="permutation", ci_method="percentile"),
        RunChoices(models=("m-a",)),
        progress=False,
        only=["sbs", "table9", "table11"],
        write=False,
    )
    assert set(out["sbs"]["model_id"].unique()) == {"m-a", "(pooled)"}
    assert set(out["sbs"]["test"].unique()) == {"sign-flip"}
    assert set(out["table9"]["test"].unique()) == {"label-permutation"}


def test_schema_rejects_bad_results():
    bad = pl.DataFrame(
        {
            "model_id": ["m"],
            "dimension": ["age"],
            "estimate": [0.7],
            "n_significant": [1],
            "n": [1],
            "test": ["x"],
            "alpha": [0.05],
        }
    ).with_columns(pl.col("n", "n_significant").cast(pl.Int64))
    with pytest.raises(SchemaViolation):
        validate_result("table9", bad.with_columns(estimate=pl.lit(1.5)))  # a share above 1
    validate_result("table9", bad)


def test_print_headlines_reports_stars_cis_and_location(study_db):
    run_analyses(study_db, Resampling(resamples=300), progress=False)
    buffer = io.StringIO()
    print_headlines(study_db, Console(file=buffer, width=160))
    text = buffer.getvalue()
    assert "Table 5" in text and "Table 2" in text and "Table 10" in text
    assert "***" in text and "[" in text and "result_manifest" in text and "study.duckdb" in text


def test_degenerate_study_gives_empty_but_valid_tables(tmp_path):
    # one model (no model pairs) and one scenario category (no mixed model to fit)
    con = store.open_study(tmp_path / "tiny.duckdb")
    spec = SimulationSpec(n_faces=12, models=("solo",), scenario_ids=("competent", "likeable"), seed=2)
    write_study(con, simulate_study(spec))
    out = run_analyses(con, Resampling(resamples=100), progress=False)
    assert out["cross_model"].height == 0 and out["mixed_model"].height == 0
    assert con.sql("SELECT count(*) FROM result_mixed_model").fetchall()[0][0] == 0
    assert out["table5"].height == 2  # the model and the mean-of-models row

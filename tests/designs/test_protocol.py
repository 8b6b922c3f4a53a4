"""The Design protocol and registry: every design works through the same CLI path, writes its
``result_manifest`` rows, refuses the analyze options it cannot honour, and a new design folder
is picked up with no change elsewhere."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import polars as pl
import pytest

from cueshift import store
from cueshift.designs import AnalysisRequest, analyze_design, designs, parse_study
from cueshift.designs import registry as design_registry
from cueshift.errors import ConfigError
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.schemas.results import RESULT_SCHEMA_VERSION

STUDIES = Path(__file__).resolve().parents[2] / "studies"


def _pairwise(tmp_path: Path):  # a small pairwise study (2 cohorts, 2 x 3 portraits)
    data = tomllib.loads((STUDIES / "pairwise-002.toml").read_text())
    data |= {"database": str(tmp_path / "pairwise.duckdb"), "seeds": [0, 1]}
    data["pairwise"]["synthetic"] = {
        "races": ["East Asian", "White"],
        "genders": ["female"],
        "per_group": {"western": 2, "local": 3},
        "cache_dir": str(tmp_path / "img"),
    }
    data["pairwise"]["synthetic_humans"]["n_raters"] = 4
    data["models"] = data["models"][:1]
    return parse_study(data, "test")


def _probe(tmp_path: Path):  # a small probe study (12 faces, 4 attributes)
    data = tomllib.loads((STUDIES / "probe-004.toml").read_text())
    data |= {"database": str(tmp_path / "probe.duckdb"), "seeds": [0]}
    data["image_set"] = {"kind": "demo", "size": 12, "cache_dir": str(tmp_path / "demo")}
    data["scenarios"]["only"] = ["happy", "age", "asian", "alert"]
    data["probe"]["synthetic_humans"]["n_raters"] = 6
    data["models"] = data["models"][:2]
    return parse_study(data, "test")


def _manifest(db: Path) -> pl.DataFrame:
    con = store.open_study(db)
    try:
        return store.query(con, 'SELECT * FROM result_manifest ORDER BY "table"')
    finally:
        con.close()


def test_a_design_analysis_writes_one_manifest_row_per_result_table(tmp_path):
    study = _pairwise(tmp_path)
    run_study(study, RunOptions(progress=False))
    con = store.open_study(study.database_path)
    try:
        results = analyze_design(con, study, _quiet(tmp_path))
        tables = {r[0] for r in con.sql("SHOW TABLES").fetchall() if r[0].startswith("result_pairwise_")}
    finally:
        con.close()
    manifest = _manifest(study.database_path)
    assert set(manifest["table"]) == tables == {f"result_{name}" for name in results}
    assert manifest["n_rows"].to_list() == [results[n].height for n in manifest["name"]]
    assert set(manifest["test"]) == {"exact"} and set(manifest["ci_method"]) == {"analytic"}
    assert set(manifest["n_resamples"]) == {0} and manifest["seed"].null_count() == manifest.height
    assert set(manifest["schema_version"]) == {RESULT_SCHEMA_VERSION}


def test_probe_honours_seed_and_resamples_and_records_them(tmp_path):
    study = _probe(tmp_path)
    run_study(study, RunOptions(progress=False))
    con = store.open_study(study.database_path)
    try:
        default = analyze_design(con, study, _quiet(tmp_path))["probe_reliability"]
        assert set(_manifest(study.database_path)["seed"]) == {study.probe.split_seed}
        reseeded = analyze_design(
            con, study, _quiet(tmp_path), request=AnalysisRequest(seed=7, resamples=120)
        )["probe_reliability"]
    finally:
        con.close()
    manifest = _manifest(study.database_path)
    assert set(manifest["seed"]) == {7} and set(manifest["n_resamples"]) == {120}
    assert reseeded["n_splits"].to_list() == [120] * reseeded.height
    assert not reseeded["split_low"].equals(default["split_low"])  # other random splits


@pytest.mark.parametrize(
    ("design", "request_", "option"),
    [
        ("pairwise", AnalysisRequest(seed=3), "--seed"),
        ("pairwise", AnalysisRequest(resamples=500), "--resamples"),
        ("paired", AnalysisRequest(test="permutation"), "--test"),
        ("probe", AnalysisRequest(ci="bca"), "--ci"),
        ("probe", AnalysisRequest(top=5), "--top"),
        ("paired", AnalysisRequest(overview_only=True), "--overview-only"),
        ("stylisticbias", AnalysisRequest(test="exact"), "--test"),
    ],
)
def test_an_option_a_design_cannot_honour_is_refused(design, request_, option):
    with pytest.raises(ConfigError) as info:
        designs()[design].options.check(design, request_)
    assert str(info.value).startswith(option) and design in str(info.value)


def test_the_cli_refuses_an_option_in_one_line_before_touching_the_database(tmp_path):
    db = tmp_path / "never.duckdb"
    result = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "analyze", "--study", str(STUDIES / "pairwise-002.toml")]
        + ["--db", str(db), "--seed", "3", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--seed" in lines[0] and "pairwise" in lines[0]
    assert not db.exists()


FIFTH = '''
"""A toy fifth design: forced-choice judgments of the base faces, one analysis."""

from typing import Literal

import pandera.polars as pa
import polars as pl
from pydantic import Field

from cueshift import store
from cueshift.designs.forced_choice import judgment_workload
from cueshift.designs.protocol import OptionSupport
from cueshift.designs.viewer_support import ViewerSupport
from cueshift.images import load_image_set
from cueshift.stats import Declarations, RunSettings, run_suite
from cueshift.study.config import Study
from cueshift.study.sections import Section
from cueshift.study.variations import VariationFilter


class FifthConfig(Section):
    label: str = "fifth"


class FifthStudy(Study):
    design: Literal["fifth"] = "fifth"
    fifth: FifthConfig = Field(default_factory=FifthConfig)


class CountsSchema(pa.DataFrameModel):
    model_id: str
    n: pl.Int64
    label: str


DECLARED = Declarations("fifth")


@DECLARED("fifth_counts", description="judgments per model", source="judgment",
         grouping="model", statistic="count", family="none")
def _counts(ctx):
    return ctx.inputs


class FifthDesign:
    name = "fifth"
    study_model = FifthStudy
    options = OptionSupport(tests=("none",), ci_methods=("none",))
    result_schemas = {"fifth_counts": CountsSchema}
    viewer = ViewerSupport()

    def workload(self, study, *, progress):
        study = study.model_copy(update={"variations": VariationFilter(whitelist={}, rules=[])})
        return judgment_workload(study, load_image_set(study.image_set, study.variations, progress=False))

    def analyses(self):
        return DECLARED

    def analyze(self, con, study, request, *, console, progress, write):
        counts = store.query(con, "SELECT model_id, count(*) AS n FROM judgment GROUP BY ALL")
        return run_suite(con, self.analyses(), counts.with_columns(pl.lit(study.fifth.label).alias("label")),
                         RunSettings(test="none"), write=write)

    def report(self):
        raise NotImplementedError

    def planner(self):
        return None


DESIGN = FifthDesign()
'''


def test_a_new_design_folder_is_a_design_of_the_cli_path(tmp_path, monkeypatch):
    import cueshift.designs as package

    folder = tmp_path / "extra" / "fifth"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(textwrap.dedent(FIFTH))

    monkeypatch.setattr(package, "__path__", [*package.__path__, str(tmp_path / "extra")])
    design_registry.clear_caches()
    try:
        study = parse_study(
            {
                "name": "five",
                "design": "fifth",
                "database": str(tmp_path / "five.duckdb"),
                "seeds": [1],
                "image_set": {"kind": "demo", "size": 6, "cache_dir": str(tmp_path / "demo")},
                "scenarios": {"only": ["competent", "honest"]},
                "fifth": {"label": "five"},
                "models": [{"model_id": "sim"}],
            },
            "five.toml",
        )
        assert type(study).__name__ == "FifthStudy"
        with pytest.raises(ConfigError, match="field 'fifth.colour'"):
            parse_study(
                {"name": "x", "design": "fifth", "fifth": {"colour": 1}, "models": [{"model_id": "m"}]}, "x"
            )
        summary = run_study(study, RunOptions(progress=False))
        assert summary.n_written == 6 * 2 * 4  # base faces x scenarios x orderings (one seed)
        con = store.open_study(study.database_path)
        try:
            results = analyze_design(con, study)
        finally:
            con.close()
        assert results["fifth_counts"].to_dicts() == [{"model_id": "sim", "n": 48, "label": "five"}]
        assert _manifest(study.database_path)["name"].to_list() == ["fifth_counts"]
    finally:
        sys.modules.pop("cueshift.designs.fifth", None)
        monkeypatch.undo()
        design_registry.clear_caches()


def _quiet(tmp_path: Path):
    from rich.console import Console

    return Console(file=open(tmp_path / "console.txt", "a"))  # noqa: SIM115

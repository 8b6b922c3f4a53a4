"""A design outside the package, registered through the ``cueshift.designs`` entry-point group:
``cueshift plan``, ``infer``, ``analyze``, ``report`` and ``view`` all pick it up, with no file of
the repository changed (docs/designs.md)."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from cueshift.cli import app
from cueshift.designs import designs, registry
from cueshift.schemas.results import RESULT_SCHEMAS

TOY = '''
"""A toy design: forced-choice judgments of the base faces, one analysis, a plan, a report."""

from pathlib import Path
from typing import Literal

import pandera.polars as pa
import polars as pl
from pydantic import Field

from cueshift import store
from cueshift.designs.forced_choice import judgment_workload
from cueshift.designs.protocol import OptionSupport
from cueshift.designs.page_helpers import NotFound
from cueshift.designs.viewer_support import ViewerPage, ViewerSupport, design_page
from cueshift.images import load_image_set
from cueshift.power.request import DesignPlanner, PlanResult
from cueshift.render import Catalog, Col, TableSpec, stub
from cueshift.stats import Declarations, RunSettings, run_suite
from cueshift.study.config import Study
from cueshift.study.sections import Section
from cueshift.study.variations import VariationFilter


class ToyConfig(Section):
    label: str = "toy"
    root: str | None = None


class ToyStudy(Study):
    design: Literal["toy"] = "toy"
    toy: ToyConfig = Field(default_factory=ToyConfig)


class ToyCountsSchema(pa.DataFrameModel):
    """``result_toy_counts``: the toy brings its result schema with it (``result_schemas``)."""

    model_id: str
    n: pl.Int64
    label: str


DECLARED = Declarations("toy")


@DECLARED("toy_counts", description="judgments per model", source="judgment",
         grouping="model", statistic="count", family="none")
def _counts(ctx):
    return ctx.inputs


def _plan(request):
    faces = request.faces or 10
    power = pl.DataFrame({"protocol": ["planned"], "test": ["toy_count"], "family": ["toy"],
                          "model_id": ["sim"], "target": ["all"], "n_units": [faces], "n_tests": [1],
                          "n_true": [1], "alpha_level": [request.targets.q], "power": [0.5],
                          "power_sim": [None], "alpha_mde": [request.targets.q],
                          "effect": [request.targets.effect], "units_planned": [faces]})
    return PlanResult("toy", "the toy's defaults", power, pl.DataFrame(), pl.DataFrame(), pl.DataFrame())


CATALOG = Catalog(
    document="toy.qmd",
    tables=(TableSpec(key="toy-counts", title="Judgments per model", requires=("result_toy_counts",),
                      sql="SELECT model_id, n FROM result_toy_counts ORDER BY model_id",
                      columns=(stub("model_id", "model"), Col("n", "judgments"))),),
)


def _models_page(con, request):
    """The toy's page with code of its own: the judged models, the filter's if one is set."""
    if request.query.get("fail"):
        raise NotFound("fail=1: the toy fails on request")
    rows = con.execute("SELECT DISTINCT model_id FROM study.main.judgment ORDER BY 1").fetchall()
    return "toy.html", {"models": [r[0] for r in rows if request.model in (None, r[0])]}


class ToyDesign:
    name = "toy"
    study_model = ToyStudy
    options = OptionSupport(tests=("none",), ci_methods=("none",))
    result_schemas = {"toy_counts": ToyCountsSchema}
    viewer = ViewerSupport(image_sections=("toy",),
                           pages=(ViewerPage("/faces", "Toy faces", "Every face the toy judged →"),
                                  design_page("toy", "counts", "Toy counts", "Judgments per model →",
                                              title="What the toy judged", tables=CATALOG.tables),
                                  design_page("toy", "models", "Toy models", "The models →",
                                              render=_models_page, aliases=("/toy",))),
                           templates=Path(__file__).parent / "templates")

    def workload(self, study, *, progress):
        study = study.model_copy(update={"variations": VariationFilter(whitelist={}, rules=[])})
        return judgment_workload(study, load_image_set(study.image_set, study.variations, progress=False))

    def analyses(self):
        return DECLARED

    def analyze(self, con, study, request, *, console, progress, write):
        counts = store.query(con, "SELECT model_id, count(*) AS n FROM judgment GROUP BY ALL")
        return run_suite(con, self.analyses(), counts.with_columns(pl.lit(study.toy.label).alias("label")),
                         RunSettings(test="none"), write=write)

    def report(self):
        return CATALOG

    def planner(self):
        return DesignPlanner(unit="cells", target_effect=0.3, plan=_plan)


DESIGN = ToyDesign()
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy design installed in ``tmp_path``: its module and an entry point naming it."""
    site = tmp_path / "site"
    (site / "toy_design").mkdir(parents=True)
    (site / "toy_design" / "__init__.py").write_text(textwrap.dedent(TOY))
    (site / "toy_design" / "templates").mkdir()
    (site / "toy_design" / "templates" / "toy.html").write_text(
        '{% extends "base.html" %}{% block content %}<h1>Toy models</h1>'
        '{% for m in models %}<p class="toy-model">{{ m }}</p>{% endfor %}'
        '{{ scatter([0, 1], [1, 0], ["a", "b"], "x", "y") | safe }}'
        "{% endblock %}"
    )
    (site / "toy-0.0.dist-info").mkdir()
    (site / "toy-0.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: toy\nVersion: 0.0\n")
    (site / "toy-0.0.dist-info" / "entry_points.txt").write_text("[cueshift.designs]\ntoy = toy_design\n")
    monkeypatch.syspath_prepend(str(site))
    registry.clear_caches()
    try:
        yield site
    finally:
        sys.modules.pop("toy_design", None)
        monkeypatch.undo()
        registry.clear_caches()


def _study_file(tmp_path: Path) -> Path:
    path = tmp_path / "toy.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            name = "toy"
            design = "toy"
            database = "{tmp_path / "toy.duckdb"}"
            seeds = [1]

            [image_set]
            kind = "demo"
            size = 6
            cache_dir = "{tmp_path / "demo"}"

            [scenarios]
            only = ["competent", "honest"]

            [toy]
            label = "five"
            root = "{tmp_path / "demo"}"

            [[models]]
            model_id = "sim"
            """
        )
    )
    return path


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_a_design_outside_the_package_is_planned_run_analysed_reported_and_viewed(
    toy: Path, tmp_path: Path
) -> None:
    assert "toy" in designs()
    assert list(registry.analyses())[-1] == "toy_counts"  # declared by the design, not by an import
    study = _study_file(tmp_path)

    _cli("plan", "--study", str(study), "--faces", "12", "--out", str(tmp_path / "plan"))
    power = pl.read_parquet(tmp_path / "plan" / "plan_power.parquet")
    assert power.select("design", "unit", "n_units", "effect").row(0) == ("toy", "cells", 12, 0.3)

    _cli("infer", "--study", str(study), "--no-progress")
    _cli("analyze", "--study", str(study), "--no-progress")
    toy_design = importlib.import_module("toy_design")  # its result schema reached the check via the registry

    assert RESULT_SCHEMAS["toy_counts"] is toy_design.ToyCountsSchema
    tables = _cli("report", "--study", str(study), "--tables")
    assert "Judgments per model" in tables and "48" in tables  # 6 faces x 2 scenarios x 4 orderings

    pytest.importorskip("starlette", reason="cueshift view needs the 'view' extra")
    from cueshift.viewer.roots import design_sections
    from tests.viewer.conftest import serve_in_thread
    from tests.viewer.pages import fetch

    assert "toy" in design_sections()
    for served in serve_in_thread(tmp_path / "toy.duckdb", tmp_path / "thumbs"):
        status, _, body = fetch(served.url + "/")
        page = body.decode()
        assert status == 200 and "design: toy" in page
        assert 'id="nav-faces">Toy faces</a>' in page and "Every face the toy judged →" in page
        assert served.viewer.root is not None
        assert 'href="/design/toy/counts" id="nav-design-toy-counts">Toy counts</a>' in page
        status, _, body = fetch(served.url + "/design/toy/counts")  # the page the toy declares
        page = body.decode()
        assert status == 200 and "<h1>What the toy judged</h1>" in page
        assert "Judgments per model" in page and ">48<" in page
        # the table's result, named with the description its analysis is declared with
        assert "<code>result_toy_counts</code>: judgments per model</p>" in page
        assert fetch(served.url + "/design/toy/nothing")[0] == 404
        status, _, body = fetch(served.url + "/toy?model=sim")  # its page with code, by its older route
        page = body.decode()
        assert status == 200 and '<p class="toy-model">sim</p>' in page and page.count("<circle") == 2
        status, _, body = fetch(served.url + "/design/toy/models?fail=1")
        assert status == 404 and "fail=1: the toy fails on request" in body.decode()


def test_a_design_without_a_planner_is_refused_by_plan_in_one_line(toy: Path, tmp_path: Path) -> None:
    toy_design = importlib.import_module("toy_design")  # written by the toy fixture

    toy_design.ToyDesign.planner = lambda self: None
    result = CliRunner().invoke(app, ["plan", "--study", str(_study_file(tmp_path))])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "design 'toy' has no planner; plannable: stylisticbias" in lines[0]


def test_a_design_declared_twice_is_refused(toy: Path) -> None:
    (toy / "toy-0.0.dist-info" / "entry_points.txt").write_text(
        "[cueshift.designs]\ntoy = toy_design\npaired = cueshift.designs.paired\n"
    )
    registry.clear_caches()
    with pytest.raises(Exception, match="design 'paired' is declared twice"):
        designs()


def test_a_result_table_of_another_design_is_refused(toy: Path) -> None:
    toy_design = importlib.import_module("toy_design")  # written by the toy fixture

    toy_design.ToyDesign.result_schemas = {"sbs": toy_design.ToyCountsSchema}
    with pytest.raises(Exception, match="result table 'result_sbs' is declared already"):
        designs()
    registry.clear_caches()
    assert "sbs" in RESULT_SCHEMAS and RESULT_SCHEMAS["sbs"] is not toy_design.ToyCountsSchema

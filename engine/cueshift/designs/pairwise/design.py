"""The pairwise design (seed 002): two images side by side, the judge picks one; 0-10 ratings.

Work units (:mod:`.plan`): two-image trials and, with ``rate_models``, model ratings; human
ratings are stored once. The analyses (:mod:`.analyses`) use exact binomial tests, Wilson
intervals and maximum-likelihood fits: no random step, so ``--seed`` and ``--resamples`` are
refused.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.designs.pairwise.scenarios import SCENARIO_SETS
from cueshift.designs.pairwise.section import PairwiseStudy
from cueshift.designs.protocol import AnalysisRequest, OptionSupport
from cueshift.designs.viewer_support import ViewerSupport, design_page

if TYPE_CHECKING:
    from collections.abc import Mapping

    import duckdb
    import pandera.polars as pa
    import polars as pl
    from rich.console import Console

    from cueshift.designs.work import Workload
    from cueshift.power.request import DesignPlanner
    from cueshift.render import Catalog
    from cueshift.stats import Declarations


class PairwiseDesign:
    """Seed 002: two-image trials and ratings; binomial tests, Bradley–Terry, rating agreement."""

    name = "pairwise"
    study_model = PairwiseStudy
    scenario_sets = SCENARIO_SETS
    options = OptionSupport(tests=("exact",), ci_methods=("analytic",))

    @functools.cached_property
    def viewer(self) -> ViewerSupport:
        """What ``cueshift view`` shows for the design; its pages load the report stack, so they
        are built when asked, not when the design is found (D90)."""
        from cueshift.designs.pairwise.viewer_pages import trials_page

        return ViewerSupport(
            image_sections=("pairwise",),
            pages=(
                design_page(
                    "pairwise",
                    "trials",
                    "Pairwise trials",
                    "Pairwise trials: both images and the choice →",
                    render=trials_page,
                    table="pairwise_trial",
                    aliases=("/pairwise",),
                ),
            ),
            delta=False,
            templates=Path(__file__).parent / "templates",
        )

    @property
    def result_schemas(self) -> Mapping[str, type[pa.DataFrameModel]]:
        """Its ``result_*`` tables (``schemas/results_pairwise.py``), loaded when asked: finding the
        design loads no pandera (D90)."""
        from cueshift.schemas.results_pairwise import RESULT_TABLES

        return RESULT_TABLES

    def workload(self, study: PairwiseStudy, *, progress: bool) -> Workload:
        """Every trial (and model rating) per model and seed; the human ratings once."""
        from cueshift.designs.pairwise.workload import pairwise_workload

        return pairwise_workload(study, progress=progress)

    def analyze(
        self,
        con: duckdb.DuckDBPyConnection,
        study: PairwiseStudy,
        request: AnalysisRequest,
        *,
        console: Console,
        progress: bool,
        write: bool,
    ) -> dict[str, pl.DataFrame]:
        """Every ``result_pairwise_*`` table, then the seed 002 Table 4 summary."""
        from cueshift.designs.pairwise.analyses import Inputs, load_frames
        from cueshift.designs.pairwise.console import print_summary
        from cueshift.stats import RunChoices, RunSettings, run_suite

        config = study.pairwise
        trials, ratings = load_frames(con, request.models)
        settings = RunSettings.of(  # no random step: exact tests, analytic intervals
            None,
            RunChoices(models=request.models),
            test=self.options.test(request),
            ci_method=self.options.ci_method(request),
            confidence_level=config.confidence,
        )
        results = run_suite(
            con, self.analyses(), Inputs(trials, ratings, config), settings, write=write, progress=progress
        )
        print_summary(results, console, config)
        return results

    def analyses(self) -> Declarations:
        """The ``result_pairwise_*`` analyses, in the order they run (:mod:`.analyses`)."""
        from cueshift.designs.pairwise.analyses import DECLARED

        return DECLARED

    def report(self) -> Catalog:
        """``reports/pairwise.qmd`` and its tables."""
        from cueshift.designs.pairwise.report import CATALOG

        return CATALOG

    def planner(self) -> DesignPlanner:
        """Power, minimum detectable effects and cost of a pairwise study (:mod:`.planner`)."""
        from cueshift.designs.pairwise.planner import PLANNER

        return PLANNER

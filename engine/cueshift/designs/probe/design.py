"""The probe design (seed 004): human facial impressions vs model probes.

Work (:mod:`.plan`): forced-choice judgments of the base faces on the attribute scenarios
(default set ``omi-34``), human data stored once. The analyses (:mod:`.analyses`) relate model
scores to human means; their random steps are the split-half reliability, whose seed and number
of random splits ``--seed`` and ``--resamples`` set (``[probe] split_seed``, ``n_splits``), and the
face bootstrap of each model's difference from its random twin, drawn with the same seed
(``[probe] twin_resamples`` replicates).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.designs.probe.scenarios import SCENARIO_SETS
from cueshift.designs.probe.section import ProbeStudy
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


class ProbeDesign:
    """Seed 004: probes of the base faces vs human impressions; reliability, similarity, structure."""

    name = "probe"
    study_model = ProbeStudy
    scenario_sets = SCENARIO_SETS
    options = OptionSupport(
        tests=("parametric",),
        ci_methods=("analytic",),
        seed="seed of the split-half rater splits and the twin bootstrap's faces ([probe] split_seed)",
        resamples="random rater splits of the split-half reliability ([probe] n_splits)",
    )

    @functools.cached_property
    def viewer(self) -> ViewerSupport:
        """What ``cueshift view`` shows for the design; its pages load the report stack, so they
        are built when asked, not when the design is found (D90)."""
        from cueshift.designs.probe.viewer_pages import humans_page

        return ViewerSupport(
            image_sections=("probe",),
            pages=(
                design_page(
                    "probe",
                    "humans",
                    "Probe vs humans",
                    "Model score vs human rating per attribute →",
                    render=humans_page,
                    aliases=("/probe",),
                ),
            ),
            templates=Path(__file__).parent / "templates",
        )

    @property
    def result_schemas(self) -> Mapping[str, type[pa.DataFrameModel]]:
        """Its ``result_*`` tables (``schemas/results_probe.py``), loaded when asked: finding the
        design loads no pandera (D90)."""
        from cueshift.schemas.results_probe import RESULT_TABLES

        return RESULT_TABLES

    def workload(self, study: ProbeStudy, *, progress: bool) -> Workload:
        """The base faces × attributes per model; the human ratings and means once."""
        from cueshift.designs.probe.workload import probe_workload

        return probe_workload(study, progress=progress)

    def analyze(
        self,
        con: duckdb.DuckDBPyConnection,
        study: ProbeStudy,
        request: AnalysisRequest,
        *,
        console: Console,
        progress: bool,
        write: bool,
    ) -> dict[str, pl.DataFrame]:
        """Every ``result_probe_*`` table, then the similarity summary."""
        from cueshift import store
        from cueshift.designs.probe.console import print_summary
        from cueshift.designs.probe.inputs import HUMANS_SQL, MEANS_SQL, model_scores, probe_inputs
        from cueshift.designs.probe.twins import random_twins
        from cueshift.designs.registry import study_scenarios
        from cueshift.images.reliability_files import read_study_reliability
        from cueshift.stats import RunChoices, RunSettings, run_suite

        config = study.probe
        resampling = config.resampling(resamples=request.resamples, seed=request.seed)
        attributes = {s.scenario_id for s in study_scenarios(study)}
        published = None
        if config.reliability:
            published = read_study_reliability(config.reliability, attributes=attributes)
        scores = model_scores(con, config.score, request.models)
        pixels = None
        if config.baselines:
            from cueshift.designs.probe.baseline_table import base_face_pixels

            pixels = base_face_pixels(study, set(scores["image_id"].unique()))
        inputs = probe_inputs(
            scores,
            store.query(con, HUMANS_SQL),
            store.query(con, MEANS_SQL),
            published,
            config,
            pixels=pixels,
            twins=random_twins(study.models),
            resampling=resampling,
        )
        settings = RunSettings.of(
            resampling,
            RunChoices(models=request.models),
            test=self.options.test(request),
            ci_method=self.options.ci_method(request),
        )
        results = run_suite(con, self.analyses(), inputs, settings, write=write, progress=progress)
        print_summary(results, console)
        return results

    def analyses(self) -> Declarations:
        """The ``result_probe_*`` analyses, in the order they run (:mod:`.analyses`)."""
        from cueshift.designs.probe.analyses import DECLARED

        return DECLARED

    def report(self) -> Catalog:
        """``reports/probe.qmd`` and its tables."""
        from cueshift.designs.probe.report import CATALOG

        return CATALOG

    def planner(self) -> DesignPlanner:
        """Power, minimum detectable effects and cost of a probe study (:mod:`.planner`)."""
        from cueshift.designs.probe.planner import PLANNER

        return PLANNER

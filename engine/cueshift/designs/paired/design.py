"""The paired design (seed 001): original vs filtered photos of the same individual.

Running is the forced-choice protocol of seed 000 (:mod:`cueshift.designs.forced_choice`):
face = individual, base image = original photo, variation = the filtered photo
(``feature_key`` = ``[paired] filter_feature_key``). The StylisticBias variation filter does
not apply: every filtered image is judged. With ``[paired.synthetic]`` the synthetic image
set is drawn first and read through its manifest. The analyses are in :mod:`.analyses`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cueshift.designs.paired.scenarios import SCENARIO_SETS
from cueshift.designs.paired.section import PairedStudy
from cueshift.designs.paired.workload import paired_images, prepared_study
from cueshift.designs.protocol import AnalysisRequest, OptionSupport
from cueshift.designs.viewer_support import ViewerSupport

if TYPE_CHECKING:
    from collections.abc import Mapping

    import duckdb
    import pandera.polars as pa
    import polars as pl
    from rich.console import Console

    from cueshift.designs.audit import EditPairs
    from cueshift.designs.work import Workload
    from cueshift.power.request import DesignPlanner
    from cueshift.render import Catalog
    from cueshift.stats import Declarations


class PairedDesign:
    """Seed 001: forced-choice judgments of original and filtered photos; KW and Wilcoxon tests."""

    name = "paired"
    study_model = PairedStudy
    scenario_sets = SCENARIO_SETS
    options = OptionSupport(tests=("rank",), ci_methods=("analytic",), audit=True)
    viewer = ViewerSupport(image_sections=("paired",))

    @property
    def result_schemas(self) -> Mapping[str, type[pa.DataFrameModel]]:
        """Its ``result_*`` tables (``schemas/results_paired.py``), loaded when asked: finding the
        design loads no pandera (D90)."""
        from cueshift.schemas.results_paired import RESULT_TABLES

        return RESULT_TABLES

    def workload(self, study: PairedStudy, *, progress: bool) -> Workload:
        """Every original and filtered image × scenario × ordering × seed."""
        from cueshift.designs.forced_choice import judgment_workload
        from cueshift.images import load_image_set

        prepared = prepared_study(study)
        loaded = load_image_set(prepared.image_set, prepared.variations, progress=progress)
        return judgment_workload(prepared, paired_images(loaded, prepared))

    def edit_pairs(self, study: PairedStudy, *, progress: bool) -> EditPairs:
        """Every original photo (base) and its filtered photo (variation): what the edit audit checks."""
        from cueshift.designs.audit import EditPairs, edit_pairs_of
        from cueshift.images import load_image_set

        prepared = prepared_study(study)
        loaded = paired_images(
            load_image_set(prepared.image_set, prepared.variations, progress=progress), prepared
        )
        return EditPairs(loaded.root, edit_pairs_of(loaded.image))

    def analyze(
        self,
        con: duckdb.DuckDBPyConnection,
        study: PairedStudy,
        request: AnalysisRequest,
        *,
        console: Console,
        progress: bool,
        write: bool,
    ) -> dict[str, pl.DataFrame]:
        """Every ``result_paired_*`` table (exact rank tests: no resampling), then the summary."""
        from cueshift.designs.paired.console import print_summary
        from cueshift.designs.paired.inputs import Inputs, load_scores
        from cueshift.stats import RunChoices, RunSettings, run_suite

        config = study.paired
        scores = load_scores(con, config.filter_feature_key, request.models)
        if request.audit is not None:
            from cueshift.designs.paired.edit_audit import audited_scores

            scores = audited_scores(
                con, study, self, scores, request.audit, console=console, progress=progress, write=write
            )
        settings = RunSettings.of(  # no random step: exact rank tests
            None,
            RunChoices(models=request.models, audit=request.audit),
            test=self.options.test(request),
            ci_method=self.options.ci_method(request),
            confidence_level=config.confidence,
        )
        inputs = Inputs(scores, config)
        results = run_suite(con, self.analyses(), inputs, settings, write=write, progress=progress)
        print_summary(results, console, config)
        return results

    def analyses(self) -> Declarations:
        """The ``result_paired_*`` analyses, in the order they run (:mod:`.analyses`)."""
        from cueshift.designs.paired.analyses import DECLARED

        return DECLARED

    def report(self) -> Catalog:
        """``reports/paired.qmd`` and its tables."""
        from cueshift.designs.paired.report import CATALOG

        return CATALOG

    def planner(self) -> DesignPlanner:
        """Power, minimum detectable effects and cost of a paired study (:mod:`.planner`)."""
        from cueshift.designs.paired.planner import PLANNER

        return PLANNER

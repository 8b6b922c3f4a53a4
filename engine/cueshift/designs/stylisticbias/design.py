"""The StylisticBias design (seed 000): one image at a time, a forced choice between two descriptors.

Each base face and its single-cue variations are judged on every scenario × ordering × seed
(:mod:`cueshift.designs.forced_choice`); the analyses (:mod:`.analyses`) read the ``delta`` and
``base_phi`` views. The design has no study-file section of its own: everything it needs is in
the common part of the study file.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from cueshift.designs.protocol import AnalysisRequest, OptionSupport
from cueshift.designs.stylisticbias.multiverse.choices import MultiverseConfig
from cueshift.designs.stylisticbias.scenarios import SCENARIO_SETS
from cueshift.designs.viewer_support import ViewerSupport
from cueshift.errors import ConfigError
from cueshift.study.config import Study
from cueshift.study.equivalence import EquivalenceConfig
from cueshift.study.quality import QualityConfig

if TYPE_CHECKING:
    from collections.abc import Mapping

    import duckdb
    import pandera.polars as pa
    import polars as pl
    from rich.console import Console

    from cueshift.designs.audit import EditPairs
    from cueshift.designs.stylisticbias.quality import IdentityQuality
    from cueshift.designs.work import Workload
    from cueshift.power.request import DesignPlanner
    from cueshift.render import Catalog
    from cueshift.stats import Declarations, Resampling


class StylisticBiasStudy(Study):
    """A study file of the StylisticBias protocol (``design = "stylisticbias"``, the default)."""

    design: Literal["stylisticbias"] = "stylisticbias"
    quality: QualityConfig | None = Field(
        default=None, description="counterfactual quality: identity preservation of each variation"
    )
    equivalence: EquivalenceConfig | None = Field(
        default=None, description="smallest effects of interest: result_equivalence's TOST margins"
    )
    multiverse: MultiverseConfig = Field(
        default_factory=MultiverseConfig,
        description="cueshift multiverse: the analysis choices crossed (first option: the reference)",
    )


class StylisticBiasDesign:
    """The seed 000 design: forced-choice judgments, the RQ1–RQ3 analyses, ``reports/study.qmd``."""

    name = "stylisticbias"
    study_model = StylisticBiasStudy
    scenario_sets = SCENARIO_SETS
    options = OptionSupport(
        tests=("rank", "permutation"),
        ci_methods=("bca", "percentile"),
        seed="seed of the face-level bootstrap and the permutation tests",
        resamples="face-level bootstrap resamples (and permutations) per estimate",
        overview=True,
        phi=True,
        identity=True,
        compat=True,
        generalise=True,
        audit=True,
    )

    @functools.cached_property
    def viewer(self) -> ViewerSupport:
        """What ``cueshift view`` shows for the design; its pages load the report stack, so they
        are built when asked, not when the design is found (D90)."""
        from cueshift.designs.stylisticbias.viewer_pages import NOISE_FLOOR_PAGE

        return ViewerSupport(pages=(NOISE_FLOOR_PAGE,))

    @property
    def result_schemas(self) -> Mapping[str, type[pa.DataFrameModel]]:
        """Its ``result_*`` tables (``schemas/results_stylisticbias.py``), loaded when asked: finding the
        design loads no pandera (D90)."""
        from cueshift.schemas.results_stylisticbias import RESULT_TABLES

        return RESULT_TABLES

    def workload(self, study: StylisticBiasStudy, *, progress: bool) -> Workload:
        """Every evaluated image × scenario × ordering × seed (the variation filter applies)."""
        from cueshift.designs.forced_choice import judgment_workload
        from cueshift.images import load_image_set

        return judgment_workload(study, load_image_set(study.image_set, study.variations, progress=progress))

    def edit_pairs(self, study: StylisticBiasStudy, *, progress: bool) -> EditPairs:
        """Every evaluated variation and its base: what the edit audit checks."""
        from cueshift.designs.audit import image_set_edit_pairs

        return image_set_edit_pairs(study, progress=progress)

    def analyze(
        self,
        con: duckdb.DuckDBPyConnection,
        study: StylisticBiasStudy,
        request: AnalysisRequest,
        *,
        console: Console,
        progress: bool,
        write: bool,
    ) -> dict[str, pl.DataFrame]:
        """Print the first-cut overview, then run every analysis and print the headlines."""
        from cueshift.designs.stylisticbias.analyses import run_analyses
        from cueshift.designs.stylisticbias.console import print_compat, print_headlines
        from cueshift.designs.stylisticbias.console_audit import print_audit
        from cueshift.designs.stylisticbias.overview import overview, print_overview
        from cueshift.stats import RunChoices
        from cueshift.views import GREEDY, parse_phi

        first_cut = overview(con, top=10 if request.top is None else request.top, models=request.models)
        print_overview(first_cut, console, _database_name(con))
        if request.overview_only or first_cut.judgments.height == 0:
            return {}
        compat = request.compat or "default"
        if compat == "release" and request.phi is not None and parse_phi(request.phi) != GREEDY:
            raise ConfigError("--compat release reproduces the release's answers: leave --phi out")
        audit = None
        if request.audit is not None:  # before the identity encoder runs
            from cueshift.designs.stylisticbias.edit_audit import load_edit_audit

            audit = load_edit_audit(
                con, study, self, request.audit, console=console, progress=progress, write=write
            )
        quality = _identity_quality(con, study, request, console, write=write)
        results = run_analyses(
            con,
            _resampling(self.options, request),
            RunChoices(
                models=request.models,
                phi=request.phi or "greedy",
                min_identity=request.min_identity,
                generalise=request.generalise or "faces",
                audit=request.audit,
                compat=compat,
            ),
            quality=quality,
            audit=audit,
            equivalence=study.equivalence,
            progress=progress,
            write=write,
        )
        if write:
            print_headlines(con, console)
        if audit is not None:
            print_audit(audit, results.get("audit_sensitivity"), console)
        if compat == "release":
            print_compat(results, console)
        return results

    def analyses(self) -> Declarations:
        """The seed 000 analyses (RQ1–RQ3), in the order they run (:mod:`.analyses`)."""
        from cueshift.designs.stylisticbias.analyses import DECLARED

        return DECLARED

    def report(self) -> Catalog:
        """``reports/study.qmd`` and its RQ1–RQ3 tables and figures."""
        from cueshift.designs.stylisticbias.report import CATALOG

        return CATALOG

    def planner(self) -> DesignPlanner:
        """Power, minimum detectable effects and cost of a StylisticBias study (:mod:`.planner`)."""
        from cueshift.designs.stylisticbias.planner import PLANNER

        return PLANNER


def _resampling(options: OptionSupport, request: AnalysisRequest) -> Resampling:
    """The run's resampling: the options given, the defaults of :class:`~cueshift.stats.Resampling`
    where one was left out."""
    from cueshift.stats import Resampling

    given = {"resamples": request.resamples, "seed": request.seed}
    return Resampling(
        **{name: value for name, value in given.items() if value is not None},
        ci_method="percentile" if options.ci_method(request) == "percentile" else "bca",
        test="permutation" if options.test(request) == "permutation" else "rank",
    )


def _identity_quality(
    con: duckdb.DuckDBPyConnection,
    study: StylisticBiasStudy,
    request: AnalysisRequest,
    console: Console,
    *,
    write: bool,
) -> IdentityQuality | None:
    """Identity preservation measured with ``[quality] encoder`` (``None`` without one), printed."""
    from cueshift.designs.stylisticbias.face_identity import face_identity_of
    from cueshift.designs.stylisticbias.quality import (
        IdentityQuality,
        measure_identity,
        print_identity,
    )

    if study.quality is None:
        if request.min_identity is not None:
            raise ConfigError("--min-identity: the study file has no [quality] encoder = <local CLIP folder>")
        return None
    # before the encoder writes: a missing face audit is one line
    faces = face_identity_of(con, study) if request.min_identity is not None else None
    identity = measure_identity(con, study, study.quality, write=write)
    print_identity(identity, request.min_identity, console, faces)
    return IdentityQuality(identity, study.quality, request.min_identity, faces)


def _database_name(con: duckdb.DuckDBPyConnection) -> str:
    rows = con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()
    return str(rows[0][0]) if rows and rows[0][0] else "the study database"

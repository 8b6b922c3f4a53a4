"""The :class:`Design` protocol: what a study design declares for the command line and the runner.

A design is one folder ``cueshift/designs/<name>/`` whose package exports ``DESIGN``, an
object with

- ``name`` — the value of ``design`` in a study file;
- ``study_model`` — its member of the study-file union: a :class:`~cueshift.study.config.Study`
  subclass with ``design: Literal["<name>"]`` and the design's section (``[paired]``, ...);
- ``options`` — which ``cueshift analyze`` options it honours (:class:`OptionSupport`);
- ``workload(study)`` — its work units, parsers and prompts as a
  :class:`~cueshift.designs.work.Workload` for the one runner;
- ``analyses()`` — its analyses, declared in one :class:`cueshift.stats.Declarations` under the
  design's name, in the order they run (nothing is registered by importing a module);
- ``analyze(con, study, request)`` — loads the design's inputs and hands its ``analyses()`` to
  :func:`cueshift.stats.run_suite` (``result_<name>_*`` tables and ``result_manifest`` rows);
- ``result_schemas`` — the pandera model of every ``result_*`` table its analyses store, by the
  table's name without ``result_`` (the built-in designs keep theirs in
  ``schemas/results_<name>.py``, returned by a property that imports them); the registry declares
  them to the result check (:func:`cueshift.schemas.results.declare_result_schemas`), as the check
  loads when it is not loaded yet;
- ``report()`` — its report :class:`~cueshift.render.Catalog` (the ``.qmd`` document and the
  tables it shows);
- ``planner()`` — what ``cueshift plan`` runs for it (a
  :class:`~cueshift.power.request.DesignPlanner`: unit, default target effect, plan function;
  ``None``: the design is not plannable, and ``cueshift plan`` refuses it in one line);
- ``viewer`` — what ``cueshift view`` shows for it (a
  :class:`~cueshift.designs.viewer_support.ViewerSupport`: image-folder sections, linked pages).

:mod:`cueshift.designs.registry` finds every such folder (and every design an installed
distribution declares under the ``cueshift.designs`` entry-point group); nothing else lists the
designs. Finding them reads ``name``, ``study_model`` and ``scenario_sets`` only, and every design
is imported to read a study file, so a design module loads no data, statistics or report library
at import: it imports them inside the members that use them (D90, ``docs/designs.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from cueshift.errors import ConfigError
from cueshift.study.config import Study
from cueshift.study.phi import parse_phi
from cueshift.study.scenarios import Scenario

if TYPE_CHECKING:
    import duckdb
    import pandera.polars as pa
    import polars as pl
    from rich.console import Console

    from cueshift.designs.viewer_support import ViewerSupport
    from cueshift.designs.work import Workload
    from cueshift.power.request import DesignPlanner
    from cueshift.render import Catalog
    from cueshift.stats import Declarations

S = TypeVar("S", bound=Study)


@dataclass(frozen=True)
class AnalysisRequest:
    """The options ``cueshift analyze`` was given; ``None`` (or empty) where an option was left out.

    Attributes
    ----------
    seed, resamples
        Seed and number of resamples of the design's random step (bootstrap, permutation,
        random split-halves).
    test, ci
        Family of tests and kind of confidence interval.
    models
        Restrict the analyses to these model ids.
    top, overview_only
        Length of the first-cut overview, and whether to stop after it.
    phi
        Which φ the analyses read: ``'greedy'``, ``'expected'`` or ``'T=<t>'`` (``--phi``).
    min_identity
        Leave out the variations whose identity preservation is below it (``--min-identity``).
    compat
        ``'release'``: also reproduce the seed release's own analysis choices beside the default
        tables (``--compat release``); ``None`` or ``'default'``: cueshift's choices only.
    generalise
        The population the intervals generalise to (``--generalise``): ``'faces'`` (the study's
        scenarios fixed) or ``'faces+scenarios'``; ``None``: the design's default.
    audit
        ``--audit``: ``'strict'`` drops the variations whose edit failed the edit audit from every
        analysis, ``'report'`` keeps them; both write the audit's sensitivity table. ``None``: no audit.
    """

    seed: int | None = None
    resamples: int | None = None
    test: str | None = None
    ci: str | None = None
    models: tuple[str, ...] = ()
    top: int | None = None
    overview_only: bool = False
    phi: str | None = None
    min_identity: float | None = None
    compat: str | None = None
    generalise: str | None = None
    audit: str | None = None


#: ``--compat`` values: cueshift's own choices, or also the seed release's.
COMPAT_MODES = ("default", "release")
#: ``--generalise`` values: intervals over faces (scenarios fixed), or over faces and scenarios.
GENERALISE_MODES = ("faces", "faces+scenarios")
#: ``--audit`` values: drop the edits that failed the edit audit, or only report what they change.
AUDIT_MODES = ("strict", "report")


@dataclass(frozen=True)
class OptionSupport:
    """What a design does with the options of ``cueshift analyze``.

    An option a design cannot honour is refused with one line (:meth:`check`), never ignored.

    Attributes
    ----------
    tests, ci_methods
        Accepted ``--test`` and ``--ci`` values, the default first.
    seed, resamples
        What ``--seed`` and ``--resamples`` mean for the design; ``None`` when it has no random
        step (the option is refused).
    overview
        Whether the design prints the first-cut overview (``--top``, ``--overview-only``).
    phi
        Whether the design reads φ from the ``delta``/``base_phi`` views and so honours ``--phi``.
    identity
        Whether the design measures counterfactual quality and so honours ``--min-identity``.
    compat
        Whether the design can reproduce its seed release's choices (``--compat release``).
    generalise
        Whether the design's intervals can also generalise over scenarios
        (``--generalise faces+scenarios``); ``'faces'`` is accepted by every design.
    audit
        Whether the design's analyses read base/variation edits the edit audit checks (``--audit``).
    """

    tests: tuple[str, ...]
    ci_methods: tuple[str, ...]
    seed: str | None = None
    resamples: str | None = None
    overview: bool = False
    phi: bool = False
    identity: bool = False
    compat: bool = False
    generalise: bool = False
    audit: bool = False

    def check(self, design: str, request: AnalysisRequest) -> None:
        """Refuse every option of ``request`` that means nothing for ``design``.

        Raises
        ------
        ConfigError
            One line naming the option and what the design offers instead.
        """
        for option, value, accepted in (
            ("--test", request.test, self.tests),
            ("--ci", request.ci, self.ci_methods),
        ):
            if value is not None and value not in accepted:
                raise ConfigError(
                    f"{option} {value!r}: design {design!r} offers {' or '.join(map(repr, accepted))}"
                )
        for option, given, meaning in (
            ("--seed", request.seed is not None, self.seed),
            ("--resamples", request.resamples is not None, self.resamples),
        ):
            if given and meaning is None:
                raise ConfigError(f"{option}: design {design!r} has no random step; leave the option out")
        if request.phi is not None:
            if not self.phi:
                raise ConfigError(
                    f"--phi: design {design!r} does not read the phi views; leave the option out"
                )
            parse_phi(request.phi)  # a malformed value is one line before the database opens
        if request.min_identity is not None:
            if not self.identity:
                raise ConfigError(
                    f"--min-identity: design {design!r} measures no counterfactual quality; leave it out"
                )
            if not -1.0 <= request.min_identity <= 1.0:
                raise ConfigError(f"--min-identity {request.min_identity:g}: a cosine, between -1 and 1")
        if request.compat is not None:
            if request.compat not in COMPAT_MODES:
                raise ConfigError(f"--compat {request.compat!r}: 'default' or 'release'")
            if request.compat == "release" and not self.compat:
                raise ConfigError(f"--compat release: design {design!r} has no release to reproduce")
        if request.generalise is not None:
            if request.generalise not in GENERALISE_MODES:
                raise ConfigError(f"--generalise {request.generalise!r}: 'faces' or 'faces+scenarios'")
            if request.generalise != "faces" and not self.generalise:
                raise ConfigError(
                    f"--generalise {request.generalise}: design {design!r} has no scenario resampling; "
                    "leave the option out"
                )
        if request.audit is not None:
            if request.audit not in AUDIT_MODES:
                raise ConfigError(f"--audit {request.audit!r}: 'strict' or 'report'")
            if not self.audit:
                raise ConfigError(
                    f"--audit: design {design!r} has no audited base/variation edits in its analyses; "
                    "leave the option out"
                )
        if not self.overview:
            for option, given in (
                ("--top", request.top is not None),
                ("--overview-only", request.overview_only),
            ):
                if given:
                    raise ConfigError(f"{option}: design {design!r} prints no first-cut overview")

    def test(self, request: AnalysisRequest) -> str:
        """The ``--test`` value to use (the default when none was given)."""
        return request.test or self.tests[0]

    def ci_method(self, request: AnalysisRequest) -> str:
        """The ``--ci`` value to use (the default when none was given)."""
        return request.ci or self.ci_methods[0]


class Design(Protocol[S]):
    """A study design: its study-file section, work units, analyses, report, planner and viewer
    pages (module docstring)."""

    @property
    def name(self) -> str:
        """The value of ``design`` in a study file."""
        ...

    @property
    def study_model(self) -> type[S]:
        """The study model of the design (a member of the discriminated union on ``design``)."""
        ...

    @property
    def options(self) -> OptionSupport:
        """The ``cueshift analyze`` options the design honours."""
        ...

    def workload(self, study: S, *, progress: bool) -> Workload:
        """Everything one run asks the study's models (and the rows it stores without asking)."""
        ...

    @property
    def scenario_sets(self) -> Mapping[str, tuple[Scenario, ...]]:
        """The scenario sets the design declares, by the name ``[scenarios] set`` gives them."""
        ...

    def analyses(self) -> Declarations:
        """The design's analyses, in the order they run and their tables and manifest rows are listed."""
        ...

    def analyze(
        self,
        con: duckdb.DuckDBPyConnection,
        study: S,
        request: AnalysisRequest,
        *,
        console: Console,
        progress: bool,
        write: bool,
    ) -> dict[str, pl.DataFrame]:
        """Run the design's analyses (stored as ``result_*`` tables when ``write``), print a summary.

        Returns the result frames by analysis name.
        """
        ...

    @property
    def result_schemas(self) -> Mapping[str, type[pa.DataFrameModel]]:
        """The schema of every result table the design's analyses store, by the table's name
        without ``result_``."""
        ...

    def report(self) -> Catalog:
        """The design's report: the document in ``reports/`` and the tables it shows."""
        ...

    def planner(self) -> DesignPlanner | None:
        """What ``cueshift plan`` runs for the design; ``None`` when it has no planner."""
        ...

    @property
    def viewer(self) -> ViewerSupport:
        """What ``cueshift view`` shows for the design beyond the pages every study has."""
        ...


__all__ = ["AUDIT_MODES", "COMPAT_MODES", "AnalysisRequest", "Design", "OptionSupport"]

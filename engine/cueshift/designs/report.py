"""Each design's report catalog by design name, for ``cueshift report``.

Every design declares its report in ``cueshift.designs.<name>.report`` (``stylisticbias``'s is a
package) as ``CATALOG``: the document in ``reports/`` and the tables, figures and prose it shows.
:func:`report_target` gives ``cueshift report`` the catalog and database of a study; the design
registry hands out the same catalog (``design.report()``).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.errors import ConfigError

if TYPE_CHECKING:
    from cueshift.report import Catalog

#: design -> module declaring its ``CATALOG``
REPORT_MODULES: dict[str, str] = {
    "stylisticbias": "cueshift.designs.stylisticbias.report",
    "paired": "cueshift.designs.paired.report",
    "pairwise": "cueshift.designs.pairwise.report",
    "probe": "cueshift.designs.probe.report",
}


def report_catalog(design: str) -> Catalog:
    """The report catalog of ``design`` (its module is imported on first use)."""
    if design not in REPORT_MODULES:
        raise ConfigError(f"design {design!r} declares no report; known: {', '.join(REPORT_MODULES)}")
    catalog: Catalog = importlib.import_module(REPORT_MODULES[design]).CATALOG
    return catalog


def report_target(study: str) -> tuple[Catalog, Path]:
    """The report catalog of ``study``'s design and the study's database (``--study`` value in)."""
    from cueshift.designs import load_study

    spec = load_study(study)
    return report_catalog(spec.design), spec.database_path

"""The probe (seed 004) report: what ``reports/probe.qmd`` shows, declared for the report facade.

Human reliability, model–human similarity (seed 004 Eq. 4, Fig. 1) and its link with reliability
(Figs. 3–4) in :mod:`.report_similarity`; the similarity per dataset size (seed 004
Table 1) in :mod:`.report_dataset_size`; the structure of impressions in :mod:`.report_structure`;
the scale regression (seed 004 Table 2) in :mod:`.report_scale`; the similarity's baselines
(random-weight twin, image statistics) and each model against its random twin in
:mod:`.report_baselines`. Significance in the seed 000 notation (bold p < 0.001, underlined
p ≥ 0.05), computed from the stored p-values at render time. Tables are numbered in the order
``reports/probe.qmd`` shows them; each note names the test, the interval and what n counts.
"""

from __future__ import annotations

from cueshift.designs.probe.report_baselines import BASELINE_TABLES
from cueshift.designs.probe.report_dataset_size import DATASET_SIZE_TABLES
from cueshift.designs.probe.report_scale import SCALE_TABLES
from cueshift.designs.probe.report_similarity import SIMILARITY_TABLES
from cueshift.designs.probe.report_structure import STRUCTURE_FIGURES, STRUCTURE_TABLES
from cueshift.render import EMPHASIS_LEGEND_MD, Catalog, TableSpec

TABLES: tuple[TableSpec, ...] = (
    *SIMILARITY_TABLES[:2],
    *DATASET_SIZE_TABLES,
    *SIMILARITY_TABLES[2:],
    *STRUCTURE_TABLES,
    *SCALE_TABLES,
    *BASELINE_TABLES,
)

CATALOG = Catalog(document="probe.qmd", tables=TABLES, figures=STRUCTURE_FIGURES, notation=EMPHASIS_LEGEND_MD)

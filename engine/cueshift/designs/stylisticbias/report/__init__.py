"""The StylisticBias (seed 000) report: what ``reports/study.qmd`` shows, declared for the report facade.

:data:`CATALOG` holds the study-summary and data-quality tables (S1–S8), the RQ1–RQ3 tables on
the statistics engine's ``result_*`` tables, Figures 2–5 and the cumulative-|SBS| sentence.
Significance is shown in the paper's notation (seed 000 §4.4): bold p < 0.001, underlined
p ≥ 0.05, computed from the stored p-values at render time.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.figures import FIGURES, cumulative_summary
from cueshift.designs.stylisticbias.report.labels import delta_class, delta_fill
from cueshift.designs.stylisticbias.report.rq1 import RQ1_TABLES
from cueshift.designs.stylisticbias.report.rq2 import RQ2_TABLES
from cueshift.designs.stylisticbias.report.rq3 import RQ3_TABLES
from cueshift.designs.stylisticbias.report.summary import SUMMARY_TABLES
from cueshift.report import EMPHASIS_LEGEND_MD, Catalog, TextSpec

CATALOG = Catalog(
    document="study.qmd",
    tables=(*SUMMARY_TABLES, *RQ1_TABLES, *RQ2_TABLES, *RQ3_TABLES),
    figures=FIGURES,
    texts=(TextSpec("cumulative_summary", cumulative_summary, ("result_cumulative_abs_sbs",)),),
    notation=EMPHASIS_LEGEND_MD,
)

__all__ = ["CATALOG", "delta_class", "delta_fill"]

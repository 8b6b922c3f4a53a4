"""The StylisticBias (seed 000) report: what ``reports/study.qmd`` shows, declared for the report facade.

:data:`CATALOG` holds the study-summary and data-quality tables (S1, S2, S6–S12), the RQ1–RQ3 tables on
the statistics engine's ``result_*`` tables, Figures 2–5 and the cumulative-|SBS| sentence.
Significance is shown in the paper's notation (seed 000 §4.4): bold p < 0.001, underlined
p ≥ 0.05, computed from the stored p-values at render time.
"""

from __future__ import annotations

from cueshift.designs.stylisticbias.report.audit import AUDIT_FIGURES, AUDIT_TABLES, AUDIT_TEXTS
from cueshift.designs.stylisticbias.report.effects import EFFECTS_FIGURES, EFFECTS_TABLES, EFFECTS_TEXTS
from cueshift.designs.stylisticbias.report.equivalence import EQUIVALENCE_TABLES, EQUIVALENCE_TEXTS
from cueshift.designs.stylisticbias.report.figure_cumulative import cumulative_summary
from cueshift.designs.stylisticbias.report.figures import FIGURES
from cueshift.designs.stylisticbias.report.findings import FINDINGS_TEXTS
from cueshift.designs.stylisticbias.report.invariance import INVARIANCE_TABLES, INVARIANCE_TEXTS
from cueshift.designs.stylisticbias.report.labels import delta_class, delta_fill
from cueshift.designs.stylisticbias.report.missing import MISSING_FIGURES, MISSING_TABLES, MISSING_TEXTS
from cueshift.designs.stylisticbias.report.models import MODELS_FIGURES, MODELS_TABLES, MODELS_TEXTS
from cueshift.designs.stylisticbias.report.multiverse import (
    MULTIVERSE_FIGURES,
    MULTIVERSE_TABLES,
    MULTIVERSE_TEXTS,
)
from cueshift.designs.stylisticbias.report.noise import NOISE_FIGURES, NOISE_TABLES, NOISE_TEXTS
from cueshift.designs.stylisticbias.report.pooling import POOLING_FIGURES
from cueshift.designs.stylisticbias.report.rq1 import RQ1_TABLES
from cueshift.designs.stylisticbias.report.rq2 import RQ2_TABLES
from cueshift.designs.stylisticbias.report.rq3 import RQ3_TABLES
from cueshift.designs.stylisticbias.report.subgroups import SUBGROUPS_TABLES
from cueshift.designs.stylisticbias.report.summary import SUMMARY_TABLES
from cueshift.render import EMPHASIS_LEGEND_MD, Catalog, FigureSpec, TableSpec, TextSpec

#: The reviewers' additions, each shown by one ``report.section(name)`` cell of ``study.qmd``.
_SECTIONS: tuple[tuple[str, tuple[TableSpec, ...], tuple[FigureSpec, ...], tuple[TextSpec, ...]], ...] = (
    ("equivalence", EQUIVALENCE_TABLES, (), EQUIVALENCE_TEXTS),
    ("noise_floor", NOISE_TABLES, NOISE_FIGURES, NOISE_TEXTS),
    ("missing_answers", MISSING_TABLES, MISSING_FIGURES, MISSING_TEXTS),
    ("effects", EFFECTS_TABLES, EFFECTS_FIGURES, EFFECTS_TEXTS),
    ("model_comparison", MODELS_TABLES, MODELS_FIGURES, MODELS_TEXTS),
    ("edit_audit", AUDIT_TABLES, AUDIT_FIGURES, AUDIT_TEXTS),
    ("multiverse", MULTIVERSE_TABLES, MULTIVERSE_FIGURES, MULTIVERSE_TEXTS),
    ("invariance", INVARIANCE_TABLES, (), INVARIANCE_TEXTS),
)

CATALOG = Catalog(
    document="study.qmd",
    tables=(
        *SUMMARY_TABLES,
        *RQ1_TABLES,
        *RQ2_TABLES,
        *RQ3_TABLES,
        *SUBGROUPS_TABLES,  # Tables 2b–11c, each shown after its own table (D65)
        *(t for s in _SECTIONS for t in s[1]),
    ),
    figures=(*FIGURES, *POOLING_FIGURES, *(f for s in _SECTIONS for f in s[2])),
    texts=(
        *FINDINGS_TEXTS,
        TextSpec("cumulative_summary", cumulative_summary, ("result_cumulative_abs_sbs",)),
        *(t for s in _SECTIONS for t in s[3]),
    ),
    notation=EMPHASIS_LEGEND_MD,
    sections=tuple(
        (name, tuple([x.key for x in texts] + [t.key for t in tables] + [f.key for f in figures]))
        for name, tables, figures, texts in _SECTIONS
    ),
)

__all__ = ["CATALOG", "delta_class", "delta_fill"]

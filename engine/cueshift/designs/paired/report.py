"""The paired (seed 001) report: what ``reports/paired.qmd`` shows, declared for the report facade.

Tables over the ``result_paired_*`` tables: the share of scenarios with an attractiveness bias,
the halo table (App. D Table 5), the gender- and race-stereotyped jobs (App. E–F Tables 6–7),
Table 1 and the overlap with demographic biases. As in the paper, the Kruskal–Wallis statistic
carries the standard star notation, computed from the stored p-value (``p_adj``: adjusted only when
the study's ``[paired] correction`` is ``"bh"``) at render time; each test's note says which, and
its number of images. Tables are numbered in the order ``reports/paired.qmd`` shows them:
Tables 1–2 in :mod:`.report_attractiveness`, Tables 3–7 in :mod:`.report_demographic`, the bias
within each group (Table 8, Figure 1) in :mod:`.report_by_group`, their shared notes in :mod:`.report_notes`.
"""

from __future__ import annotations

from cueshift.designs.paired.report_attractiveness import ATTRACTIVENESS_TABLES
from cueshift.designs.paired.report_by_group import BY_GROUP_FIGURES, BY_GROUP_TABLES
from cueshift.designs.paired.report_demographic import DEMOGRAPHIC_TABLES
from cueshift.render import STARS_LEGEND_MD, Catalog, TableSpec

TABLES: tuple[TableSpec, ...] = (*ATTRACTIVENESS_TABLES, *DEMOGRAPHIC_TABLES, *BY_GROUP_TABLES)

CATALOG = Catalog(document="paired.qmd", tables=TABLES, figures=BY_GROUP_FIGURES, notation=STARS_LEGEND_MD)

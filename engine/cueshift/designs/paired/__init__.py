"""The paired original-vs-filtered design (seed 001), registered as ``design = "paired"``.

``section.py`` declares ``[paired]``, ``workload.py`` the study as the runner sees it,
``design.py`` the design (work units, options), ``analyses.py`` its result tables, ``stats.py``
their statistics, ``report.py`` its report, ``planner.py`` its ``cueshift plan``:

=========================================  ==================================================
``result_paired_attractiveness``           KW (paper) and Wilcoxon per model × scenario (§4.1)
``result_paired_halo``                     App. D Table 5 on the positive-first traits (§4.2)
``result_paired_significance_share``       share of significant scenarios per family (§4.1)
``result_paired_demographic``              KW across gender / age / race groups
``result_paired_demographic_means``        mean s per group (App. E Table 6, App. F Table 7)
``result_paired_attractiveness_by_group``  attractiveness bias within each group (Fig. 5)
``result_paired_strongest_group``          group with the strongest bias, counts (App. C)
``result_paired_attractiveness_vs_demo…``  Table 1: demographic bias stronger in F, F^b, or none
``result_paired_overlap``                  scenarios with both biases (§4.3.1, Fig. 4)
``result_paired_race_jobs``                the two stereotyped races per race job (Table 7)
=========================================  ==================================================
"""

from cueshift.designs.paired.design import PairedDesign
from cueshift.designs.paired.section import PairedConfig, PairedStudy
from cueshift.designs.paired.workload import prepared_study

DESIGN = PairedDesign()

__all__ = ["DESIGN", "PairedConfig", "PairedDesign", "PairedStudy", "prepared_study"]

"""The two-image pairwise design with 0-10 ratings (seed 002), registered as ``design = "pairwise"``.

``section.py`` declares ``[pairwise]``, ``plan.py`` the work units (trials, ratings, human
ratings), ``design.py`` the design, ``analyses.py`` its ``result_pairwise_*`` tables,
``stats.py`` their statistics and ``report.py`` its report.
"""

from cueshift.designs.pairwise.design import PairwiseDesign
from cueshift.designs.pairwise.section import PairwiseConfig, PairwiseStudy, RatingBin

DESIGN = PairwiseDesign()

__all__ = ["DESIGN", "PairwiseConfig", "PairwiseDesign", "PairwiseStudy", "RatingBin"]

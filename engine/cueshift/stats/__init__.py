"""The statistics engine: every RQ1–RQ3 result of seed 000 as tidy, validated frames.

Public surface (implementation in private modules):

- metrics — :func:`phi_from_judgments`, :func:`sbs_levels`, :func:`variation_strength`,
  :func:`model_summary`, :func:`cumulative_abs_sbs`
- tests — :func:`signed_rank_columns`, :func:`mann_whitney_columns`, :func:`kruskal_columns`,
  :func:`one_way_anova`, :func:`pearson_slope`, :func:`bh_adjust`
- tables of the paper — :func:`demographic_tests` / :func:`significance_share` (Table 9),
  :func:`face_anova` and :func:`mixed_model` (Table 10), :func:`category_demographic_table`
  (Table 3), :func:`fashion_age_table` (Table 4), :func:`negativity_asymmetry` (§5.2),
  :func:`demographic_variation_table` (Table 11), :func:`cross_model` / :func:`category_ranking`
  (Fig. 5, §5.3)
- resampling — :func:`cluster_bootstrap`, :func:`sign_flip_test`, :func:`label_permutation_test`
- declared analyses — :data:`ANALYSES`, :func:`analysis`, :func:`run_analyses`,
  :func:`print_headlines`
"""

from cueshift.stats._attributes import (
    category_demographic_table,
    demographic_variation_table,
    fashion_age_table,
    negativity_asymmetry,
)
from cueshift.stats._classic import one_way_anova, pearson_slope
from cueshift.stats._console import print_headlines, stars
from cueshift.stats._constants import MEAN_OF_MODELS, POOLED
from cueshift.stats._crossmodel import category_ranking, cross_model, scenario_means
from cueshift.stats._demographic import demographic_tests, face_anova, significance_share
from cueshift.stats._faces import FaceMatrix, face_matrix
from cueshift.stats._metrics import cumulative_abs_sbs, model_summary, phi_from_judgments, variation_strength
from cueshift.stats._mixed import mixed_model, mixed_model_cells
from cueshift.stats._multiplicity import bh_adjust, bh_by_family
from cueshift.stats._permutation import label_permutation_test, sign_flip_test
from cueshift.stats._rank import kruskal_columns, mann_whitney_columns, signed_rank_columns
from cueshift.stats._registry import ANALYSES, Analysis, AnalysisContext, analysis, load_inputs, run_analyses
from cueshift.stats._resample import BootstrapResult, cluster_bootstrap, face_multiplicities
from cueshift.stats._sbs import LEVELS, one_sample_test, sbs_levels

__all__ = [
    "ANALYSES",
    "LEVELS",
    "MEAN_OF_MODELS",
    "POOLED",
    "Analysis",
    "AnalysisContext",
    "BootstrapResult",
    "FaceMatrix",
    "analysis",
    "bh_adjust",
    "bh_by_family",
    "category_demographic_table",
    "category_ranking",
    "cluster_bootstrap",
    "cross_model",
    "cumulative_abs_sbs",
    "demographic_tests",
    "demographic_variation_table",
    "face_anova",
    "face_matrix",
    "face_multiplicities",
    "fashion_age_table",
    "kruskal_columns",
    "label_permutation_test",
    "load_inputs",
    "mann_whitney_columns",
    "mixed_model",
    "mixed_model_cells",
    "model_summary",
    "negativity_asymmetry",
    "one_sample_test",
    "one_way_anova",
    "pearson_slope",
    "phi_from_judgments",
    "print_headlines",
    "run_analyses",
    "sbs_levels",
    "scenario_means",
    "sign_flip_test",
    "signed_rank_columns",
    "significance_share",
    "stars",
    "variation_strength",
]

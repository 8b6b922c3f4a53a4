"""The statistics engine: kernels once, and every RQ1–RQ3 result of seed 000 as tidy, validated frames.

Public surface (implementation in private modules); the design statistics
(``designs/<name>/stats.py``) are compositions of these kernels:

- statistics on a frame — any polars frame and its column names in, one tidy validated frame out
  (the ``by`` columns, then ``estimate, ci_low, ci_high, statistic, p, p_adj, n, method``), through
  the same kernels as the design analyses: :func:`mean_shift` (subject-clustered bootstrap),
  :func:`wilcoxon`, :func:`kruskal`, :func:`mann_whitney`, :func:`bh`, :func:`sbs`, :func:`vs`,
  :func:`wilson`, :func:`binomial`, :func:`split_half`, :func:`krippendorff`,
  :func:`model_difference`, :func:`shrink` (partial pooling of cells towards their parents)
- rank tests — :func:`signed_rank_columns`, :func:`mann_whitney_columns`, :func:`kruskal_columns`
  (many cells at once, numba), :func:`wilcoxon_signed_rank`, :func:`kruskal_wallis` (one sample)
- resampling and permutation — :func:`cluster_bootstrap`, :func:`face_multiplicities`,
  :func:`sign_flip_test`, :func:`label_permutation_test`
- multiplicity — :func:`bh_adjust`, :func:`bh_by_family`
- proportions — :func:`wilson_interval`, :func:`binomial_test`, :func:`odds_ratio`,
  :func:`proportion_rows`
- means — :func:`mean_interval`, :func:`welch_interval`, :func:`t_half_width`,
  :func:`one_way_anova`, :func:`cohens_dz`
- correlations and structure — :func:`pearson_slope`, :func:`spearman_with_ci`,
  :func:`correlate`, :func:`correlation_columns`, :func:`attribute_correlations`,
  :func:`frobenius_similarity`, :func:`ward_clusters`, :func:`adjusted_rand_index`
- reliability — :func:`krippendorff_alpha`, :func:`krippendorff_by_attribute`,
  :func:`spearman_brown`, :func:`split_half_reliability`
- logistic models — :func:`logistic_fit`, :func:`wald_test`, :func:`bradley_terry_fit`;
  mixed models — :func:`mixed_model`; OLS with few clusters — :func:`cr2_satterthwaite` (CR2
  sandwich, Satterthwaite df)
- sensitivity to unobserved confounding — :func:`robustness_value`, :func:`partial_r2`,
  :func:`face_robustness`, benchmark bounds :func:`ovb_bounds` (Cinelli & Hazlett 2020)
- metrics of seed 000 — :func:`phi_from_judgments`, :func:`sbs_levels`, :func:`variation_strength`,
  :func:`model_summary`, :func:`cumulative_abs_sbs`
- tables of seed 000 — :func:`demographic_tests` / :func:`significance_share` (Table 9),
  :func:`face_anova` and :func:`mixed_model` (Table 10), :func:`category_demographic_table`
  (Table 3), :func:`fashion_age_table` (Table 4), :func:`negativity_asymmetry` (§5.2),
  :func:`demographic_variation_table` (Table 11), :func:`cross_model` / :func:`category_ranking`
  (Fig. 5, §5.3)
- model comparisons with error bars — :func:`model_differences` (paired SBS differences of model
  pairs), :func:`clustered_standard_error`, :func:`naive_standard_error`, :func:`design_effect`,
  :func:`scenario_reversals` (sign reversals with evidence)
- declared analyses — :class:`Declarations` (a design's analyses, handed to :func:`run_suite`),
  :data:`ANALYSES` (every design's, filled by the design registry); :func:`analysis` is
  deprecated; a run's settings: :class:`Resampling`, :class:`RunChoices`
- kernels the design statistics compose — face matrices and sums (:func:`face_matrix`,
  :func:`face_sums`, :func:`study_faces`, :func:`cell_codes`, :func:`encode_categories`,
  :func:`face_labels`, :func:`coarsen`, :func:`regroup`, :func:`group_means`, :func:`row_means`),
  exact means (:func:`exact_bincount`, :func:`scaled_integers`, :func:`count_denominator`,
  :func:`ratio_means`), the crossed bootstrap (:func:`crossed_bootstrap`,
  :func:`scenario_multiplicities`, :func:`scenario_sums`, :data:`GENERALISE`), intervals of
  effects and contrasts (:func:`bias_shifted_interval`, :func:`eta_squared_replicates`,
  :func:`refit_interval` (at most :data:`MODEL_REFITS` refits of a mixed model,
  :data:`CROSSED_REFITS` of the crossed one), :func:`group_difference_interval`, :func:`clustered_wilson`,
  :func:`pooled_standard_errors`),
  :func:`returns` (checks a result frame against its schema) and the labels every design shares
  (:data:`POOLED`, :data:`MEAN_OF_MODELS`, :data:`ALPHA`); the StylisticBias tables' own constants
  are in :mod:`cueshift.designs.stylisticbias.constants`

This is the one public face: the designs import these names from ``cueshift.stats`` as users do.
"""

import cueshift._jit  # noqa: F401  (numba's cache folder, before any kernel is decorated)
from cueshift.stats._anova import AnovaResult, one_way_anova
from cueshift.stats._cell_codes import cell_codes, encode_categories
from cueshift.stats._checked import returns
from cueshift.stats._clustered import clustered_standard_error, design_effect, naive_standard_error
from cueshift.stats._clustered_share import clustered_wilson
from cueshift.stats._constants import ALPHA, MEAN_OF_MODELS, POOLED
from cueshift.stats._contrast import group_difference_interval
from cueshift.stats._correlation import (
    CORRELATION_SCHEMA,
    CorrelationResult,
    correlate,
    correlation_columns,
    pearson_slope,
    spearman_with_ci,
)
from cueshift.stats._crossed import CROSSED_REFITS, crossed_model, crossed_model_cells, variance_components
from cueshift.stats._crossed_resample import crossed_bootstrap
from cueshift.stats._declarations import Declarations
from cueshift.stats._deprecated_registry import (
    ANALYSES,
    analysis,
    declare_analyses,
    suite_analyses,
)
from cueshift.stats._effect_intervals import (
    MODEL_REFITS,
    bias_shifted_interval,
    eta_squared_replicates,
    refit_interval,
)
from cueshift.stats._equal_values import cohens_dz
from cueshift.stats._equivalence import VERDICTS, Tost, equivalence_verdicts, tost
from cueshift.stats._exact_means import count_denominator, exact_bincount, ratio_means, scaled_integers
from cueshift.stats._face_draws import face_multiplicities
from cueshift.stats._face_sums import FaceSums, coarsen, face_sums, regroup, row_means
from cueshift.stats._faces import (
    FaceMatrix,
    face_labels,
    face_matrix,
    group_means,
    study_faces,
)
from cueshift.stats._folded import abs_interval, mean_abs_interval
from cueshift.stats._frame_means import mean_shift, sbs
from cueshift.stats._frame_paired import model_difference
from cueshift.stats._frame_rank import bh, kruskal, mann_whitney, wilcoxon
from cueshift.stats._frame_reliability import krippendorff, split_half
from cueshift.stats._frame_shares import binomial, wilson
from cueshift.stats._frame_shrink import shrink
from cueshift.stats._frame_vs import vs
from cueshift.stats._group_rank import KruskalResult, kruskal_columns, kruskal_wallis, mann_whitney_columns
from cueshift.stats._identity import identity_drops, identity_outliers, robust_z, row_cosines
from cueshift.stats._intervals import mean_interval, t_half_width, welch_interval
from cueshift.stats._logistic import (
    BradleyTerryFit,
    LogisticFit,
    WaldResult,
    bradley_terry_fit,
    logistic_fit,
    wald_test,
)
from cueshift.stats._mixed import mixed_model, mixed_model_cells
from cueshift.stats._multiplicity import Correction, bh_adjust, bh_by_family
from cueshift.stats._one_sample import one_sample_test
from cueshift.stats._ovb_bounds import OvbBound, ovb_bounds
from cueshift.stats._permutation import label_permutation_test, sign_flip_test
from cueshift.stats._plan_record import PlanRecord, current_plan, following_plan
from cueshift.stats._proportions import (
    PseudoCount,
    binomial_test,
    odds_ratio,
    proportion_rows,
    wilson_interval,
)
from cueshift.stats._ranks import RankTestResult
from cueshift.stats._registry import (
    Analysis,
    AnalysisContext,
    NotApplicable,
    RunResults,
    RunSettings,
)
from cueshift.stats._reliability import (
    Level,
    krippendorff_alpha,
    krippendorff_by_attribute,
    rating_matrix,
    spearman_brown,
    split_half_reliability,
)
from cueshift.stats._resample import BootstrapResult, cluster_bootstrap
from cueshift.stats._robustness import Robustness, face_robustness, partial_r2, robustness_value
from cueshift.stats._scenario_draws import GENERALISE, scenario_multiplicities, scenario_sums
from cueshift.stats._settings import (
    DEFAULT_RESAMPLES,
    CIMethod,
    Resampling,
    RunChoices,
    TestMethod,
)
from cueshift.stats._shrinkage import ShrinkageResult, eb_shrink, pooled_standard_errors
from cueshift.stats._signed_rank import ZeroMethod, signed_rank_columns
from cueshift.stats._signed_rank_sample import SignedRankResult, wilcoxon_signed_rank
from cueshift.stats._small_sample_cluster import CR2Inference, cr2_satterthwaite
from cueshift.stats._structure import (
    adjusted_rand_index,
    attribute_correlations,
    frobenius_similarity,
    ward_clusters,
)
from cueshift.stats._suite import run_suite
from cueshift.stats._vs import VsResult, variation_strength_kernel, vs_max
from cueshift.stats._vs_equivalence import VsTost, vs_tost

__all__ = [
    "mean_shift",
    "wilcoxon",
    "kruskal",
    "mann_whitney",
    "bh",
    "sbs",
    "vs",
    "wilson",
    "binomial",
    "split_half",
    "krippendorff",
    "model_difference",
    "shrink",
    "ShrinkageResult",
    "eb_shrink",
    "CORRELATION_SCHEMA",
    "ANALYSES",
    "MEAN_OF_MODELS",
    "POOLED",
    "Analysis",
    "AnalysisContext",
    "RunResults",
    "AnovaResult",
    "BootstrapResult",
    "BradleyTerryFit",
    "CIMethod",
    "Correction",
    "CorrelationResult",
    "FaceMatrix",
    "KruskalResult",
    "Level",
    "LogisticFit",
    "NotApplicable",
    "PseudoCount",
    "RankTestResult",
    "RunSettings",
    "PlanRecord",
    "Resampling",
    "RunChoices",
    "DEFAULT_RESAMPLES",
    "Declarations",
    "SignedRankResult",
    "TestMethod",
    "WaldResult",
    "ZeroMethod",
    "adjusted_rand_index",
    "analysis",
    "declare_analyses",
    "attribute_correlations",
    "bh_adjust",
    "bh_by_family",
    "binomial_test",
    "bradley_terry_fit",
    "cluster_bootstrap",
    "clustered_standard_error",
    "cr2_satterthwaite",
    "CR2Inference",
    "cohens_dz",
    "correlate",
    "correlation_columns",
    "crossed_model",
    "crossed_model_cells",
    "current_plan",
    "design_effect",
    "face_matrix",
    "face_multiplicities",
    "following_plan",
    "frobenius_similarity",
    "krippendorff_alpha",
    "abs_interval",
    "mean_abs_interval",
    "VsResult",
    "variation_strength_kernel",
    "vs_max",
    "identity_drops",
    "identity_outliers",
    "krippendorff_by_attribute",
    "kruskal_columns",
    "kruskal_wallis",
    "label_permutation_test",
    "logistic_fit",
    "mann_whitney_columns",
    "mean_interval",
    "mixed_model",
    "mixed_model_cells",
    "naive_standard_error",
    "odds_ratio",
    "one_sample_test",
    "tost",
    "Tost",
    "vs_tost",
    "VsTost",
    "equivalence_verdicts",
    "VERDICTS",
    "one_way_anova",
    "pearson_slope",
    "proportion_rows",
    "rating_matrix",
    "robust_z",
    "row_cosines",
    "run_suite",
    "sign_flip_test",
    "signed_rank_columns",
    "spearman_brown",
    "spearman_with_ci",
    "split_half_reliability",
    "suite_analyses",
    "t_half_width",
    "variance_components",
    "wald_test",
    "robustness_value",
    "partial_r2",
    "face_robustness",
    "Robustness",
    "ovb_bounds",
    "OvbBound",
    "ward_clusters",
    "welch_interval",
    "wilcoxon_signed_rank",
    "wilson_interval",
    # kernels the design statistics compose
    "ALPHA",
    "GENERALISE",
    "FaceSums",
    "bias_shifted_interval",
    "cell_codes",
    "clustered_wilson",
    "coarsen",
    "count_denominator",
    "crossed_bootstrap",
    "encode_categories",
    "eta_squared_replicates",
    "refit_interval",
    "MODEL_REFITS",
    "CROSSED_REFITS",
    "exact_bincount",
    "face_labels",
    "face_sums",
    "group_difference_interval",
    "group_means",
    "pooled_standard_errors",
    "ratio_means",
    "regroup",
    "returns",
    "row_means",
    "scaled_integers",
    "scenario_multiplicities",
    "scenario_sums",
    "study_faces",
]

"""Kernels the designs compose (face matrices, resampling, rank tests, exact means, constants).

For the designs' own statistics; researchers use the frame functions of :mod:`cueshift.stats`."""

from cueshift.stats._anova import one_way_anova
from cueshift.stats._checked import returns
from cueshift.stats._clustered import clustered_standard_error, design_effect, naive_standard_error
from cueshift.stats._clustered_share import clustered_wilson
from cueshift.stats._constants import (
    ALPHA,
    ASYMMETRY_PAIRS,
    DIMENSIONS,
    ELDERLY,
    FASHION_CATEGORY,
    LARGE_SHIFT,
    LME_CATEGORY_MAP,
    MANN_WHITNEY_DIMENSIONS,
    MEAN_OF_MODELS,
    POOLED,
    TABLE3_CATEGORY_MAP,
    YOUNG,
)
from cueshift.stats._contrast import group_difference_interval
from cueshift.stats._correlation import pearson_slope
from cueshift.stats._crossed_resample import (
    GENERALISE,
    crossed_bootstrap,
    scenario_multiplicities,
    scenario_sums,
)
from cueshift.stats._effect_intervals import bias_shifted_interval, eta_squared_replicates
from cueshift.stats._exact_means import count_denominator, exact_bincount, ratio_means, scaled_integers
from cueshift.stats._faces import (
    F64,
    FaceMatrix,
    FaceSums,
    cell_codes,
    coarsen,
    encode_categories,
    face_labels,
    face_matrix,
    face_sums,
    group_means,
    regroup,
    row_means,
    study_faces,
)
from cueshift.stats._folded import mean_abs_interval
from cueshift.stats._group_rank import kruskal_columns, mann_whitney_columns
from cueshift.stats._multiplicity import bh_adjust, bh_by_family
from cueshift.stats._one_sample import TestMethod, one_sample_test
from cueshift.stats._permutation import label_permutation_test, sign_flip_test
from cueshift.stats._resample import BootstrapResult, CIMethod, cluster_bootstrap, face_multiplicities
from cueshift.stats._shrinkage import eb_shrink, pooled_standard_errors
from cueshift.stats._signed_rank import ZeroMethod, signed_rank_columns
from cueshift.stats._vs import variation_strength_kernel

__all__ = [
    "GENERALISE",
    "crossed_bootstrap",
    "scenario_multiplicities",
    "scenario_sums",
    "ALPHA",
    "ASYMMETRY_PAIRS",
    "BootstrapResult",
    "CIMethod",
    "DIMENSIONS",
    "ELDERLY",
    "F64",
    "FASHION_CATEGORY",
    "FaceMatrix",
    "FaceSums",
    "LARGE_SHIFT",
    "LME_CATEGORY_MAP",
    "MANN_WHITNEY_DIMENSIONS",
    "MEAN_OF_MODELS",
    "POOLED",
    "TABLE3_CATEGORY_MAP",
    "TestMethod",
    "YOUNG",
    "ZeroMethod",
    "cell_codes",
    "encode_categories",
    "bh_adjust",
    "bh_by_family",
    "bias_shifted_interval",
    "cluster_bootstrap",
    "clustered_standard_error",
    "clustered_wilson",
    "coarsen",
    "count_denominator",
    "design_effect",
    "eb_shrink",
    "eta_squared_replicates",
    "exact_bincount",
    "face_labels",
    "face_matrix",
    "face_multiplicities",
    "face_sums",
    "group_difference_interval",
    "group_means",
    "kruskal_columns",
    "label_permutation_test",
    "mann_whitney_columns",
    "mean_abs_interval",
    "naive_standard_error",
    "one_sample_test",
    "one_way_anova",
    "pearson_slope",
    "pooled_standard_errors",
    "ratio_means",
    "regroup",
    "returns",
    "row_means",
    "scaled_integers",
    "sign_flip_test",
    "signed_rank_columns",
    "study_faces",
    "variation_strength_kernel",
]

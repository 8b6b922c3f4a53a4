"""The StylisticBias (seed 000) tables: SBS at every level, VS, Tables 3, 4, 9-11, the noise floor,
missing answers, subgroups and model comparisons, composed of the kernels of :mod:`cueshift.stats`."""

from cueshift.designs.stylisticbias.stats._attributes import (
    MEAN_OF_GROUPS,
    category_demographic_table,
    demographic_variation_table,
)
from cueshift.designs.stylisticbias.stats._audit import audit_sensitivity
from cueshift.designs.stylisticbias.stats._audit_variations import audit_variations
from cueshift.designs.stylisticbias.stats._by_model import category_table_by_model, variation_table_by_model
from cueshift.designs.stylisticbias.stats._comparison import (
    COMPARISON_LEVELS,
    PairedCells,
    model_differences,
    paired_cells,
)
from cueshift.designs.stylisticbias.stats._crossmodel import category_ranking, cross_model, scenario_means
from cueshift.designs.stylisticbias.stats._cumulative import cumulative_abs_sbs
from cueshift.designs.stylisticbias.stats._demographic import (
    demographic_tests,
    face_anova,
    significance_share,
)
from cueshift.designs.stylisticbias.stats._equivalence import EQUIVALENCE_LEVELS, equivalence_table
from cueshift.designs.stylisticbias.stats._fashion_age import fashion_age_table
from cueshift.designs.stylisticbias.stats._group_reversals import (
    REVERSAL_EVIDENCE,
    opposite_sign_differences,
    reversal_flags,
)
from cueshift.designs.stylisticbias.stats._metrics import model_summary, phi_from_judgments
from cueshift.designs.stylisticbias.stats._missing import missing_rates, missing_shift
from cueshift.designs.stylisticbias.stats._missing_ordering import missing_by_ordering, missing_lean
from cueshift.designs.stylisticbias.stats._model_cells import ModelCells, model_cells, model_level_cells
from cueshift.designs.stylisticbias.stats._negativity import negativity_asymmetry
from cueshift.designs.stylisticbias.stats._noise import noise_floor
from cueshift.designs.stylisticbias.stats._noise_attributes import attributes_vs_floor
from cueshift.designs.stylisticbias.stats._noise_face_tests import ALL_PLACEBOS
from cueshift.designs.stylisticbias.stats._noise_grid import cell_abs_sbs
from cueshift.designs.stylisticbias.stats._reversals import scenario_reversals
from cueshift.designs.stylisticbias.stats._sbs import sbs_levels
from cueshift.designs.stylisticbias.stats._sbs_levels import LEVELS
from cueshift.designs.stylisticbias.stats._subgroup_tests import (
    crossed_demographic_tests,
    crossed_significance_share,
)
from cueshift.designs.stylisticbias.stats._subgroups import (
    ALL_PAIRS,
    DEFAULT_PAIRS,
    add_crossed_dimensions,
    crossed_category_table,
    crossed_name,
    crossed_variation_strength,
    crossed_variation_table,
    min_signed_rank_faces,
)
from cueshift.designs.stylisticbias.stats._summed import SummedDelta, summed_delta
from cueshift.designs.stylisticbias.stats._variation_strength import variation_strength

__all__ = [
    "ALL_PAIRS",
    "ALL_PLACEBOS",
    "COMPARISON_LEVELS",
    "MEAN_OF_GROUPS",
    "DEFAULT_PAIRS",
    "ModelCells",
    "LEVELS",
    "PairedCells",
    "REVERSAL_EVIDENCE",
    "SummedDelta",
    "add_crossed_dimensions",
    "attributes_vs_floor",
    "audit_sensitivity",
    "audit_variations",
    "category_demographic_table",
    "category_ranking",
    "category_table_by_model",
    "cell_abs_sbs",
    "cross_model",
    "crossed_category_table",
    "crossed_demographic_tests",
    "crossed_name",
    "crossed_significance_share",
    "crossed_variation_strength",
    "crossed_variation_table",
    "cumulative_abs_sbs",
    "demographic_tests",
    "demographic_variation_table",
    "face_anova",
    "fashion_age_table",
    "EQUIVALENCE_LEVELS",
    "equivalence_table",
    "min_signed_rank_faces",
    "missing_by_ordering",
    "missing_lean",
    "missing_rates",
    "missing_shift",
    "model_cells",
    "model_differences",
    "model_level_cells",
    "model_summary",
    "negativity_asymmetry",
    "noise_floor",
    "opposite_sign_differences",
    "paired_cells",
    "phi_from_judgments",
    "reversal_flags",
    "sbs_levels",
    "scenario_means",
    "scenario_reversals",
    "significance_share",
    "summed_delta",
    "variation_strength",
    "variation_table_by_model",
]

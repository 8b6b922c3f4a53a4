"""Names and defaults of the StylisticBias tables (seed 000 §4.4, §5, App. D).

Every default that resolves an ambiguity of the paper lives here, so a docstring can point at
it and a caller can override it. The labels shared by every design (:data:`~cueshift.stats.POOLED`,
:data:`~cueshift.stats.MEAN_OF_MODELS`, :data:`~cueshift.stats.ALPHA`) stay in
:mod:`cueshift.stats`.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

#: Demographic dimensions of the base faces, in the paper's column order (Tables 2, 3, 9, 11).
DIMENSIONS: Final = ("age", "gender", "ethnicity", "body_type")
#: Dimensions tested with Kruskal–Wallis (k > 2 groups) and Mann–Whitney U (gender) in Table 9.
KRUSKAL_DIMENSIONS: Final = ("age", "body_type", "ethnicity")
MANN_WHITNEY_DIMENSIONS: Final = ("gender",)

#: Display categories of Table 3: "Makeup & lips" and "Hair len./color" merge two categories each.
TABLE3_CATEGORY_MAP: Final = MappingProxyType(
    {
        "Makeup": "Makeup & lips",
        "Lip makeup": "Makeup & lips",
        "Hair length": "Hair len./color",
        "Hair color": "Hair len./color",
    }
)
#: Variation categories of the mixed model (Table 10, df = 10 → 11 levels): the 12 categories of
#: the whitelist with makeup and lip makeup merged. With 12 separate levels df would be 11.
LME_CATEGORY_MAP: Final = MappingProxyType({"Makeup": "Makeup & lips", "Lip makeup": "Makeup & lips"})

#: Negativity-asymmetry pairs (negative cue, positive counterpart) of §5.2. The paper names two of
#: its five pairs (Worn/Distressed vs Formal/Business, Messy vs Slicked back); the other three
#: are this package's choice of same-category opposites.
ASYMMETRY_PAIRS: Final = (
    ("Worn / Distressed clothing", "Professional / Business formal"),
    ("Messy", "Slicked back"),
    ("Worn / Distressed clothing", "Formal / Evening wear"),
    ("Streetwear", "Smart casual"),
    ("Mohawk", "Slicked back"),
)

#: Age groups contrasted in Table 4 (Mann–Whitney young vs elderly per fashion style).
YOUNG: Final = "young adult"
ELDERLY: Final = "elderly"
FASHION_CATEGORY: Final = "Fashion"

#: The cell at which the sign is removed for |SBS| (see
#: :func:`cueshift.designs.stylisticbias.stats.sbs_levels`).
ABS_UNIT: Final = ("model_id", "variation_value", "scenario_id")

#: Threshold of a "large" shift in Table 5.
LARGE_SHIFT: Final = 0.25

#: The range of Δ = φ(variation) − φ(base), φ a share in [0, 1], and of any mean of Δ (SBS); the
#: range of the difference of two models' Δ (the crossed intervals are cut at it).
DELTA_RANGE: Final = (-1.0, 1.0)
DELTA_DIFFERENCE_RANGE: Final = (-2.0, 2.0)

__all__ = [
    "ABS_UNIT",
    "ASYMMETRY_PAIRS",
    "DELTA_DIFFERENCE_RANGE",
    "DELTA_RANGE",
    "DIMENSIONS",
    "ELDERLY",
    "FASHION_CATEGORY",
    "KRUSKAL_DIMENSIONS",
    "LARGE_SHIFT",
    "LME_CATEGORY_MAP",
    "MANN_WHITNEY_DIMENSIONS",
    "TABLE3_CATEGORY_MAP",
    "YOUNG",
]

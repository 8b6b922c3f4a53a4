"""Labels and defaults shared by the statistics of every design.

The StylisticBias tables' own names and defaults (Table 3's category map, the asymmetry pairs,
Table 4's age groups, …) are in :mod:`cueshift.designs.stylisticbias.constants`.
"""

from __future__ import annotations

from typing import Final

#: ``model_id`` of rows pooled over models: the per-face mean over models is taken first.
#: The parentheses keep it apart from real model ids (config forbids them).
POOLED: Final = "(pooled)"
#: ``model_id`` of rows that average the per-model rows (the "Average" rows of Tables 2, 5, 9).
MEAN_OF_MODELS: Final = "(mean of models)"
#: Significance level of the tests' verdicts and of "significant" shares.
ALPHA: Final = 0.05

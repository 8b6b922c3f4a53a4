"""Result tables of the StylisticBias design: crossed random effects (faces and scenarios) and the
bootstrap intervals of Table 4's contrast, partial eta^2 and R2."""

from __future__ import annotations

from cueshift.schemas._result_base import ResultModel

#: These result tables by name (the table is ``result_<name>``).
EFFECTS_RESULTS: dict[str, type[ResultModel]] = {}

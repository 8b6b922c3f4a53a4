"""Result tables of the StylisticBias design: model comparisons with error bars: paired SBS
differences, clustered standard errors, design effects, sign reversals with evidence."""

from __future__ import annotations

from cueshift.schemas._result_base import ResultModel

#: These result tables by name (the table is ``result_<name>``).
MODELS_RESULTS: dict[str, type[ResultModel]] = {}

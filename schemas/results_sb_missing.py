"""Result tables of the StylisticBias design: missing answers: invalid and refusal rates per group
x variation x model, and their shifts."""

from __future__ import annotations

from cueshift.schemas._result_base import ResultModel

#: These result tables by name (the table is ``result_<name>``).
MISSING_RESULTS: dict[str, type[ResultModel]] = {}

"""Result tables of the StylisticBias design: crossed demographic subgroups (e.g. age x gender)
and per-model versions of Tables 2, 3, 9 and 11."""

from __future__ import annotations

from cueshift.schemas._result_base import ResultModel

#: These result tables by name (the table is ``result_<name>``).
SUBGROUPS_RESULTS: dict[str, type[ResultModel]] = {}

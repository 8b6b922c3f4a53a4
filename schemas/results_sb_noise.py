"""Result tables of the StylisticBias design: the noise floor: placebo variations (pixel-identical
copy, lossless re-encode) as a negative control."""

from __future__ import annotations

from cueshift.schemas._result_base import ResultModel

#: These result tables by name (the table is ``result_<name>``).
NOISE_RESULTS: dict[str, type[ResultModel]] = {}

"""The SQL views of ``sql/views/`` (``phi``, ``base_phi``, ``delta``) read as frames."""

from cueshift.views.frames import (
    BASE_COLUMNS,
    DELTA_COLUMNS,
    PLACEBO_FEATURE_KEY,
    phi_computed_once,
    read_base_phi,
    read_delta,
)
from cueshift.views.phi_choice import GREEDY, PhiChoice, check_scored, parse_phi

__all__ = [
    "GREEDY",
    "PhiChoice",
    "check_scored",
    "parse_phi",
    "BASE_COLUMNS",
    "DELTA_COLUMNS",
    "read_base_phi",
    "read_delta",
    "PLACEBO_FEATURE_KEY",
    "phi_computed_once",
]

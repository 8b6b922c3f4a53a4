"""Imported first by the benchmarks that use the test simulators (``tests.simulate``): puts the
repository root on ``sys.path``, so ``.venv/bin/python benchmarks/<script>.py`` runs from the
repository root without ``PYTHONPATH``."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

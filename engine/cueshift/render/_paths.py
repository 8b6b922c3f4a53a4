"""Where report documents are found and where rendered reports go (standard library only)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The report documents, shipped as package data (``cueshift/reports`` is the top-level ``reports/``),
#: so ``cueshift report`` works from an installed package as from a checkout.
REPORTS_DIR = Path(str(resources.files("cueshift").joinpath("reports")))
#: Default output folder, relative to the working directory.
DEFAULT_OUT = Path("reports/_out")

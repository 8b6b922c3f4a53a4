"""R's clubSandwich as the independent reference of the CR2 + Satterthwaite kernel.

:func:`clubsandwich_cr2` writes each dataset as CSV, runs ``clubsandwich_cr2.R`` once over them
and reads back clubSandwich's ``coef_test(lm(...), vcov = "CR2", test = "Satterthwaite")`` and
``conf_int``. Skipped where ``Rscript`` or clubSandwich is missing, except under
``CUESHIFT_REQUIRE_R=1`` (set by ``.ci/run``, which installs Debian's ``r-cran-clubsandwich``),
where that fails instead.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import polars as pl

from tests.rscript import require_rscript

SCRIPT = Path(__file__).with_name("clubsandwich_cr2.R")
#: R's own run time is a few seconds; the limit only stops a hung process.
R_TIMEOUT_S = 120


def clubsandwich_cr2(
    datasets: dict[str, pl.DataFrame], work: Path, level: float = 0.95
) -> dict[str, pl.DataFrame]:
    """clubSandwich's per-coefficient ``term, se, df, p, ci_low, ci_high`` of each dataset (columns
    ``y``, ``cl`` and the predictors; names lower-case letters, digits and ``_``)."""
    rscript = require_rscript("clubSandwich", "r-cran-clubsandwich")
    for name, data in datasets.items():
        data.write_csv(work / f"{name}.csv", float_precision=17)
    ran = subprocess.run(
        [rscript, str(SCRIPT), str(work), str(level)],
        capture_output=True,
        text=True,
        timeout=R_TIMEOUT_S,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    return {name: pl.read_csv(work / f"{name}.out.csv", null_values=["NA", "NaN"]) for name in datasets}

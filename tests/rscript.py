"""R as an independent reference: the ``Rscript`` of a test that needs one R package, skipped
where R or the package is missing, except under ``CUESHIFT_REQUIRE_R=1`` (set by ``.ci/run``,
which installs Debian's packages), where that fails instead."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


def r_missing(package: str, debian: str) -> str | None:
    """Why ``Rscript`` cannot load ``package`` here (naming the Debian package ``debian``), or None."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return f"no Rscript on PATH (apt-get install {debian})"
    loaded = subprocess.run(
        [rscript, "-e", f"suppressMessages(library({package}))"], capture_output=True, text=True, timeout=60
    )
    if loaded.returncode != 0:
        return f"R cannot load {package} (apt-get install {debian}): {loaded.stderr.strip()[-200:]}"
    return None


def require_rscript(package: str, debian: str) -> str:
    """``Rscript``'s path where it loads ``package``; else skip (fail under ``CUESHIFT_REQUIRE_R=1``)."""
    reason = r_missing(package, debian)
    if reason is not None:
        if os.environ.get("CUESHIFT_REQUIRE_R") == "1":
            pytest.fail(f"{package} reference tests required (CUESHIFT_REQUIRE_R=1) but {reason}")
        pytest.skip(f"{package} reference tests skipped: {reason}")
    return str(shutil.which("Rscript"))

"""A build killed with SIGKILL mid-way and resumed loses no image and makes none twice."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl

from cueshift.designs import load_study
from cueshift.images.manifest import read_manifest_table
from cueshift.stimuli.command import build_study
from cueshift.stimuli.run import BuildOptions
from tests.stimuli.studies import write_study


def _images(root: Path) -> int:
    return len(list((root / "set" / "images").glob("*/*.png")))


def test_kill_minus_nine_mid_build_then_resume(tmp_path: Path) -> None:
    path = write_study(tmp_path, count=4, base="{delay = 0.3}", edit="{delay = 0.3}")
    command = [sys.executable, "-m", "cueshift.cli", "build", "--study", str(path), "--no-progress"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while _images(tmp_path) < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.01)  # an event, not a time window: the kill lands once images are being made
    process.send_signal(signal.SIGKILL)
    process.wait()
    with duckdb.connect(str(tmp_path / "built.duckdb"), read_only=True) as con:
        before = con.sql("SELECT image_id, try, seed, sha256 FROM generation ORDER BY 1, 2").pl()
    assert 0 < before.height < 4 * 3, "the kill did not land mid-build"
    summary = build_study(load_study(path), BuildOptions(progress=False))
    with duckdb.connect(str(summary.database), read_only=True) as con:
        after = con.sql("SELECT image_id, try, seed, sha256 FROM generation ORDER BY 1, 2").pl()
    kept_tries = after.join(before, on=["image_id", "try"], suffix="_before")
    assert kept_tries.height == before.height  # every try stored before the kill is still there, unchanged
    assert (kept_tries["seed"] == kept_tries["seed_before"]).all()
    assert (kept_tries["sha256"] == kept_tries["sha256_before"]).all()
    assert after.select("image_id", "try").is_duplicated().sum() == 0
    assert after.height == 4 * 3  # no failures planted: one try per image, none lost, none twice
    manifest = read_manifest_table(summary.manifest)
    assert manifest.height == 4 * 3 and manifest["image_id"].is_unique().all()
    files = {p.stem for p in (tmp_path / "set" / "images").glob("*/*")}
    assert files == set(after["sha256"])  # no orphan file of the killed try left behind
    kept = pl.Series(manifest["path"]).str.extract(r"([0-9a-f]{64})")
    assert set(kept) == set(after["sha256"])

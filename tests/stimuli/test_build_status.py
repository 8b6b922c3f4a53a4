"""``cueshift status`` after a build: the build's figures from ``generation``, not an inference
run's "planned N, done 0"; an infer run after it is shown as an inference run again."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import polars as pl
from typer.testing import CliRunner

from cueshift.cli import app
from tests.stimuli.studies import write_study


def _status(path: Path) -> str:
    result = CliRunner().invoke(app, ["status", "--study", str(path)], terminal_width=400)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_status_reads_a_build_from_generation_and_an_infer_after_it_as_before(tmp_path: Path) -> None:
    import cueshift as cs

    path = write_study(tmp_path)
    built = cs.build(path, progress=False)
    with duckdb.connect(str(built.database), read_only=True) as con:
        tries = con.sql("SELECT * FROM generation").pl()
        (planned,) = con.execute("SELECT n_planned FROM run").fetchone() or (0,)
    kept = tries.filter(pl.col("outcome") == "ok")["image_id"].n_unique()
    per_slot = tries.group_by("image_id").agg(ok=(pl.col("outcome") == "ok").any(), n=pl.len())
    given_up = per_slot.filter(~pl.col("ok") & (pl.col("n") >= 3)).height
    outcomes = {k: tries.filter(pl.col("outcome") == k).height for k in ("refused", "failed", "rejected")}
    assert given_up > 0 and outcomes["refused"] > 0 and planned == 6 * 3  # 6 faces, 2 variations each

    shown = _status(path)
    assert "latest run is a build, finished" in shown
    assert f"slots kept {kept} of {planned} planned" in shown
    assert f"given up {given_up}" in shown
    assert (
        f"tries this run {tries.height} (refused {outcomes['refused']}, failed {outcomes['failed']}, "
        f"rejected {outcomes['rejected']})"
    ) in shown
    assert "done 0" not in shown and "sim-judge" not in shown  # no inference figures

    run = cs.infer(path, progress=False)
    shown = _status(path)
    assert "is a build" not in shown and "slots kept" not in shown
    found = re.search(r"latest run finished .*planned ([\d,]+), done ([\d,]+)", shown)
    assert found is not None, shown
    assert int(found[2].replace(",", "")) == run.n_written > 0
    assert "sim-judge" in shown

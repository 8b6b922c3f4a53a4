"""The build loop with the demo-faces test double: retries, the audit gate, the manifest, resume,
and build -> infer -> analyze on the built set."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from cueshift.designs import load_study
from cueshift.errors import ConfigError
from cueshift.images.manifest import read_manifest_table
from cueshift.stimuli.command import build_study
from cueshift.stimuli.run import BuildOptions
from tests.stimuli.studies import write_study

QUIET = BuildOptions(progress=False)


def _generation(db: object) -> pl.DataFrame:
    with duckdb.connect(str(db), read_only=True) as con:
        frame: pl.DataFrame = con.sql("SELECT * FROM generation ORDER BY image_id, try").pl()
    return frame


def test_retries_until_kept_or_max_tries_and_the_manifest_lists_the_kept(
    tmp_path: Path,
) -> None:
    study = load_study(write_study(tmp_path))
    summary = build_study(study, QUIET)
    rows = _generation(summary.database)
    assert rows.filter(pl.col("outcome") == "ok")["image_id"].is_unique().all()
    per_slot = rows.group_by("image_id").agg(n=pl.len(), last=pl.col("outcome").last(), tries=pl.col("try"))
    for slot in per_slot.iter_rows(named=True):
        assert slot["tries"] == list(range(1, slot["n"] + 1))  # tries numbered 1..n, none skipped
        assert slot["last"] == "ok" or slot["n"] == 3  # kept, or max_tries spent
        assert slot["n"] == 1 or slot["last"] == "ok" or slot["n"] == 3
    assert rows.filter(pl.col("outcome") != "ok").height > 0  # the planted failures happened
    rejected = rows.filter(pl.col("outcome") == "rejected")
    assert rejected.height > 0 and rejected["message"].str.contains("changed_pixels").all()
    assert rows["seed"].n_unique() == rows.height  # a new seed every try
    manifest = read_manifest_table(summary.manifest)
    kept = set(rows.filter(pl.col("outcome") == "ok")["image_id"])
    bases = set(manifest.filter(pl.col("role") == "base")["image_id"])
    assert bases == {i for i in kept if "--" not in i}
    for row in manifest.filter(pl.col("role") == "variation").iter_rows(named=True):
        assert row["base_image_id"] in bases and row["verdict"] == "passed"
        last = rows.filter((pl.col("image_id") == row["image_id"]) & (pl.col("outcome") == "ok"))
        assert row["tries"] == str(last["try"][0]) and row["seed"] == str(last["seed"][0])
        assert (summary.manifest.parent / row["path"]).is_file()
    assert summary.n_kept == manifest.height


def test_a_second_build_makes_nothing_again(tmp_path: Path) -> None:
    path = write_study(tmp_path)
    first = build_study(load_study(path), QUIET)
    before = _generation(first.database)
    again = build_study(load_study(path), QUIET)
    assert again.n_tries_this_run == 0
    assert _generation(again.database).equals(before)


def test_limit_makes_the_first_faces_and_a_later_build_the_rest(tmp_path: Path) -> None:
    path = write_study(tmp_path, base="{}", edit="{}")
    build_study(load_study(path), BuildOptions(limit=2, progress=False))
    made = _generation(tmp_path / "built.duckdb")
    assert sorted(made.filter(pl.col("stage") == "base")["image_id"]) == ["base-00001", "base-00002"]
    summary = build_study(load_study(path), QUIET)
    assert summary.n_kept == 6 * 3 and summary.n_tries_this_run == 4 * 3


def test_balanced_allocation_and_the_summary_names_a_lost_cell(tmp_path: Path) -> None:
    path = write_study(tmp_path, count=8, base="{refuse_rate = 0.6}", edit="{}")
    summary = build_study(load_study(path), QUIET)
    assert summary.by_cell["planned"].to_list() == [2, 2, 2, 2]
    lost = summary.by_cell.filter(pl.col("kept") < 2)
    assert lost.height > 0  # with p = 0.6 per try, 8 bases lose some (fixed seeds: deterministic)
    named = [line for line in summary.lines if line.startswith("unbalanced: cell")]
    assert all(any(cell in line for line in named) for cell in lost["cell"])


@pytest.mark.parametrize(
    ("extra_grid", "message"),
    [
        ('\n[build.prompts]\nbase = "a {mood} person"\n', r"\[build.prompts\] base: unknown slot \{mood\}"),
        ('\n[build.prompts]\nface = "change {feature"\n', r"\[build.prompts\] face: not a prompt template"),
    ],
)
def test_a_bad_prompt_family_is_one_line_and_writes_nothing(
    tmp_path: Path, extra_grid: str, message: str
) -> None:
    path = write_study(tmp_path, extra=extra_grid)
    with pytest.raises(ConfigError, match=message):
        build_study(load_study(path), QUIET)
    assert not (tmp_path / "built.duckdb").exists()
    assert not (tmp_path / "set").exists()


def test_a_bad_grid_is_one_line_from_the_command_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from cueshift.cli import app

    path = write_study(tmp_path)
    path.write_text(path.read_text().replace('age = ["young adult", "elderly"]', "age = []"))
    result = CliRunner().invoke(app, ["build", "--study", str(path), "--no-progress"])
    assert result.exit_code == 2
    assert "grid field 'age' has no values" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "built.duckdb").exists()


def test_build_then_infer_then_analyze(tmp_path: Path) -> None:
    import cueshift as cs

    path = write_study(tmp_path)
    built = cs.build(path, progress=False)
    run = cs.infer(path, progress=False)
    assert run.n_written > 0
    cs.analyze(path, resamples=100)
    with duckdb.connect(str(built.database), read_only=True) as con:
        judged = con.execute(
            "SELECT count(DISTINCT j.image_id) FROM judgment j JOIN image i USING (image_id) "
            "WHERE coalesce(i.feature_key, '') <> 'placebo'"
        ).fetchall()
        assert judged == [(built.n_kept,)]  # every kept image judged (besides the design's placebos)
        assert con.execute("SELECT count(*) FROM result_manifest").fetchall()[0][0] > 0

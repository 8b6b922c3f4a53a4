"""``cs.plan`` against ``cueshift plan`` on the same study: the frames it returns are the tables the
command writes, it prints what the command prints only with ``quiet=False``; bad input raises the
command's one line and writes nothing (D78)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import cueshift as cs
from cueshift.designs import load_study
from cueshift.stimuli.cost import generation_cost
from tests.api.conftest import Demo, cli
from tests.stimuli.studies import write_study

#: Small and seeded: a few simulated studies and curve points, so the simulated columns are filled.
OPTIONS = {"simulations": 8, "curve_simulations": 4, "seed": 3, "faces": 12, "throughput": 50.0}
TABLES = ("plan_power", "plan_components", "plan_cost", "plan_curve")
#: plan_curve's column that records how long a point took, not what it is.
TIMING = "seconds"


def _flags(options: Mapping[str, object]) -> list[str]:
    return [part for k, v in options.items() for part in (f"--{k.replace('_', '-')}", str(v))]


def test_plan_returns_the_tables_the_command_writes_and_prints_what_it_prints(
    demo: Demo, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    via_cli = tmp_path / "cli"
    monkeypatch.setenv("COLUMNS", "120")  # the same width for the command (piped) and the function
    done = cli(
        "plan", "--study", str(demo.study_file), "--out", str(via_cli), "--no-progress", *_flags(OPTIONS)
    )
    assert done.returncode == 0, done.stderr
    capsys.readouterr()
    quiet = cs.plan_study(demo.study_file, out=tmp_path / "quiet", **OPTIONS)  # type: ignore[arg-type]
    assert capsys.readouterr() == ("", "")  # quiet=True: nothing on stdout or stderr
    planned = cs.plan_study(demo.study_file, out=tmp_path / "api", quiet=False, **OPTIONS)  # type: ignore[arg-type]
    printed = capsys.readouterr().out
    assert planned.planned and planned.design == "stylisticbias"
    for name in TABLES:
        written = pl.read_parquet(via_cli / f"{name}.parquet")
        assert written.height > 0, name
        for got in (getattr(planned, name.removeprefix("plan_")), getattr(quiet, name.removeprefix("plan_"))):
            assert_frame_equal(got.drop(TIMING, strict=False), written.drop(TIMING, strict=False))
    assert sorted(p.name for p in planned.files) == sorted(p.name for p in via_cli.iterdir())
    assert (tmp_path / "api" / "plan.md").read_text() == (via_cli / "plan.md").read_text()
    assert planned.figure == (via_cli / "power_curve.png").read_bytes()
    assert planned.build_cost.height == 0  # the demo study has no [build]
    # the same lines, the last (the folder written) aside
    assert printed.splitlines()[:-1] == done.stdout.splitlines()[:-1]
    assert (
        printed.splitlines()[-1]
        == f"{len(planned.files)} files -> {tmp_path / 'api'} (report section: plan.md)"
    )


def test_before_the_image_set_is_built_only_the_build_cost_is_planned(tmp_path: Path) -> None:
    api = '{base_url = "http://127.0.0.1:9/v1", price_per_image = 0.04}'
    path = write_study(tmp_path, count=6, edit=api, edit_generator="openai-images", edit_model="m")
    planned = cs.plan_study(path, out=tmp_path / "plan", simulations=0, curve_simulations=0)
    assert not planned.planned and planned.power.height == 0 and planned.cost.height == 0
    assert_frame_equal(planned.build_cost, generation_cost(load_study(path)))
    assert planned.files == [tmp_path / "plan" / "plan_build_cost.csv"]
    assert pl.read_csv(planned.files[0])["images"].to_list() == [6, 12]


@pytest.mark.parametrize(
    ("options", "line"),
    [
        ({"power": 2.0}, "--power 2.0: the target power must lie between the FDR level and 1"),
        ({"target_effect": -1.0}, "--target-effect -1.0: must lie strictly between 0 and 1"),
        ({"alpha": 0.0}, "--alpha 0.0: the FDR level must lie strictly between 0 and 1"),
        ({"faces": 0}, "--faces 0: plan for at least 2"),
    ],
)
def test_a_bad_option_raises_the_commands_line_and_writes_nothing(
    demo: Demo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: dict[str, object], line: str
) -> None:
    monkeypatch.chdir(tmp_path)  # the default out, runs/demo-plan/, would land here
    flags = _flags(options)
    done = cli("plan", "--study", str(demo.study_file), "--no-progress", *flags)
    assert (done.returncode, done.stderr.strip()) == (2, f"error: {line}")
    with pytest.raises(cs.CueshiftError) as raised:
        cs.plan_study(demo.study_file, simulations=0, curve_simulations=0, **options)  # type: ignore[arg-type]
    assert str(raised.value) == line
    assert list(tmp_path.iterdir()) == []


def test_a_missing_study_file_raises_the_commands_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = cli("plan", "--study", "nope.toml", "--no-progress")
    assert done.returncode == 2 and done.stderr.startswith("error: ")
    with pytest.raises(cs.CueshiftError) as raised:
        cs.plan_study("nope.toml")
    assert f"error: {raised.value}" == done.stderr.strip() and "nope.toml" in str(raised.value)
    assert list(tmp_path.iterdir()) == []


def test_no_function_of_cueshift_is_shadowed_by_a_subpackage() -> None:
    # importing cueshift.plan sets the attribute cueshift.plan to the subpackage: a function of that
    # name would be replaced by the module (hence plan_study; docs/decisions.md D28, D78)
    import importlib.util

    import cueshift
    import cueshift.plan  # noqa: F401 - imported for its side effect on the attribute

    assert callable(cs.plan_study) and cs.plan_study is cueshift.api.plan_study
    for name in cueshift._LAZY:
        assert importlib.util.find_spec(f"cueshift.{name}") is None, name

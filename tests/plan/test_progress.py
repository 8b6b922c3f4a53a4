"""``cueshift plan``'s progress and its missing extra: every task's bar runs from 0 to its total in
order, a cold numba cache is announced on one line before anything compiles (and a warm one is
not), and without matplotlib the figure is skipped with a note, not the plan."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from cueshift.designs import load_study
from cueshift.plan import PlanRequest, plan_progress, plan_study, write_plan
from cueshift.power import kernels
from cueshift.power.curve import FIGURE_SKIPPED, faces_grid


class Recorded:
    """A Progress that keeps what it gets."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.steps: list[tuple[str, int, int]] = []

    def note(self, text: str) -> None:
        self.notes.append(text)

    def step(self, task: str, done: int, total: int) -> None:
        self.steps.append((task, done, total))


def _small_plan(progress: Recorded, tmp_path: Path) -> None:
    study = load_study("default")
    result = plan_study(PlanRequest(study, faces=30, simulations=7, curve_simulations=3, progress=progress))
    write_plan(result, tmp_path)


def test_each_task_runs_from_zero_to_its_total_in_order(tmp_path: Path) -> None:
    progress = Recorded()
    _small_plan(progress, tmp_path)
    tasks = {task for task, _, _ in progress.steps}
    assert {"simulated studies at 30 faces", "power curve"} <= tasks
    expected_totals = {"simulated studies at 30 faces": 7, "power curve": 3 * len(faces_grid(30))}
    for task, total in expected_totals.items():
        done = [d for t, d, n in progress.steps if t == task and n == total]
        assert done[0] == 0 and done[-1] == total and done == sorted(done), (task, done)


def test_without_matplotlib_the_figure_is_skipped_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed: find_spec None, import fails
    study = load_study("default")
    result = plan_study(PlanRequest(study, faces=20, simulations=2, curve_simulations=2))
    assert result.figure is None and FIGURE_SKIPPED in result.notes and result.curve.height > 0
    written = write_plan(result, tmp_path)
    assert not (tmp_path / "power_curve.png").exists() and (tmp_path / "plan_curve.csv") in written
    assert "report" in (tmp_path / "plan.md").read_text()


def test_a_cold_cache_is_announced_before_compiling_and_a_warm_one_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    progress = Recorded()
    monkeypatch.setattr(kernels, "cold_kernels", lambda: ["_face_mean_kernel"])
    monkeypatch.setattr(kernels, "compile_kernels", lambda: calls.append(f"compiled after {progress.notes}"))
    assert kernels.prepare_kernels(progress)
    assert len(progress.notes) == 1 and progress.notes[0].startswith("compiling statistics kernels")
    assert calls == [f"compiled after {progress.notes}"]
    monkeypatch.setattr(kernels, "cold_kernels", list)
    quiet = Recorded()
    assert not kernels.prepare_kernels(quiet)
    assert quiet.notes == [] and quiet.steps == []


def test_a_fresh_numba_cache_folder_holds_every_kernel_cold(tmp_path: Path) -> None:
    # a new NUMBA_CACHE_DIR (a fresh install) has nothing compiled; the check compiles nothing
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = "from cueshift.power.kernels import cold_kernels; print(sorted(cold_kernels()))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    cold = set(eval(out.stdout))  # noqa: S307 - a list literal printed by the line above
    assert {"_phi_kernel", "_face_mean_kernel", "_signed_rank_kernel", "_group_rank_kernel"} <= cold
    assert not any(tmp_path.rglob("*.nbc"))


def test_piped_progress_prints_notes_but_no_bars() -> None:
    stream = io.StringIO()
    console = Console(file=stream, width=100)
    with plan_progress(console) as progress:
        progress.note("compiling statistics kernels (first run only, ~30 s)")
        progress.step("power curve", 5, 10)
    assert stream.getvalue().strip() == "compiling statistics kernels (first run only, ~30 s)"
    with plan_progress(console, enabled=False) as silent:
        silent.note("not shown")
    assert "not shown" not in stream.getvalue()


def test_a_terminal_gets_a_bar() -> None:
    stream = io.StringIO()
    console = Console(file=stream, width=100, force_terminal=True)
    with plan_progress(console) as progress:
        progress.step("power curve", 5, 10)
    assert "power curve" in stream.getvalue() and "5/10" in stream.getvalue()

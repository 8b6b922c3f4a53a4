"""``cs.infer``'s progress bars follow the CLI's rule: shown on a terminal or in Jupyter, hidden when
stderr is piped (they came out cut short, "Demo faces (small) ━━━ 90/… … eta 0:00…"), shown anyway
with ``progress=True``; a run with nothing to ask shows no bar (it showed "asking 0/0 0%")."""

from __future__ import annotations

from pathlib import Path

import pytest

import cueshift as cs
from cueshift.api import write_demo_study

#: A character of every rich progress bar the runs draw (the bar column).
BAR = "━"


@pytest.fixture
def study_file(tmp_path: Path) -> Path:
    return write_demo_study(tmp_path)


def test_a_piped_run_shows_no_bar_by_default(study_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cs.infer(study_file, limit=20).n_written == 20
    err = capsys.readouterr().err
    assert BAR not in err and "asking" not in err, err


def test_progress_true_shows_the_bar_when_piped(study_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cs.infer(study_file, limit=20, progress=True)
    err = capsys.readouterr().err
    assert "judgments" in err and "20/20 100%" in err, err


def test_a_run_with_nothing_to_ask_shows_no_bar(study_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cs.infer(study_file, progress=False)
    capsys.readouterr()
    assert cs.infer(study_file, progress=True).n_written == 0
    printed = "".join(capsys.readouterr())  # stdout too: the bar went there before
    assert "asking" not in printed and "0/0" not in printed, printed

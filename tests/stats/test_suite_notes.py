"""A skipped analysis is one ``note:`` line on stderr, however long its reason and however narrow
the stream (piped, rich would wrap it at 80 columns)."""

from __future__ import annotations

import pytest

from cueshift.stats._suite import _print_note


def test_a_skip_note_is_one_line_when_piped(capsys: pytest.CaptureFixture[str]) -> None:
    reason = "no [equivalence] smallest effects of interest in the study file " * 3
    _print_note("equivalence", reason.strip())
    assert capsys.readouterr().err == f"note: equivalence skipped: {reason.strip()}\n"

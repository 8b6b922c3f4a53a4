"""``cueshift._console``: a FitTable never cuts a number at any width, and the consoles' widths
(the terminal's, ``COLUMNS`` when set, 120 when piped without it)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from rich.console import Console
from rich.table import Table

from cueshift._console import PIPED_WIDTH, FitTable, console_for, progress_shown
from cueshift._table_layout import LABEL_WORD
from tests.cli.terminal import BOX, run_in_terminal

LABELS = ("model", "mode", "images", "prompts", "forward passes", "prefill tokens", "GPU-hours", "throughput")
NO_PILOT = "none (give --throughput or a pilot)"
ROWS = (
    ("sim-judge", "sampling", 3105, 931_500, 3_726_000, 589_257_585, 12.5, NO_PILOT),
    ("Qwen/Qwen2.5-VL-7B-Instruct", "score", 180, 1_863_000, 7_452_000, 1_178_515_170, 0.25, "pilot"),
)


def _cost_table(table_class: type[Table] = FitTable) -> Table:
    table = table_class(title="Cost per model", caption="GPU-hours: the pilot's latencies times the prompts")
    for label in LABELS:
        table.add_column(label, justify="left" if label in ("model", "mode", "throughput") else "right")
    for row in ROWS:
        table.add_row(*(f"{v:,}" if isinstance(v, int) else str(v) for v in row))
    return table


def _printed(table: Table, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(table)
    return console.export_text()


@pytest.mark.parametrize("width", [16, 20, 33, 40, 52, 60, 80, 100, 120, 160])
def test_every_line_fits_and_every_number_is_whole(width: int) -> None:
    text = _printed(_cost_table(), width)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width, text
    for _, _, *numbers, _ in ROWS:
        for number in numbers:
            printed = f"{number:,}" if isinstance(number, int) else str(number)
            # whole on one line, and not part of a longer number
            assert any(f" {printed} " in f" {line} " for line in text.splitlines()), (printed, text)


@pytest.mark.parametrize("width", [80, 100])
def test_a_table_too_wide_is_split_repeating_its_label_columns(width: int) -> None:
    text = _printed(_cost_table(), width)
    assert "Cost per model (continued)" in text
    headers = [line for line in text.splitlines() if line.startswith("┃")]
    assert sum("model" in line for line in headers) >= 2  # the stub in every part
    assert text.count("GPU-hours: the pilot's") == 1  # the caption once, under the last part


def test_too_narrow_for_any_table_prints_label_value_blocks() -> None:
    text = _printed(_cost_table(), 24)
    assert not any(ch in text for ch in BOX)
    assert "  prompts: 931,500" in text and "  images: 3,105" in text


def test_a_table_that_fits_prints_as_rich_prints_it() -> None:
    assert _printed(_cost_table(FitTable), 220) == _printed(_cost_table(Table), 220)


def _width(env: dict[str, str], code: str = "print(console_for().width)") -> int:
    """The width a console gets in a new process whose stdout is a pipe."""
    done = subprocess.run(
        [sys.executable, "-c", f"from cueshift._console import console_for; {code}"],
        capture_output=True, text=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    return int(done.stdout)


@pytest.mark.parametrize("columns", ["80", "120", "57"])
def test_columns_is_honoured_when_piped(columns: str) -> None:
    assert _width({**os.environ, "COLUMNS": columns}) == int(columns)
    stderr_width = "import sys; print(console_for(stderr=True).width, file=sys.stdout)"
    assert _width({**os.environ, "COLUMNS": columns}, stderr_width) == int(columns)


def test_piped_without_columns_is_120_wide() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    assert _width(env) == PIPED_WIDTH


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_console_made_once_follows_its_stream_and_columns_at_each_print(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A console made once (as the command line's, at import) prints at the width and wrapping of
    its stream and ``COLUMNS`` as they are when it prints, not as they were when it was made."""
    monkeypatch.setenv("COLUMNS", "80")
    console = console_for()
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert (console.width, console.soft_wrap) == (80, True)
    monkeypatch.delenv("COLUMNS")
    assert (console.width, console.soft_wrap) == (PIPED_WIDTH, True)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.setenv("COLUMNS", "57")  # a terminal's width, as the shell sets it
    assert (console.width, console.soft_wrap) == (57, False)
    console.print(NOTE.strip(), markup=False, highlight=False)
    lines = terminal.getvalue().splitlines()
    assert len(lines) > 1 and all(len(line) <= 57 for line in lines), lines  # prose wraps in a terminal
    console.width, console.soft_wrap = 70, True  # set on the console: holds
    monkeypatch.setenv("COLUMNS", "90")
    assert (console.width, console.soft_wrap) == (70, True)


@pytest.mark.parametrize("width", [80, 120])
def test_a_terminal_gives_its_own_width(width: int) -> None:
    code = "from cueshift._console import console_for; print('width', console_for().width)"
    output = run_in_terminal([sys.executable, "-c", code], width)
    assert f"width {width}" in output


@pytest.mark.parametrize("width", [60, 80])
def test_a_label_word_up_to_label_word_stays_whole_and_longer_text_wraps(width: int) -> None:
    table = FitTable(title="Analysis provenance")
    for label, justify in (("Table", "left"), ("What", "left"), ("Rows", "right"), ("Resamples", "right")):
        table.add_column(label, justify=justify)  # type: ignore[arg-type]
    name = "result_demographic_tests_crossed"
    assert len(name) <= LABEL_WORD
    what = "Kruskal-Wallis per model x scenario x crossed dimension (every pair of dimensions) on base phi"
    table.add_row(name, what, "1,150", "100")
    text = _printed(table, width)
    assert name in text and " 1,150 " in text and "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width
    assert "Kruskal-Wallis" in text and what not in text  # the description wrapped at its spaces


def test_progress_shows_where_asked_or_on_a_terminal_or_in_jupyter(monkeypatch: pytest.MonkeyPatch) -> None:
    import rich.console

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "stderr", open(os.devnull, "w"))  # noqa: SIM115 (closed with the test)
    assert (progress_shown(), progress_shown(True), progress_shown(False)) == (False, True, False)
    monkeypatch.setattr(rich.console, "_is_jupyter", lambda: True)
    assert progress_shown() and not progress_shown(False)
    sys.stderr.close()


NOTE = "  cost includes the noise-floor placebos: " + "180 images, an identical copy and a re-encode; " * 3
CAPTION = "GPU-hours: " + "the pilot's latencies times the prompts; " * 3
#: Prints NOTE (longer than any width below), a table with a long title and CAPTION on stdout, and
#: a note on stderr (as infer's and build's notes), on console_for()'s consoles.
LONG_NOTE = f"""
from cueshift._console import FitTable, console_for
console = console_for()
console.print({NOTE!r})
table = FitTable(title="Cost per model, with a title longer than the table it heads", caption={CAPTION!r})
table.add_column("model")
table.add_column("prompts", justify="right")
table.add_row("sim-judge", "931,500")
console.print(table)
console_for(stderr=True).print("note:" + {NOTE[1:]!r})
"""


@pytest.mark.parametrize("columns", [None, "80", "57"])
def test_piped_prose_is_one_line_and_tables_fit(columns: str | None) -> None:
    """Piped (``| cat``, a log): a note, a table's title and caption stay one line each; the table fits."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns:
        env["COLUMNS"] = columns
    done = subprocess.run(
        [sys.executable, "-c", LONG_NOTE], capture_output=True, text=True, env=env, timeout=60, check=True
    )
    lines = [line.rstrip() for line in done.stdout.splitlines()]
    assert NOTE.rstrip() in lines and CAPTION.rstrip() in lines, done.stdout
    assert done.stderr == "note:" + NOTE[1:] + "\n"
    assert "Cost per model, with a title longer than the table it heads" in lines, done.stdout
    width = int(columns) if columns else PIPED_WIDTH
    assert all(len(line) <= width for line in lines if line[:1] in BOX), done.stdout


def test_in_a_terminal_prose_wraps_at_its_width() -> None:
    output = run_in_terminal([sys.executable, "-c", LONG_NOTE], 80)
    lines = [line.rstrip() for line in output.splitlines()]
    assert NOTE.rstrip() not in lines and all(len(line) <= 80 for line in lines), output
    assert lines[0].startswith("  cost includes the noise-floor placebos: 180 images,"), output

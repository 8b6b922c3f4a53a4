"""The commands' tables at 80 and 120 columns, in a pseudo-terminal and piped with ``COLUMNS``: no
table line wider than the terminal, no cell cut ("…"), and the numbers the command stored (read back
from its files and database here) printed whole. Prose wraps in a terminal; piped, each line of it
(a note, a table's title or note) stays whole on one line.

The terminal runs are real processes on a pseudo-terminal (the width comes from the terminal).
The piped runs (``plan``, ``analyze``, ``status``, ``sql``) run the command line's app in this
process (typer's ``CliRunner``: stdout is a buffer, not a terminal, ``COLUMNS`` set or removed as
piped): the consoles, made once when ``cueshift.cli`` is imported, take their width and prose
wrapping from the stream and ``COLUMNS`` each time a command prints (D94), so each run here prints
at its own width, as ``cueshift ... | cat`` in a new process would."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from cueshift._console import PIPED_WIDTH
from cueshift.cli import app
from cueshift.plan.console import SUMMARY
from tests.api.conftest import Demo, judged_demo
from tests.cli.terminal import run_in_terminal, table_lines, too_wide

CUESHIFT = (sys.executable, "-m", "cueshift.cli")
PLAN = ("plan", "--simulations", "0", "--curve-simulations", "0")
WIDTHS = (80, 120)


def _whole(text: str, printed: str) -> bool:
    """Whether ``printed`` stands whole in one table cell of ``text`` (not part of a longer value)."""
    return any(f" {printed} " in line for line in table_lines(text))


def _readable(text: str, width: int) -> None:
    assert table_lines(text), text
    assert not too_wide(text, width), "\n".join(too_wide(text, width))
    assert "…" not in text, text


def _long_prose(text: str, width: int) -> list[str]:
    """Lines wider than ``width``, but the one naming where files went (a path is not broken)."""
    return [line for line in text.splitlines() if len(line) > width and " -> " not in line]


def _piped(args: tuple[str, ...], columns: int | None) -> str:
    """What ``COLUMNS=<columns> cueshift ARGS | cat`` prints (``None``: unset), run through the
    command line's app in this process (no interpreter to start)."""
    env = {"COLUMNS": None if columns is None else str(columns), "LINES": None}
    result = CliRunner().invoke(app, list(args), env=env)
    assert result.exit_code == 0, (result.stderr, result.exception)
    return result.stdout


def _plan_numbers(out: Path) -> list[str]:
    """The cost table's counts and the summary's units needed, from the plan's own parquet files."""
    cost = pl.read_parquet(out / "plan_cost.parquet")
    counts = ("images", "prompts", "forward_passes", "prefill_tokens", "prefill_tokens_shared_prefix")
    numbers = [f"{round(value):,}" for column in counts for value in cost[column].drop_nulls()]
    power = pl.read_parquet(out / "plan_power.parquet").filter(pl.col("protocol") == "planned")
    needed = power.group_by("test", "model_id").agg(pl.col("units_for_target").max())["units_for_target"]
    return numbers + [f"{round(value):,}" for value in needed.drop_nulls()]


@pytest.mark.parametrize("width", WIDTHS)
def test_plan_in_a_terminal(width: int, tmp_path: Path) -> None:
    text = run_in_terminal([*CUESHIFT, *PLAN, "--out", str(tmp_path)], width)
    _readable(text, width)
    assert not _long_prose(text, width), text  # the notes wrap too
    assert "Cost per model" in text
    numbers = _plan_numbers(tmp_path)
    assert any(len(n) >= 11 for n in numbers)  # hundreds of millions of tokens: the numbers once cut
    missing = [n for n in numbers if not _whole(text, n)]
    assert not missing, (missing, text)


def _plan_notes(out: Path) -> list[str]:
    """The plan's notes, as its report section lists them, and the summary table's note."""
    section = (out / "plan.md").read_text()
    notes = [line.removeprefix("- ") for line in section.splitlines() if line.startswith("- ")]
    assert any(len(note) > 120 for note in notes), notes  # the placebos note, once broken at 120
    return [*notes, *SUMMARY.notes]


@pytest.mark.parametrize("columns", [80, None])
def test_plan_piped_keeps_each_note_on_one_line(columns: int | None, tmp_path: Path) -> None:
    """``cueshift plan | cat``: tables as wide as ``COLUMNS`` (else 120), each note one whole line."""
    width = columns or PIPED_WIDTH
    text = _piped((*PLAN, "--out", str(tmp_path)), columns)
    _readable(text, width)
    lines = [line.strip() for line in text.splitlines()]
    broken = [note for note in _plan_notes(tmp_path) if note not in lines]
    assert not broken, (broken, text)
    missing = [n for n in _plan_numbers(tmp_path) if not _whole(text, n)]
    assert not missing, (missing, text)
    assert "Cost per model (continued)" in text  # wider than the width: printed in parts, none wider


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    """The demo study (two faces, the simulated judge) judged once; its database kept unanalysed."""
    return judged_demo(tmp_path_factory.mktemp("console-width"))


def _headline_numbers(database: Path) -> list[str]:
    """Table 5's SBS, CI and Cohen's d and each model's |SBS|, read from the analysed database."""
    con = duckdb.connect(str(database), read_only=True)
    try:
        rows = con.execute("SELECT estimate, ci_low, ci_high, cohens_d FROM result_table5").fetchall()
        abs_sbs = con.execute("SELECT abs_sbs FROM result_sbs WHERE level = 'model'").fetchall()
    finally:
        con.close()
    numbers = [f"{estimate:+.4f}" for estimate, *_ in rows] + [f"{d:+.3f}" for *_, d in rows]
    numbers += [f"[{low:+.4f}, {high:+.4f}]" for _, low, high, _ in rows if low is not None]
    return numbers + [f"{value:.4f}" for (value,) in abs_sbs]


@pytest.mark.parametrize("width", WIDTHS)
def test_analyze_and_status_in_a_terminal(width: int, demo: Demo, tmp_path: Path) -> None:
    database = tmp_path / "study.duckdb"
    shutil.copyfile(demo.raw, database)
    args = ("--study", str(demo.study_file), "--db", str(database))
    text = run_in_terminal([*CUESHIFT, "analyze", *args, "--no-progress", "--resamples", "100"], width)
    _readable(text, width)
    assert "Per-model shifts" in text
    missing = [n for n in _headline_numbers(database) if not _whole(text, n)]
    assert not missing, (missing, text)

    con = duckdb.connect(str(database), read_only=True)
    try:
        stored = con.execute("SELECT model_id, count(*) FROM judgment GROUP BY model_id").fetchall()
    finally:
        con.close()
    _sql_in_a_terminal(database, width)
    in_terminal = run_in_terminal([*CUESHIFT, "status", "--db", str(database)], width)
    for status in (in_terminal, _piped(("status", "--db", str(database)), width)):
        _readable(status, width)
        for model_id, n in stored:
            assert any(model_id in line and f" {n:,} " in line for line in table_lines(status)), status


def _sql_in_a_terminal(database: Path, width: int) -> None:
    """``cueshift sql`` of a result table wider than the terminal: every value whole, every column shown."""
    query = "SELECT * FROM result_sbs WHERE level = 'model'"
    con = duckdb.connect(str(database), read_only=True)
    try:
        found = con.execute(query)
        names = [column[0] for column in found.description]
        rows = found.fetchall()
    finally:
        con.close()
    text = run_in_terminal([*CUESHIFT, "sql", "--db", str(database), query], width)
    _readable(text, width)
    assert all(_whole(text, name) for name in names), text
    values = [v for row in rows for v in row if isinstance(v, float | int) and not isinstance(v, bool)]
    missing = [v for v in values if not _whole(text, f"{v:.6g}" if isinstance(v, float) else str(v))]
    assert not missing, (missing, text)


def _prose(text: str) -> list[str]:
    """The lines of ``text`` no table draws, stripped, empty ones left out."""
    drawn = set(table_lines(text))
    return [line.strip() for line in text.splitlines() if line.strip() and line not in drawn]


def test_analyze_piped_prints_each_line_of_prose_whole(demo: Demo, tmp_path: Path) -> None:
    """Piped at 80 columns, every line of prose analyze prints wide (its notes, titles, summaries) is
    still one line; only its tables keep to the width."""
    printed = {}
    database = tmp_path / "study.duckdb"  # one path: the lines naming it are the same
    for columns in (80, 1000):
        shutil.copyfile(demo.raw, database)
        args = ("analyze", "--study", str(demo.study_file), "--db", str(database), "--resamples", "100")
        printed[columns] = _piped(args, columns)
    wide = _prose(printed[1000])
    assert any(len(line) > 80 for line in wide), printed[1000]  # something to break at 80
    narrow = set(_prose(printed[80]))
    broken = [line for line in wide if line not in narrow]
    assert not broken, (broken, printed[80])
    _readable(printed[80], 80)


def test_each_command_in_one_process_prints_at_its_own_width(tmp_path: Path) -> None:
    """Commands run one after another in one process (a notebook, a program embedding the command
    line, these tests): each prints at ``COLUMNS`` as set when it runs, or 120 once it is removed,
    not at the width the first one (or the import) found."""
    database = tmp_path / "empty.duckdb"
    duckdb.connect(str(database)).close()
    query = "SELECT " + ", ".join(f"{1_234_567 * (i + 1)} AS measure_{i}" for i in range(16))
    printed = {}
    for run, columns in enumerate((80, 120, None, 80)):
        text = _piped(("sql", "--db", str(database), query), columns)
        _readable(text, columns or PIPED_WIDTH)
        assert all(_whole(text, f"{1_234_567 * (i + 1)}") for i in range(16)), text
        printed[run] = text
    parts = [text.count("┏") for text in printed.values()]  # a table too wide prints in parts
    assert printed[0] == printed[3] and printed[1] == printed[2], printed
    assert parts[0] > parts[1] > 1, printed  # at 80, more parts than at 120; at 120, still more than one

"""``--help`` piped (a pipe, a log, CI): as wide as the tables (``COLUMNS``, else 120; typer's
``TERMINAL_WIDTH`` first), not rich's 80, and no line of prose ends where the next word still fit
(typer kept a docstring's source line breaks, and at 80 columns option help came out in fragments)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
import typer
from typer import rich_utils
from typer.testing import CliRunner

from cueshift._console import PIPED_WIDTH
from cueshift.cli._commands import app
from cueshift.cli._help import reflowed

#: Items typer puts after an option's help in their own column: a line of their own is not a break.
TRAILERS = ("[default:", "[env var:", "[required]")


def _commands() -> Iterator[str]:
    """The words of every command and group, ``""`` for ``cueshift`` itself."""

    def walk(command: object, words: list[str]) -> Iterator[str]:
        yield " ".join(words)
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*words, name])

    yield from walk(typer.main.get_command(app), [])


COMMANDS = sorted(_commands())


def _early_breaks(text: str, width: int) -> list[str]:
    """Lines of ``text`` (help as printed) whose wrapped prose ends before the next word would have.

    Outside the panels, a paragraph's next line continues it (help text pads one space either
    side). In a panel, a line starting under the last column, the rightmost start of its lines,
    continues that column, as wide as its widest line (a lower bound: a break is never misread).
    """
    found: list[str] = []
    panel: list[str] = []
    prose: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("╭"):
            panel = [line]
        elif panel:
            panel.append(line)
            if line.startswith("╰"):
                found += _early_in_panel([row[1:-1] for row in panel[1:-1]], panel[1:-1])
                panel = []
        elif line.strip():
            prose.append(line)
        else:
            found += _early_in_lines([(row.rstrip(), row) for row in prose], width - 1)
            prose = []
    return found


def _early_in_panel(inner: list[str], rows: list[str]) -> list[str]:
    """:func:`_early_in_lines` over panel lines (``inner``: between the borders) and the next, where
    the next line (left of it blank) starts under the last cell of the line above."""
    first = min(len(row) - len(row.lstrip()) for row in inner if row.strip())
    widest = max(len(row.rstrip()) for row in inner)
    found = []
    for i in range(1, len(inner)):
        above, below = inner[i - 1], inner[i]
        column = len(below) - len(below.lstrip())
        cell = above[column:].rstrip()
        if not below.strip() or column <= first or above[column - 1] != " " or cell[:1] in ("", " "):
            continue
        if "  " not in cell and "  " not in below.strip():  # the last cell of each line
            pair = [(cell, rows[i - 1]), (below[column:].rstrip(), rows[i])]
            found += _early_in_lines(pair, widest - column)
    return found


def _early_in_lines(lines: list[tuple[str, str]], room: int) -> list[str]:
    """Each (text, line) whose next text's first word would have fitted after it within ``room``."""
    found = []
    for (text, line), (following, next_line) in zip(lines, lines[1:], strict=False):
        words = following.split()
        trailer = not words or words[0].startswith(TRAILERS)
        if text.strip() and not trailer and len(text) + 1 + len(words[0]) <= room:
            found.append(f"{line.rstrip()}\n{next_line.rstrip()}")
    return found


def _help(words: str, env: dict[str, str | None]) -> str:
    done = CliRunner().invoke(app, [*words.split(), "--help"], env=env)
    assert done.exit_code == 0, done.output
    return done.output


@pytest.fixture
def no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """typer as without ``TERMINAL_WIDTH`` (it reads the variable once, when imported)."""
    monkeypatch.setattr(rich_utils, "MAX_WIDTH", None)


@pytest.mark.usefixtures("no_terminal_width")
@pytest.mark.parametrize("columns", [None, "80"])
@pytest.mark.parametrize("words", COMMANDS)
def test_no_help_line_ends_before_the_next_word(words: str, columns: str | None) -> None:
    width = int(columns) if columns else PIPED_WIDTH
    text = _help(words, {"COLUMNS": columns, "LINES": None})
    assert max(len(line) for line in text.splitlines()) == width, text
    assert not _early_breaks(text, width), "\n\n".join(_early_breaks(text, width))


def test_the_check_finds_a_line_broken_where_the_source_line_ended() -> None:
    """The check itself: typer's own rendering of a docstring paragraph, not reflowed, is caught."""
    help_text = "An option is refused (one line naming it), never ignored; every\noption is checked first."
    paragraph = "\n".join(f" {line}" for line in help_text.splitlines())
    assert _early_breaks(f"{paragraph}\n", PIPED_WIDTH)
    assert not _early_breaks(f" {reflowed(help_text)}\n", PIPED_WIDTH)
    panel = [
        "╭─ Commands ─────────────────────────────────────────────────────────────╮",
        "│ build  Make the image set: base faces from the grid, then one audited  │",
        "│        edit per                                                        │",
        "│        variation; nothing made twice.                                  │",
        "╰────────────────────────────────────────────────────────────────────────╯",
    ]
    assert _early_breaks("\n".join(panel), PIPED_WIDTH) == ["\n".join(panel[2:4])]


def _piped_help(env: dict[str, str]) -> list[str]:
    """``cueshift plan --help`` run as a program whose stdout is a pipe; its lines."""
    base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TERMINAL_WIDTH")}
    done = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "plan", "--help"],
        capture_output=True, text=True, env={**base, **env}, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout.splitlines()


@pytest.mark.parametrize(
    ("env", "width"),
    [({}, PIPED_WIDTH), ({"COLUMNS": "100"}, 100), ({"COLUMNS": "100", "TERMINAL_WIDTH": "90"}, 90)],
)
def test_piped_help_is_as_wide_as_the_tables(env: dict[str, str], width: int) -> None:
    lines = _piped_help(env)
    borders = [line for line in lines if line.startswith("╭─ Options")]
    assert borders and all(len(line) == width for line in borders), lines
    assert "…" not in "\n".join(lines)  # at 80, --throughput's help was cut: "cueshift/power/throughpu…"


@pytest.mark.parametrize("words", COMMANDS)
def test_flags_show_no_type(words: str) -> None:
    """A flag takes no value, so its help row shows none (typer printed ``--help  <bool>``)."""
    printed = _help(words, {"COLUMNS": "120"})
    assert "<bool>" not in printed
    assert "--help" in printed

"""``--help`` prints what the help text says: a study-file section such as ``[probe]`` is not
swallowed as rich markup (it is written ``\\[probe]``), and ``upgrade`` names every version it
upgrades."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from cueshift.cli._commands import app
from cueshift.store.database import UPGRADABLE_VERSIONS

#: A study-file section in help text, as written in the source (escaped or not).
SECTION = re.compile(r"\\?\[([a-z_][a-z_.]*)\]")
Written = tuple[str, str]  # command words, "[section]"


def sections_written() -> Iterator[Written]:
    """Each ``[section]`` the help of a command or of one of its options names."""

    def walk(command: object, words: list[str]) -> Iterator[Written]:
        params = getattr(command, "params", [])
        texts = [getattr(command, "help", None) or "", *(getattr(p, "help", None) or "" for p in params)]
        for text in texts:
            for name in SECTION.findall(text):
                yield " ".join(words), f"[{name}]"
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk(sub, [*words, name])

    yield from walk(typer.main.get_command(app), [])


def rendered_help(words: str) -> str:
    """``cueshift <words> --help`` as printed, box borders and line breaks folded into spaces."""
    wide = {"COLUMNS": "200", "TERMINAL_WIDTH": "200"}
    done = CliRunner().invoke(app, [*words.split(), "--help"], env=wide)
    assert done.exit_code == 0, done.output
    return re.sub(r"[\s│╭╮╰╯─]+", " ", done.output)


WRITTEN = sorted(set(sections_written()))


def test_help_texts_name_study_file_sections() -> None:
    assert ("analyze", "[probe]") in WRITTEN and ("audit", "[audit]") in WRITTEN


@pytest.mark.parametrize(("words", "section"), WRITTEN)
def test_a_section_the_help_names_is_printed(words: str, section: str) -> None:
    assert section in rendered_help(words)


def test_upgrade_help_names_every_upgradable_version() -> None:
    help_text = rendered_help("upgrade")
    assert all(re.search(rf"\b{version}\b", help_text) for version in UPGRADABLE_VERSIONS)


@pytest.mark.parametrize("words", ["status", "upgrade"])
def test_study_option_says_it_may_name_a_database(words: str) -> None:
    """``status`` and ``upgrade`` read ``--study B.duckdb`` as the database B (D84); their option says so."""
    assert (
        "--study -s <str> Study file (TOML), 'default' for the embedded default study, or a study database"
        in (rendered_help(words))
    )


def test_other_commands_study_option_names_no_database() -> None:
    assert "or a study database" not in rendered_help("analyze")

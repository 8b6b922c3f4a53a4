"""Every option the docs give a command is one its ``--help`` lists (issue 30).

README.md and docs/*.md are read for calls of the command line, in inline code
(`` `cueshift analyze --models a,b` ``, the README's command table: `` `just analyze [--models a,b]` ``
is the recipe of ``cueshift analyze``) and in code blocks (``cueshift infer --executor ray``, also
after ``&&``, ``|`` or a path such as ``.venv/bin/``); each ``--option`` of a call must be one of its
command's (``import omi`` and ``import judgments`` are commands of their own), and an option alone
in inline code (`` `--csv` ``) one of some command's. The options are the commands' own parameters,
what ``--help`` prints (``--help`` itself included), read from the typer app.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from cueshift.cli._commands import app

ROOT = Path(__file__).resolve().parents[2]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
#: Options the docs give other programs in inline code (vLLM's server).
OTHER_TOOLS = {"--max-logprobs"}
CALL = re.compile(r"(?:^|[\s/(])(cueshift|just)((?:\s+[a-z][\w-]*)*)(.*)")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
Mention = tuple[str, str | None, str, str]  # page, command (None: any), option, where


def command_options() -> dict[str, set[str]]:
    """Each command (``""``: ``cueshift`` itself, ``"import omi"``) → the options ``--help`` lists."""
    found: dict[str, set[str]] = {}

    def walk(command: object, words: list[str]) -> None:
        params = getattr(command, "params", [])
        options = {o for p in params for o in (*p.opts, *p.secondary_opts) if o.startswith("-")}
        found[" ".join(words)] = options | {"--help"}
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*words, name])

    walk(typer.main.get_command(app), [])
    return found


COMMANDS = command_options()


def mentions(page: str, text: str) -> Iterator[Mention]:
    """The options ``text`` gives a command, or alone in inline code."""
    spans = re.findall(r"(?<!`)`([^`\n]+)`(?!`)", text)
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S)
    for piece in [*spans, *(line for block in blocks for line in block.splitlines())]:
        for part in re.split(r"&&|\|\||[;|&]", piece):
            call = CALL.search(part)
            if call is None:
                if piece in spans and re.fullmatch(r"--[a-z][\w-]*(?:[ =].*)?", piece.strip()):
                    yield page, None, OPTION.findall(piece)[0], piece
                continue
            program, words, rest = call.group(1), call.group(2).split(), call.group(3)
            n = next(n for n in range(len(words), -1, -1) if " ".join(words[:n]) in COMMANDS)
            if program == "just" and n == 0:
                continue  # a recipe of no command's name (setup, test, lint)
            for option in OPTION.findall(" ".join(words[n:]) + rest):
                yield page, " ".join(words[:n]), option, piece


MENTIONS = [m for page in PAGES for m in mentions(str(page.relative_to(ROOT)), page.read_text("utf-8"))]


def test_the_docs_give_commands_options() -> None:
    checked = {(command, option) for _, command, option, _ in MENTIONS}
    assert {("analyze", "--models"), ("infer", "--executor"), ("report", "--models")} <= checked
    assert len(checked) > 40


def test_a_misspelt_option_is_caught() -> None:
    text = "`cueshift analyze --modles a` and `just report [--db F]`\n```bash\ncueshift sql --cvs\n```\n"
    wrong = [(c, o) for _, c, o, _ in mentions("page.md", text) if o not in COMMANDS[c or ""]]
    assert wrong == [("analyze", "--modles"), ("sql", "--cvs")]


@pytest.mark.parametrize("page", sorted({m[0] for m in MENTIONS}))
def test_every_option_the_page_names_exists(page: str) -> None:
    every = set().union(*COMMANDS.values()) | OTHER_TOOLS
    unknown = [
        f"{'cueshift ' + command if command is not None else 'an option alone'}: {option} (in `{where}`)"
        for at, command, option, where in MENTIONS
        if at == page and option not in (COMMANDS[command] if command is not None else every)
    ]
    assert not unknown, f"{page} names options the commands do not have: {unknown}"

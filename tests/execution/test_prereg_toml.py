"""The plan file's canonical bytes and hash (issue 33), checked against tomllib and hashlib."""

from __future__ import annotations

import hashlib
import tomllib

import pytest

from cueshift.errors import ConfigError
from cueshift.execution.prereg_toml import plan_text, read_plan_text

PLAN = {
    "z": 1.5,
    "a": {"models": [{"id": "m b", "settings": {"seed": 7, "x=y": -0.25}}], "flag": True, "skip": None},
    "name": 'quote " and ünïcode',
    "b": {"c": {"d": [1, 2]}, "e": "f"},
}


def test_the_text_reads_back_as_the_plan_without_none() -> None:
    text = plan_text(PLAN)
    body = text.split("\n", 1)[1]
    expected = {**PLAN, "a": {"models": PLAN["a"]["models"], "flag": True}}  # type: ignore[index]  # PLAN is typed as a TOML table of any values
    assert tomllib.loads(body) == expected
    assert text.splitlines()[0] == f'sha256 = "{hashlib.sha256(body.encode()).hexdigest()}"'
    assert read_plan_text(text, "p.toml") == (expected, hashlib.sha256(body.encode()).hexdigest())


def test_key_order_does_not_change_the_bytes() -> None:
    reordered = dict(reversed(list(PLAN.items())))
    assert plan_text(reordered) == plan_text(PLAN)


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda t: t.replace("1.5", "1.25"), "p.toml: edited after it was frozen"),
        (lambda t: t + "\n", "p.toml: edited after it was frozen"),
        (lambda t: t.split("\n", 1)[1], "p.toml: not a preregistered plan"),
    ],
)
def test_an_edited_plan_is_refused(edit: object, named: str) -> None:
    assert callable(edit)
    with pytest.raises(ConfigError) as raised:
        read_plan_text(edit(plan_text(PLAN)), "p.toml")
    assert str(raised.value).startswith(named) and "\n" not in str(raised.value)

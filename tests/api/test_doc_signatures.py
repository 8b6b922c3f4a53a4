"""The signatures docs/api.md's tables give are the functions' own (issue 30): every
`` `name(...)` `` of a table row (a builtin such as ``repr`` aside) names a function of
``cueshift``, ``cueshift.stats`` or ``cueshift.api`` whose parameters are the ones written, in
order, of the same kind (positional or keyword-only) and with the defaults written (a row that
elides some with ``...`` is checked for the ones it names). A parameter written without a default
may have one.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import cueshift as cs
import cueshift.api

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"
SPAN = re.compile(r"`(?:cueshift\.api\.)?(\w+)\(([^`]*?)\)(?: -> [^`]+)?`")
Documented = tuple[str, str]


def documented() -> list[Documented]:
    """Each ``(name, parameters)`` a table row of docs/api.md writes as a call."""
    rows = [line for line in API_MD.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    calls = [match.groups() for row in rows for match in SPAN.finditer(row)]
    return [(name, parameters) for name, parameters in calls if not hasattr(builtins, name)]


def function(name: str) -> Callable[..., object]:
    for owner in (cs, cs.stats, cueshift.api):
        if name in getattr(owner, "__all__", ()) or hasattr(owner, name):
            found: Callable[..., object] = getattr(owner, name)
            assert callable(found), name
            return found
    raise AssertionError(f"docs/api.md names {name}(), which cueshift does not have")


def written(parameters: str) -> tuple[list[tuple[str, bool, object]], bool]:
    """The parameters as written: (name, keyword-only, default or ``inspect.Parameter.empty``);
    and whether the row elides some (``...``)."""
    elided = "..." in parameters
    source = re.sub(r",\s*\.\.\.", "", parameters)
    node = ast.parse(f"def f({source}): pass").body[0]
    assert isinstance(node, ast.FunctionDef)
    arguments = node.args
    positional = [(a.arg, False) for a in arguments.args]
    keyword = [(a.arg, True) for a in arguments.kwonlyargs]
    defaults = [inspect.Parameter.empty] * (len(arguments.args) - len(arguments.defaults))
    defaults += [ast.literal_eval(d) for d in arguments.defaults]
    defaults += [inspect.Parameter.empty if d is None else ast.literal_eval(d) for d in arguments.kw_defaults]
    return [(*named, d) for named, d in zip(positional + keyword, defaults, strict=True)], elided


def comparable(default: object) -> object:
    return list(default) if isinstance(default, tuple) else default


def test_the_tables_write_signatures() -> None:
    names = {name for name, _ in documented()}
    assert {"infer", "analyze", "build", "export", "report", "sbs", "write_demo_study"} <= names


@pytest.mark.parametrize(("name", "parameters"), documented(), ids=lambda x: str(x)[:40])
def test_a_written_signature_is_the_functions(name: str, parameters: str) -> None:
    actual = inspect.signature(function(name)).parameters
    expected, elided = written(parameters)
    names = [p for p, _, _ in expected]
    assert all(p in actual for p in names), f"{name}: unknown {set(names) - set(actual)}"
    if not elided:
        assert names == list(actual), f"{name}({parameters}) vs {list(actual)}"
    for parameter, keyword_only, default in expected:
        real = actual[parameter]
        assert (real.kind is inspect.Parameter.KEYWORD_ONLY) == keyword_only, (name, parameter)
        if default is not inspect.Parameter.empty:
            assert comparable(real.default) == comparable(default), (name, parameter, real.default)

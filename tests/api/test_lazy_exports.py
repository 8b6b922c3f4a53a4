"""The names ``cueshift`` exports lazily are the real objects: ``help(cs.infer)`` and
``inspect.signature(cs.infer)`` show the function's own parameters and docstring, as written in its
``def`` (read here from the source file, independently of the object)."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import cueshift

FUNCTIONS = sorted(name for name in cueshift._LAZY if name[0].islower())


def _def_of(name: str, file: str) -> ast.FunctionDef:
    """The ``def`` of ``name``: the last one, after any ``@overload`` stubs of its call forms."""
    tree = ast.parse(Path(file).read_text())
    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name][-1]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_signature_is_the_one_the_def_writes(name: str) -> None:
    exported = getattr(cueshift, name)
    real = inspect.unwrap(exported)
    node = _def_of(name, real.__code__.co_filename)
    written = [a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]]
    signature = inspect.signature(exported)
    assert list(signature.parameters) == written and written
    assert signature == inspect.signature(real)
    assert inspect.isfunction(exported) and exported.__doc__ == ast.get_docstring(node, clean=False)


@pytest.mark.parametrize("name", ["infer", "analyze", "describe"])
def test_help_in_a_fresh_interpreter_shows_parameters_and_docstring(name: str) -> None:
    probe = f"import cueshift as cs, pydoc; print(pydoc.render_doc(cs.{name}, renderer=pydoc.plaintext))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    node = _def_of(name, inspect.unwrap(getattr(cueshift, name)).__code__.co_filename)
    first_line = (ast.get_docstring(node) or "").splitlines()[0]
    assert f"function {name} in module" in done.stdout
    assert first_line in done.stdout
    for arg in [a.arg for a in [*node.args.args, *node.args.kwonlyargs]]:
        assert arg in done.stdout.split("\n", 3)[2], arg  # the signature line

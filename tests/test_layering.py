"""The package's layering, checked on the source: no import from a lower layer to a higher one, no cycles.

Pipeline order, lowest first (docs/architecture.md)::

    _types, _console, _table_layout, _result_declarations, errors, extras, schemas < study < images
    < inference < store < views < stats < render < power < designs < execution < stimuli < imports
    < plan < viewer < api < cli

A module may import its own layer and any layer below it; ``power`` is the planning machinery the
designs' planners are built from, ``designs`` wires the layers together, ``plan`` runs a design's
planner through the registry, ``viewer`` serves a study below the API that starts it (``cs.view``,
which imports it inside the function: its extra), and only the command line sits above them (D85).
Imports inside ``if TYPE_CHECKING:`` count too: a static tool resolves them like any other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "engine" / "cueshift"

LAYERS: tuple[tuple[str, ...], ...] = (
    (
        "_types",
        "_jit",
        "_console",
        "_table_layout",
        "_method_words",
        "_result_declarations",
        "errors",
        "extras",
        "schemas",
        "sql",
        "studies",
    ),
    ("study",),
    ("images",),
    ("inference",),
    ("store",),
    ("views",),
    ("stats",),
    ("render",),
    ("power",),
    ("designs",),
    ("execution",),
    ("stimuli",),
    ("imports",),
    ("plan",),
    ("viewer",),
    ("api",),
    ("cli", "__main__"),
)
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name == "cueshift" or name.startswith("cueshift.")]


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _sources() -> list[Path]:
    return sorted(PACKAGE_ROOT.rglob("*.py"))


def _modules() -> set[str]:
    return {_module_name(path) for path in _sources()}


def test_every_layer_is_ranked() -> None:
    unranked = sorted({_layer(m) for m in _modules()} - set(RANK) - {""})
    assert not unranked, f"top-level modules with no layer in LAYERS: {unranked}"


def test_no_import_reaches_up() -> None:
    known = _modules()
    violations = []
    for path in _sources():
        here = _layer(_module_name(path))
        if here not in RANK:
            continue
        for line, target in _imports(path):
            if target not in known and target.rpartition(".")[0] not in known:
                continue
            there = _layer(target)
            if there in RANK and RANK[there] > RANK[here]:
                violations.append(
                    f"{path.relative_to(PACKAGE_ROOT)}:{line}: {here} imports {target} ({there})"
                )
    assert not violations, "imports from a lower layer to a higher one:\n" + "\n".join(
        sorted(set(violations))
    )


def test_no_import_cycles() -> None:
    known = _modules()
    graph: dict[str, set[str]] = {}
    for path in _sources():
        name = _module_name(path)
        edges = set()
        for _, target in _imports(path):
            module = target if target in known else target.rpartition(".")[0]
            if module in known and module != name:
                edges.add(module)
        graph[name] = edges
    # A package importing its own submodules (re-exports) is not a cycle of logic; drop parent -> child edges.
    for name, edges in graph.items():
        graph[name] = {e for e in edges if not e.startswith(name + ".")}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles[:20])


@pytest.mark.parametrize("package", ["stats", "inference", "store", "designs", "execution", "render"])
def test_layer_folders_exist(package: str) -> None:
    assert (PACKAGE_ROOT / package / "__init__.py").is_file()


def test_private_modules_stay_in_their_package() -> None:
    """``cueshift.<pkg>._x`` is private to ``cueshift.<pkg>``: other packages use its public surface."""
    violations = []
    for path in _sources():
        here = _module_name(path)
        for line, target in _imports(path):
            parts = target.split(".")
            for depth, part in enumerate(parts[1:], start=1):
                if part.startswith("_") and not part.startswith("__"):
                    owner = ".".join(parts[:depth])
                    if not (here == owner or here.startswith(owner + ".")):
                        violations.append(f"{path.relative_to(PACKAGE_ROOT)}:{line}: imports {target}")
                    break
    assert not violations, "private modules imported from another package:\n" + "\n".join(
        sorted(set(violations))
    )

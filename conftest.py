"""Collection rules for the whole repository (pytest reads this file before any other conftest).

The docstring examples of engine/cueshift run as doctests (pyproject.toml: ``--doctest-modules``
over ``testpaths = ["tests", "engine/cueshift"]``). Two rules keep that collection sound:

* The top-level schemas/, sql/, studies/ and reports/ folders are symlinked into engine/cueshift/;
  they are collected there, as ``cueshift.schemas`` ..., and never a second time from the top.
* A module that needs an optional extra (``pip install -e ".[models]"``, ``[view]``, ``[report]`` ...)
  which is not installed is skipped instead of failing collection with an ImportError.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).parent
ENGINE = ROOT / "engine"

# `just test` runs the suite on pytest-xdist workers, which start with COLUMNS=80 where the
# controller had none: the tests of what a piped command prints need the width it has in CI.
if "PYTEST_XDIST_WORKER" not in os.environ:
    os.environ["CUESHIFT_TESTS_COLUMNS_UNSET"] = "0" if "COLUMNS" in os.environ else "1"
elif os.environ.get("CUESHIFT_TESTS_COLUMNS_UNSET") == "1":
    os.environ.pop("COLUMNS", None)

# Property tests (hypothesis) draw the same examples on every run of the suite, so a submission is
# never failed by a case its change did not cause; `just fuzz` draws new ones (decision D96). A
# failure prints the blob that replays it (``@reproduce_failure``).
settings.register_profile("suite", derandomize=True, print_blob=True)
settings.register_profile("fuzz", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist (``just test``: a worker per core) each worker's numba and OpenMP pools get one
    thread: two workers each running a pool per core oversubscribe the cores, and a tiny parallel
    kernel then waits for its threads at every call (decision D89). The workers inherit these from
    the controller, before they import numpy or numba; a value already set is kept.
    ``tests/stats/test_thread_count.py`` runs the parallel kernels on two threads."""
    if "PYTEST_XDIST_WORKER" not in os.environ and getattr(config.option, "numprocesses", None):
        for name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
            os.environ.setdefault(name, "1")


# Reached through the engine/cueshift/ symlinks only.
collect_ignore = ["schemas", "sql", "studies", "reports"]

# Import names of the packages the optional extras in pyproject.toml bring.
OPTIONAL_IMPORTS = frozenset(
    {
        "torch",
        "transformers",
        "ray",
        "starlette",
        "uvicorn",
        "jinja2",
        "great_tables",
        "matplotlib",
        "typst",
        "pypandoc",
        "nbclient",
        "nbformat",
        "ipykernel",
        "pypdf",
        "yaml",
        "mlcroissant",
        "playwright",
    }
)


def engine_module_name(path: Path) -> str | None:
    """``cueshift.stats._vs`` for engine/cueshift/stats/_vs.py; None outside engine/cueshift."""
    try:
        parts = list(path.relative_to(ENGINE).with_suffix("").parts)
    except ValueError:
        return None
    if not parts or parts[0] != "cueshift":
        return None
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Skip an engine module whose import fails only because an optional extra is missing."""
    if collection_path.suffix != ".py" or collection_path.name in ("conftest.py", "__main__.py"):
        return None
    module = engine_module_name(collection_path)
    if module is None:
        return None
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] in OPTIONAL_IMPORTS:
            return True
        raise
    return None


# The slow tests: each file here is marked ``slow`` as collected, so ``pytest -m "not slow"`` (``just
# test-quick``) leaves them out while ``just test`` (what CI runs) keeps them. Subprocesses killed mid-run,
# a browser, R, rendered reports and notebooks, Ray, the tiny real-architecture checkpoints; every layer
# keeps faster tests in the quick run. A path relative to this folder; a folder marks every file in it.
SLOW_TESTS = (
    "tests/hardening/test_analyze_interrupt.py",
    "tests/hardening/test_running.py",
    "tests/hardening/test_sql_readonly.py",
    "tests/hardening/test_fuzz.py",
    "tests/hardening/test_poison_request.py",
    "tests/hardening/test_api_key_leaks.py",
    "tests/hardening/test_markup.py",
    "tests/hardening/test_merge_trust.py",
    "tests/viewer/test_browser.py",
    "tests/exports/test_lme4_reference.py",
    "tests/test_notebooks.py",
    "tests/render/test_rendered.py",
    "tests/execution/test_ray_executor.py",
    "tests/store/test_upgrade_kill.py",
    "tests/inference/test_stand_in_checkpoints.py",
    # the slowest of the rest (pytest --durations, issue 30): kill -9 and sharded runs, end-to-end
    # audits, coverage and property simulations, power agreement grids, the entry point in subprocesses
    "tests/execution/test_runner.py",
    "tests/api/test_errors.py",
    "tests/audit_results/test_paired_audit.py",
    "tests/audit_results/test_analyze_audit.py",
    "tests/audit/test_clip_audit.py",
    "tests/stats/test_simulation.py",
    "tests/stats/test_properties.py",
    "tests/stats/test_judge_coverage.py",
    "tests/stats/test_schedule.py",
    "tests/power/test_agreement.py",
    "tests/designs/test_protocol.py",
    "tests/designs/test_paired.py",
    "tests/viewer/test_designs.py",
    "tests/render/test_designs.py",
    "tests/cli/test_entry.py",
    "tests/cli/test_version.py",
    "tests/inference/test_hf_generate.py",
    "tests/plan/test_designs.py",
    "tests/views/test_phi_choice.py",
    "tests/viewer/test_audit.py",
    "tests/images/test_quality_cli.py",
    "tests/cli/test_console_width.py",
    # the slowest files of the quick subset after issues 31-34 (--durations of the full suite, 2026-11-27)
    "tests/execution/test_invariance.py",
    "tests/stats/test_ci_coherence.py",
    "tests/inference/test_faces_dlib.py",
    "tests/api/test_commands.py",
    "tests/designs/test_multiverse.py",
    "tests/api/test_doc_examples.py",
    "tests/stats/test_registry.py",
    "tests/inference/test_hf_shared_prefix.py",
    "tests/inference/test_hf_static.py",
    "tests/stimuli/test_build_audit_clip.py",
    "tests/api/test_analyze_models.py",
    "tests/inference/test_hf.py",
    "tests/audit/test_face_audit.py",
    "tests/store/test_compiled.py",
    "tests/hardening/test_one_line.py",
    "tests/cli/test_prereg.py",
    "tests/imports/test_release_judgments.py",
    "tests/stimuli/test_build_loop.py",
    "tests/plan/test_cli.py",
    "tests/stimuli/test_build_kill.py",
    "tests/cli/test_failing_imports_merges_touch_nothing.py",
    "tests/inference/test_openai_vllm.py",
    "engine/cueshift/api/_commands.py",
    "tests/stats/test_compat_release.py",
    "tests/designs/test_audit_real_faces_e2e.py",  # real face models end to end: 100 s wall, 40 s CPU
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the tests of :data:`SLOW_TESTS` ``slow``."""
    # as strings: Path.parents builds a Path per level, 4.8 s per collection for 3,300 items
    slow = tuple(str(ROOT / path) for path in SLOW_TESTS)
    for item in items:
        where = str(item.path)
        if any(where == path or where.startswith(path + os.sep) for path in slow):
            item.add_marker(pytest.mark.slow)

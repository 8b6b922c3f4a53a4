"""Run the StylisticBias release's evaluation scripts, unchanged, from a checkout (for
``compat_side_by_side.py``): each script is imported from ``<checkout>/evaluation`` with the
checkout as the working directory (its scripts read ``config/`` from there) and its output folders
pointed at a scratch folder."""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import io
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from side_by_side_data import MODELS


def _load(checkout: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"release_{name}", checkout / "evaluation" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def run_release(checkout: Path, root: Path, out: Path) -> dict[str, Any]:
    """Tables 3 and 11 (``check_significance_independent``) and Table 5's per-model figures
    (``evaluate_mllm_outputs``, ``compare_model_evaluations``) of the answers under ``root``."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    here = Path.cwd()
    os.chdir(checkout)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            evaluate = _load(checkout, "evaluate_mllm_outputs")
            compare = _load(checkout, "compare_model_evaluations")
            significance = _load(checkout, "check_significance_independent")
            table5 = {}
            for model in MODELS:
                evaluate.evaluate_model(root / "output" / "judgements" / model, out / model)
                overall = json.loads((out / model / "paired_delta_statistics.json").read_text())["overall"]
                shares = compare._compute_paired_delta_distribution_metrics(out / model / "paired_deltas.csv")
                table5[model] = {**overall, **shares}
            significance.EVAL_DIR = out
            significance.OUT_DIR = out / "tables"
            significance.MODELS = list(MODELS)
            significance.OUT_DIR.mkdir(parents=True, exist_ok=True)
            significance.main()
    finally:
        os.chdir(here)
    tables = out / "tables"
    return {
        "table3": _csv(tables / "table3_significance_independent.csv"),
        "table11": _csv(tables / "big_table_significance_independent.csv"),
        "table5": table5,
    }

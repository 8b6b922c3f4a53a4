"""Run the StylisticBias release's evaluation scripts, unchanged, from a checkout (for
``compat_side_by_side.py``): each script is imported from ``<checkout>/evaluation`` with the
checkout as the working directory (its scripts read ``config/`` from there) and its output folders
pointed at a scratch folder."""

from __future__ import annotations

import ast
import contextlib
import csv
import importlib.util
import io
import json
import os
from pathlib import Path
from typing import Any, cast

from side_by_side_data import MODELS, Reader


def _load(checkout: Path, name: str) -> Any:
    """The release's ``evaluation/<name>.py`` as a module (its globals are set from outside)."""
    spec = importlib.util.spec_from_file_location(f"release_{name}", checkout / "evaluation" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_choice(checkout: Path) -> Reader:
    """The release's ``parse_choice`` as written in its ``judgement/judgement_pipeline.py`` (that
    module imports the model backends, so the one function is taken out of its source)."""
    source = (checkout / "judgement" / "judgement_pipeline.py").read_text()
    tree = ast.parse(source)
    function = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "parse_choice")
    namespace: dict[str, Any] = {}
    exec("import re\n" + (ast.get_source_segment(source, function) or ""), namespace)
    return cast(Reader, namespace["parse_choice"])


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


#: Decimals to which the float noise of the release's sums is rounded away in its second run.
DECIMALS = 12


def _rounded_deltas(source: Path, target: Path) -> Path:
    """``paired_deltas.csv`` with each Δ rounded to :data:`DECIMALS` decimals."""
    rows = _csv(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows({**r, "delta": repr(round(float(r["delta"]), DECIMALS))} for r in rows)
    return target


def run_release(checkout: Path, root: Path, out: Path) -> dict[str, Any]:
    """Tables 3 and 11 (``check_significance_independent``), Table 5's per-model figures
    (``evaluate_mllm_outputs``, ``compare_model_evaluations``) and Table 2's VS
    (``evaluate_base_faces``, ``recompute_variation_strength_independent``) of the answers under
    ``root``; under ``"rounded"`` Tables 3, 11 and 5's shares once more with the float noise of
    the release's sums rounded away (its face means, and its Δ, rounded to :data:`DECIMALS`
    decimals; its code otherwise as it is), which tells a floating-point artefact from a choice."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    here = Path.cwd()
    os.chdir(checkout)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            evaluate = _load(checkout, "evaluate_mllm_outputs")
            compare = _load(checkout, "compare_model_evaluations")
            significance = _load(checkout, "check_significance_independent")
            base_faces = _load(checkout, "evaluate_base_faces")
            strength = _load(checkout, "recompute_variation_strength_independent")
            table5, rounded5 = {}, {}
            for model in MODELS:
                evaluate.evaluate_model(root / "output" / "judgements" / model, out / model)
                base_faces.evaluate_base_faces(root / "output" / "judgements" / model, out / model)
                overall = json.loads((out / model / "paired_delta_statistics.json").read_text())["overall"]
                shares = compare._compute_paired_delta_distribution_metrics(out / model / "paired_deltas.csv")
                table5[model] = {**overall, **shares}
                rounded = _rounded_deltas(
                    out / model / "paired_deltas.csv", out / "rounded" / model / "deltas.csv"
                )
                rounded5[model] = {**overall, **compare._compute_paired_delta_distribution_metrics(rounded)}
            significance.EVAL_DIR = out
            significance.OUT_DIR = out / "tables"
            significance.MODELS = list(MODELS)
            significance.OUT_DIR.mkdir(parents=True, exist_ok=True)
            significance.main()
            faces = significance.aggregate_to_faces
            significance.aggregate_to_faces = lambda *a, **k: [round(x, DECIMALS) for x in faces(*a, **k)]
            significance.OUT_DIR = out / "tables_rounded"
            significance.OUT_DIR.mkdir(parents=True, exist_ok=True)
            significance.main()
            strength.EVAL_DIR = out
            strength.MODEL_ORDER = list(MODELS)
            strength.main()
    finally:
        os.chdir(here)
    tables, again = out / "tables", out / "tables_rounded"
    return {
        "table3": _csv(tables / "table3_significance_independent.csv"),
        "table11": _csv(tables / "big_table_significance_independent.csv"),
        "table5": table5,
        "table2_vs": {m: _csv(out / m / "category_variation_strength_independent.csv") for m in MODELS},
        "rounded": {
            "table3": _csv(again / "table3_significance_independent.csv"),
            "table11": _csv(again / "big_table_significance_independent.csv"),
            "table5": rounded5,
            "table2_vs": {},
        },
    }

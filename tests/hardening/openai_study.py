"""A small StylisticBias study judged through the local chat-completions server of the inference tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cueshift.designs.registry import parse_study
from cueshift.study.config import Study

#: one scenario, one ordering, one seed: one request per image of two demo faces
BASE: dict[str, Any] = {
    "name": "served",
    "batch_size": 16,
    "seeds": [1],
    "prompt": {"orderings": [1]},
    "scenarios": {"only": ["competent"]},
}


def study_data(tmp: Path, cache: Path, url: str, **settings: Any) -> dict[str, Any]:
    """The study file's data: the demo faces judged by model ``served`` behind ``url``."""
    fast = {"backoff_initial_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 5.0, "max_retries": 2}
    return {
        **BASE,
        "database": str(tmp / "served.duckdb"),
        "image_set": {"kind": "demo", "size": 2, "cache_dir": str(cache)},
        "models": [
            {
                "model_id": "served",
                "backend": "openai",
                "checkpoint": "tiny-vlm",
                "settings": {"base_urls": [url], **fast, **settings},
            }
        ],
    }


def served_study(tmp: Path, cache: Path, url: str, **settings: Any) -> Study:
    return parse_study(study_data(tmp, cache, url, **settings), "test")


def toml_of(data: dict[str, Any]) -> str:
    """``data`` as a study file (the few shapes :func:`study_data` uses)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return str(v)

    lines = [f"{k} = {value(v)}" for k, v in data.items() if not isinstance(v, dict | list) or k == "seeds"]
    for section in ("prompt", "scenarios", "image_set"):
        lines.append(f"[{section}]")
        lines += [f"{k} = {value(v)}" for k, v in data[section].items()]
    for model in data["models"]:
        lines.append("[[models]]")
        lines += [f"{k} = {value(v)}" for k, v in model.items() if k != "settings"]
        lines.append("[models.settings]")
        lines += [f"{k} = {value(v)}" for k, v in model["settings"].items()]
    return "\n".join(lines) + "\n"

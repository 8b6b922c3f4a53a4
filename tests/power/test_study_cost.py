"""Every design's cost table takes the lengths the user gave (``--question-tokens``,
``--image-tokens``, ``--answer-tokens``, ``--throughput``) over its own estimates."""

from __future__ import annotations

import tomllib
from pathlib import Path

import polars as pl
import pytest

from cueshift.designs import parse_study
from cueshift.plan import PlanRequest, Targets, plan_study
from cueshift.power.cost import CostSettings

STUDIES = Path(__file__).resolve().parents[2] / "studies"
GIVEN = CostSettings(image_tokens=1000, question_tokens=123.0, answer_tokens=8, throughput=20.0)


@pytest.mark.parametrize("name", ["default", "paired-001", "pairwise-002", "probe-004"])
def test_the_cost_uses_the_question_length_the_user_gave(name: str, tmp_path: Path) -> None:
    data = tomllib.loads((STUDIES / f"{name}.toml").read_text())
    data["database"] = str(tmp_path / f"{name}.duckdb")
    study = parse_study(data, name)
    request = PlanRequest(study, targets=Targets(effect=0.1), simulations=0, curve_simulations=0, cost=GIVEN)
    cost = plan_study(request).cost.filter(pl.col("model_id") != "(total)")
    assert cost.height == len(study.models)
    assert (cost["question_tokens"] == 123.0).all()
    assert (cost["image_tokens"] == 1000).all()
    assert cost["seconds_per_prompt"].to_list() == pytest.approx([1 / 20.0] * cost.height)
    assert (cost["throughput_source"] == "--throughput").all()
    if name != "pairwise-002":  # one image a prompt: every prompt carries 1,000 + 123 tokens
        assert cost["prefill_tokens"].to_list() == pytest.approx((cost["prompts"] * 1123.0).to_list())

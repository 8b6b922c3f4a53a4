"""Cost arithmetic against cases worked by hand from seed 000's protocol: 500 faces (274 male with
31 evaluated variations each, 226 female with 32), 25 scenarios, 4 orderings, 3 seeds."""

from __future__ import annotations

from pathlib import Path

import pytest

from cueshift.designs import load_study
from cueshift.designs.registry import study_scenarios
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.plan import PlanRequest, plan_study
from cueshift.plan.console import plan_markdown
from cueshift.power.cost import CostSettings, cost_frame, cost_rows, question_tokens
from cueshift.power.protocol import protocol_of
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE


def _paper_study(tmp: Path) -> Path:
    path = tmp / "paper.toml"
    models = "\n".join(f'[[models]]\nmodel_id = "m{k}"\nbackend = "simulated"\n' for k in range(6))
    path.write_text(f'name = "paper"\n[image_set]\nkind = "demo"\nsize = "paper"\n{models}')
    return path


def test_the_paper_protocol_has_15726_evaluated_variations(tmp_path: Path) -> None:
    study = load_study(_paper_study(tmp_path))
    protocol = protocol_of(study, scenarios=len(study_scenarios(study)))
    assert protocol.n_faces == 500
    assert int(protocol.value_faces().sum()) == 274 * 31 + 226 * 32 == 15_726
    assert protocol.variations_per_face() == pytest.approx(31.452)
    assert (protocol.scenarios, protocol.orderings, protocol.seeds) == (25, 4, 3)


def _row(mode: str, throughput: float | None = 20.0) -> dict[str, object]:
    return cost_rows(
        model_id="m",
        mode=mode,
        faces=500,
        variation_images=15_726,
        scenarios=25,
        orderings=4,
        seeds=3,
        settings=CostSettings(image_tokens=576, answer_tokens=4),
        question=50.0,
        seconds_per_prompt=None if throughput is None else 1 / throughput,
        throughput_source="test",
    )


def test_prompts_per_model_worked_by_hand() -> None:
    row = _row("sampling")
    # 16,226 images x 25 scenarios x 4 orderings x 3 seeds; the paper counts the 15,726 variations
    assert row["images"] == 16_226
    assert row["prompts_per_image"] == 300
    assert row["prompts"] == 4_867_800
    assert row["variation_prompts"] == 4_717_800  # seed 000: "approximately 4.72 x 10^6"
    assert row["forward_passes"] == 4_867_800 * 4  # one prefill and three decoding steps
    assert row["prefill_tokens"] == pytest.approx(4_867_800 * (576 + 50))
    assert row["prefill_tokens_shared_prefix"] == pytest.approx(16_226 * 576 + 4_867_800 * 50)
    assert row["gpu_hours"] == pytest.approx(4_867_800 / 20 / 3600)


def test_score_mode_collapses_the_seeds_and_decoding() -> None:
    row = _row("score", throughput=None)
    assert row["prompts"] == 16_226 * 100 == 1_622_600
    assert row["forward_passes"] == 1_622_600
    assert row["gpu_hours"] is None


def test_six_models_make_the_papers_28_million() -> None:
    frame = cost_frame([{**_row("sampling"), "model_id": f"m{k}"} for k in range(6)])
    total = frame.row(frame.height - 1, named=True)
    assert total["model_id"] == "(total)"
    assert total["variation_prompts"] == 6 * 4_717_800 == 28_306_800  # "about 28.3 million in total"
    assert total["prompts"] == 29_206_800
    assert total["images"] == 16_226  # the same images for every model
    assert total["gpu_hours"] == pytest.approx(6 * 4_867_800 / 20 / 3600)


def test_question_tokens_are_the_rendered_prompts_length_over_four() -> None:
    competent = STYLISTICBIAS_25[0]
    text = ORDERING_BY_ID[1].render(RELEASED_TEMPLATE, competent)
    assert question_tokens(RELEASED_TEMPLATE, [competent], [1]) == pytest.approx(len(text) / 4)
    study = load_study("default")
    mean = question_tokens(RELEASED_TEMPLATE, study_scenarios(study), [1, 2, 3, 4])
    assert 40 < mean < 70


def _small_study(tmp: Path, placebos: str) -> Path:
    path = tmp / "small.toml"
    path.write_text(
        f'name = "small"\n[image_set]\nkind = "demo"\nsize = 12\n{placebos}\n'
        '[[models]]\nmodel_id = "m"\nbackend = "simulated"\n'
    )
    return path


@pytest.mark.parametrize(("line", "per_face"), [("", 2), ("placebos = true", 2), ("placebos = false", 0)])
def test_the_cost_counts_the_noise_floor_placebos_unless_the_study_opts_out(
    tmp_path: Path, line: str, per_face: int
) -> None:
    # a StylisticBias study judges an identical copy and a lossless re-encode of every base face
    study = load_study(_small_study(tmp_path, line))
    result = plan_study(PlanRequest(study, simulations=0, curve_simulations=0))
    protocol = protocol_of(study, scenarios=len(study_scenarios(study)))
    row = result.cost.row(0, named=True)
    variations = int(protocol.value_faces().sum())
    assert row["placebo_images"] == per_face * 12
    assert row["images"] == 12 + variations + per_face * 12  # the bases, the variations, the placebos
    assert row["variation_images"] == variations
    assert row["prompts"] == row["images"] * row["prompts_per_image"]
    assert row["variation_prompts"] == variations * row["prompts_per_image"]
    said = [n for n in result.notes if "placebos" in n]
    assert len(said) == 1 and ("includes" in said[0]) == (per_face > 0)
    assert "of them placebos" in plan_markdown(result)

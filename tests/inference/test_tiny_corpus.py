"""The stand-ins' fixed copies of StylisticBias data still equal the design's: the tiny tokenizer's
descriptor pairs, the simulated judge's category scale and the prompt_variant example scenario."""

from __future__ import annotations

from cueshift.designs.stylisticbias.scenarios import SCENARIO_CATEGORIES, STYLISTICBIAS_25
from cueshift.inference.stand_ins.simulated.defaults import DEFAULT_CATEGORY_SCALE
from cueshift.inference.stand_ins.tiny_corpus import DESCRIPTOR_PAIRS, EXTRA_TEXTS, prompt_corpus
from cueshift.study.scenarios import EXAMPLE_SCENARIO, ORDERINGS, RELEASED_TEMPLATE


def test_the_tiny_corpus_renders_the_designs_scenarios() -> None:
    assert tuple((s.favorable, s.unfavorable) for s in STYLISTICBIAS_25) == DESCRIPTOR_PAIRS
    rendered = [o.render(RELEASED_TEMPLATE, s) for s in STYLISTICBIAS_25 for o in ORDERINGS]
    assert prompt_corpus() == [*rendered, *EXTRA_TEXTS]


def test_the_simulated_scale_and_the_example_name_the_designs_scenarios() -> None:
    assert tuple(DEFAULT_CATEGORY_SCALE) == SCENARIO_CATEGORIES
    assert STYLISTICBIAS_25[0] == EXAMPLE_SCENARIO

"""The text the tiny test models' tokenizer is trained on (:mod:`~cueshift.inference.stand_ins.tiny_parts`).

The prompts are the released forced-choice template rendered in every ordering on StylisticBias's
25 descriptor pairs (seed 000 Table 1), written out here rather than read from
:mod:`cueshift.designs.stylisticbias.scenarios` (a layer above): a tiny model is a fixed fixture
whose vocabulary must not follow a design's edits. ``tests/inference/test_tiny_corpus.py`` checks
that the pairs still equal the design's.
"""

from __future__ import annotations

from cueshift.study.scenarios import ORDERINGS, RELEASED_TEMPLATE, Scenario

#: (favorable, unfavorable) of the 25 StylisticBias scenarios, in their released order.
DESCRIPTOR_PAIRS: tuple[tuple[str, str], ...] = (
    ("Competent", "Incompetent"),
    ("Likeable", "Unlikeable"),
    ("Intelligent", "Unintelligent"),
    ("Responsible", "Irresponsible"),
    ("Open-minded", "Closed-minded"),
    ("Conscientious", "Careless"),
    ("Extraverted", "Introverted"),
    ("Emotionally stable", "Anxious"),
    ("Confident", "Insecure"),
    ("Curious", "Indifferent"),
    ("Loving", "Cold"),
    ("Trustworthy", "Untrustworthy"),
    ("Obedient", "Unruly"),
    ("Peaceful", "Controversial"),
    ("Home owner", "Renter"),
    ("Educated", "Uneducated"),
    ("Attractive", "Unattractive"),
    ("Stylish", "Unstylish"),
    ("Friendly", "Unfriendly"),
    ("Loyal", "Disloyal"),
    ("Rational", "Emotional"),
    ("Independent", "Dependent"),
    ("Polite", "Rude"),
    ("Wealthy", "Poor"),
    ("Honest", "Fraudulent"),
)
#: Answers and chat words added to the prompts.
EXTRA_TEXTS: tuple[str, ...] = (
    "(a)",
    "(b)",
    "(a) (b) a b A B",
    "You are a helpful assistant.",
    "User: Assistant:",
)


def prompt_corpus() -> list[str]:
    """The tokenizer's training texts: every prompt of :data:`DESCRIPTOR_PAIRS`, then :data:`EXTRA_TEXTS`.

    >>> corpus = prompt_corpus()
    >>> len(corpus), corpus[-1]
    (105, 'User: Assistant:')
    """
    pairs = [Scenario("", favorable, unfavorable, "") for favorable, unfavorable in DESCRIPTOR_PAIRS]
    return [o.render(RELEASED_TEMPLATE, s) for s in pairs for o in ORDERINGS] + list(EXTRA_TEXTS)


__all__ = ["DESCRIPTOR_PAIRS", "EXTRA_TEXTS", "prompt_corpus"]

"""The parser treats the two letters and the two poles alike (docs/decisions.md#d5).

An answer template filled with a letter and a pole is parsed under every ordering: whether it
counts, for which reason, and whether it names the filled-in letter may depend only on whether
that letter is the pole's letter in the ordering, never on which letter or which pole it is.
If acceptance depended on the letter or pole, the invalid rate would depend on the ordering
(and so on which pole a letter names), a bias in phi that no analysis could undo.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.inference.parser import ParsedAnswer, parse_answer
from cueshift.study.scenarios import ORDERINGS, Scenario

PREFIXES = ["", "Answer: ", "The answer is ", "Option ", "Choice: ", "I'd say ", "I choose ", "**", "Maybe "]
LETTER_FORMS = ["{L}", "({L})", "{L})", "{L}.", "{L}:", "[{L}]", "{L} -", "{L}\n", "not {L}", "option {L}"]
POLE_FORMS = ["{P}", "'{P}'", "{P} person", "a {P} person", "not {P}", '"{P}"']
JOINERS = [" ", ". ", ": ", "\n", " because ", ", ", " - "]
SUFFIXES = ["", ".", "!", " person.", "\nThe clothes look neat.", " is closer", "\n\nI cannot tell."]


@st.composite
def templates(draw: st.DrawFn) -> str:
    """An answer with a ``{L}`` slot (the letter) and/or a ``{P}`` slot (the pole)."""
    letter = draw(st.sampled_from(LETTER_FORMS))
    pole = draw(st.sampled_from(POLE_FORMS))
    parts = draw(st.sampled_from(["letter", "pole", "letter pole", "pole letter"]))
    body = {
        "letter": letter,
        "pole": pole,
        "letter pole": letter + draw(st.sampled_from(JOINERS)) + pole,
        "pole letter": pole + draw(st.sampled_from(JOINERS)) + letter,
    }[parts]
    return draw(st.sampled_from(PREFIXES)) + body + draw(st.sampled_from(SUFFIXES))


Parser = Callable[[str, Mapping[str, str]], ParsedAnswer]


def _outcomes(
    template: str, scenario: Scenario, upper: bool, pole_case: str, parse: Parser = parse_answer
) -> dict[bool, set[tuple[str, str]]]:
    """Every (ordering, letter, pole) parse, as (reason, which letter it names), grouped by whether
    the filled-in letter is the pole's letter in that ordering."""
    grouped: dict[bool, set[tuple[str, str]]] = {True: set(), False: set()}
    for ordering in ORDERINGS:
        mapping = ordering.descriptor_by_letter(scenario)
        for letter in ("a", "b"):
            for pole in (scenario.favorable, scenario.unfavorable):
                shown = {"title": pole, "lower": pole.lower(), "upper": pole.upper()}[pole_case]
                text = template.replace("{L}", letter.upper() if upper else letter).replace("{P}", shown)
                parsed = parse(text, mapping)
                pole_letter = next(k for k, v in mapping.items() if v == pole)
                which = (
                    "none"
                    if parsed.letter is None
                    else ("the letter" if parsed.letter == letter else "")
                    + ("+the pole" if parsed.letter == pole_letter else "")
                )
                grouped[mapping[letter] == pole].add((parsed.reason, which))
    return grouped


@settings(max_examples=400, deadline=None)
@given(
    template=templates(),
    scenario=st.sampled_from(STYLISTICBIAS_25),
    upper=st.booleans(),
    pole_case=st.sampled_from(["title", "lower", "upper"]),
)
def test_parse_is_symmetric_in_letters_and_poles(
    template: str, scenario: Scenario, upper: bool, pole_case: str
) -> None:
    grouped = _outcomes(template, scenario, upper, pole_case)
    for agrees, outcomes in grouped.items():
        assert len(outcomes) == 1, (template, scenario.scenario_id, agrees, outcomes)


def test_the_symmetry_check_can_fail() -> None:
    """The previous rules ('I'd say b' counts, 'I'd say a' does not; a leading 'a' before a pole
    is letter (a)) break the property, and the check sees it."""

    def final_b_counts(text: str, mapping: Mapping[str, str]) -> ParsedAnswer:
        return ParsedAnswer("b", "letter") if re.search(r"\sb$", text) else parse_answer(text, mapping)

    def leading_a_is_a_letter(text: str, mapping: Mapping[str, str]) -> ParsedAnswer:
        if re.match(r"a \w", text):
            named = parse_answer(text, mapping)
            return ParsedAnswer("a", "letter") if named.letter == "a" else ParsedAnswer(None, "conflict")
        return parse_answer(text, mapping)

    scenario = STYLISTICBIAS_25[0]
    tail = _outcomes("I'd say {L}", scenario, False, "lower", final_b_counts)
    head = _outcomes("{L} {P} person", scenario, False, "lower", leading_a_is_a_letter)
    assert max(len(v) for v in tail.values()) > 1
    assert max(len(v) for v in head.values()) > 1
    assert all(len(v) == 1 for v in _outcomes("{L} {P} person", scenario, False, "lower").values())


def test_a_pole_word_answer_counts_the_same_in_every_ordering() -> None:
    """Article prose names the pole in all 4 orderings ("a competent person" is never letter (a))."""
    forms = ["A {P} person.", "a {P} person", "The person looks {P}.", "{P}", "Answer: a {P} one", "'{P}'"]
    for scenario in STYLISTICBIAS_25:
        for form in forms:
            for pole in (scenario.favorable, scenario.unfavorable):
                text = form.replace("{P}", pole.lower())
                for ordering in ORDERINGS:
                    mapping = ordering.descriptor_by_letter(scenario)
                    parsed = parse_answer(text, mapping)
                    assert parsed.reason == "descriptor", (text, ordering.ordering)
                    assert mapping[parsed.letter or ""] == pole, (text, ordering.ordering)


def test_the_articles_of_issue_11_are_no_letters() -> None:
    mapping = {"a": "Competent", "b": "Incompetent"}
    for text in ["Answer: A person.", "Answer: A man", "Choice: A person", "Option A person"]:
        assert parse_answer(text, mapping).letter is None, text
    assert parse_answer("I'd say a", mapping) == parse_answer("I'd say b", mapping)

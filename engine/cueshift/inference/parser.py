"""The strict answer parser: raw model text -> the letter it names, or invalid.

Seed 000 (Appendix C.2, "Response parsing") records every response that cannot be
mapped *unambiguously* to one of the two options as invalid: refusals, hedges, answers
naming both options or neither. This module implements that rule and never guesses.

Rules, applied in this order to the normalised text (NFKC, curly quotes -> straight,
markdown ``* _ ` #`` removed, spaces collapsed, line breaks kept) in which the two descriptors have
been located and masked (so a descriptor such as "Uncertain" is never read as a hedge);
the first rule that fires decides:

=====  ==============================================  ==========  ===========
step   the text ...                                    letter      reason
=====  ==============================================  ==========  ===========
1      is empty / punctuation only                     None        empty
2      contains a refusal phrase ("I cannot",          None        refusal
       "I can't", "sorry", "unable to", "impossible
       to tell", "as an AI", "cannot be determined",
       "not appropriate", "decline", ...)
3      contains a hedge ("maybe", "perhaps",           None        hedge
       "probably", "could be", "might be", "hard to
       say", "not sure", "either", "depends", ...)
4      says "neither" / "none of" / "nor"              None        neither
5      says "both", or joins two letters ("a or b",    None        both
       "(a)/(b)", "a and b")
6      negates a letter or descriptor ("not (a)",      None        negated
       "isn't competent", "never (b)"; up to two
       words between the negation and the target)
7      names both letters, or both descriptors         None        both
8      names one letter and the *other* descriptor     None        conflict
9      names one letter (descriptor absent or          that letter letter
       consistent)
10     names no letter but exactly one descriptor      its letter  descriptor
11     anything else                                   None        no_answer
=====  ==============================================  ==========  ===========

What counts as naming a letter or a descriptor, and the phrases of rules 2-6, are in
:mod:`cueshift.inference.parser_rules`.

Caveats are strict by design: an answer followed by a refusal or hedge ("(a). But it
is impossible to tell from a photo.") is invalid, as is an answer that negates the
other pole ("(a) Competent, not Incompetent").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

from cueshift.inference.parser_rules import (
    BOTH,
    HEDGE,
    NEGATION_BEFORE,
    NEITHER,
    REFUSAL,
    descriptors_named,
    letters_named,
    normalise,
)

Letter = Literal["a", "b"]
LETTERS: Final[tuple[Letter, Letter]] = ("a", "b")

#: Every reason :func:`parse_answer` can give.
REASONS: Final[tuple[str, ...]] = (
    "letter",
    "descriptor",
    "empty",
    "refusal",
    "hedge",
    "neither",
    "both",
    "negated",
    "conflict",
    "no_answer",
)


@dataclass(frozen=True)
class ParsedAnswer:
    """The outcome of parsing one response.

    Attributes
    ----------
    letter
        ``'a'`` or ``'b'`` when the response names exactly one option, else ``None``.
    reason
        Which rule decided (one of :data:`REASONS`): ``'letter'`` and ``'descriptor'``
        for valid answers, the others for invalid ones.
    """

    letter: Letter | None
    reason: str

    @property
    def valid(self) -> bool:
        return self.letter is not None


def _check_mapping(descriptor_by_letter: Mapping[str, str]) -> None:
    if set(descriptor_by_letter) != set(LETTERS):
        raise ValueError(
            f"descriptor_by_letter must map exactly 'a' and 'b', got {sorted(descriptor_by_letter)}"
        )
    a, b = descriptor_by_letter["a"], descriptor_by_letter["b"]
    if normalise(a).casefold() == normalise(b).casefold():
        raise ValueError(f"the two descriptors are the same: {a!r}")


# --------------------------------------------------------------------------- public API


def parse_answer(text: str, descriptor_by_letter: Mapping[str, str]) -> ParsedAnswer:
    """Parse one response into the letter it names, or invalid.

    Parameters
    ----------
    text
        The raw model response.
    descriptor_by_letter
        ``{'a': descriptor, 'b': descriptor}`` as written in the prompt
        (:meth:`cueshift.study.scenarios.Ordering.descriptor_by_letter`).

    Returns
    -------
    ParsedAnswer
        ``letter`` is ``'a'``/``'b'`` or ``None`` (invalid); ``reason`` names the rule
        (see the module docstring for the table of rules).

    Examples
    --------
    >>> m = {"a": "Competent", "b": "Incompetent"}
    >>> parse_answer("**(B)**", m)
    ParsedAnswer(letter='b', reason='letter')
    >>> parse_answer("(a) Incompetent", m)
    ParsedAnswer(letter=None, reason='conflict')
    >>> parse_answer("a person who looks competent", m)
    ParsedAnswer(letter='a', reason='descriptor')
    """
    _check_mapping(descriptor_by_letter)
    return _parse(text, descriptor_by_letter["a"], descriptor_by_letter["b"])


@lru_cache(maxsize=65536)
def _parse(text: str, descriptor_a: str, descriptor_b: str) -> ParsedAnswer:
    normalised = normalise(text)
    if not re.search(r"\w", normalised):
        return ParsedAnswer(None, "empty")
    descriptor_letters, descriptor_negated, masked = descriptors_named(
        normalised, {"a": descriptor_a, "b": descriptor_b}
    )
    if REFUSAL.search(masked):
        return ParsedAnswer(None, "refusal")
    if HEDGE.search(masked):
        return ParsedAnswer(None, "hedge")
    if NEITHER.search(masked):
        return ParsedAnswer(None, "neither")
    if BOTH.search(masked):
        return ParsedAnswer(None, "both")
    letters, spans = letters_named(masked)
    if descriptor_negated or any(NEGATION_BEFORE.search(masked, 0, start) for start, _ in spans):
        return ParsedAnswer(None, "negated")
    if len(letters) > 1 or len(descriptor_letters) > 1:
        return ParsedAnswer(None, "both")
    if letters:
        (letter,) = letters
        if descriptor_letters and descriptor_letters != letters:
            return ParsedAnswer(None, "conflict")
        return ParsedAnswer(letter, "letter")  # type: ignore[arg-type]
    if descriptor_letters:
        (letter,) = descriptor_letters
        return ParsedAnswer(letter, "descriptor")  # type: ignore[arg-type]
    return ParsedAnswer(None, "no_answer")


NamedLetter = Literal["a", "b", "both", "none"]


def named_letter(text: str, descriptor_by_letter: Mapping[str, str]) -> NamedLetter:
    """The letter an answer names by the letter and descriptor rules alone, ignoring refusals,
    hedges, negations and conflicts: which option an invalid answer would have named.

    Used to read invalid answers by ordering x letter (a parser that refused answers naming one
    letter more often would bias phi); ``'both'`` when it names both options (by letter or by
    descriptor), ``'none'`` when neither.

    Examples
    --------
    >>> m = {"a": "Competent", "b": "Incompetent"}
    >>> named_letter("Maybe (b), hard to say.", m), named_letter("I cannot tell.", m)
    ('b', 'none')
    >>> named_letter("(a) Incompetent", m)
    'both'
    """
    _check_mapping(descriptor_by_letter)
    return _named(text, descriptor_by_letter["a"], descriptor_by_letter["b"])


@lru_cache(maxsize=65536)
def _named(text: str, descriptor_a: str, descriptor_b: str) -> NamedLetter:
    normalised = normalise(text)
    descriptor_letters, _, masked = descriptors_named(normalised, {"a": descriptor_a, "b": descriptor_b})
    named = letters_named(masked)[0] | descriptor_letters
    if len(named) == 2:
        return "both"
    return "a" if named == {"a"} else "b" if named == {"b"} else "none"


__all__ = [
    "LETTERS",
    "REASONS",
    "Letter",
    "NamedLetter",
    "ParsedAnswer",
    "named_letter",
    "parse_answer",
]

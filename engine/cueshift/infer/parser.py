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

What counts as naming a letter (case-insensitive; the rules are the same for ``a`` and
``b``, so acceptance never depends on which letter an ordering gives a pole):

* a parenthesised/bracketed letter: ``(a)``, ``( B )``, ``[a]``;
* a letter followed by ``)`` after the start or a space: ``a) Competent``;
* the whole answer is the letter, modulo punctuation, quotes, markdown and an
  answer prefix (``Answer:``, ``The answer is``, ``Final answer -``, ``Option``):
  ``a``, ``A.``, ``Answer: b``;
* a *bare* letter (at the start after such a prefix, after ``option``/``choice``/
  ``letter``/``answer``, or at the end of the text) that is *closed*: followed by ``.``,
  ``:``, ``)``, a quote, a dash, a line break, the end of the text, a *quoted* descriptor
  (the prompt's own form) or a word that cannot follow the article ("is", "because",
  "fits", ...): ``A. Competent``, ``b 'Incompetent'``, ``Option B is closer``,
  ``b because ...``, ``I'd say a.``;
* a line of its own is the letter.

A bare letter followed by any other word is the English article, never a letter, and the
same form with ``b`` is read the same way: ``"Answer: A person."``, ``"Option A person"``
name no letter, and ``"a competent person"`` names the descriptor only, in every ordering
(``"b competent person"`` likewise). A bare letter that ends the text needs closing
punctuation (``"I'd say b."``, not ``"I'd say b"``): a reply cut off at the token limit may
end in the article.

Descriptors are matched whole-word and case-insensitively, with spaces and hyphens
interchangeable and optional inside multi-word descriptors ("Home owner" matches
"home-owner" and "homeowner"; "Open-minded" matches "open minded"); "Unlikeable" never
matches "Likeable". When one descriptor contains the other, the longer is matched
first and its span masked.

Caveats are strict by design: an answer followed by a refusal or hedge ("(a). But it
is impossible to tell from a photo.") is invalid, as is an answer that negates the
other pole ("(a) Competent, not Incompetent").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

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


# --------------------------------------------------------------------------- normalisation

_QUOTES: Final[dict[int, str]] = {
    ord(c): r
    for chars, r in (
        ("\u2018\u2019\u201a\u201b\u2032\u0060\u00b4", "'"),
        ("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
    )
    for c in chars
}
_QUOTES.update({ord(c): "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"})
_QUOTES.update({ord(c): "" for c in "\u200b\u200c\u200d\u2060\ufeff"})
_MARKDOWN = re.compile(r"[*_`#]+")
_SPACE = re.compile(r"[^\S\n]+")
_LINE_BREAK = re.compile(r" ?\n\s*")


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _MARKDOWN.sub(" ", text)
    return _LINE_BREAK.sub("\n", _SPACE.sub(" ", text)).strip()


# --------------------------------------------------------------------------- phrase rules


def _phrases(*patterns: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])(?:" + "|".join(patterns) + r")(?![\w])", re.IGNORECASE)


_REFUSAL = _phrases(
    r"i\s*(?:cannot|can\s*not|can'?t|could\s*not|couldn'?t|won'?t|will\s+not|must\s+not|shouldn'?t)",
    r"i'?m\s+(?:not\s+able|unable|afraid|sorry)",
    r"i\s+am\s+(?:not\s+able|unable|afraid|sorry)",
    r"i\s+do\s+not\s+(?:feel|make|think\s+it)",
    r"i\s+don'?t\s+(?:feel|make|think\s+it)",
    r"sorry",
    r"apologi[sz]e",
    r"unable\s+to",
    r"not\s+able\s+to",
    r"(?:impossible|not\s+possible|inappropriate|not\s+appropriate)\s+to",
    r"(?:can\s*not|can'?t|cannot)\s+(?:be\s+)?(?:determined?|told?|tell|judged?|inferred?|infer|assessed?|assess|said|say|know|known)",
    r"no\s+way\s+to",
    r"as\s+an?\s+(?:ai|language\s+model|assistant)",
    r"declines?",
    r"refrain",
    r"not\s+(?:enough|sufficient)\s+information",
    r"insufficient\s+information",
    r"based\s+(?:solely|only|purely)\s+on\s+(?:appearance|a\s+photo|an\s+image)\s+(?:is|would\s+be)",
)
_HEDGE = _phrases(
    r"maybe",
    r"perhaps",
    r"possibly",
    r"probably",
    r"likely",
    r"(?:could|might|may)\s+(?:be|go|lean)",
    r"(?:hard|difficult|tough)\s+to\s+(?:say|tell|determine|judge)",
    r"not\s+(?:sure|certain|clear)",
    r"unsure",
    r"unclear",
    r"uncertain",
    r"either",
    r"it\s+depends",
    r"depends\s+on",
    r"somewhere\s+between",
    r"in\s+between",
)
_NEITHER = _phrases(r"neither", r"none\s+of", r"nor")
_BOTH = re.compile(
    r"(?<![\w])both(?![\w])"
    r"|(?<![\w])\(?\s*[ab]\s*\)?\s*(?:/|\bor\b|\band\b|&|,)\s*\(?\s*[ab]\s*\)?(?=\s*(?:$|[^\w\s]))"
    r"|\(\s*[ab]\s*\)\s*(?:/|\bor\b|\band\b|&|,)\s*\(\s*[ab]\s*\)",
    re.IGNORECASE,
)
_NEGATION_BEFORE = re.compile(
    r"(?:\bnot|n't|\bnever|\bno)\s+(?:[\w'-]+\s+){0,2}(?:(?:option|answer|letter|choice)\s*)?[\"'(\[]*\s*$",
    re.IGNORECASE,
)

# --------------------------------------------------------------------------- letter rules

#: stands in for each character of a matched descriptor: a word character (the mention
#: stays a word) that normalisation has removed from the text, so it cannot collide
_MASK = "_"

_PREFIX = (
    r"(?:(?:my|the|final|correct)\s+)*(?:answer|response|choice|option|selection)"
    r"(?:\s+(?:is|would\s+be|:))?\s*[:=\-]?\s*"
    r"|i(?:'d|\s+would|\s+will)?\s+(?:choose|pick|select|go\s+with)\s*:?\s*"
)
_OPEN = r"[\s\"'(\[{<.:-]*"
_CLOSE = r"[\s\"')\]}>.!,;:-]*"
#: words that cannot follow the article 'a', so a bare letter before them is a letter
_NOT_A_NOUN = r"(?:is|was|would|seems|fits|applies|describes|matches|because|since|as)"
#: what closes a bare letter: punctuation, a quote, a dash, a line break, the end, a quoted
#: descriptor (the prompt's own form "(a) 'Competent'"), or such a word
_CLOSED = rf"(?=[ \t]*(?:[.:;,!?)\]]|$)|[\"']|\s+-|-\s|[ \t]*\n|\s+[\"']{_MASK}|\s+{_NOT_A_NOUN}(?![\w]))"
#: the whole text is a letter (modulo prefix and punctuation)
_WHOLE = re.compile(rf"^{_OPEN}(?:{_PREFIX})?{_OPEN}([ab]){_CLOSE}$", re.IGNORECASE)
#: the text starts with a closed bare letter (after an optional answer prefix)
_HEAD = re.compile(rf"^{_OPEN}(?:{_PREFIX})?[\"'\s]*([ab]){_CLOSED}", re.IGNORECASE)
#: a line that is only a letter
_LINE = re.compile(rf"^{_OPEN}([ab]){_CLOSE}$", re.IGNORECASE | re.MULTILINE)
#: a letter that ends the text with closing punctuation ("I'd say b."); without it, a
#: truncated "it appears to be a" would be read as a letter
_TAIL = re.compile(rf"(?:^|(?<=[\s\"'(\[:,]))([ab])[ \t]*[.!)\]\"']{_CLOSE}\Z", re.IGNORECASE)
_PAREN = re.compile(r"[(\[]\s*([ab])\s*[)\]]", re.IGNORECASE)
_CLOSING_PAREN = re.compile(r"(?:^|(?<=\s)|(?<=['\"]))([ab])\)", re.IGNORECASE)
#: 'option b', 'choice: a', 'answer is B.' anywhere, when the letter is closed
_KEYWORD = re.compile(
    rf"(?<![\w])(?:option|choice|letter|answer(?:\s+(?:is|would\s+be))?)\s*[:\-]?\s*([ab]){_CLOSED}",
    re.IGNORECASE,
)


def _letters_named(text: str) -> tuple[set[str], list[tuple[int, int]]]:
    """Letters the text names, and the spans where it names them."""
    found: set[str] = set()
    spans: list[tuple[int, int]] = []
    for pattern in (_WHOLE, _HEAD):
        match = pattern.match(text)
        if match:
            found.add(match.group(1).lower())
            spans.append(match.span(1))
    for pattern in (_LINE, _TAIL, _PAREN, _CLOSING_PAREN, _KEYWORD):
        for match in pattern.finditer(text):
            found.add(match.group(1).lower())
            spans.append(match.span(1))
    return found, spans


# --------------------------------------------------------------------------- descriptors


@lru_cache(maxsize=4096)
def _descriptor_pattern(descriptor: str) -> re.Pattern[str]:
    words = [w for w in re.split(r"[\s\-]+", _normalise(descriptor)) if w]
    if not words:
        raise ValueError(f"empty descriptor {descriptor!r}")
    body = r"[\s\-]*".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


def _descriptors_named(text: str, descriptor_by_letter: Mapping[str, str]) -> tuple[set[str], bool, str]:
    """Letters whose descriptor the text names, whether any such mention is negated, and
    the text with every descriptor mention masked (so that a descriptor such as
    'Uncertain' is not read as a hedge, nor 'a Competent' as a bare letter)."""
    found: set[str] = set()
    negated = False
    masked = text
    ordered = sorted(descriptor_by_letter.items(), key=lambda item: -len(_normalise(item[1])))
    for letter, descriptor in ordered:
        pattern = _descriptor_pattern(descriptor)
        for match in pattern.finditer(masked):
            if _NEGATION_BEFORE.search(masked, 0, match.start()):
                negated = True
            else:
                found.add(letter)
        masked = pattern.sub(lambda m: _MASK * len(m.group(0)), masked)
    return found, negated, masked


def _check_mapping(descriptor_by_letter: Mapping[str, str]) -> None:
    if set(descriptor_by_letter) != set(LETTERS):
        raise ValueError(
            f"descriptor_by_letter must map exactly 'a' and 'b', got {sorted(descriptor_by_letter)}"
        )
    a, b = descriptor_by_letter["a"], descriptor_by_letter["b"]
    if _normalise(a).casefold() == _normalise(b).casefold():
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
    normalised = _normalise(text)
    if not re.search(r"\w", normalised):
        return ParsedAnswer(None, "empty")
    descriptor_letters, descriptor_negated, masked = _descriptors_named(
        normalised, {"a": descriptor_a, "b": descriptor_b}
    )
    if _REFUSAL.search(masked):
        return ParsedAnswer(None, "refusal")
    if _HEDGE.search(masked):
        return ParsedAnswer(None, "hedge")
    if _NEITHER.search(masked):
        return ParsedAnswer(None, "neither")
    if _BOTH.search(masked):
        return ParsedAnswer(None, "both")
    letters, spans = _letters_named(masked)
    if descriptor_negated or any(_NEGATION_BEFORE.search(masked, 0, start) for start, _ in spans):
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


def parse_answers(
    texts: Sequence[str], descriptors: Sequence[Mapping[str, str]]
) -> tuple[list[str | None], list[str]]:
    """Parse many responses; repeated (text, mapping) pairs are parsed once.

    Real runs repeat a handful of distinct texts ("(a)", "(b)", "Answer: (a)") across
    millions of rows, so the cost is one dictionary look-up per row plus one
    :func:`parse_answer` per distinct (text, descriptor a, descriptor b).

    Parameters
    ----------
    texts
        Raw responses, one per row.
    descriptors
        The ``{'a': ..., 'b': ...}`` mapping of each row's prompt (the same mapping
        object may be passed for many rows).

    Returns
    -------
    letters, reasons
        Row-aligned lists: the letter (or ``None``) and the reason of each row.
    """
    if len(texts) != len(descriptors):
        raise ValueError(f"{len(texts)} texts but {len(descriptors)} descriptor mappings")
    cache: dict[tuple[str, str, str], ParsedAnswer] = {}
    letters: list[str | None] = []
    reasons: list[str] = []
    append_letter = letters.append
    append_reason = reasons.append
    for text, mapping in zip(texts, descriptors, strict=True):
        key = (text, mapping["a"], mapping["b"])
        parsed = cache.get(key)
        if parsed is None:
            parsed = parse_answer(text, mapping)
            cache[key] = parsed
        append_letter(parsed.letter)
        append_reason(parsed.reason)
    return letters, reasons


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
    normalised = _normalise(text)
    descriptor_letters, _, masked = _descriptors_named(normalised, {"a": descriptor_a, "b": descriptor_b})
    named = _letters_named(masked)[0] | descriptor_letters
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
    "parse_answers",
]

"""Letter probabilities from a chat completion's ``logprobs``: P(answer (a)), P(answer (b)), the rest."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: A token that answers with a letter: "a", "(a", "(a)", "a)", "a.", "(A)"... after stripping
#: whitespace. Bare capitals ("A") are not letters: at the answer position they are the article.
_LETTER = re.compile(r"^(?:\(\s*([abAB])|([ab]))\s*\)?\s*[.,:]?$")
#: After an opening parenthesis only the letter (and an optional closing part) may follow.
_LETTER_AFTER_OPEN = re.compile(r"^([abAB])\s*\)?\s*[.,:]?$")
#: Tokens that may come before the letter without deciding it.
_OPEN = re.compile(r"^\s*\(\s*$")
_SPACE = re.compile(r"^\s+$")


@dataclass(frozen=True)
class LetterProbabilities:
    """P(answer starts with letter a), P(... b), and the rest of the mass."""

    p_a: float
    p_b: float

    @property
    def p_neither(self) -> float:
        return min(1.0, max(0.0, 1.0 - self.p_a - self.p_b))

    def p_letter_share(self, letter: str) -> float | None:
        """P(letter) / (P(a) + P(b)): the two-way choice, ``None`` when neither letter has mass."""
        total = self.p_a + self.p_b
        if total <= 0.0:
            return None
        return (self.p_a if letter == "a" else self.p_b) / total


def letter_probabilities(content: Sequence[dict[str, Any]]) -> LetterProbabilities | None:
    r"""Probability of answering (a) versus (b) from chat-completion ``logprobs.content``.

    Parameters
    ----------
    content
        The per-position entries ``{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}``
        of the sampled answer, as OpenAI, vLLM and llama.cpp server return them.

    Returns
    -------
    LetterProbabilities or None
        ``None`` when the server returned no positions or no ``top_logprobs``.

    Notes
    -----
    Tokenizers split "(a)" differently: one token ``"(a)"``, ``"(a"`` + ``")"``, ``"("`` +
    ``"a"`` + ``")"``, or a leading space ``" ("``. The variants are merged by walking the
    sampled path from the first position:

    * every alternative at the current position whose text (whitespace stripped) reads as
      a letter answer — ``a``, ``(a``, ``(a)``, ``a)``, ``a.`` and ``(A``/``(A)`` — adds
      :math:`\pi \cdot p(t)` to that letter, where :math:`\pi` is the probability of the
      sampled prefix so far (1 at the first position); bare capitals are not counted
      (``"A"`` is the article);
    * if the *sampled* token is a lone ``"("`` (or whitespace before any parenthesis), the
      walk moves on with :math:`\pi \leftarrow \pi \cdot p(\text{sampled})`, and at the next
      position only letter continuations (``a``, ``a)``...) count;
    * otherwise the walk stops.

    So :math:`P(a) = \sum_{\text{paths}} \prod p` over the letter-answer paths that branch
    off the sampled path, which is exact when the sampled path passes through every prefix
    token with mass (always at temperature 0, where the sampled token is the argmax) and a
    lower bound otherwise. Alternatives missing from ``top_logprobs`` count as neither:
    :math:`p_\text{neither} = 1 - P(a) - P(b)`.

    The log-probabilities are taken as the server reports them. Servers differ in whether
    those include the sampling temperature (vLLM's default reports the model's own
    distribution, before temperature); score mode asks for temperature 0 and reads the
    reported distribution as the model's.
    """
    if not content:
        return None
    p = {"a": 0.0, "b": 0.0}
    prefix = 1.0
    opened = False
    for position in content:
        top = position.get("top_logprobs")
        if not top:
            return None if position is content[0] else LetterProbabilities(p["a"], p["b"])
        sampled = str(position.get("token", ""))
        alternatives = list(top)
        if not any(alt.get("token") == sampled for alt in alternatives) and "logprob" in position:
            alternatives.append({"token": sampled, "logprob": position["logprob"]})
        pattern = _LETTER_AFTER_OPEN if opened else _LETTER
        for alt in alternatives:
            match = pattern.match(str(alt.get("token", "")).strip())
            if match:
                letter = next(g for g in match.groups() if g).lower()
                p[letter] += prefix * math.exp(float(alt["logprob"]))
        if opened or not (_OPEN.match(sampled) or _SPACE.match(sampled)):
            break
        opened = bool(_OPEN.match(sampled))
        prefix *= math.exp(float(position.get("logprob", 0.0)))
    return LetterProbabilities(p["a"], p["b"])


__all__ = ["LetterProbabilities", "letter_probabilities"]

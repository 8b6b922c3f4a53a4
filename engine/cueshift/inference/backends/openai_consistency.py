r"""The consistency probe: repeat a few answered requests at the end of a run and measure the drift.

Identical inputs at temperature 0 must give identical answers and log-probabilities. Servers
break this in practice: continuous batching changes the reduction order of floating-point
sums, so logprobs move in the last digits and, near a tie, the greedy answer flips; and
prefix-cache or encoder-cache bugs (near-identical images under concurrency) return another
request's state. The probe makes such drift visible instead of silently mixing it into the
results.

During the run a uniform sample of ``k`` answered requests is kept (reservoir sampling,
Algorithm R: J. S. Vitter, "Random sampling with a reservoir", ACM TOMS 11(1), 1985); at the
end each is sent again, byte for byte, and compared with its first answer:

.. math::

    \text{changed} = \#\{i : t_i \ne t'_i\}, \qquad
    \Delta_{\log p} = \max_i \max_{w \in W_i \cap W'_i} |\ell_i(w) - \ell'_i(w)|, \qquad
    \Delta_p = \max_i \max_{c \in \{a, b\}} |P_i(c) - P'_i(c)|,

where :math:`t` is the answer text, :math:`W` the first answer position's ``top_logprobs``
tokens with log-probabilities :math:`\ell`, and :math:`P(c)` the letter probabilities. In
generate mode the repeated request carries the same ``seed``; its temperature is recorded
next to the drift (a server that honours seeds is deterministic there too).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from cueshift.inference.backends.openai_completion import Completion


@dataclass(frozen=True)
class Sample:
    """One answered request kept for the probe: its exact body and its first answer."""

    body: bytes
    completion: Completion
    text_only: bool


class Reservoir:
    """A uniform random sample of at most ``size`` of the requests offered (Algorithm R)."""

    def __init__(self, size: int, seed: int) -> None:
        self.size = size
        self.seen = 0
        self.samples: list[Sample] = []
        self._rng = random.Random(seed)

    def offer(self, sample: Sample) -> None:
        """Keep ``sample`` with probability ``size / seen``, replacing a uniform kept one."""
        self.seen += 1
        if self.size <= 0:
            return
        if len(self.samples) < self.size:
            self.samples.append(sample)
            return
        slot = self._rng.randrange(self.seen)
        if slot < self.size:
            self.samples[slot] = sample


@dataclass(frozen=True)
class Drift:
    """The result of the probe (see the module notes).

    Attributes
    ----------
    probed
        Requests repeated.
    unanswered
        Repeats that got no answer (not compared).
    answers_changed
        Repeats whose answer text differs from the first answer.
    max_abs_dlogprob, max_abs_dp
        :math:`\\Delta_{\\log p}` and :math:`\\Delta_p`; ``None`` when no pair had logprobs.
    temperature
        The temperature of the repeated requests.
    """

    probed: int
    unanswered: int
    answers_changed: int
    max_abs_dlogprob: float | None
    max_abs_dp: float | None
    temperature: float

    @property
    def consistent(self) -> bool:
        """No changed answer and no logprob difference."""
        return self.answers_changed == 0 and not self.max_abs_dlogprob and not self.max_abs_dp

    def as_dict(self) -> dict[str, Any]:
        return {
            "probed": self.probed,
            "unanswered": self.unanswered,
            "answers_changed": self.answers_changed,
            "max_abs_dlogprob": self.max_abs_dlogprob,
            "max_abs_dp": self.max_abs_dp,
            "temperature": self.temperature,
            "consistent": self.consistent,
        }

    def line(self) -> str:
        """One line for the console."""
        compared = self.probed - self.unanswered
        text = f"consistency probe: {self.answers_changed} of {compared} repeated answers changed"
        if self.max_abs_dlogprob is not None:
            text += f", max |d logprob| {self.max_abs_dlogprob:.3g}"
        if self.max_abs_dp is not None:
            text += f", max |d P(letter)| {self.max_abs_dp:.3g}"
        if self.unanswered:
            text += f", {self.unanswered} unanswered"
        return text + f" (temperature {self.temperature:g})"


def drift(pairs: list[tuple[Completion, Completion | None]], temperature: float) -> Drift:
    """Compare first answers with their repeats (``None``: the repeat got no answer)."""
    changed = unanswered = 0
    dlogprob: float | None = None
    dp: float | None = None
    for first, again in pairs:
        if again is None:
            unanswered += 1
            continue
        changed += first.text != again.text
        shared = first.first_top.keys() & again.first_top.keys()
        if shared:
            worst = max(abs(first.first_top[t] - again.first_top[t]) for t in shared)
            dlogprob = worst if dlogprob is None else max(dlogprob, worst)
        if first.letters is not None and again.letters is not None:
            worst = max(
                abs(first.letters.p_a - again.letters.p_a), abs(first.letters.p_b - again.letters.p_b)
            )
            dp = worst if dp is None else max(dp, worst)
    return Drift(len(pairs), unanswered, changed, dlogprob, dp, temperature)


__all__ = ["Drift", "Reservoir", "Sample", "drift"]

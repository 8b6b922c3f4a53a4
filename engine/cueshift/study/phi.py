"""Which φ the analyses read, as a study file or ``cueshift analyze --phi`` spells it: the stored
answers (greedy for scoring backends) or φ with answers drawn at a temperature from the stored
scores (``sql/views/phi_at.sql``).

Parsed here, below the views that read it (:mod:`cueshift.views.phi_choice`, which also checks a
database holds the scores a temperature needs), so a study file's ``[multiverse] phi`` is checked
without loading DuckDB (D90).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from cueshift.errors import ConfigError


@dataclass(frozen=True)
class PhiChoice:
    """The φ of an analysis run.

    Attributes
    ----------
    temperature
        ``None``: φ from the stored answers (seed 000 Eq. 1; for scoring backends the greedy
        answer). A number :math:`T \\ge 0`: φ as the mean of
        :math:`\\sigma(\\operatorname{logit}(p_\\text{fav}) / T)` over the cell's scored judgments
        (``T = 1`` is the expected φ, seed 000 samples at ``T = 0.2``).
    """

    temperature: float | None = None

    @property
    def label(self) -> str:
        """``'greedy'``, ``'expected'`` or ``'T=<t>'``: how ``--phi`` spells it (and the manifest)."""
        if self.temperature is None:
            return "greedy"
        return "expected" if self.temperature == 1.0 else f"T={self.temperature:g}"

    @property
    def describe(self) -> str:
        """One sentence for reports and the console."""
        if self.temperature is None:
            return "φ from the stored answers (greedy decoding for scoring backends)"
        if self.temperature == 1.0:
            return "φ expected from the stored scores (answers drawn at T = 1)"
        return f"φ with answers drawn at T = {self.temperature:g} from the stored scores"


GREEDY = PhiChoice()


def parse_phi(text: str) -> PhiChoice:
    """``'greedy'``, ``'expected'``, ``'T=0.2'`` (or a bare ``'0.2'``) as a :class:`PhiChoice`.

    Raises
    ------
    ConfigError
        One line naming the value and the accepted forms.
    """
    spelled = text.strip().lower()
    if spelled == "greedy":
        return GREEDY
    if spelled == "expected":
        return PhiChoice(1.0)
    number = spelled[2:] if spelled.startswith("t=") else spelled
    try:
        temperature = float(number)
    except ValueError:
        temperature = math.nan
    if not math.isfinite(temperature) or temperature < 0:
        raise ConfigError(f"--phi {text!r}: use 'greedy', 'expected' or 'T=<temperature >= 0>' (e.g. T=0.2)")
    return PhiChoice(temperature)


__all__ = ["GREEDY", "PhiChoice", "parse_phi"]

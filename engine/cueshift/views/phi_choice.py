"""Which φ the analyses read: the stored answers (greedy for scoring backends) or φ with answers
drawn at a temperature from the stored scores (``sql/views/phi_at.sql``).

``cueshift analyze --phi greedy|expected|T=<t>`` parses into a :class:`PhiChoice`; the frames of
:mod:`cueshift.views.frames` then read ``delta``/``base_phi`` (greedy) or
``delta_at(t)``/``base_phi_at(t)``, and the choice is written to ``result_manifest``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from cueshift.errors import ConfigError, CueshiftError


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


def check_scored(con: duckdb.DuckDBPyConnection, choice: PhiChoice, models: Sequence[str] | None) -> None:
    """Refuse a temperature φ for models whose judgments carry no score (generate-mode backends).

    Raises
    ------
    CueshiftError
        One line naming the models without stored scores.
    """
    if choice.temperature is None:
        return
    sql = "SELECT model_id FROM judgment GROUP BY model_id HAVING count(p_favorable) < count(*)"
    unscored = sorted(str(row[0]) for row in con.execute(sql).fetchall() if not models or row[0] in models)
    if unscored:
        raise CueshiftError(
            f"--phi {choice.label}: model(s) {', '.join(unscored)} stored no score for some judgments "
            "(generate-mode backends); use --phi greedy or restrict the analysis with --models"
        )

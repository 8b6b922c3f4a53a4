"""Which φ the analyses read: the stored answers (greedy for scoring backends) or φ with answers
drawn at a temperature from the stored scores (``sql/views/phi_at.sql``).

``cueshift analyze --phi greedy|expected|T=<t>`` parses into a :class:`PhiChoice`; the frames of
:mod:`cueshift.views.frames` then read ``delta``/``base_phi`` (greedy) or
``delta_at(t)``/``base_phi_at(t)``, and the choice is written to ``result_manifest``. The choice
and its parsing live in :mod:`cueshift.study.phi` (a study file names it too), shown here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cueshift.errors import CueshiftError
from cueshift.study.phi import GREEDY, PhiChoice, parse_phi

if TYPE_CHECKING:
    import duckdb


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


__all__ = ["GREEDY", "PhiChoice", "check_scored", "parse_phi"]

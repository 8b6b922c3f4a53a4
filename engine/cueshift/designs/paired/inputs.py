"""The inputs of the paired analyses (seed 001): the stored :math:`s` of original and filtered
images, and the intermediate tables several analyses share.

:func:`load_scores` reads one row per model × image × scenario from the ``phi`` view;
:class:`Inputs` holds them with the ``[paired]`` settings and computes the attractiveness and
demographic bias tables once (:mod:`cueshift.designs.paired.attractiveness`,
:mod:`cueshift.designs.paired.demographic`) for the analyses of
:mod:`cueshift.designs.paired.analyses`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.paired.attractiveness import attractiveness_bias, attractiveness_by_group
from cueshift.designs.paired.demographic import demographic_bias
from cueshift.designs.paired.section import PairedConfig
from cueshift.errors import CueshiftError

SCORES_SQL = """
SELECT p.model_id, p.scenario_id, s.category AS scenario_category, coalesce(s.family, s.category) AS family,
       s.favorable AS choice_1, s.unfavorable AS choice_2, img.face_id,
       CASE WHEN img.role = 'base' THEN 'original' ELSE 'filtered' END AS condition,
       fc.source, fc.gender, fc.age, fc.ethnicity, p.phi AS s, p.n_valid, p.n_total
FROM phi AS p
JOIN image AS img ON img.image_id = p.image_id
JOIN face AS fc ON fc.face_id = img.face_id
JOIN scenario AS s ON s.scenario_id = p.scenario_id
WHERE img.evaluated AND (img.role = 'base' OR img.feature_key = ?){models}
ORDER BY p.model_id, s.position, img.face_id, condition
"""


def load_scores(
    con: duckdb.DuckDBPyConnection, feature_key: str = "beauty_filter", models: Sequence[str] = ()
) -> pl.DataFrame:
    """One row per model × image × scenario: s, condition, individual and demographics.

    Raises
    ------
    CueshiftError
        No judgment of an original or filtered image is stored (of ``models``, when given).
    """
    where = f" AND p.model_id IN ({', '.join('?' for _ in models)})" if models else ""
    scores = store.query(con, SCORES_SQL.format(models=where), [feature_key, *models])
    if scores.height == 0:
        raise CueshiftError(
            "paired: no judgments of original or filtered images in the study database "
            "(run `cueshift infer` first)"
        )
    return scores


@dataclass(frozen=True)
class Inputs:
    """The scores and the ``[paired]`` settings; shared intermediate tables are computed once."""

    scores: pl.DataFrame
    config: PairedConfig

    @cached_property
    def dimensions(self) -> list[str]:
        """The configured demographic dimensions with at least two groups in the scores."""
        return [d for d in self.config.demographics if self.scores[d].drop_nulls().n_unique() >= 2]

    @cached_property
    def bias(self) -> pl.DataFrame:
        return attractiveness_bias(
            self.scores, correction=self.config.correction, confidence=self.config.confidence
        )

    @cached_property
    def demographic(self) -> tuple[pl.DataFrame, pl.DataFrame]:
        return demographic_bias(self.scores, self.dimensions, correction=self.config.correction)

    @cached_property
    def by_group(self) -> pl.DataFrame:
        return attractiveness_by_group(
            self.scores, self.dimensions, correction=self.config.correction, confidence=self.config.confidence
        )


__all__ = ["SCORES_SQL", "Inputs", "load_scores"]

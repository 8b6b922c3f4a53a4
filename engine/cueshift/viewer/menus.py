"""What the study holds, read once: models, scenarios, demographic groups, attributes.

Pages check every URL parameter against these lists and build their menus from them.
"""

from __future__ import annotations

from dataclasses import dataclass

from cueshift.designs.page_helpers import NotFound
from cueshift.viewer.source import Source

#: Demographic dimensions of ``face`` a page can filter by (``group=dimension:value``).
DIMENSIONS: tuple[str, ...] = ("age", "gender", "ethnicity", "body_type")


@dataclass(frozen=True)
class Scenario:
    """One binary scenario: ``favorable`` vs ``unfavorable``."""

    scenario_id: str
    favorable: str
    unfavorable: str
    category: str

    @property
    def label(self) -> str:
        return f"{self.favorable} / {self.unfavorable}"


@dataclass(frozen=True)
class Menus:
    """Menus and checks of every page (all sorted as the study orders them)."""

    design: str
    models: tuple[str, ...]
    categories: tuple[str, ...]
    scenarios: dict[str, Scenario]
    groups: dict[str, tuple[str, ...]]
    attributes: dict[str, str]  # variation_value -> variation_category

    def scenario(self, scenario_id: str) -> Scenario:
        if scenario_id not in self.scenarios:
            raise NotFound(f"scenario={scenario_id!r}: no such scenario in this study")
        return self.scenarios[scenario_id]

    def scenarios_in(self, category: str | None) -> list[Scenario]:
        """Scenarios of one category (all when ``None``), in study order."""
        return [s for s in self.scenarios.values() if category is None or s.category == category]


def load_menus(source: Source) -> Menus:
    """Read the menus from the in-memory dimension tables."""
    con = source.cursor()
    models = tuple(str(r[0]) for r in con.execute("SELECT model_id FROM model ORDER BY model_id").fetchall())
    rows = con.execute(
        "SELECT scenario_id, favorable, unfavorable, category FROM scenario ORDER BY position, scenario_id"
    ).fetchall()
    scenarios = {str(r[0]): Scenario(str(r[0]), str(r[1]), str(r[2]), str(r[3])) for r in rows}
    categories = tuple(dict.fromkeys(s.category for s in scenarios.values()))
    groups: dict[str, tuple[str, ...]] = {}
    for dimension in DIMENSIONS:
        values = con.execute(
            f"SELECT DISTINCT {dimension} FROM face WHERE {dimension} IS NOT NULL ORDER BY 1"
        ).fetchall()
        if values:
            groups[dimension] = tuple(str(v[0]) for v in values)
    attributes = {
        str(r[1]): str(r[0])
        for r in con.execute(
            "SELECT DISTINCT variation_category, variation_value FROM image "
            "WHERE role = 'variation' AND evaluated AND variation_value IS NOT NULL ORDER BY 1, 2"
        ).fetchall()
    }
    con.close()
    return Menus(
        design=source.design,
        models=models,
        categories=categories,
        scenarios=scenarios,
        groups=groups,
        attributes=attributes,
    )

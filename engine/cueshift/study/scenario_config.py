"""``[scenarios]`` and ``[prompt]`` of a study file: which scenarios of which set it asks, and the
prompt's template and the orderings of its options (seed 000 App. C.2).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field, ValidationInfo, field_validator, model_validator

from cueshift.study._frozen import _Frozen
from cueshift.study.checks import check_template
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE, Scenario


def _known_sets(info: ValidationInfo) -> Mapping[str, tuple[Scenario, ...]] | None:
    """The scenario sets a study is validated against: the designs' (``parse_study(scenario_sets=)``)."""
    context = info.context
    return context.get("scenario_sets") if isinstance(context, dict) else None


class ScenarioConfig(_Frozen):
    """``[scenarios]``: which scenario set, and which of its scenarios.

    The set names are the designs' (:func:`cueshift.designs.registry.scenario_sets`), which this
    layer does not know: they are checked when the study is read through the registry
    (:func:`parse_study` with ``scenario_sets``).
    """

    set: str = "stylisticbias-25"
    only: list[str] | None = Field(
        default=None, min_length=1, description="scenario_ids to keep (default: all)"
    )

    @field_validator("set")
    @classmethod
    def _known_set(cls, value: str, info: ValidationInfo) -> str:
        sets = _known_sets(info)
        if sets is not None and value not in sets:
            raise ValueError(f"unknown scenario set {value!r}; known: {', '.join(sets)}")
        return value

    @model_validator(mode="after")
    def _known_scenarios(self, info: ValidationInfo) -> ScenarioConfig:
        sets = _known_sets(info)
        if sets is None:
            return self
        known = {s.scenario_id for s in sets[self.set]}
        for scenario_id in self.only or []:
            if scenario_id not in known:
                raise ValueError(f"unknown scenario {scenario_id!r} in set {self.set!r}")
        return self


class PromptConfig(_Frozen):
    template: str = RELEASED_TEMPLATE
    orderings: list[int] = Field(default_factory=lambda: [1, 2, 3, 4], min_length=1)

    @field_validator("orderings")
    @classmethod
    def _known_orderings(cls, value: list[int]) -> list[int]:
        for ordering in value:
            if ordering not in ORDERING_BY_ID:
                raise ValueError(f"unknown ordering {ordering}; orderings are 1-4 (seed 000 App. C.2)")
        if len(set(value)) != len(value):
            raise ValueError("orderings repeat")
        return value

    @field_validator("template")
    @classmethod
    def _slots(cls, value: str) -> str:
        return check_template(value)

"""The filters every page takes from its URL: model, scenario category, demographic group.

Values are checked against what the study database holds (an unknown value is a 404 page
naming the parameter), and reach SQL only as bound parameters, never as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from cueshift.designs.page_helpers import NotFound
from cueshift.viewer.menus import Menus


@dataclass(frozen=True)
class Filters:
    """The checked filters of one request (``None``: all)."""

    model: str | None = None
    category: str | None = None
    dimension: str | None = None
    group: str | None = None

    @classmethod
    def parse(cls, params: Mapping[str, str], menus: Menus) -> Filters:
        """Read ``model``, ``category`` and ``group`` (``dimension:value``) from query parameters."""
        model = params.get("model") or None
        if model is not None and model not in menus.models:
            raise NotFound(f"model={model!r}: no such model in this study")
        category = params.get("category") or None
        if category is not None and category not in menus.categories:
            raise NotFound(f"category={category!r}: no such scenario category in this study")
        dimension = group = None
        if raw := params.get("group") or None:
            dimension, _, group = raw.partition(":")
            if group not in menus.groups.get(dimension, ()):
                raise NotFound(f"group={raw!r}: no such demographic group (expected dimension:value)")
        return cls(model=model, category=category, dimension=dimension, group=group)

    @property
    def group_key(self) -> str | None:
        """The ``group`` parameter as written in a URL (``gender:female``)."""
        return None if self.group is None else f"{self.dimension}:{self.group}"

    @property
    def narrowed(self) -> bool:
        """Whether scenarios or faces are restricted (stored whole-study results then do not apply)."""
        return self.category is not None or self.group is not None

    def params(self, **extra: object) -> dict[str, str]:
        """The filters plus ``extra`` as URL parameters (``None`` values left out)."""
        found = {"model": self.model, "category": self.category, "group": self.group_key, **extra}
        return {k: str(v) for k, v in found.items() if v is not None}

    def query(self, **extra: object) -> str:
        """``?model=...&category=...`` for links that keep the filters (empty when none)."""
        text = urlencode(self.params(**extra))
        return f"?{text}" if text else ""

    def without(self, name: str) -> Filters:
        """The same filters less one (``'model'``, ``'category'`` or ``'group'``)."""
        if name == "group":
            return replace(self, dimension=None, group=None)
        return replace(self, **{name: None})

    def where(self, *, alias: str = "d", models: bool = True) -> tuple[str, list[object]]:
        """SQL conditions on a frame with ``model_id``, ``scenario_category`` and demographic columns.

        Returns
        -------
        tuple of (str, list)
            ``"TRUE AND ..."`` with ``?`` placeholders, and the parameters in order.
        """
        parts: list[str] = ["TRUE"]
        params: list[object] = []
        if models and self.model is not None:
            parts.append(f"{alias}.model_id = ?")
            params.append(self.model)
        if self.category is not None:
            parts.append(f"{alias}.scenario_category = ?")
            params.append(self.category)
        if self.dimension is not None:
            parts.append(f"{alias}.{self.dimension} = ?")  # checked against DIMENSIONS by the menus
            params.append(self.group)
        return " AND ".join(parts), params

"""The base of the study file's section models: frozen, unknown keys refused, NUL characters
refused in every string (:func:`cueshift.study.checks.check_no_nul`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from cueshift.study.checks import check_no_nul


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        return check_no_nul(data)

"""A pydantic ``ValidationError`` of a study file as lines a person can act on.

Every error gets its own part of the line naming the file and the field (none hidden behind a
count), and a misspelt key ("Extra inputs are not permitted") the closest field names of the table
it sits in; a validator's own message comes without pydantic's ``Value error,`` after the section
it checked (nothing where the message names it itself)::

    s.toml: field 'seeds': Input should be a valid list
    s.toml: field 'image_set.sise': Extra inputs are not permitted (did you mean 'size'?)
    s.toml: [pairwise]: target_group and other_group must differ
    s.toml: [audit]: the 'pairwise' design does not read it (...); leave it out
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

#: Where a field's table is a mapping or list, the location's next part is a key or an index.
_CONTAINERS = (list, tuple, dict, set, frozenset, Sequence)
#: Errors a validator raised (``ValueError``, ``assert``): their message is the validator's own.
_RAISED = ("value_error", "assertion_error")


def _members(tp: Any) -> tuple[Any, ...]:
    """The types ``tp`` may hold: the members of a union, the value type of a container, else itself."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return _members(typing.get_args(tp)[0])
    if origin is typing.Union or origin is types.UnionType:
        return tuple(m for arg in typing.get_args(tp) for m in _members(arg))
    return (tp,)


def _model_at(tp: Any, loc: Sequence[int | str]) -> type[BaseModel] | None:
    """The pydantic model of the table at ``loc`` below type ``tp``; None where there is none."""
    for member in _members(tp):
        origin = typing.get_origin(member)
        if isinstance(member, type) and issubclass(member, BaseModel):
            if not loc:
                return member
            field = next((f for name, f in member.model_fields.items() if loc[0] in (name, f.alias)), None)
            found = _model_at(field.annotation, loc[1:]) if field is not None else None
        elif origin is not None and isinstance(origin, type) and issubclass(origin, _CONTAINERS) and loc:
            found = _model_at(typing.get_args(member)[-1], loc[1:])
        else:
            found = None
        if found is not None:
            return found
    return None


def _study_model(schema: type[BaseModel] | TypeAdapter[Any], tag: object) -> type[BaseModel] | None:
    """The model of the study design ``tag`` in ``schema`` (a model, or a union's ``TypeAdapter``)."""
    if not isinstance(schema, TypeAdapter):
        return schema
    core: Any = schema.core_schema
    if not isinstance(tag, str):
        return None  # `design = []` or another non-name: no model's fields to suggest from
    core = core.get("choices", {}).get(tag, core)
    while core.get("type") != "model" and isinstance(core.get("schema"), dict):
        core = core["schema"]  # validators wrapped around the model
    cls = core.get("cls")
    return cls if isinstance(cls, type) and issubclass(cls, BaseModel) else None


def did_you_mean(model: type[BaseModel] | None, loc: Sequence[int | str]) -> str:
    """`` (did you mean 'x'?)`` for the key ``loc[-1]`` unknown in ``model``'s table at ``loc[:-1]``.

    The closest field names (or aliases) there, by :func:`difflib.get_close_matches`; ``""`` where
    none is close.

    >>> from pydantic import BaseModel
    >>> class Section(BaseModel):
    ...     size: int = 1
    ...     seed: int = 0
    >>> did_you_mean(Section, ["sise"])
    " (did you mean 'size'?)"
    >>> did_you_mean(Section, ["colour"])
    ''
    """
    table = _model_at(model, loc[:-1]) if model is not None else None
    if table is None:
        return ""
    names = {alias for name, f in table.model_fields.items() for alias in (name, f.alias) if alias}
    close = difflib.get_close_matches(str(loc[-1]), sorted(names), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(name) for name in close)}?)" if close else ""


def describe(
    source: str, exc: ValidationError, schema: type[BaseModel] | TypeAdapter[Any], tag: object = None
) -> str:
    """``<source>: field '<field>': <message>; field ...``: every error of ``exc``, in pydantic's order.

    ``schema`` is what validated (a study model or a ``TypeAdapter`` of a discriminated union whose
    errors start with the design's ``tag``); its fields are the suggestions for a misspelt key.
    """
    study = _study_model(schema, tag)
    parts = dict.fromkeys(_part(err, study, tag) for err in exc.errors())
    return f"{source}: {'; '.join(parts)}"


def _part(err: ErrorDetails, study: type[BaseModel] | None, tag: object) -> str:
    loc = list(err["loc"])
    if loc and tag is not None and loc[0] == tag:
        loc = loc[1:]  # a discriminated union puts the design's tag first
    if err["type"] == "union_tag_invalid":
        loc = ["design"]
    field = ".".join(str(p) for p in loc) or "<top>"
    if err["type"] in _RAISED:
        return _raised(err, loc, study)
    message = err["msg"]
    if err["type"] == "extra_forbidden" and loc:
        message += did_you_mean(study, loc)
    elif field == "models" and err["type"] in ("missing", "too_short"):
        message = (
            "no judge: add one [[models]] table per model, "
            'e.g. [[models]] model_id = "llava-v1.6" backend = "simulated"'
        )
    return f"field '{field}': {message}"


def _raised(err: ErrorDetails, loc: list[int | str], study: type[BaseModel] | None) -> str:
    """A validator's own message, without pydantic's ``Value error, `` prefix, after where it is:
    nothing for the whole file (the message names its section), ``[section]`` for a table,
    ``field 'a.b'`` for a value.

    >>> from pydantic import BaseModel, ValidationError, model_validator
    >>> class Pair(BaseModel):
    ...     low: int = 0
    ...     high: int = 1
    ...     @model_validator(mode="after")
    ...     def _ordered(self):
    ...         if self.high <= self.low:
    ...             raise ValueError("high must exceed low: swap them")
    ...         return self
    >>> class File(BaseModel):
    ...     pair: Pair
    >>> try:
    ...     File(pair={"low": 2})
    ... except ValidationError as exc:
    ...     describe("s.toml", exc, File)
    's.toml: [pair]: high must exceed low: swap them'
    """
    error = err.get("ctx", {}).get("error")
    message = str(error) if error is not None else err["msg"]
    if not loc:
        return message
    if all(isinstance(p, str) for p in loc) and _model_at(study, loc) is not None:
        return f"[{'.'.join(str(p) for p in loc)}]: {message}"
    return f"field '{'.'.join(str(p) for p in loc)}': {message}"


__all__ = ["describe", "did_you_mean"]

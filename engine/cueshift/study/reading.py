"""Reading a study file: :func:`read_study_file` (the TOML of a file, or of the embedded default
study) and :func:`parse_study` (the data validated against a study model, with one-line errors
naming the file and every bad field).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from cueshift.errors import ConfigError
from cueshift.study.config import DEFAULT_DESIGN, Study
from cueshift.study.scenarios import Scenario
from cueshift.study.validation_errors import describe

DEFAULT_STUDY = "default"

StudyT = TypeVar("StudyT", bound=Study)


def parse_study(
    data: dict[str, Any],
    source: str,
    schema: type[StudyT] | TypeAdapter[StudyT],
    *,
    scenario_sets: Mapping[str, tuple[Scenario, ...]] | None = None,
) -> StudyT:
    """Validate study-file ``data`` against ``schema`` (a :class:`Study` model or a union of them).

    Parameters
    ----------
    data
        The parsed TOML; a missing ``design`` key means :data:`DEFAULT_DESIGN`.
    source
        The file name (or a description) that error messages start with.
    schema
        A study model, or a ``TypeAdapter`` of a discriminated union of study models.
    scenario_sets
        The scenario sets ``[scenarios] set`` may name, by name; ``None``: the set is not checked.

    Raises
    ------
    ConfigError
        One line naming ``source`` and every bad field (a misspelt key: the closest field names,
        :mod:`cueshift.study.validation_errors`).
    """
    data = {"design": DEFAULT_DESIGN, **data}
    context = {"scenario_sets": scenario_sets} if scenario_sets is not None else None
    try:
        if isinstance(schema, TypeAdapter):
            return schema.validate_python(data, context=context)
        return schema.model_validate(data, context=context)
    except ValidationError as exc:
        raise ConfigError(describe(source, exc, schema, tag=data["design"])) from None


def read_toml_text(path: Path, kind: str) -> str:
    """The text of ``path``, a TOML file of ``kind`` (``"study file"``); one line where it is not text.

    Raises
    ------
    ConfigError
        Not UTF-8 text; a DuckDB database (given where its study file belongs) is named as one.

    Examples
    --------
    >>> import tempfile
    >>> database = Path(tempfile.mkdtemp()) / "run.duckdb"
    >>> _ = database.write_bytes(bytes(8) + b"DUCK" + bytes([0xCD]) * 8)
    >>> read_toml_text(database, "study file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: .../run.duckdb: a DuckDB database, not a study file: give it as --db (db=)
    """
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if data[8:12] == b"DUCK":  # DuckDB's magic bytes
            raise ConfigError(f"{path}: a DuckDB database, not a {kind}: give it as --db (db=)") from None
        raise ConfigError(f"{path}: not a {kind}: not UTF-8 text (byte {exc.start})") from None


def read_study_file(path: str | Path | None = None) -> tuple[dict[str, Any], str]:
    """The parsed TOML of a study file and its name for messages; ``None`` or ``'default'`` gives
    the embedded default study.

    Raises
    ------
    ConfigError
        No such file, or not valid TOML.
    """
    if path is None or str(path) == DEFAULT_STUDY:
        text = resources.files("cueshift.studies").joinpath("default.toml").read_text(encoding="utf-8")
        source = "<embedded default study>"
    else:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"{path}: no such study file")
        text = read_toml_text(path, "study file")
        source = str(path)
    try:
        return tomllib.loads(text), source
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None

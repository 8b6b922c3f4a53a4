"""Judges whose answers were imported, not asked: what a study file without ``[[models]]`` needs to
read them.

``cueshift import judgments`` stores each release model it reads as a ``model`` row with
``backend = 'release-import'`` (:data:`IMPORT_BACKEND`), and accepts a study file without
``[[models]]``. Every other command reads the study file as it is, and a study without a judge is
refused; when its database holds imported judges, the refusal names them and their backend
(:func:`explain_no_judge`) instead of suggesting the simulated one.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cueshift.errors import ConfigError

#: ``model.backend`` of a judge whose answers ``cueshift import judgments`` read from files.
IMPORT_BACKEND = "release-import"
#: The example judge of the study validation's "no judge" message.
_EXAMPLE = re.compile(
    r'add one \[\[models\]\] table per model, e\.g\. \[\[models\]\] model_id = "[^"]*" backend = "simulated"'
)


def imported_judges(data: dict[str, Any]) -> list[str]:
    """The imported models (``backend = 'release-import'``) stored in the database a study file's
    ``data`` names (``database``, else ``runs/<name>.duckdb``); none when it cannot be read."""
    database = Path(str(data.get("database") or Path("runs") / f"{data.get('name')}.duckdb"))
    if not database.is_file():
        return []
    import duckdb  # only when the study names a database: reading a study file loads no DuckDB (D90)

    try:
        con = duckdb.connect(str(database), read_only=True)
    except duckdb.Error:
        return []
    try:
        rows = con.execute(
            "SELECT model_id FROM model WHERE backend = ? ORDER BY model_id", [IMPORT_BACKEND]
        ).fetchall()
    except duckdb.Error:
        return []
    finally:
        con.close()
    return [str(model_id) for (model_id,) in rows]


def explain_no_judge(error: ConfigError, data: dict[str, Any]) -> ConfigError:
    """``error``, or when it is the study validation's "no judge" and the study's database holds
    imported judges, the same line naming them with their backend."""
    message = str(error)
    if "field 'models': no judge" not in message or data.get("models"):
        return error
    models = imported_judges(data)
    if not models:
        return error
    tables = " ".join(f'[[models]] model_id = "{m}" backend = "{IMPORT_BACKEND}"' for m in models)
    hint = (
        f"its database holds the judgments of {', '.join(models)} read by 'cueshift import judgments' "
        f"(backend {IMPORT_BACKEND!r}); add {tables}"
    )
    return ConfigError(_EXAMPLE.sub(lambda _: hint, message))

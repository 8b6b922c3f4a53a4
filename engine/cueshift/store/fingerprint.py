"""The fingerprint of the study a database holds: its name and a hash of its definition, read
from its run records.

Every run (``cueshift infer``, ``cueshift import judgments``) records the resolved study as JSON
in ``run.config``. The *definition* is what gives a stored answer its meaning — the design, the
images (image set and variation filter), the scenarios and the prompt. Models and seeds are
left out: they are part of every answer's key, so databases of one study that asked other models
or seeds merge without clashing (a model of the same id with other settings clashes in the
``model`` table). The description, the database path, the batch size and where the images lie
(``root``, ``manifest``, ``cache_dir``: shards on other machines) change nothing stored; what
the images hold is checked row by row (``image.sha256``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Final

import duckdb

from cueshift.store.database import quote_identifier

#: Keys of the resolved study that make up its definition. The image set is hashed under its
#: old key ``benchmark`` whichever key the run recorded (``image_set`` since it was renamed), so
#: that a database's fingerprint does not change with the name.
DEFINITION_KEYS: Final[tuple[str, ...]] = ("design", "benchmark", "variations", "scenarios", "prompt")
#: Keys of the ``image_set`` section that say where the images lie, not what they are.
LOCATION_KEYS: Final[frozenset[str]] = frozenset({"root", "manifest", "cache_dir"})


@dataclass(frozen=True, order=True)
class StudyFingerprint:
    """A study's name and the SHA-256 (first 16 hex digits) of its definition."""

    name: str
    definition_hash: str

    def __str__(self) -> str:
        return f"study {self.name!r} (definition {self.definition_hash})"


def definition_hash(config: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of the :data:`DEFINITION_KEYS` of a resolved study."""
    definition = {key: config.get(key) for key in DEFINITION_KEYS}
    image_set = config.get("image_set", definition["benchmark"])
    definition["benchmark"] = image_set
    if isinstance(image_set, dict):
        definition["benchmark"] = {k: v for k, v in image_set.items() if k not in LOCATION_KEYS}
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def fingerprint_of(study_name: str, config_json: str) -> StudyFingerprint:
    """The fingerprint of a run record (``study_name``, ``config``); unreadable JSON hashes as text."""
    try:
        config = json.loads(config_json)
    except (TypeError, ValueError):
        config = {"unreadable": str(config_json)}
    if not isinstance(config, dict):
        config = {"unreadable": str(config_json)}
    return StudyFingerprint(study_name, definition_hash(config))


def database_fingerprints(con: duckdb.DuckDBPyConnection, schema: str = "main") -> set[StudyFingerprint]:
    """Every study fingerprint the ``run`` table of ``schema`` (e.g. ``shard_0.main``) records."""
    qualified = ".".join(quote_identifier(part) for part in schema.split("."))
    rows = con.execute(f"SELECT DISTINCT study_name, config FROM {qualified}.run").fetchall()
    return {fingerprint_of(str(name), str(config)) for name, config in rows}

"""``[audit.faces] identity_filter = true``: ``--min-identity`` also drops the variations the face
models cannot call the same person (stored face-recognition distance beyond the threshold, or no
single face on base and variation); a variation without a face-model row is one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import polars as pl
import pytest

from cueshift.designs._audit_rows import AUDIT_SCHEMA
from cueshift.designs.stylisticbias.face_identity import face_identity_of
from cueshift.designs.stylisticbias.quality import IdentityQuality
from cueshift.errors import ConfigError
from cueshift.store import open_study
from cueshift.store.edit_audit import replace_edit_audit
from cueshift.study.audit import AuditConfig, FacesConfig
from cueshift.study.quality import QualityConfig

VARIATIONS = ("v1", "v2", "v3", "v4", "v5")


def _audit(image_id: str, measure: str, value: float, failed: bool) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(AUDIT_SCHEMA)
    row.update(image_id=image_id, base_image_id="b", face_id="f", feature_key="hat", variation_value=image_id)
    bound = 0.6 if measure == "face_identity_distance" else None
    row.update(check_kind="identity", measure=measure, source="dlib-resnet", difference=value, failed=failed)
    row.update(bound=bound)
    return row


def _study(**faces: Any) -> Any:
    return SimpleNamespace(audit=AuditConfig(faces=FacesConfig(**faces)))


def _images(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("INSERT INTO face (face_id, source) VALUES ('f', 'test')")
    insert = "INSERT INTO image VALUES (?, 'f', ?, ?, ?, ?, ?, 'face', ?, 'x', 1, 1, true, NULL)"
    con.execute(insert, ["b", "base", None, None, None, None, "b.png"])
    for image_id in VARIATIONS:
        con.execute(insert, [image_id, "variation", "b", "Hat", "hat", image_id, f"{image_id}.png"])


@pytest.fixture()
def con(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_study(tmp_path / "study.duckdb")
    _images(con)
    rows = [
        _audit("v1", "face_count", 0.0, False),
        _audit("v1", "face_identity_distance", 0.71, True),  # another person
        _audit("v2", "face_count", 0.0, False),
        _audit("v2", "face_identity_distance", 0.20, False),  # the same person
        _audit("v3", "face_count", -1.0, True),  # no face on the variation: no distance row
        _audit("v4", "face_count", 1.0, True),  # several faces: the largest is far, counted once
        _audit("v4", "face_identity_distance", 0.80, True),
        _audit("v5", "face_count", 0.0, False),
        _audit("v5", "face_identity_distance", 0.10, False),
    ]
    replace_edit_audit(con, pl.DataFrame(rows, schema=AUDIT_SCHEMA))
    yield con
    con.close()


def test_min_identity_drops_what_the_face_models_cannot_verify(
    con: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    faces = face_identity_of(con, _study(identity_filter=True))
    assert faces is not None
    assert faces.too_far == {"v1"} and faces.not_one_face == {"v3", "v4"} and faces.threshold == 0.6
    assert face_identity_of(con, _study()) is None  # off by default
    assert face_identity_of(con, _study(identity_filter=True, recognizer="none")) is None
    identity = pl.DataFrame({"image_id": list(VARIATIONS), "cosine": [0.99, 0.99, 0.99, 0.10, 0.10]})
    config = QualityConfig(encoder=tmp_path)
    assert IdentityQuality(identity, config, 0.5, faces).dropped == {"v1", "v3", "v4", "v5"}
    assert IdentityQuality(identity, config, 0.5).dropped == {"v4", "v5"}  # CLIP only
    assert IdentityQuality(identity, config, None, faces).dropped == frozenset()  # only with --min-identity


def test_a_variation_without_a_face_model_row_is_one_line(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("DELETE FROM edit_audit WHERE image_id = 'v2'")
    with pytest.raises(ConfigError, match=r"1 of 5 variations \(e\.g\. 'v2'\) have no face-model audit row"):
        face_identity_of(con, _study(identity_filter=True))
    con.execute("DELETE FROM edit_audit")
    with pytest.raises(ConfigError, match="run `cueshift audit` first"):
        face_identity_of(con, _study(identity_filter=True))

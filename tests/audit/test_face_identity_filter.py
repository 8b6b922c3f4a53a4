"""``[audit.faces] identity_filter = true``: ``--min-identity`` also drops the variations whose
stored face-recognition distance failed the same-person threshold."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import polars as pl

from cueshift.designs._audit_rows import AUDIT_SCHEMA
from cueshift.designs.stylisticbias.quality import IdentityQuality, face_identity_failures
from cueshift.store import open_study
from cueshift.store.edit_audit import replace_edit_audit
from cueshift.study.audit import AuditConfig, FacesConfig
from cueshift.study.quality import QualityConfig


def _audit(image_id: str, measure: str, distance: float, failed: bool) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(AUDIT_SCHEMA)
    row.update(image_id=image_id, base_image_id="b", face_id="f", feature_key="hat", variation_value=image_id)
    row.update(
        check_kind="identity", measure=measure, source="dlib-resnet", difference=distance, failed=failed
    )
    return row


def _study(**faces: Any) -> Any:
    return SimpleNamespace(audit=AuditConfig(faces=FacesConfig(**faces)))


def test_min_identity_drops_face_identity_failures(tmp_path: Path) -> None:
    con = open_study(tmp_path / "study.duckdb")
    rows = [
        _audit("v1", "face_identity_distance", 0.71, True),
        _audit("v2", "face_identity_distance", 0.20, False),
        _audit("v3", "face_count", 0.0, True),  # a face-count failure is not an identity distance
    ]
    replace_edit_audit(con, pl.DataFrame(rows, schema=AUDIT_SCHEMA))
    assert face_identity_failures(con, _study(identity_filter=True)) == {"v1"}
    assert face_identity_failures(con, _study()) == frozenset()  # off by default
    assert face_identity_failures(con, _study(identity_filter=True, recognizer="none")) == frozenset()
    identity = pl.DataFrame({"image_id": ["v1", "v2", "v4"], "cosine": [0.99, 0.99, 0.10]})
    config = QualityConfig(encoder=tmp_path)
    failures = face_identity_failures(con, _study(identity_filter=True))
    assert IdentityQuality(identity, config, 0.5, failures).dropped == {"v1", "v4"}
    assert (
        IdentityQuality(identity, config, None, failures).dropped == frozenset()
    )  # only with --min-identity
    con.close()

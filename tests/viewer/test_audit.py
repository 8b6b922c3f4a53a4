"""The edit audit (``edit_audit``) in the viewer: each variation's verdict and numbers on its face
card and on its attribute page, the list of failed edits with base beside variation, and nothing
at all when the table is empty.

The audit rows are planted into a copy of the tiny analysed study (schema-checked with
:class:`~cueshift.schemas.tables.EditAuditSchema`); every expectation is a direct DuckDB query of
that copy.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import polars as pl
import pytest

from cueshift.schemas.tables import EditAuditSchema
from tests.viewer.conftest import Served, serve_in_thread
from tests.viewer.pages import frame, page_html, scalar, signed, tables

#: Attributes whose variations get an audit; of these, variations failing one measure.
AUDITED = ("Full beard", "Gray")
#: (measure, check_kind, source, bound): the planted measures of each audited variation.
MEASURES = (
    ("cue_probability", "cue", "tiny-clip@default:float32", 0.5),
    ("brightness", "unintended", "pixels", 0.1),
    ("identity_cosine", "identity", "tiny-clip@default:float32", 0.8),
)


def _plant(db: Path) -> pl.DataFrame:
    """Audit rows for every variation of ``AUDITED``: the cue fails on the first face of each,
    brightness on the second as well as the cue, everything passes elsewhere."""
    con = duckdb.connect(str(db))
    try:
        images = con.sql(
            "SELECT image_id, base_image_id, face_id, feature_key, variation_value "
            "FROM image WHERE role = 'variation' AND list_contains(?, variation_value) "
            "ORDER BY variation_value, face_id",
            params=[list(AUDITED)],
        ).pl()
        rows = []
        for i, image in enumerate(images.iter_rows(named=True)):
            rank = images[: i + 1].filter(pl.col("variation_value") == image["variation_value"]).height
            for j, (measure, kind, source, bound) in enumerate(MEASURES):
                base, variation = 0.2 + 0.01 * i, 0.3 + 0.02 * i + 0.05 * j
                cue_failed = measure == "cue_probability" and rank <= 2
                failed = cue_failed or (measure == "brightness" and rank == 2)
                rows.append(
                    {
                        **image,
                        "check_kind": kind,
                        "measure": measure,
                        "source": source,
                        "measured_base": base,
                        "measured_variation": variation,
                        "difference": variation - base,
                        "robust_z": -0.5 + 0.25 * i,
                        "bound": bound,
                        "failed": failed,
                        "reason": f"{measure} past its bound" if failed else None,
                    }
                )
        audit = EditAuditSchema.validate(pl.DataFrame(rows))
        assert isinstance(audit, pl.DataFrame)
        con.register("planted", audit.to_arrow())
        con.execute("INSERT INTO edit_audit BY NAME SELECT * FROM planted")
        return audit
    finally:
        con.close()


@pytest.fixture(scope="module")
def audited(stylisticbias_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("audited")
    db = folder / "study.duckdb"
    shutil.copy(stylisticbias_db, db)
    shutil.copytree(stylisticbias_db.parent / ".cueshift-cache", folder / ".cueshift-cache")
    _plant(db)
    yield from serve_in_thread(db, folder / "thumbs")


def _page(served: Served, path: str, **params: str) -> str:
    return page_html(served.url, path, **params)


def _blocks(html: str, cls: str) -> dict[str, str]:
    """Each ``<div class="{cls}" data-image=...>`` block's HTML by its image id."""
    parts = re.split(rf'<div class="{cls}" data-image="', html)[1:]
    return {part.split('"', 1)[0]: part for part in parts}


def _verdicts(db: Path) -> pl.DataFrame:
    return frame(
        db,
        "SELECT image_id, face_id, base_image_id, variation_value, bool_or(failed) AS failed, "
        "list(measure ORDER BY measure) FILTER (WHERE failed) AS failed_measures "
        "FROM edit_audit GROUP BY ALL ORDER BY image_id",
    )


def test_face_cards_show_each_variations_verdict_and_numbers(audited: Served) -> None:
    verdicts = _verdicts(audited.db)
    assert verdicts["failed"].sum() == 4 and verdicts.height > 4  # two failed per audited attribute
    for face in verdicts["face_id"].unique().to_list()[:3]:
        cards = _blocks(_page(audited, "/face", id=face), "card")
        shown = {k: v for k, v in cards.items() if "data-audit=" in v}
        expected = verdicts.filter(pl.col("face_id") == face)
        assert sorted(shown) == sorted(expected["image_id"])
        for row in expected.iter_rows(named=True):
            card = shown[row["image_id"]]
            assert f'data-audit="{"failed" if row["failed"] else "passed"}"' in card
            measured = frame(audited.db, "SELECT * FROM edit_audit WHERE image_id = ?", [row["image_id"]])
            for m in measured.iter_rows(named=True):
                assert f'data-measure="{m["measure"]}" data-difference="{m["difference"]:.4f}"' in card
                assert f"diff {signed(m['difference'])}" in card
            failed_rows = re.findall(r'<li class="failed" data-measure="([^"]+)"', card.split("<details")[0])
            assert failed_rows == sorted(row["failed_measures"] or [], key=lambda m: m != "cue_probability")


def test_attribute_page_counts_the_audit_per_measure(audited: Served) -> None:
    value = AUDITED[0]
    html = _page(audited, "/attribute", value=value)
    rows = {r[0]: r for r in tables(html)["tbl-audit"] if len(r) == 7}
    counts = frame(
        audited.db,
        "SELECT measure, count(*) AS n, count(*) FILTER (WHERE failed) AS n_failed, "
        "median(difference) AS med FROM edit_audit WHERE variation_value = ? GROUP BY ALL",
        [value],
    )
    assert counts.height == len(MEASURES)
    for row in counts.iter_rows(named=True):
        assert rows[row["measure"]][2:5] == [str(row["n"]), str(row["n_failed"]), signed(row["med"])]
    n_failed = scalar(
        audited.db,
        "SELECT count(DISTINCT image_id) FROM edit_audit WHERE variation_value = ? AND failed",
        [value],
    )
    assert f'<span id="n-failed-value">{n_failed}</span>' in html
    assert "/failed?value=Full+beard" in html


def test_failed_edits_page_lists_base_beside_variation(audited: Served) -> None:
    verdicts = _verdicts(audited.db).filter(pl.col("failed"))
    overview = _page(audited, "/")
    assert f'<span id="n-failed-edits">{verdicts.height}</span>' in overview
    assert 'id="nav-failed"' in overview and 'href="/failed"' in overview
    html = _page(audited, "/failed")
    edits = _blocks(html, "example failed-edit")
    assert sorted(edits) == sorted(verdicts["image_id"])
    for row in verdicts.iter_rows(named=True):
        block = edits[row["image_id"]]
        assert f'src="/image/{row["base_image_id"]}?w=160"' in block
        assert f'src="/image/{row["image_id"]}?w=160"' in block
        assert f"failed: {', '.join(row['failed_measures'])}" in block
    one = _blocks(_page(audited, "/failed", value=AUDITED[1]), "example failed-edit")
    assert sorted(one) == sorted(verdicts.filter(pl.col("variation_value") == AUDITED[1])["image_id"])


def test_an_empty_audit_shows_nothing(stylisticbias_server: Served) -> None:
    assert scalar(stylisticbias_server.db, "SELECT count(*) FROM edit_audit") == 0
    overview = _page(stylisticbias_server, "/")
    assert 'id="edit-audit"' not in overview and 'id="nav-failed"' not in overview
    face = scalar(stylisticbias_server.db, "SELECT min(face_id) FROM face")
    assert "data-audit=" not in _page(stylisticbias_server, "/face", id=str(face))
    assert 'id="tbl-audit"' not in _page(stylisticbias_server, "/attribute", value=AUDITED[0])
    assert "No edit audit in this study database" in _page(stylisticbias_server, "/failed")


def test_the_judgments_page_shows_the_images_audit(audited: Served) -> None:
    verdicts = _verdicts(audited.db)
    for row in (
        verdicts.filter(pl.col("failed")).row(0, named=True),
        verdicts.filter(~pl.col("failed")).row(0, named=True),
    ):
        html = _page(audited, "/judgments", image=row["image_id"])
        assert f'data-audit="{"failed" if row["failed"] else "passed"}"' in html
        for measure in row["failed_measures"] or []:
            assert f'<li class="failed" data-measure="{measure}"' in html
    base = str(verdicts["base_image_id"][0])
    assert "data-audit=" not in _page(audited, "/judgments", image=base)  # a base image is no edit

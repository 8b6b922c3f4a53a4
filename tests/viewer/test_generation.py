"""The Build pages: every base with its variations, the tries of each and why a try was turned down.

The study is made with ``cs.build`` and the demo-faces test double (planted refusals, failures and
edits that change nothing, which the edit audit rejects); every expectation is a direct DuckDB
query of the ``generation`` table. Served with uvicorn as the other viewer tests are (starlette's
TestClient needs httpx, which the 'view' extra does not install).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import duckdb
import polars as pl
import pytest

import cueshift as cs
from tests.stimuli.studies import write_study
from tests.viewer.conftest import Served, serve_in_thread
from tests.viewer.pages import fetch, tables


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("built")
    path = write_study(root, count=6, base="{refuse_rate = 0.3}", edit="{fail_rate = 0.3, noop_rate = 0.3}")
    summary = cs.build(path, progress=False)
    yield from serve_in_thread(summary.database, root / "thumbs")


def _tries(db: Path) -> pl.DataFrame:
    with duckdb.connect(str(db), read_only=True) as con:
        frame: pl.DataFrame = con.sql("SELECT * FROM generation ORDER BY image_id, try").pl()
    return frame


def _get(served: Served, path: str, **query: str) -> tuple[int, str]:
    status, _, body = fetch(f"{served.url}{path}" + (f"?{urlencode(query)}" if query else ""))
    return status, body.decode()


def test_the_build_page_lists_every_base_with_its_tries_and_kept_variations(built: Served) -> None:
    rows = _tries(built.db)
    status, page = _get(built, "/build")
    assert status == 200 and 'id="nav-build"' in page
    listed = {row[0]: row for row in tables(page)["build-bases"][1:]}
    bases = rows.filter(pl.col("stage") == "base")
    assert set(listed) == set(bases["image_id"])
    last = rows.group_by("image_id").agg(
        pl.col("outcome").last(), pl.col("try").max(), pl.col("parent_id").first()
    )
    for base_id, cells in listed.items():
        own = last.filter(pl.col("image_id") == base_id).row(0, named=True)
        children = last.filter(pl.col("parent_id") == base_id)
        kept = children.filter(pl.col("outcome") == "ok").height
        assert cells[3:6] == [str(own["try"]), own["outcome"], f"{kept} of {children.height}"]
    for outcome in ("refused", "failed", "rejected"):  # the planted troubles all happened
        assert rows.filter(pl.col("outcome") == outcome).height > 0
        n = rows.filter(pl.col("outcome") == outcome).group_by("stage").len()
        for stage, count in n.iter_rows():
            assert f'data-stage="{stage}" data-outcome="{outcome}">{count}<' in page


def test_a_base_page_shows_every_try_of_every_variation_and_why_it_was_turned_down(built: Served) -> None:
    rows = _tries(built.db)
    rejected = rows.filter(pl.col("outcome") == "rejected").row(0, named=True)
    base_id = str(rejected["parent_id"])
    status, page = _get(built, "/build", base=base_id)
    assert status == 200
    variations = rows.filter(pl.col("parent_id") == base_id)
    sections = re.findall(r'<section class="variation" data-image="([^"]+)" data-outcome="([^"]+)">', page)
    expected = variations.group_by("image_id", maintain_order=True).agg(pl.col("outcome").last())
    assert sorted(sections) == sorted(expected.iter_rows())
    shown = [t for t in tables(page).values() if t and t[0][:3] == ["try", "image", "outcome"]]
    shown_rows = [row for table in shown[1:] for row in table[1:]]  # the first table: the base's own tries
    assert len(shown_rows) == variations.height
    for row in variations.iter_rows(named=True):
        assert [
            str(row["try"]),
            *([] if row["sha256"] else ["no image"]),
            row["outcome"],
            row["message"],
        ] in [[r[0], *(r[1:2] if r[1] else []), r[2], r[3]] for r in shown_rows]
    assert (
        html.escape(str(rejected["message"]), quote=False) in page and "changed_pixels" in rejected["message"]
    )


def test_a_try_image_is_served_by_its_hash_and_nothing_else(built: Served) -> None:
    rows = _tries(built.db)
    sha = str(rows.filter(pl.col("sha256").is_not_null())["sha256"][0])
    status, headers, body = fetch(f"{built.url}/build/image/{sha}")
    assert status == 200 and body.startswith(b"\x89PNG")
    status, headers, body = fetch(f"{built.url}/build/image/{sha}?w=96")
    assert status == 200 and headers["content-type"] == "image/jpeg"
    for bad in ("0" * 64, "..%2F..%2Fstudy.toml", sha.upper()):
        assert fetch(f"{built.url}/build/image/{bad}")[0] == 404


@pytest.mark.parametrize(
    ("query", "status", "line"),
    [
        ({"base": ""}, 400, "base=: name a base image"),
        ({"base": "base-99999"}, 404, "base=&#39;base-99999&#39;: no such base"),
    ],
)
def test_a_bad_base_is_one_line(built: Served, query: dict[str, str], status: int, line: str) -> None:
    got, page = _get(built, "/build", **query)
    assert got == status and line in page

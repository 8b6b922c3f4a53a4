"""The viewer marks and counts what the face models dropped with ``[audit.faces] identity_filter``
beside the CLIP cosine's drops: each face card says why a variation was left out, the overview's
identity table counts each model; a study analysed without the switch shows what it showed.

The study is tests/audit/face_filter_study.py's (planted face-model rows, a tiny random CLIP);
every expectation is computed here from the plant and the stored cosines.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from cueshift.inference.stand_ins.tiny_clip import save_tiny_clip  # noqa: E402
from tests.audit.face_filter_study import Analysed, analysed, run, write_study  # noqa: E402
from tests.audit.planted_face_models import THRESHOLD  # noqa: E402
from tests.viewer.conftest import Served, serve_in_thread  # noqa: E402
from tests.viewer.pages import page_html, tables  # noqa: E402


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Analysed:
    encoder = save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"), seed=0)
    return analysed(tmp_path_factory.mktemp("face-filter"), encoder)


@pytest.fixture(scope="module")
def served(study: Analysed, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serve_in_thread(study.db, tmp_path_factory.mktemp("thumbs"))


def _page(served: Served, path: str, **params: str) -> str:
    return page_html(served.url, path, **params)


def _cards(html: str) -> dict[str, str]:
    parts = re.split(r'<div class="card" data-image="', html)[1:]
    return {part.split('"', 1)[0]: part for part in parts}


def test_each_face_card_says_which_model_left_it_out(study: Analysed, served: Served) -> None:
    reasons = study.face_reasons()
    assert set(reasons.values()) == {"distance", "face_count"}
    for person in ("p", "q", "r"):
        cards = _cards(_page(served, "/face", id=person))
        for image_id in (f"{person}1", f"{person}2"):
            card = cards[image_id]
            below = study.cosines[image_id] < study.min_identity
            assert ('data-below="true"' in card) == below
            reason = reasons.get(image_id)
            assert (f'data-reason="{reason}"' in card) == (reason is not None), image_id
            assert ("face-dropped" in card) == (reason is not None)
            if reason == "distance":
                assert f"face-recognition distance &gt; {THRESHOLD:.2f}" in card
            if reason == "face_count":
                assert "no single face on base and variation" in card


def test_the_overview_counts_each_models_drops(study: Analysed, served: Served) -> None:
    html = _page(served, "/")
    header, row = tables(html)["identity-summary"]
    assert header[6:] == ["Face distance past threshold", "No single face", "By both", "Left out"]
    reasons = study.face_reasons()
    by_cosine = {v for v, c in study.cosines.items() if c < study.min_identity}
    n_distance = sum(r == "distance" for r in reasons.values())
    assert row[2].startswith(f"{len(by_cosine)} (cosine < {study.min_identity:.2f}")
    assert row[6:] == [
        f"{n_distance} (distance > {THRESHOLD:.2f})",
        str(sum(r == "face_count" for r in reasons.values())),
        str(len(by_cosine & set(reasons))),
        str(len(by_cosine | set(reasons))),
    ]
    assert 'id="identity-face-filter"' in html


def test_without_the_switch_the_viewer_shows_the_cosine_alone(study: Analysed, tmp_path: Path) -> None:
    plain = write_study(tmp_path, study.encoder, identity_filter=False)  # the same images
    shutil.copy(study.db, tmp_path / "s.duckdb")
    run("analyze", "--study", str(plain), "--resamples", "100", "--min-identity", f"{study.min_identity}")
    for served in serve_in_thread(tmp_path / "s.duckdb", tmp_path / "thumbs"):
        html = _page(served, "/")
        header, _ = tables(html)["identity-summary"]
        assert len(header) == 6 and 'id="identity-face-filter"' not in html
        for person in ("p", "q", "r"):
            assert "face-dropped" not in _page(served, "/face", id=person)

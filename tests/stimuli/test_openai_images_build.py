"""cs.build with the openai-images generator making the edits, against the local Images API mimic."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import polars as pl
import pytest

import cueshift as cs
from cueshift.images.manifest import read_manifest_table
from tests.stimuli.images_server import ImagesServer, png_for, serve
from tests.stimuli.studies import write_study

Make = Callable[..., tuple[ImagesServer, str]]


@pytest.fixture
def servers() -> Iterator[Make]:
    yield from serve()


def test_cs_build_records_every_api_call_in_the_generation_table(servers: Make, tmp_path: Path) -> None:
    server, url = servers()
    server.retry_after = "0"
    # a cap is always refused; sunglasses meet a 503 on the first attempt, then an image
    server.fault = lambda prompt, attempt: "refuse" if "Cap" in prompt else ("503" if attempt == 0 else None)
    settings = (
        f'{{base_url = "{url}", backoff_initial_s = 0.01, backoff_max_s = 0.02, price_per_image = 0.04}}'
    )
    path = write_study(
        tmp_path, count=4, base="{}", edit=settings, edit_generator="openai-images", edit_model="gpt-image-1"
    )
    summary = cs.build(path, progress=False)
    with duckdb.connect(str(summary.database), read_only=True) as con:
        rows = con.sql("SELECT * FROM generation ORDER BY image_id, try").pl()
    edits = rows.filter(pl.col("stage") == "variation")
    assert set(edits["backend"]) == {"openai-images"} and set(edits["model"]) == {"gpt-image-1"}
    sunglasses = edits.filter(pl.col("variation_value") == "Sunglasses")
    assert sunglasses.height == 4  # the 503 was retried inside the call: one try each
    assert sunglasses["outcome"].to_list() == ["ok"] * 4 and sunglasses["try"].to_list() == [1] * 4
    caps = edits.filter(pl.col("variation_value") == "Cap")
    assert caps.height == 4 * 3  # refused on each of max_tries = 3 tries, with a new seed each
    assert set(caps["outcome"]) == {"refused"}
    assert set(caps["message"]) == {
        "content_policy_violation: HTTP 400: Your request was rejected as a result of our safety system."
    }
    assert caps["seed"].n_unique() == 12
    # the server saw 2 requests per sunglasses edit (503, then ok) and one per refused try
    paths = [hit[1] for hit in server.hits]
    assert paths == ["/v1/images/edits"] * (4 * 2 + 12)
    # each edit uploaded its kept base, byte for byte
    root = summary.manifest.parent
    manifest = read_manifest_table(summary.manifest)
    bases = {
        r["image_id"]: (root / r["path"]).read_bytes()
        for r in manifest.filter(pl.col("role") == "base").iter_rows(named=True)
    }
    assert len(bases) == 4 and all(image in bases.values() for image in server.images)
    variations = manifest.filter(pl.col("role") == "variation")
    assert variations.height == 4
    for row in variations.iter_rows(named=True):
        prompt = sunglasses.filter(pl.col("image_id") == row["image_id"])["prompt"][0]
        made = png_for(prompt + hashlib.sha256(bases[row["base_image_id"]]).hexdigest())
        assert (root / row["path"]).read_bytes() == made

"""OpenAIBackend.judge_pairs / rate against a real chat-completions server on 127.0.0.1.

The server (stdlib ``ThreadingHTTPServer``, the pattern of ``test_backend_openai.py``)
records every request and answers from the decoded images, the prompt and the seed, so
each answer shows which row it belongs to; answers are delayed by a per-request amount so
they finish out of row order. Checks: two ``image_url`` parts in left/right order before
the question, one image for ratings, answers in row order, retries, key scrubbing, and the
pairwise design end to end through ``run_study``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from PIL import Image

from cueshift import store
from cueshift.designs.registry import parse_study
from cueshift.errors import CueshiftError
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.inference.backends.base import ImageRecord, StudyContext, rating_prompts
from cueshift.inference.backends.openai_compat import OpenAIBackend
from cueshift.study.config import ModelConfig
from cueshift.study.sections import PAIRWISE_PROMPT, PAIRWISE_RATING_PROMPT
from tests.local_http import LocalServer, serve_many

pytestmark = pytest.mark.timeout(60)

REPO = Path(__file__).resolve().parents[2]
SENTINEL = "sk-SENTINEL-designs-0a1b2c3d-do-not-leak"

#: (image bytes in message order, prompt, seed, authorization header) -> answer text
Answer = Callable[[list[bytes], str, int, str], str]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:8]


def echo(images: list[bytes], prompt: str, seed: int, auth: str) -> str:
    """Which images (in order), which prompt and which seed the server saw."""
    return "|".join([*(digest(b) for b in images), digest(prompt.encode()), str(seed)])


class DesignServer(LocalServer):
    """Chat completions that record every body; ``fail_first`` answers 503 to each first attempt."""

    def __init__(self, answer: Answer = echo, *, fail_first: bool = False) -> None:
        self.answer = answer
        self.fail_first = fail_first
        self.lock = threading.Lock()
        self.bodies: list[dict[str, Any]] = []
        self.attempts: Counter[str] = Counter()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    app: DesignServer

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        app = self.app
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        body = json.loads(raw)
        parts = body["messages"][-1]["content"]
        images = []
        for part in parts:
            if part["type"] == "image_url":
                url = part["image_url"]["url"]
                assert url.startswith("data:image/png;base64,")
                images.append(base64.b64decode(url.split(",", 1)[1]))
        prompt = next(p["text"] for p in parts if p["type"] == "text")
        auth = self.headers.get("Authorization", "")
        key = digest(raw)
        with app.lock:
            app.bodies.append(body)
            attempt = app.attempts[key]
            app.attempts[key] += 1
        if app.fail_first and attempt == 0:
            self._send(503, {"error": {"message": f"busy; you sent {auth}"}})
            return
        time.sleep((int(key, 16) % 5) * 0.01)  # finish out of row order
        content = app.answer(images, prompt, body["seed"], auth)
        choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        self._send(200, {"id": "c", "object": "chat.completion", "choices": [choice]})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


DesignServer.handler = _Handler  # the server answers with this handler


@pytest.fixture
def servers() -> Iterator[Callable[..., tuple[DesignServer, str]]]:
    yield from serve_many(DesignServer)


@pytest.fixture
def context(tmp_path: Path) -> StudyContext:
    images = {}
    for i, colour in enumerate([(200, 30, 30), (30, 200, 30), (30, 30, 200), (90, 90, 90)]):
        path = tmp_path / f"face{i}.png"
        Image.new("RGB", (16, 16), colour).save(path)
        images[f"img{i}"] = ImageRecord(
            f"img{i}", f"id{i}", path, "base", None, None, None, "face", None, None, None, None
        )
    return StudyContext(images=images, scenarios={}, template=PAIRWISE_PROMPT)


def make_backend(context: StudyContext, url: str, **settings: Any) -> OpenAIBackend:
    fast = {"backoff_initial_s": 0.01, "backoff_max_s": 0.05, "timeout_s": 5.0, "down_cooldown_s": 0.0}
    model = ModelConfig(
        model_id="srv",
        backend="openai",
        checkpoint="tiny-vlm",
        settings={"base_urls": [url], **fast, **settings},
    )
    return OpenAIBackend(model, context)


def pair_batch() -> pl.DataFrame:
    ids = ["img0", "img1", "img2", "img3"]
    rows = [(a, b, "more-attractive", s) for a in ids for b in ids if a != b for s in (0, 7)]
    return pl.DataFrame(
        rows,
        schema={
            "left_image_id": pl.String,
            "right_image_id": pl.String,
            "scenario_id": pl.String,
            "seed": pl.Int32,
        },
        orient="row",
    ).sample(fraction=1.0, shuffle=True, seed=5)


def image_bytes(context: StudyContext, image_id: str) -> bytes:
    return context.images[image_id].path.read_bytes()


def test_judge_pairs_sends_two_images_in_order_and_answers_in_row_order(
    context: StudyContext, servers: Callable[..., tuple[DesignServer, str]]
) -> None:
    server, url = servers()
    batch = pair_batch()
    backend = make_backend(context, url, concurrency=6, system_prompt="Be brief.")
    try:
        answers = backend.judge_pairs(batch)
    finally:
        backend.close()
    expected = [
        echo([image_bytes(context, a), image_bytes(context, b)], PAIRWISE_PROMPT, s, "")
        for a, b, s in batch.select("left_image_id", "right_image_id", "seed").iter_rows()
    ]
    assert answers.response_text == expected
    assert len(answers.latency_ms) == batch.height and all(t > 0 for t in answers.latency_ms)
    assert answers.p_favorable is None and answers.p_neither is None
    assert len(server.bodies) == batch.height
    for body in server.bodies:
        assert body["messages"][0] == {"role": "system", "content": "Be brief."}
        parts = body["messages"][-1]["content"]
        assert [p["type"] for p in parts] == ["image_url", "image_url", "text"]
        assert parts[2]["text"] == PAIRWISE_PROMPT
        assert body["temperature"] == 0.2 and body["max_tokens"] == 16 and body["model"] == "tiny-vlm"
        assert "logprobs" not in body and "top_logprobs" not in body


def test_prompt_column_text_first_and_empty_batch(
    context: StudyContext, servers: Callable[..., tuple[DesignServer, str]]
) -> None:
    server, url = servers()
    batch = pair_batch().head(4).with_columns(pl.Series("prompt", ["Q1", "Q2", "Q3", "Q4"]))
    backend = make_backend(context, url, image_first=False, image_detail="low")
    try:
        answers = backend.judge_pairs(batch)
        assert backend.judge_pairs(batch.head(0)).response_text == []
        assert (
            backend.rate(pl.DataFrame(schema={"image_id": pl.String, "seed": pl.Int32})).response_text == []
        )
    finally:
        backend.close()
    assert [a.split("|")[2] for a in answers.response_text] == [
        digest(q.encode()) for q in ("Q1", "Q2", "Q3", "Q4")
    ]
    for body in server.bodies:
        parts = body["messages"][-1]["content"]
        assert [p["type"] for p in parts] == ["text", "image_url", "image_url"]
        assert all(p["image_url"]["detail"] == "low" for p in parts[1:])


def test_rate_sends_one_image_with_the_rating_prompt(
    context: StudyContext, servers: Callable[..., tuple[DesignServer, str]]
) -> None:
    server, url = servers()
    batch = pl.DataFrame(
        {
            "model_id": ["srv"] * 6,
            "image_id": ["img3", "img0", "img2", "img1", "img0", "img3"],
            "stimulus_group": ["local"] * 6,
            "seed": pl.Series([0, 0, 0, 0, 1, 1], dtype=pl.Int32),
            "attribute": ["western-aesthetic"] * 6,
        }
    )
    backend = make_backend(context, url, concurrency=3)
    try:
        answers = backend.rate(batch)
    finally:
        backend.close()
    expected = [
        echo([image_bytes(context, i)], PAIRWISE_RATING_PROMPT, s, "")
        for i, s in batch.select("image_id", "seed").iter_rows()
    ]
    assert answers.response_text == expected
    for body in server.bodies:
        assert [p["type"] for p in body["messages"][-1]["content"]] == ["image_url", "text"]


def test_retries_and_key_scrubbing(
    context: StudyContext, servers: Callable[..., tuple[DesignServer, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUESHIFT_TEST_KEY", SENTINEL)

    def leaky(images: list[bytes], prompt: str, seed: int, auth: str) -> str:
        return f"{len(images)} ({auth})"

    server, url = servers(leaky, fail_first=True)
    batch = pair_batch().head(5)
    backend = make_backend(context, url, api_key_env="CUESHIFT_TEST_KEY", max_retries=2)
    try:
        answers = backend.judge_pairs(batch)
    finally:
        backend.close()
    assert answers.response_text == ["2 (Bearer [redacted])"] * 5
    assert len(server.bodies) == 10  # every row: one 503, one success
    assert all(SENTINEL not in t for t in answers.response_text)

    server, url = servers(leaky)
    server.fail_first = True
    backend = make_backend(context, url, api_key_env="CUESHIFT_TEST_KEY", max_retries=0)
    try:
        (failure,) = backend.judge_pairs(batch.head(1)).failures  # given up alone...
    finally:
        backend.close()
    assert "HTTP 503" in failure.error and SENTINEL not in failure.error and "[redacted]" in failure.error
    backend = make_backend(context, url, api_key_env="CUESHIFT_TEST_KEY", max_retries=0, health_check_after=1)
    try:
        with pytest.raises(CueshiftError) as info:  # ...or, when the health check fails too, stopping
            backend.judge_pairs(batch.tail(1))
    finally:
        backend.close()
    assert (
        "HTTP 503" in str(info.value) and SENTINEL not in str(info.value) and "[redacted]" in str(info.value)
    )


def test_rating_prompt_comes_from_the_batch_or_the_default(tmp_path: Path, context: StudyContext) -> None:
    batch = pl.DataFrame({"image_id": ["img0"], "seed": pl.Series([0], dtype=pl.Int32)})
    assert rating_prompts(batch, context) == [PAIRWISE_RATING_PROMPT]
    assert rating_prompts(batch.with_columns(pl.lit("Rate it.").alias("prompt")), context) == ["Rate it."]


# --------------------------------------------------------------------------- the design end to end


def pairwise_study(tmp_path: Path, url: str) -> dict[str, Any]:
    data = tomllib.loads((REPO / "studies" / "pairwise-002.toml").read_text())
    data["database"] = str(tmp_path / "pairwise.duckdb")
    data["seeds"] = [0, 1]
    data["pairwise"]["synthetic"] = {
        "races": ["White"],
        "genders": ["female"],
        "per_group": {"western": 1, "local": 2},
        "cache_dir": str(tmp_path / "img"),
    }
    data["pairwise"]["synthetic_humans"]["n_raters"] = 4
    data["pairwise"]["rating_prompt"] = "Rate this portrait from 0 to 10. One number."
    data["models"] = [
        {
            "model_id": "served",
            "backend": "openai",
            "checkpoint": "tiny-vlm",
            "settings": {"base_urls": [url], "backoff_initial_s": 0.01, "timeout_s": 5.0},
        }
    ]
    return data


def test_pairwise_design_runs_end_to_end_on_the_openai_backend(
    tmp_path: Path, servers: Callable[..., tuple[DesignServer, str]]
) -> None:
    def judge(images: list[bytes], prompt: str, seed: int, auth: str) -> str:
        if len(images) == 2:
            return "1 (left)" if digest(images[0]) < digest(images[1]) else "Image 2"
        return "Rating: 7/10" if prompt.startswith("Rate this portrait") else "wrong prompt"

    server, url = servers(judge)
    study = parse_study(pairwise_study(tmp_path, url), "test")
    summary = run_study(study, RunOptions(progress=False))
    n_trials, n_ratings = 2 * 2 * 2, 3 * 2  # 2 pairs x 2 orders x 2 seeds; 3 stimuli x 2 seeds
    assert summary.n_written == n_trials + n_ratings
    n_probe = 8  # the consistency probe sends 8 answered requests again at the end of the run
    assert len(server.bodies) == n_trials + n_ratings + n_probe
    assert run_study(study, RunOptions(progress=False)).n_written == 0  # resumes: nothing asked again
    assert len(server.bodies) == n_trials + n_ratings + n_probe
    con = store.open_study(study.database_path)
    try:
        trials = store.query(con, "SELECT * FROM pairwise_trial")
        ratings = store.query(con, "SELECT * FROM rating WHERE rater_kind = 'model'")
        reports = store.query(con, "SELECT backend_report FROM run ORDER BY started_at")["backend_report"]
    finally:
        con.close()
    probe = json.loads(reports[0])["served"]["consistency"]
    assert (probe["probed"], probe["answers_changed"], probe["consistent"]) == (n_probe, 0, True)
    assert reports[1] is None  # nothing asked, nothing to report
    assert trials.height == n_trials and trials["winner_image_id"].null_count() == 0
    assert ratings.height == n_ratings and ratings["rating"].to_list() == [7.0] * n_ratings

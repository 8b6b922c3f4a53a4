"""OpenAIBackend against real HTTP servers on 127.0.0.1 with injected faults.

The servers (:mod:`tests.inference.chat_server`) speak chat completions with canned,
deterministic answers that show which judgment they belong to. Switches inject 429 (with
Retry-After), 5xx, 401, slow answers (beyond the client's timeout), dropped and truncated
connections and malformed JSON. The vLLM behaviours are tested in ``test_openai_vllm.py``,
the key redaction in ``test_openai_redact.py``.
"""

from __future__ import annotations

import json
import logging
import math
import socket
import traceback
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from cueshift.designs.registry import load_study
from cueshift.errors import ConfigError, CueshiftError
from cueshift.inference.backends.base import StudyContext
from cueshift.inference.backends.openai_compat import OpenAIBackend
from cueshift.inference.backends.openai_logprobs import letter_probabilities
from cueshift.inference.backends.openai_settings import OpenAISettings, parse_settings
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import ORDERING_BY_ID
from tests.inference.chat_server import ChatServer, letter_of, serve
from tests.inference.chat_server import position as _position
from tests.inference.openai_helpers import expected_tags, make_backend, make_batch, make_context

pytestmark = pytest.mark.timeout(60)

REPO = Path(__file__).resolve().parents[2]
SENTINEL = "sk-SENTINEL-9f8e7d6c5b4a-do-not-leak"
FAULTS = ("429", "500", "503", "slow", "drop", "truncate", "malformed")


@pytest.fixture
def servers() -> Iterator[Callable[..., tuple[ChatServer, str]]]:
    yield from serve()


@pytest.fixture
def context(tmp_path: Path) -> StudyContext:
    return make_context(tmp_path)


# --------------------------------------------------------------------------- behaviour


def test_every_judgment_lands_once_in_row_order_despite_faults(servers, context: StudyContext) -> None:
    server, url = servers()
    server.slow_s = 1.5

    # each judgment meets one or two faults of its own before it is answered
    def fault(tag: str, attempt: int) -> str | None:
        n = int(tag, 16)
        planned = [FAULTS[n % len(FAULTS)]] + ([FAULTS[(n // 7) % len(FAULTS)]] if n % 3 == 0 else [])
        return planned[attempt] if attempt < len(planned) else None

    server.fault = fault
    batch = make_batch(context)
    backend = make_backend(context, [url], concurrency=8, max_retries=3, timeout_s=0.6)
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()

    tags = expected_tags(context, batch)
    assert len(answers.response_text) == batch.height == 48
    assert answers.response_text == [f"({letter_of(t)}) {t}" for t in tags]
    assert answers.p_favorable == [None] * 48 and answers.p_neither == [None] * 48  # no logprobs served
    assert all(ms > 0 for ms in answers.latency_ms)
    # exactly once: after its planned faults each judgment was asked once more and never again
    for t in tags:
        n = int(t, 16)
        assert server.attempts[t] == 2 + (n % 3 == 0)
    assert {what for _, _, what in server.hits} == {*FAULTS, "ok"}
    first = server.bodies[0]
    assert (first["model"], first["temperature"], first["max_tokens"]) == ("tiny-vlm", 0.2, 16)
    assert first["logprobs"] is True and first["top_logprobs"] == 20
    assert {b["seed"] for b in server.bodies} == {1, 2}
    assert server.auth == [""] * server.n_requests  # no api_key_env: no credentials sent


def test_retry_after_is_honoured(servers, context: StudyContext) -> None:
    server, url = servers()
    server.retry_after = "1"
    server.fault = lambda tag, attempt: "429" if attempt == 0 else None
    backend = make_backend(context, [url])
    try:
        answers = backend.judge(make_batch(context, seeds=(1,), orderings=(1,))[:1])
    finally:
        backend.close()
    assert answers.response_text[0].startswith(("(a)", "(b)"))
    (t0, _, first), (t1, _, second) = server.hits
    assert (first, second) == ("429", "ok")
    assert t1 - t0 >= 0.95  # backoff alone would have waited ~0.01 s


def test_exhausted_retries_fail_alone_and_a_dead_server_stops_the_run(servers, context: StudyContext) -> None:
    server, url = servers()
    # one poison judgment answered 503 on every attempt: it fails alone, the others are answered
    batch = make_batch(context)
    tags = expected_tags(context, batch)
    poison = tags[5]
    server.fault = lambda tag, attempt: "503" if tag == poison else None
    backend = make_backend(context, [url], max_retries=2, concurrency=3)
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()
    (failure,) = answers.failures
    assert (failure.row, failure.attempts) == (5, 3) and server.attempts[poison] == 3
    assert url in failure.error and "HTTP 503" in failure.error and "3 attempts" in failure.error
    assert "\n" not in failure.error
    assert answers.answered_rows() == [i for i in range(batch.height) if i != 5]
    answered = answers.take(answers.answered_rows())
    assert answered.response_text == [f"({letter_of(t)}) {t}" for t in tags if t != poison]

    # a dead server: after health_check_after failures in a row the health check fails too
    server.fault = lambda tag, attempt: "503"
    server.hits.clear()
    backend = make_backend(context, [url], max_retries=2, concurrency=3, health_check_after=3)
    with pytest.raises(CueshiftError) as info:
        backend.judge(make_batch(context))
    backend.close()
    message = str(info.value)
    assert url in message and "HTTP 503" in message and "3 attempts" in message
    assert "health check failed" in message and "\n" not in message
    # the failures before the check, the check, the requests in flight; the others were cancelled
    assert server.n_requests <= (3 + 3) * 3 + 3

    server.fault = lambda tag, attempt: "slow"
    server.slow_s = 0.6
    backend = make_backend(context, [url], max_retries=1, timeout_s=0.2, health_check_after=1)
    with pytest.raises(CueshiftError, match="timed out after 0.2s"):
        backend.judge(make_batch(context, seeds=(1,), orderings=(1,))[:1])
    backend.close()


def test_client_errors_are_not_retried(servers, context: StudyContext) -> None:
    server, url = servers()
    backend = make_backend(context, [url.replace("/v1", "/v2")], max_retries=5)
    with pytest.raises(CueshiftError, match=r"HTTP 404.*not retried"):
        backend.judge(make_batch(context, seeds=(1,), orderings=(1,))[:1])
    backend.close()
    assert server.n_requests == 0  # 404 before the handler counted it
    server.fault = lambda tag, attempt: "401"
    backend = make_backend(context, [url], max_retries=5)
    with pytest.raises(CueshiftError, match="HTTP 401"):
        backend.judge(make_batch(context, seeds=(1,), orderings=(1,))[:1])
    backend.close()
    assert server.n_requests == 1


def test_load_spreads_across_two_servers(servers, context: StudyContext) -> None:
    (one, url_one), (two, url_two) = servers(answer_delay_s=0.02), servers(answer_delay_s=0.02)
    batch = make_batch(context)
    backend = make_backend(context, [url_one, url_two], concurrency=4)
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()
    assert answers.response_text == [f"({letter_of(t)}) {t}" for t in expected_tags(context, batch)]
    assert one.n_requests + two.n_requests == batch.height
    assert min(one.n_requests, two.n_requests) >= 0.3 * batch.height


def test_failover_when_one_server_is_down(servers, context: StudyContext) -> None:
    live, url_live = servers()
    with socket.socket() as sock:  # a port nobody listens on: connections are refused
        sock.bind(("127.0.0.1", 0))
        dead_url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    batch = make_batch(context)
    backend = make_backend(context, [dead_url, url_live], concurrency=4, max_retries=2, down_cooldown_s=30)
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()
    assert answers.response_text == [f"({letter_of(t)}) {t}" for t in expected_tags(context, batch)]
    assert live.n_requests == batch.height

    # a server that answers 503 to everything is avoided after its first failures
    sick, url_sick = servers()
    sick.fault = lambda tag, attempt: "503"
    live.hits.clear()
    backend = make_backend(context, [url_sick, url_live], concurrency=4, max_retries=2, down_cooldown_s=30)
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()
    assert len(answers.response_text) == batch.height and live.n_requests == batch.height
    assert sick.n_requests <= 4  # at most the first wave before it was marked down


# --------------------------------------------------------------------------- logprob score mode


def test_letter_probabilities_merges_token_variants() -> None:
    ln = math.log
    # whole-token answers: "(a)", "a" and " (a" merge; "(A" counts; bare "A" (the article) does not
    one = [
        _position(
            "(a)", ln(0.5), {"(a)": ln(0.5), " a": ln(0.1), "(A": ln(0.05), "(b": ln(0.2), "A": ln(0.1)}
        )
    ]
    got = letter_probabilities(one)
    assert got is not None
    assert got.p_a == pytest.approx(0.65) and got.p_b == pytest.approx(0.2)
    assert got.p_neither == pytest.approx(0.15)
    assert got.p_letter_share("a") == pytest.approx(0.65 / 0.85)
    # split answers: "(" then "a": P(a) = P("(a") + P("(") * P("a" | "(")
    split = [
        _position("(", ln(0.7), {"(": ln(0.7), "(a": ln(0.1), "I": ln(0.1)}),
        _position("b", ln(0.6), {"b": ln(0.6), "a": ln(0.3), "x": ln(0.1)}),
        _position(")", ln(0.99), {")": ln(0.99)}),
    ]
    got = letter_probabilities(split)
    assert got is not None
    assert got.p_a == pytest.approx(0.1 + 0.7 * 0.3) and got.p_b == pytest.approx(0.7 * 0.6)
    assert got.p_neither == pytest.approx(1 - 0.31 - 0.42)
    # a leading space token is walked through like "("
    spaced = [_position(" ", ln(0.5), {" ": ln(0.5), "a": ln(0.5)}), _position("b", 0.0, {"b": 0.0})]
    got = letter_probabilities(spaced)
    assert got is not None and got.p_a == pytest.approx(0.5) and got.p_b == pytest.approx(0.5)
    assert letter_probabilities([]) is None
    assert letter_probabilities([{"token": "(a)", "logprob": -0.1, "top_logprobs": []}]) is None


def test_logprob_score_information_end_to_end(servers, context: StudyContext) -> None:
    server, url = servers()
    ln = math.log

    def logprobs(tag: str) -> list[dict[str, Any]]:
        p_a = 0.2 + 0.6 * (int(tag, 16) % 100) / 100  # a different P(a) per judgment
        if int(tag, 16) % 2:  # tokenizer with whole "(a)" tokens
            return [_position("(a)", ln(p_a), {"(a)": ln(p_a), "(b)": ln(0.9 - p_a), "I": ln(0.1)})]
        return [  # tokenizer that splits "(" + "a" + ")"
            _position("(", ln(0.9), {"(": ln(0.9), "I": ln(0.1)}),
            _position("a", ln(p_a), {"a": ln(p_a), "b": ln(1 - p_a)}),
            _position(")", 0.0, {")": 0.0}),
        ]

    server.logprobs = logprobs
    batch = make_batch(context, seeds=(1,))
    backend = make_backend(context, [url])
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()
    assert answers.p_favorable is not None and answers.p_neither is not None
    for (_, _, ordering, _), tag, p_fav, p_nei in zip(
        batch.iter_rows(), expected_tags(context, batch), answers.p_favorable, answers.p_neither, strict=True
    ):
        p_a = 0.2 + 0.6 * (int(tag, 16) % 100) / 100
        share_a = p_a / 0.9 if int(tag, 16) % 2 else p_a
        want = share_a if ORDERING_BY_ID[ordering].favorable_letter == "a" else 1 - share_a
        assert p_fav == pytest.approx(want, abs=1e-9)
        assert p_nei == pytest.approx(0.1, abs=1e-9)

    # score mode: temperature 0, seed 0, probabilities required
    batch0 = make_batch(context, seeds=(0,), orderings=(1, 3))
    scoring = make_backend(context, [url], mode="score")
    assert scoring.deterministic and not make_backend(context, [url]).deterministic
    try:
        scored = scoring.judge(batch0)
        assert server.bodies[-1]["temperature"] == 0.0 and server.bodies[-1]["seed"] == 0
        assert scored.p_favorable is not None and None not in scored.p_favorable
        server.fault = lambda tag, attempt: "nologprobs"
        with pytest.raises(CueshiftError, match=f"{url}: the server returned no logprobs"):
            scoring.judge(batch0)
    finally:
        scoring.close()


# --------------------------------------------------------------------------- secrets


def test_api_key_never_leaks(servers, context: StudyContext, monkeypatch, caplog, tmp_path: Path) -> None:
    from cueshift import store

    monkeypatch.setenv("CUESHIFT_TEST_KEY", SENTINEL)
    caplog.set_level(logging.DEBUG)
    server, url = servers()
    # 500s and answers that echo the credentials back
    server.fault = lambda tag, attempt: "500" if attempt == 0 else ("echo" if int(tag, 16) % 2 else None)
    batch = make_batch(context, seeds=(1,))
    model = ModelConfig(
        model_id="srv",
        backend="openai",
        checkpoint="tiny-vlm",
        settings={
            "base_urls": [url],
            "api_key_env": "CUESHIFT_TEST_KEY",
            "backoff_initial_s": 0.01,
            "backoff_max_s": 0.02,
        },
    )
    backend = OpenAIBackend(model, context)
    errors: list[str] = []
    try:
        answers = backend.judge(batch)
        assert set(server.auth) == {f"Bearer {SENTINEL}"}  # the key was sent...
        assert any("[redacted]" in text for text in answers.response_text)  # ...and echoed, then scrubbed
        server.fault = lambda tag, attempt: "500"  # exhausted retries, echoing the key: failures...
        errors.extend(f.error for f in backend.judge(batch[:2]).failures)
        assert len(errors) == 2
    finally:
        backend.close()
    stopping = OpenAIBackend(
        model.model_copy(update={"settings": {**model.settings, "health_check_after": 1}}), context
    )
    try:
        for fault in ("500", "401"):  # ...and the errors that stop the run, both echoing the key
            server.fault = lambda tag, attempt, f=fault: f
            with pytest.raises(CueshiftError) as info:
                stopping.judge(batch[:2])
            errors.append(str(info.value))
            errors.append("".join(traceback.format_exception(info.value)))
    finally:
        stopping.close()
    assert any("HTTP 401" in e for e in errors) and any("HTTP 500" in e for e in errors)
    assert any("retry" in r.getMessage() for r in caplog.records)  # retries were logged
    logged = caplog.text + "".join(logging.Formatter().format(r) + repr(r.args) for r in caplog.records)
    for text in [*errors, logged]:
        assert SENTINEL not in text
    assert SENTINEL not in json.dumps(model.settings)

    # answers written to a study database: the key is nowhere in it
    db = tmp_path / "study.duckdb"
    con = store.open_study(db)
    letters = [t[1] for t in answers.response_text]
    favorable = [ORDERING_BY_ID[o].favorable_letter for o in batch["ordering"]]
    judgments = batch.with_columns(
        model_id=pl.lit("srv"),
        response_text=pl.Series(answers.response_text),
        outcome=pl.Series(
            ["favorable" if x == f else "unfavorable" for x, f in zip(letters, favorable, strict=True)]
        ),
        chosen_letter=pl.Series(letters),
        p_favorable=pl.Series(answers.p_favorable, dtype=pl.Float64),
        p_neither=pl.Series(answers.p_neither, dtype=pl.Float64),
        latency_ms=pl.Series(answers.latency_ms),
        created_at=pl.lit(datetime.now()),
        run_id=pl.lit("run-1"),
    )
    model_row = pl.DataFrame(
        {
            "model_id": ["srv"],
            "backend": ["openai"],
            "checkpoint": ["tiny-vlm"],
            "revision": [None],
            "settings": [json.dumps(model.settings)],
        },
        schema_overrides={"revision": pl.String},
    )
    store.write_tables(con, {"model": model_row, "judgment": judgments})
    tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
    dump = []
    for table in tables:
        for row in con.execute(f'SELECT * FROM "{table}"').fetchall():
            dump.append(repr(row))
    con.close()
    text = "\n".join(dump)
    assert "[redacted]" in text and "CUESHIFT_TEST_KEY" in text  # the search does see stored text
    assert SENTINEL not in text
    assert SENTINEL.encode() not in db.read_bytes()


# --------------------------------------------------------------------------- configuration


@pytest.mark.parametrize(
    ("settings", "needle"),
    [
        (
            {"base_urls": ["http://h/v1"], "concurency": 3},
            "settings.concurency: Extra inputs are not permitted",
        ),
        ({"base_urls": ["http://h/v1"], "concurrency": 0}, "settings.concurrency"),
        ({"base_urls": []}, "settings.base_urls"),
        ({"base_urls": ["ftp://h/v1"]}, "must start with http"),
        ({"base_urls": ["http://user:pw@h/v1"]}, "must not carry credentials"),
        ({"base_urls": ["http://h/v1"], "api_key_env": "sk-123 456"}, "settings.api_key_env"),
        ({"base_urls": ["http://h/v1"], "extra_body": {"seed": 3}}, "extra_body may not set seed"),
        ({"base_urls": ["http://h/v1"], "mode": "score", "logprobs": False}, "needs logprobs = true"),
    ],
)
def test_bad_settings_are_one_line_config_errors(
    context: StudyContext, settings: dict[str, Any], needle: str
) -> None:
    model = ModelConfig(model_id="srv", backend="openai", checkpoint="m", settings=settings)
    with pytest.raises(ConfigError) as info:
        OpenAIBackend(model, context)
    assert needle in str(info.value) and "\n" not in str(info.value)
    assert "pw" not in str(info.value) and "sk-123" not in str(info.value)


def test_missing_key_variable_names_the_variable(context: StudyContext, monkeypatch) -> None:
    monkeypatch.delenv("CUESHIFT_ABSENT_KEY", raising=False)
    model = ModelConfig(
        model_id="srv",
        backend="openai",
        checkpoint="m",
        settings={"base_urls": ["http://h/v1"], "api_key_env": "CUESHIFT_ABSENT_KEY"},
    )
    with pytest.raises(ConfigError, match="CUESHIFT_ABSENT_KEY"):
        OpenAIBackend(model, context)


def test_study_file_is_valid() -> None:
    study = load_study(REPO / "studies" / "openai-server.toml")
    (model,) = study.models
    assert model.backend == "openai" and study.image_set.kind == "demo"
    settings = parse_settings(model)
    assert isinstance(settings, OpenAISettings) and settings.base_urls == ["http://127.0.0.1:8000/v1"]
    assert not any("sk-" in str(v) for v in model.settings.values())

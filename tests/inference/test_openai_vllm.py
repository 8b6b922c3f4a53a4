"""OpenAIBackend against a server that behaves as vLLM does (docs/decisions.md#d17).

The server (:mod:`tests.inference.chat_server`) applies ``structured_outputs`` (vLLM >= 0.12) or
``guided_choice`` (older) and silently ignores every other unknown field with HTTP 200;
refuses ``top_logprobs`` above its ``--max-logprobs`` with vLLM's message; can serve no
logprobs, or logprobs that drift between repeats; answers ``GET /version`` and
``GET /v1/models``, and names its model and ``system_fingerprint`` in every answer.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cueshift.errors import ConfigError, CueshiftError
from cueshift.inference.backends.base import StudyContext
from cueshift.study.scenarios import ORDERING_BY_ID
from tests.inference.chat_server import ChatServer, letter_of, position, serve
from tests.inference.openai_helpers import expected_tags, make_backend, make_batch, make_context

pytestmark = pytest.mark.timeout(60)

Servers = Callable[..., tuple[ChatServer, str]]


@pytest.fixture
def servers() -> Iterator[Servers]:
    yield from serve()


@pytest.fixture
def context(tmp_path: Path) -> StudyContext:
    return make_context(tmp_path)


def split_letters(tag: str) -> list[dict[str, Any]]:
    """A tokenizer that splits "(" + letter + ")"; P(a) depends on the judgment."""
    p_a = 0.2 + 0.6 * (int(tag, 16) % 100) / 100
    ln = math.log
    return [
        position("(", ln(0.9), {"(": ln(0.9), "I": ln(0.1)}),
        position("a", ln(p_a), {"a": ln(p_a), "b": ln(1 - p_a)}),
        position(")", 0.0, {")": 0.0}),
    ]


# --------------------------------------------------------------------------- constrained answers


def test_structured_outputs_constrain_the_answer(servers: Servers, context: StudyContext) -> None:
    server, url = servers()
    batch = make_batch(context, seeds=(1,))
    backend = make_backend(context, [url], constrain="structured_outputs")
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()
    assert answers.response_text == [f"({letter_of(t)})" for t in expected_tags(context, batch)]
    assert all(b["structured_outputs"] == {"choice": ["(a)", "(b)"]} for b in server.bodies)
    assert "guided_choice" not in server.bodies[0] and not server.ignored


def test_a_constraint_the_server_ignores_stops_the_run(servers: Servers, context: StudyContext) -> None:
    server, url = servers()  # vLLM >= 0.12: guided_choice is ignored with HTTP 200
    backend = make_backend(context, [url], constrain="guided_choice", constraint_check=4)
    try:
        with pytest.raises(CueshiftError) as info:
            backend.judge(make_batch(context, seeds=(1,)))
    finally:
        backend.close()
    message = str(info.value)
    assert "constraint (guided_choice) did not take effect" in message and "structured_outputs" in message
    assert "\n" not in message
    assert server.ignored["guided_choice"] == server.n_requests  # silently ignored, as vLLM does

    server.honours = {"guided_choice"}  # an older vLLM applies it
    backend = make_backend(context, [url], constrain="guided_choice", choices=["(a)", "(b)"])
    try:
        answers = backend.judge(make_batch(context, seeds=(1,)))
    finally:
        backend.close()
    assert set(answers.response_text) <= {"(a)", "(b)"} and not answers.failures


def test_only_the_first_answers_are_checked(servers: Servers, context: StudyContext) -> None:
    server, url = servers()
    server.honours = set()  # ignores the constraint, but the model happens to answer "(a) <tag>"
    batch = make_batch(context, seeds=(1,))
    backend = make_backend(context, [url], constrain="structured_outputs")
    try:
        with pytest.raises(CueshiftError, match="did not take effect"):
            backend.judge(batch)
    finally:
        backend.close()
    assert server.ignored["structured_outputs"] > 0


def test_unknown_extra_body_fields_are_ignored_silently_and_reserved_ones_refused(
    servers: Servers, context: StudyContext
) -> None:
    server, url = servers()
    backend = make_backend(context, [url], extra_body={"top_k": 1, "repetition_penalty": 1.0})
    try:
        answers = backend.judge(make_batch(context, seeds=(1,), orderings=(1,)))
    finally:
        backend.close()
    assert not answers.failures and server.ignored["top_k"] == server.n_requests
    for field in ("structured_outputs", "guided_choice"):
        with pytest.raises(ConfigError, match=f"extra_body may not set {field}"):
            make_backend(context, [url], extra_body={field: {"choice": ["x", "y"]}})


# --------------------------------------------------------------------------- caching-friendly requests


def test_image_first_stable_uuid_and_requests_grouped_by_image(
    servers: Servers, context: StudyContext
) -> None:
    server, url = servers()
    batch = make_batch(context)  # shuffled rows
    backend = make_backend(context, [url], image_uuid=True, concurrency=1)
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()
    assert answers.response_text == [f"({letter_of(t)}) {t}" for t in expected_tags(context, batch)]
    uuids = []
    for body in server.bodies:
        image, text = body["messages"][-1]["content"]
        assert image["type"] == "image_url" and text["type"] == "text"  # image first
        assert text["text"].startswith("Based only on visible appearance.")  # then the instruction...
        uuids.append(image["uuid"])
    # ...then the scenario; a uuid per image (its SHA-256), the same on every request of the image
    by_image = {img: info.path.read_bytes() for img, info in context.images.items()}
    assert set(uuids) == {hashlib.sha256(b).hexdigest() for b in by_image.values()}
    runs = [u for i, u in enumerate(uuids) if i == 0 or uuids[i - 1] != u]
    assert len(runs) == len(context.images)  # one run per image: grouped

    server.bodies.clear()
    backend = make_backend(context, [url])  # the default sends no uuid (hosted APIs may refuse it)
    try:
        backend.judge(batch[:2])
    finally:
        backend.close()
    assert all("uuid" not in body["messages"][-1]["content"][0] for body in server.bodies)


# --------------------------------------------------------------------------- logprobs


def test_top_logprobs_are_lowered_to_the_server_limit(servers: Servers, context: StudyContext) -> None:
    server, url = servers()
    server.max_logprobs = 5
    server.logprobs = split_letters
    batch = make_batch(context, seeds=(1,))
    backend = make_backend(context, [url], top_logprobs=20, mode="score")
    try:
        answers = backend.judge(batch)
        report = backend.run_report()
    finally:
        backend.close()
    assert not answers.failures and answers.p_favorable is not None
    assert None not in answers.p_favorable
    asked = [b["top_logprobs"] for b in server.bodies]
    # refused while the limit was unknown (the requests already in flight at most), then within it
    assert set(asked) == {20, 5} and asked.count(20) <= 8  # concurrency = 8
    assert report["server"]["top_logprobs_used"] == 5


def test_a_server_without_logprobs(servers: Servers, context: StudyContext) -> None:
    server, url = servers()
    server.fault = lambda tag, attempt: "nologprobs"
    server.logprobs = split_letters
    batch = make_batch(context, seeds=(1,))
    backend = make_backend(context, [url], consistency_probe=0)
    try:
        answers = backend.judge(batch)  # generate mode: the answers, without probabilities
        report = backend.run_report()
    finally:
        backend.close()
    assert not answers.failures and answers.p_favorable == [None] * batch.height
    assert report["server"]["logprobs_missing"] == batch.height and report["server"]["logprobs_served"] == 0
    assert any("without logprobs" in line for line in report["lines"])
    assert "consistency" not in report


# --------------------------------------------------------------------------- the run record


def test_server_identity_is_recorded(servers: Servers, context: StudyContext) -> None:
    server, url = servers()
    server.logprobs = split_letters
    backend = make_backend(context, [url], consistency_probe=0)
    try:
        backend.judge(make_batch(context, seeds=(1,)))
        report = backend.run_report()
    finally:
        backend.close()
    info = report["server"]
    assert info["served_models"] == {"tiny-vlm": 24} and info["system_fingerprints"] == {"fp-test-1": 24}
    assert info["endpoints"] == {url: {"version": "0.12.0", "models": ["tiny-vlm"]}}
    assert info["logprobs_served"] == 24 and info["logprobs_missing"] == 0
    assert sorted(server.gets) == ["/v1/models", "/version"]
    assert "fp-test-1" in report["lines"][0] and "0.12.0" in report["lines"][0]

    server.version, server.fingerprint = None, None  # not vLLM: no /version, no fingerprint
    backend = make_backend(context, [url], consistency_probe=0)
    try:
        backend.judge(make_batch(context, seeds=(1,), orderings=(1,)))
        info = backend.run_report()["server"]
    finally:
        backend.close()
    assert info["system_fingerprints"] == {} and info["endpoints"] == {url: {"models": ["tiny-vlm"]}}


def test_consistency_probe_finds_drift(servers: Servers, context: StudyContext) -> None:
    server, url = servers()
    server.logprobs = split_letters
    batch = make_batch(context, seeds=(0,))
    backend = make_backend(context, [url], mode="score", consistency_probe=5)
    try:
        backend.judge(batch)
        n = server.n_requests
        steady = backend.run_report()["consistency"]
    finally:
        backend.close()
    assert server.n_requests == n + 5  # five answered requests, sent again
    repeated = server.bodies[n:]
    assert all(b in server.bodies[:n] for b in repeated)  # byte for byte the same requests
    assert steady == {
        "probed": 5,
        "unanswered": 0,
        "answers_changed": 0,
        "max_abs_dlogprob": 0.0,
        "max_abs_dp": 0.0,
        "temperature": 0.0,
        "consistent": True,
    }

    server.jitter = 0.01  # batching nondeterminism: logprobs move between repeats
    backend = make_backend(context, [url], mode="score", consistency_probe=5)
    try:
        backend.judge(batch)
        report = backend.run_report()
    finally:
        backend.close()
    drift = report["consistency"]
    assert drift["probed"] == 5 and not drift["consistent"]
    assert drift["max_abs_dlogprob"] == pytest.approx(0.01 * 2, abs=1e-9)  # 2nd alternative moved 2x
    assert drift["max_abs_dp"] > 0
    assert any(line.startswith("model 'srv': consistency probe: 0 of 5") for line in report["lines"])


def test_probe_sees_changed_answers(servers: Servers, context: StudyContext) -> None:
    server, url = servers()
    # a prefix-cache bug: a repeat gets another request's answer
    server.fault = lambda tag, attempt: "echo" if attempt > 0 else None
    backend = make_backend(context, [url], consistency_probe=3)
    try:
        backend.judge(make_batch(context, seeds=(1,)))
        drift = backend.run_report()["consistency"]
    finally:
        backend.close()
    assert drift["answers_changed"] == 3 and drift["temperature"] == 0.2 and not drift["consistent"]


def test_a_probe_the_server_refuses_is_reported_not_raised(servers: Servers, context: StudyContext) -> None:
    server, url = servers()
    server.fault = lambda tag, attempt: "401" if attempt > 0 else None  # the key expired at the end
    backend = make_backend(context, [url], consistency_probe=2)
    try:
        backend.judge(make_batch(context, seeds=(1,)))
        report = backend.run_report()
    finally:
        backend.close()
    assert "HTTP 401" in report["consistency_error"] and "consistency" not in report
    assert any("consistency probe failed" in line for line in report["lines"])


def test_run_report_is_empty_without_requests(context: StudyContext) -> None:
    backend = make_backend(context, ["http://127.0.0.1:9/v1"])
    assert backend.run_report() == {}
    backend.close()


@pytest.mark.parametrize("ordering", [1, 3])
def test_letter_share_follows_the_ordering(servers: Servers, context: StudyContext, ordering: int) -> None:
    server, url = servers()
    server.logprobs = split_letters
    batch = make_batch(context, seeds=(0,), orderings=(ordering,))
    backend = make_backend(context, [url], mode="score", consistency_probe=0)
    try:
        answers = backend.judge(batch)
    finally:
        backend.close()
    assert answers.p_favorable is not None
    for tag, p_fav in zip(expected_tags(context, batch), answers.p_favorable, strict=True):
        p_a = 0.2 + 0.6 * (int(tag, 16) % 100) / 100
        want = p_a if ORDERING_BY_ID[ordering].favorable_letter == "a" else 1 - p_a
        assert p_fav == pytest.approx(want)

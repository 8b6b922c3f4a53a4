"""The openai backend's preflight: the key is set and a base URL answers, before anything is written.

Before (no ``load_check`` for the openai backend) a dead server, a wrong key or an unset key
variable passed the preflight: the design wrote its placebos and demo faces, and the run met
the problem at its first request. Every server here is local (:mod:`tests.inference.chat_server`),
or a port that refuses, or one that accepts and never answers.
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from cueshift.errors import ConfigError, CueshiftError
from cueshift.inference.backends import backend_spec, openai_reachable
from cueshift.inference.backends.openai_reachable import PREFLIGHT_TIMEOUT_S
from tests.inference.chat_server import ChatServer, serve
from tests.inference.openai_helpers import make_model
from tests.local_http import LocalServer

pytestmark = pytest.mark.timeout(60)

KEY = "sk-preflight-7a6b5c4d3e2f1a0b"
Servers = Callable[..., tuple[ChatServer, str]]


@pytest.fixture
def servers() -> Iterator[Servers]:
    yield from serve()


@pytest.fixture
def refusing_url() -> str:
    """A port nobody listens on: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def check(urls: list[str], **settings: Any) -> None:
    """The registry's preflight of the openai model behind ``urls`` (what ``cs.infer`` runs)."""
    backend_spec("openai").check_loadable(make_model(urls, **settings))


def test_a_refused_connection_is_one_line_naming_the_url(refusing_url: str) -> None:
    with pytest.raises(CueshiftError) as raised:
        check([refusing_url])
    line = str(raised.value)
    assert line.startswith("model 'srv': cannot reach ") and "\n" not in line
    assert f"{refusing_url}: connection refused" in line


def test_a_server_that_never_answers_times_out_quickly(silent_url: str) -> None:
    started = time.monotonic()
    with pytest.raises(CueshiftError, match=r"^model 'srv': cannot reach .*\(timeout\)") as raised:
        check([silent_url], timeout_s=0.3)
    assert silent_url in str(raised.value)
    assert time.monotonic() - started < 3.0  # the model's shorter timeout_s, not the 5 s default


def test_the_preflight_waits_at_most_its_own_timeout(
    silent_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long ``timeout_s`` (minutes for a slow model) does not make the preflight wait minutes."""
    assert PREFLIGHT_TIMEOUT_S <= 5.0
    monkeypatch.setattr(openai_reachable, "PREFLIGHT_TIMEOUT_S", 0.25)
    started = time.monotonic()
    with pytest.raises(CueshiftError, match=r"no answer within 0\.25 s"):
        check([silent_url], timeout_s=600.0)
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize(("status", "said"), [(401, "401 unauthorized"), (403, "403 forbidden")])
def test_a_refused_key_names_the_variable_and_never_the_key(
    servers: Servers, monkeypatch: pytest.MonkeyPatch, status: int, said: str
) -> None:
    monkeypatch.setenv("CUESHIFT_PREFLIGHT_KEY", KEY)
    server, url = servers()
    server.models_status = status  # the body echoes the Authorization header
    with pytest.raises(CueshiftError) as raised:
        check([url], api_key_env="CUESHIFT_PREFLIGHT_KEY")
    line = str(raised.value)
    assert line.startswith("model 'srv': the server refused the credentials: ")
    assert f"{url}: {said} with the key in CUESHIFT_PREFLIGHT_KEY" in line
    assert KEY[:8] not in line and KEY[-6:] not in line
    assert server.gets == ["/v1/models"] and server.n_requests == 0  # no judgment asked


def test_an_unset_key_variable_is_named_before_any_request(
    servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CUESHIFT_PREFLIGHT_ABSENT", raising=False)
    server, url = servers()
    with pytest.raises(ConfigError, match=r"^model 'srv': environment variable CUESHIFT_PREFLIGHT_ABSENT "):
        check([url], api_key_env="CUESHIFT_PREFLIGHT_ABSENT")
    assert server.gets == []


def test_the_key_is_sent_with_the_check(servers: Servers, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUESHIFT_PREFLIGHT_KEY", KEY)
    server, url = servers()
    check([url], api_key_env="CUESHIFT_PREFLIGHT_KEY")
    assert server.gets == ["/v1/models"]


class _ChatOnly(BaseHTTPRequestHandler):
    """No GET at all (http.server answers 501), as a bare chat endpoint."""

    def log_message(self, *args: Any) -> None:
        pass


class ChatOnlyServer(LocalServer):
    handler = _ChatOnly


def test_a_server_without_models_is_reachable(servers: Servers) -> None:
    """404 (no such route) and 501 (no GET) answer: the server is there; the run decides the rest."""
    server, url = servers()
    server.models_status = 404
    check([url])
    bare = ChatOnlyServer()
    try:
        check([bare.start()])
    finally:
        bare.stop()


def test_one_replica_down_is_a_warning(
    servers: Servers, refusing_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    _, url = servers()
    with caplog.at_level(logging.WARNING, logger="cueshift.inference.backends.openai_compat"):
        check([refusing_url, url])
    assert any(
        refusing_url in r.getMessage() and "connection refused" in r.getMessage() for r in caplog.records
    )


def test_every_replica_down_names_each(refusing_url: str, silent_url: str) -> None:
    with pytest.raises(CueshiftError) as raised:
        check([refusing_url, silent_url], timeout_s=0.3)
    assert f"{refusing_url}: connection refused; {silent_url}: no answer within 0.3 s" in str(raised.value)


def test_an_empty_checkpoint_is_refused_before_any_request(refusing_url: str) -> None:
    model = make_model([refusing_url]).model_copy(update={"checkpoint": ""})
    with pytest.raises(ConfigError, match="checkpoint must name the served model"):
        backend_spec("openai").check_loadable(model)

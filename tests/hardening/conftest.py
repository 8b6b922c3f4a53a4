"""Fixtures shared by the hardening tests that judge a study through the local chat server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.inference.chat_server import ChatServer, serve


@pytest.fixture
def server() -> Iterator[tuple[ChatServer, str]]:
    """A fresh local chat-completions server and its URL, stopped after the test."""
    gen = serve()
    make = next(gen)
    yield make()
    next(gen, None)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One demo-image cache folder per test module."""
    return tmp_path_factory.mktemp("demo-cache")

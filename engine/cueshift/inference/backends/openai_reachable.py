"""Whether an OpenAI-compatible server can be used at all, checked in seconds before anything is written.

The preflight (:func:`cueshift.inference.backends.loadable.check_openai_loadable`) runs
:func:`check_reachable` before the design writes its placebos, demo faces or database: the
variable named by ``api_key_env`` is set (:func:`read_api_key`, which the backend reads the key
with too), and each base URL answers one ``GET {base_url}/models`` within
:data:`PREFLIGHT_TIMEOUT_S` seconds (less where ``timeout_s`` is shorter), all URLs at once.

Any HTTP answer means reachable (a server without ``/models`` answers 404, 405 or 501 and may
still serve ``/chat/completions``), except 401, 403 and 407: those say the credentials are
wrong, and every request would be refused the same way. No URL answering at all (connection
refused, a host that does not resolve, a TLS failure, the timeout) stops the run with one line
naming each URL and its reason; some replicas down while one answers is a warning, since the
run's failover avoids them. The server's answer bodies are never shown (they may echo the key).
"""

from __future__ import annotations

import asyncio
import logging
import os

from cueshift.errors import ConfigError, CueshiftError
from cueshift.inference.backends.loop_thread import LoopThread
from cueshift.inference.backends.openai_http import ConnectionPool, Origin, TransportError
from cueshift.inference.backends.openai_settings import OpenAISettings
from cueshift.study.config import ModelConfig

log = logging.getLogger("cueshift.inference.backends.openai_compat")

#: The longest the preflight waits for one base URL (seconds).
PREFLIGHT_TIMEOUT_S = 5.0
#: Answers that say the credentials are wrong, with what to call them.
_REFUSED = {401: "401 unauthorized", 403: "403 forbidden", 407: "407 proxy authentication required"}
#: Transport failures by the name of the exception behind them.
_CONNECT = {
    "ConnectionRefusedError": "connection refused",
    "gaierror": "host name not resolved",
    "SSLCertVerificationError": "TLS certificate not verified (tls_verify = false skips the check)",
}


def read_api_key(model: ModelConfig, settings: OpenAISettings) -> str | None:
    """The key in the variable ``settings.api_key_env`` names; ``None`` when it names none.

    Raises
    ------
    ConfigError
        The variable is not set (or empty), or its value has whitespace or control characters.
    """
    name = settings.api_key_env
    if name is None:
        return None
    key = os.environ.get(name)
    if not key:
        raise ConfigError(f"model {model.model_id!r}: environment variable {name} (api_key_env) is not set")
    if any(c in key for c in "\r\n\0") or key != key.strip():
        raise ConfigError(
            f"model {model.model_id!r}: the value of {name} has whitespace or control characters"
        )
    return key


def auth_headers(settings: OpenAISettings, key: str | None) -> dict[str, str]:
    """The header that carries ``key`` (``Authorization: Bearer <key>``, or the bare key in any other
    ``api_key_header``); none without a key."""
    if key is None:
        return {}
    bearer = settings.api_key_header.lower() == "authorization"
    return {settings.api_key_header: f"Bearer {key}" if bearer else key}


async def _reason(url: str, settings: OpenAISettings, headers: dict[str, str], timeout: float) -> str | None:
    """Why ``url`` cannot be used (``None``: it answered); ``'refused: ...'`` for wrong credentials."""
    pool = ConnectionPool(Origin.parse(url), tls_verify=settings.tls_verify)
    try:
        response = await pool.get(pool.origin.target("/models"), headers, timeout)
    except TimeoutError:
        return f"no answer within {timeout:g} s (timeout)"
    except TransportError as exc:
        text = str(exc)
        return next((reason for name, reason in _CONNECT.items() if f"({name})" in text), text)
    finally:
        await pool.close()
    if response.status in _REFUSED:
        key = (
            f"the key in {settings.api_key_env}"
            if settings.api_key_env
            else "no key (api_key_env is not set)"
        )
        return f"refused: {_REFUSED[response.status]} with {key}"
    return None


async def _reasons(settings: OpenAISettings, headers: dict[str, str], timeout: float) -> list[str | None]:
    return list(await asyncio.gather(*(_reason(u, settings, headers, timeout) for u in settings.base_urls)))


def check_reachable(model: ModelConfig, settings: OpenAISettings) -> None:
    """The key is set and some base URL answers ``GET /models`` without refusing it (module notes).

    Raises
    ------
    ConfigError
        ``api_key_env`` names an unset variable.
    CueshiftError
        A URL refused the credentials, or none answered (one line: each URL and its reason).
    """
    headers = auth_headers(settings, read_api_key(model, settings))
    timeout = min(PREFLIGHT_TIMEOUT_S, settings.timeout_s)
    loop = LoopThread("cueshift-openai-preflight")  # also where the caller runs a loop (Jupyter)
    try:
        reasons = loop.run(_reasons(settings, headers, timeout))
    finally:
        loop.close()
    failed = {url: r for url, r in zip(settings.base_urls, reasons, strict=True) if r is not None}
    refused = {url: r.removeprefix("refused: ") for url, r in failed.items() if r.startswith("refused: ")}
    if refused or len(failed) == len(settings.base_urls):
        shown = refused or failed
        listed = "; ".join(f"{url}: {reason}" for url, reason in shown.items())
        what = "the server refused the credentials:" if refused else "cannot reach"
        raise CueshiftError(
            f"model {model.model_id!r}: {what} {listed} (GET <base URL>/models; nothing written)"
        )
    for url, reason in failed.items():
        log.warning("model %r: %s does not answer (%s); the other base URLs do", model.model_id, url, reason)


__all__ = ["PREFLIGHT_TIMEOUT_S", "auth_headers", "check_reachable", "read_api_key"]

"""What an OpenAI-compatible server says about itself during a run, for the ``run`` record.

Every answer names the served model (``model``) and, on some servers, a
``system_fingerprint`` (the backend configuration; OpenAI changes it with deployments). A run
records every distinct value it saw: two fingerprints in one run mean the server changed
under it. vLLM also answers ``GET /version``; ``GET {base_url}/models`` lists what is served.
Whether answers carried logprobs is counted too, so a server that silently returns none is
visible in the record.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from cueshift.inference.backends.openai_completion import Completion


@dataclass
class ServerInfo:
    """Accumulates what the answers of one run say about the server."""

    answers: int = 0
    served_models: Counter[str] = field(default_factory=Counter)
    fingerprints: Counter[str] = field(default_factory=Counter)
    logprobs_served: int = 0
    logprobs_missing: int = 0
    #: base URL -> what the server reported (``version``, ``models``)
    endpoints: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the ``top_logprobs`` actually asked for, when the server's limit lowered it
    top_logprobs_used: int | None = None

    def observe(self, completion: Completion, *, wants_logprobs: bool) -> None:
        """Count one answer; ``wants_logprobs``: the request asked for logprobs."""
        self.answers += 1
        if completion.served_model is not None:
            self.served_models[completion.served_model] += 1
        if completion.fingerprint is not None:
            self.fingerprints[completion.fingerprint] += 1
        if wants_logprobs:
            if completion.logprobs_served:
                self.logprobs_served += 1
            else:
                self.logprobs_missing += 1

    @property
    def answered(self) -> bool:
        """Whether any answer was observed."""
        return self.answers > 0

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready record."""
        return {
            "answers": self.answers,
            "served_models": dict(self.served_models),
            "system_fingerprints": dict(self.fingerprints),
            "logprobs_served": self.logprobs_served,
            "logprobs_missing": self.logprobs_missing,
            "top_logprobs_used": self.top_logprobs_used,
            "endpoints": self.endpoints,
        }

    def line(self) -> str:
        """One line for the console."""
        models = ", ".join(sorted(self.served_models)) or "?"
        prints = ", ".join(sorted(self.fingerprints)) or "none"
        versions = sorted({str(e.get("version")) for e in self.endpoints.values() if e.get("version")})
        text = f"server: model {models}; system_fingerprint {prints}; version {', '.join(versions) or '?'}"
        if self.logprobs_missing:
            text += f"; {self.logprobs_missing} answers without logprobs"
        return text


def version_of(body: bytes) -> str | None:
    """The ``version`` of a ``GET /version`` answer (vLLM: ``{"version": "0.12.0"}``)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    value = data.get("version") if isinstance(data, dict) else None
    return str(value)[:64] if isinstance(value, str | int | float) else None


def models_of(body: bytes) -> list[str] | None:
    """The model ids of a ``GET /models`` answer (at most 20)."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    rows = data.get("data") if isinstance(data, dict) else None
    if not isinstance(rows, list):
        return None
    return [str(r["id"])[:200] for r in rows if isinstance(r, dict) and "id" in r][:20]


__all__ = ["ServerInfo", "models_of", "version_of"]

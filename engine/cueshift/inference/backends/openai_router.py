"""Load spreading and failover over the replicas (``base_urls``) of an OpenAI-compatible server.

Each attempt goes to the endpoint with the fewest requests in flight, ties in turn; an
endpoint that failed at the transport level or answered 5xx is avoided for
``down_cooldown_s``, and a retry prefers an endpoint other than the one that just failed.
"""

from __future__ import annotations

import time

from cueshift.inference.backends.openai_http import ConnectionPool, Origin


class Endpoint:
    """One base URL: its connection pool and the state used for spreading and failover."""

    def __init__(self, url: str, *, tls_verify: bool = True) -> None:
        self.url = url
        self.pool = ConnectionPool(Origin.parse(url), tls_verify=tls_verify)
        self.in_flight = 0
        self.picks = 0
        self.down_until = 0.0


class Router:
    """Least-in-flight choice among endpoints that are not cooling down; ties in turn."""

    def __init__(self, endpoints: list[Endpoint], cooldown_s: float) -> None:
        self.endpoints = endpoints
        self.cooldown_s = cooldown_s

    def choose(self, avoid: Endpoint | None) -> Endpoint:
        """The endpoint of the next attempt; ``avoid`` (the one that just failed) if no other is up."""
        now = time.monotonic()
        up = [e for e in self.endpoints if e.down_until <= now]
        if not up:  # all cooling down: try the one that comes back first rather than stall
            up = [min(self.endpoints, key=lambda e: e.down_until)]
        if avoid is not None and len(up) > 1 and avoid in up:
            up.remove(avoid)
        chosen = min(up, key=lambda e: (e.in_flight, e.picks))
        chosen.picks += 1
        return chosen

    def failed(self, endpoint: Endpoint) -> None:
        """Avoid ``endpoint`` for the cooldown."""
        endpoint.down_until = time.monotonic() + self.cooldown_s

    def succeeded(self, endpoint: Endpoint) -> None:
        """``endpoint`` answered: it is up again."""
        endpoint.down_until = 0.0

    async def close(self) -> None:
        """Close every endpoint's connections (on the loop that opened them)."""
        for endpoint in self.endpoints:
            await endpoint.pool.close()


__all__ = ["Endpoint", "Router"]

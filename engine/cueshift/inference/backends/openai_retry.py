r"""When and how long to wait before another attempt at an OpenAI-compatible request.

429, 408, 409, 425 and 5xx answers, timeouts, transport failures and malformed bodies are
worth another attempt (:class:`RetryableFailure`); other 4xx answers are not. The wait
before attempt :math:`k + 1` is exponential backoff with "equal jitter",

.. math::

    c_k = \min(b_\text{max},\, b_0 2^k), \qquad d_k = c_k / 2 + U(0, c_k / 2),

raised to an honoured ``Retry-After`` (capped at ``retry_after_max_s``); see M. Brooker,
"Exponential Backoff And Jitter", AWS Architecture Blog (2015).
"""

from __future__ import annotations

import random
import time
from email.utils import parsedate_to_datetime

from cueshift.inference.backends.openai_http import HttpResponse
from cueshift.inference.backends.openai_settings import OpenAISettings

#: Statuses worth another attempt (besides every 5xx).
RETRY_STATUSES = frozenset({408, 409, 425, 429})


class RetryableFailure(Exception):
    """An attempt failed in a way worth retrying; ``what`` describes it (already scrubbed of secrets)."""

    def __init__(self, what: str, retry_after: float | None = None) -> None:
        super().__init__(what)
        self.what = what
        self.retry_after = retry_after


def retryable(status: int) -> bool:
    """Whether an HTTP ``status`` is worth another attempt."""
    return status >= 500 or status in RETRY_STATUSES


def retry_after(response: HttpResponse) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date); ``None`` if absent."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_delay(
    settings: OpenAISettings, attempt: int, retry_after_s: float | None, rng: random.Random
) -> float:
    """Seconds to wait after failed attempt ``attempt`` (0-based): the module's :math:`d_k`,
    at least an honoured ``Retry-After``."""
    cap: float = min(settings.backoff_max_s, settings.backoff_initial_s * (2**attempt))
    delay = cap / 2 + rng.uniform(0, cap / 2)
    if retry_after_s is not None:
        delay = max(delay, min(retry_after_s, settings.retry_after_max_s))
    return delay


__all__ = ["RETRY_STATUSES", "RetryableFailure", "backoff_delay", "retry_after", "retryable"]

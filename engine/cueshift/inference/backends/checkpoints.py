"""Where a backend's checkpoint comes from, decided in seconds before ``from_pretrained`` runs.

``from_pretrained`` of a hub id that is neither a local folder nor cached retries the hub for
minutes when no hub can be reached, printing a warning per try. :func:`checkpoint_source` decides
first, in this order:

1. a local folder: loaded from there (``local_files_only``);
2. a hub id with its ``config.json`` in the Hugging Face cache: loaded from the cache
   (``local_files_only``), the hub never asked;
3. ``HF_HUB_OFFLINE`` set: one :class:`ConfigError` line at once;
4. otherwise the hub (``HF_ENDPOINT``) is asked once, with a short timeout: unreachable, one
   :class:`ConfigError` line naming the checkpoint and what to do; reachable, ``from_pretrained``
   downloads as usual.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from cueshift.errors import ConfigError

#: Seconds the one probe of the hub waits for an answer.
PROBE_TIMEOUT_S = 5.0


def _what_to_do(checkpoint: str) -> str:
    return (
        f"set checkpoint to a local folder, or download it into the Hugging Face cache where the "
        f"hub is reachable (hf download {checkpoint})"
    )


def _hub_unreachable(endpoint: str, timeout: float) -> str | None:
    """Why ``endpoint`` cannot be reached (one try, no retries); ``None`` when it answers at all."""
    try:
        with urllib.request.urlopen(f"{endpoint.rstrip('/')}/api/models", timeout=timeout):  # noqa: S310
            return None
    except urllib.error.HTTPError:
        return None  # an answer, even an error status: the hub is there
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc
        return str(reason).strip() or type(exc).__name__


def checkpoint_source(
    model_id: str,
    checkpoint: str,
    revision: str | None,
    *,
    what: str = "checkpoint",
    timeout: float = PROBE_TIMEOUT_S,
) -> tuple[str, dict[str, Any]]:
    """The ``from_pretrained`` argument for ``checkpoint`` and the keywords to pass with it.

    Parameters
    ----------
    model_id
        The study's name for the model, which the error line names.
    checkpoint
        A local folder or a hub id (``org/name``).
    revision
        The hub revision (``None``: ``main``).
    what
        What the error line calls it (``"CLIP checkpoint"``).
    timeout
        Seconds the one probe of the hub waits.

    Raises
    ------
    ConfigError
        The checkpoint is not local, not cached, and no hub can be reached (or ``HF_HUB_OFFLINE``
        is set), or it is neither a folder nor a valid hub id: one line, in seconds.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> checkpoint_source("m", folder, None) == (folder, {"local_files_only": True})
    True
    """
    local = Path(checkpoint).expanduser()
    if local.is_dir():
        return str(local), {"local_files_only": True}
    from huggingface_hub import constants, try_to_load_from_cache

    cannot = f"model {model_id!r}: cannot load {what} {checkpoint!r}: not a local folder"
    try:
        cached = try_to_load_from_cache(checkpoint, "config.json", revision=revision)
    except ValueError:  # HFValidationError: not a hub id
        raise ConfigError(f"{cannot} and not a hub id (org/name)") from None
    if isinstance(cached, str):
        return checkpoint, {"local_files_only": True}
    cannot += ", not in the Hugging Face cache"
    if constants.HF_HUB_OFFLINE:
        raise ConfigError(f"{cannot}, and HF_HUB_OFFLINE is set: {_what_to_do(checkpoint)}")
    reason = _hub_unreachable(constants.ENDPOINT, timeout)
    if reason is not None:
        unreachable = f"the hub {constants.ENDPOINT} cannot be reached ({reason})"
        raise ConfigError(f"{cannot}, and {unreachable}: {_what_to_do(checkpoint)}")
    return checkpoint, {}


__all__ = ["PROBE_TIMEOUT_S", "checkpoint_source"]

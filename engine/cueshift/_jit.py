"""Where numba caches the package's ``@njit(cache=True)`` kernels when it has nowhere to write.

numba picks a cache folder when a kernel is decorated: ``NUMBA_CACHE_DIR``, else the module's
``__pycache__``, else the user's cache folder (``~/.cache/numba``); with none writable the
decoration raises ``RuntimeError: cannot cache function … no locator available`` and the module
cannot be imported. Importing this module (the first import of the packages that define kernels,
:mod:`cueshift.stats` and :mod:`cueshift.power`) runs :func:`ensure_numba_cache` on the package's
own folder (an install is writable throughout or not at all), which then points numba at a
per-user folder under the system's temporary folder. numba reads its ``CACHE_DIR`` at decoration
time, so this takes effect for every kernel decorated after it.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

_LOG = logging.getLogger(__name__)


def writable(folder: Path) -> bool:
    """Whether ``folder`` can be made and written in (numba's own test: a temporary file there).

    Examples
    --------
    >>> import tempfile
    >>> writable(Path(tempfile.mkdtemp()) / "sub")
    True
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _user_cache_folder() -> Path:
    """numba's user-wide cache folder (its ``UserWideCacheLocator`` root)."""
    appdirs: Any = importlib.import_module("numba.misc.appdirs")
    return Path(appdirs.AppDirs(appname="numba", appauthor=False).user_cache_dir)


def fallback_folder() -> Path:
    """The per-user folder under the temporary folder that numba caches in when nothing else is
    writable (kept across processes, so a later import loads the kernels instead of compiling)."""
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"cueshift-numba-{user}"


def ensure_numba_cache(module_file: str) -> Path | None:
    """Point numba's cache at :func:`fallback_folder` when ``NUMBA_CACHE_DIR`` is unset and neither
    ``module_file``'s ``__pycache__`` nor the user cache folder is writable; the folder set, if any.

    Cheap in the usual case: the ``__pycache__`` probe needs no numba import.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    config: Any = sys.modules.get("numba.core.config")
    if config is not None and config.CACHE_DIR:
        return None
    if writable(Path(module_file).resolve().parent / "__pycache__") or writable(_user_cache_folder()):
        return None
    folder = fallback_folder()
    if not writable(folder):
        folder = Path(tempfile.mkdtemp(prefix="cueshift-numba-"))
    os.environ["NUMBA_CACHE_DIR"] = str(folder)  # read when numba is imported (and on its reloads)
    numba_config: Any = importlib.import_module("numba.core.config")
    numba_config.CACHE_DIR = str(folder)  # read when each kernel is decorated
    _LOG.info("numba: no writable cache folder for %s: caching in %s", module_file, folder)
    return folder


ensure_numba_cache(__file__)

__all__ = ["ensure_numba_cache", "fallback_folder", "writable"]

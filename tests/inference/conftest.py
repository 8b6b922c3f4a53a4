"""Fixtures of the inference tests (``tests/inference/`` mirrors ``cueshift.inference``).

Nothing here reaches a model hub: the hub is switched off for the whole session when this
folder is collected (before any test module imports transformers, which reads it at import),
and every model is built locally (tiny random models) or served by a local HTTP server.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


@pytest.fixture(scope="module")
def quiet_torch() -> Iterator[None]:
    """Torch on one thread (the machines are shared; tiny matmuls are slower with more threads)
    and transformers without progress bars or warnings, for one test module."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    transformers.utils.logging.disable_progress_bar()
    verbosity = transformers.utils.logging.get_verbosity()
    transformers.utils.logging.set_verbosity_error()
    yield
    torch.set_num_threads(threads)
    transformers.utils.logging.set_verbosity(verbosity)
    transformers.utils.logging.enable_progress_bar()

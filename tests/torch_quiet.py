"""A module fixture for tiny-model tests: torch on one thread, transformers quiet.

Import it into a test module (``from tests.torch_quiet import quiet_single_thread``) to use it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch
import transformers


@pytest.fixture(scope="module", autouse=True)
def quiet_single_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    transformers.utils.logging.disable_progress_bar()
    verbosity = transformers.utils.logging.get_verbosity()
    transformers.utils.logging.set_verbosity_error()
    yield
    torch.set_num_threads(threads)
    transformers.utils.logging.set_verbosity(verbosity)
    transformers.utils.logging.enable_progress_bar()

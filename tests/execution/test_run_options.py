"""A run's execution settings: built once from ``cueshift infer``'s options, checked when built."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cueshift.errors import ConfigError, CueshiftError
from cueshift.execution.executor import LocalExecutor
from cueshift.execution.run_options import SNAPSHOT_EVERY, RunOptions
from cueshift.execution.shard import UNSHARDED, Shard


def test_the_defaults_run_everything_here() -> None:
    options = RunOptions()
    assert options.database is None and options.shard == UNSHARDED and options.limit is None
    assert options.progress and options.snapshot_every == SNAPSHOT_EVERY == 30.0
    assert isinstance(options.build_executor(), LocalExecutor)


def test_options_are_checked_when_built() -> None:
    with pytest.raises(ConfigError, match="--executor 'dask': use 'local' or 'ray'"):
        RunOptions(executor="dask")
    with pytest.raises(ConfigError, match="--address and --workers go with --executor ray"):
        RunOptions(address="auto")
    with pytest.raises(ConfigError, match="--address and --workers go with --executor ray"):
        RunOptions(workers=2)
    with pytest.raises(CueshiftError, match="--snapshot-every -1.0: use 0"):
        RunOptions(snapshot_every=-1.0)


def test_options_are_frozen() -> None:
    options = RunOptions(shard=Shard(2, 4), database=Path("x.duckdb"))
    with pytest.raises(AttributeError):
        options.limit = 3  # type: ignore[misc]  # assigning a frozen field on purpose


def test_the_options_module_imports_no_frames() -> None:
    """The command line names its defaults at import: the module stays light."""
    code = "import sys, cueshift.execution.run_options; print('polars' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "False"

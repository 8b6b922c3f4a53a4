"""How one run executes: the options of ``cueshift infer`` and ``cs.infer``, built once and passed whole.

:class:`RunOptions` holds the database, the shard, the answer limit, the progress bars, the executor
(``--executor``, ``--address``, ``--workers``) and the snapshot interval; the command line and the
Python API build one from their options and :func:`cueshift.execution.runner.run_study` takes it
whole. Its defaults are written here only. Importing this module is light (no polars, no store),
so the command line can name its defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from cueshift.errors import ConfigError, CueshiftError
from cueshift.execution.shard import UNSHARDED, Shard

if TYPE_CHECKING:
    from cueshift.execution.executor import Executor

#: Seconds between two snapshots of a running ``infer`` (``--snapshot-every``; 0: none).
SNAPSHOT_EVERY: Final[float] = 30.0
#: Where the models run (``--executor``): this process, or a pool of Ray actors per model.
EXECUTORS: Final = ("local", "ray")


@dataclass(frozen=True)
class RunOptions:
    """The execution settings of one run (``cueshift infer``'s options).

    Parameters
    ----------
    database
        Study database (default: the study's; a shard writes beside it).
    shard
        The shard to run (default: everything).
    limit
        Stop after this many new answers (default: all).
    progress
        Show progress bars.
    executor, address, workers
        ``"local"`` (this process) or ``"ray"``, with Ray's cluster address and actors per model.
    snapshot_every
        Seconds between the snapshots readers open while the run holds the database (0: none).

    Raises
    ------
    CueshiftError
        A negative ``limit`` or ``snapshot_every``, ``workers`` below 1, an unknown executor, or
        Ray options with the local one.

    Examples
    --------
    >>> RunOptions(shard=Shard.parse("2/4"), limit=300).shard
    Shard(index=2, count=4)
    >>> RunOptions(executor="dask")
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: --executor 'dask': use 'local' or 'ray'
    """

    database: Path | None = None
    shard: Shard = UNSHARDED
    limit: int | None = None
    progress: bool = True
    executor: str = "local"
    address: str | None = None
    workers: int | None = None
    snapshot_every: float = SNAPSHOT_EVERY

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 0:
            raise ConfigError(f"--limit {self.limit}: use 0 or more new answers")
        if self.workers is not None and self.workers < 1:
            raise ConfigError(f"--workers {self.workers}: use at least 1")
        if self.snapshot_every < 0:
            raise CueshiftError(f"--snapshot-every {self.snapshot_every}: use 0 (none) or more seconds")
        if self.executor not in EXECUTORS:
            raise ConfigError(f"--executor {self.executor!r}: use 'local' or 'ray'")
        if self.executor == "local" and (self.address is not None or self.workers is not None):
            raise ConfigError("--address and --workers go with --executor ray")

    def build_executor(self) -> Executor:
        """The executor these options name, built with its options (Ray is imported only for ``ray``).

        Raises
        ------
        ConfigError
            ``workers`` below 1.
        """
        if self.executor == "ray":
            from cueshift.execution.ray_executor import RayExecutor

            return RayExecutor(self.address, workers=self.workers)
        from cueshift.execution.executor import LocalExecutor

        return LocalExecutor()


__all__ = ["EXECUTORS", "SNAPSHOT_EVERY", "RunOptions"]

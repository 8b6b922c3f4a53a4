"""The ``--executor`` option of ``cueshift infer``: the executor it names, built with its options."""

from __future__ import annotations

from cueshift.errors import ConfigError
from cueshift.execution.executor import Executor, LocalExecutor


def make_executor(name: str, *, address: str | None = None, workers: int | None = None) -> Executor:
    """The executor ``--executor name`` asks for (``local`` or ``ray``); Ray is imported only then.

    Raises
    ------
    ConfigError
        An unknown name, or Ray options with the local executor.
    """
    if name == "local":
        if address is not None or workers is not None:
            raise ConfigError("--address and --workers go with --executor ray")
        return LocalExecutor()
    if name == "ray":
        from cueshift.execution.ray_executor import RayExecutor

        return RayExecutor(address, workers=workers)
    raise ConfigError(f"--executor {name!r}: use 'local' or 'ray'")


__all__ = ["make_executor"]

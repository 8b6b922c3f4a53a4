"""Stand-in checkpoint ids resolved to checkpoint directories, written once per seed.

A study may name a stand-in instead of a real checkpoint (``cueshift:tiny-random-clip``).
:func:`resolve_checkpoint` turns such an id into a directory holding the saved model and
processor, so the backend loads it with the ordinary ``from_pretrained`` like any other
checkpoint; any other checkpoint comes back unchanged.

The directory is materialised on first use under the cache folder
(``.cueshift-cache/stand-ins/tiny-random-clip-seed<N>/`` by default): written into a
private temporary directory beside it, then renamed into place. The rename is atomic, so
processes (Ray workers, parallel tests) that materialise the same stand-in at once all
succeed and see one complete directory: the first rename wins and the others discard
their copy.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from cueshift.errors import CueshiftError
from cueshift.inference.stand_ins.tiny_clip import TINY_CLIP_CHECKPOINT, save_tiny_clip

#: Where stand-in checkpoints are written (relative to the working directory).
STAND_IN_CACHE = Path(".cueshift-cache") / "stand-ins"


def is_stand_in(checkpoint: str) -> bool:
    """Whether ``checkpoint`` names a stand-in that :func:`resolve_checkpoint` materialises."""
    return checkpoint == TINY_CLIP_CHECKPOINT


def stand_in_dir(checkpoint: str, cache_dir: str | Path, seed: int = 0) -> Path:
    """The directory of stand-in ``checkpoint`` with weights seed ``seed`` under ``cache_dir``."""
    name = checkpoint.removeprefix("cueshift:")
    return Path(cache_dir).expanduser() / f"{name}-seed{seed}"


def is_stand_in_dir(folder: str | Path) -> bool:
    """Whether ``folder`` is where :func:`stand_in_dir` puts a stand-in (any seed, any cache folder)."""
    prefix = TINY_CLIP_CHECKPOINT.removeprefix("cueshift:") + "-seed"
    name = Path(folder).name
    return name.startswith(prefix) and name.removeprefix(prefix).isdigit()


def resolve_checkpoint(checkpoint: str, cache_dir: str | Path | None = None, *, seed: int = 0) -> str:
    """The path ``from_pretrained`` loads for ``checkpoint``.

    Parameters
    ----------
    checkpoint
        A study's ``checkpoint``: a stand-in id (``cueshift:tiny-random-clip``), a local
        directory or a hub id.
    cache_dir
        Where stand-ins are materialised (default :data:`STAND_IN_CACHE`).
    seed
        Weights seed of the stand-in (``tiny_seed``); ignored for other checkpoints.

    Returns
    -------
    str
        The stand-in's directory, written on first use; any other checkpoint unchanged.

    Raises
    ------
    CueshiftError
        The cache folder cannot be written (one line).
    """
    if not is_stand_in(checkpoint):
        return checkpoint
    target = stand_in_dir(checkpoint, STAND_IN_CACHE if cache_dir is None else cache_dir, seed)
    if not target.is_dir():
        _materialise(target, seed)
    return str(target)


def _materialise(target: Path, seed: int) -> None:
    """Save the tiny CLIP into a temporary directory beside ``target``, then rename it into place."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        scratch.chmod(0o755)  # mkdtemp's 0o700 would stay on the renamed directory
    except OSError as exc:
        raise CueshiftError(f"stand-in cache {target.parent}: cannot write: {exc.strerror or exc}") from None
    try:
        save_tiny_clip(scratch, seed=seed)
        try:
            os.rename(scratch, target)  # atomic; fails when another process renamed first
        except OSError:
            if not target.is_dir():
                raise
    except OSError as exc:
        raise CueshiftError(f"stand-in {target}: cannot write: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # gone after a successful rename


__all__ = ["STAND_IN_CACHE", "is_stand_in", "is_stand_in_dir", "resolve_checkpoint", "stand_in_dir"]

"""Write a query result to the one file the user named: ``FILE.csv`` or ``FILE.parquet``.

The target is checked before any query runs (format from the suffix, an existing directory,
no existing file unless ``force``, never the study database itself), and the file appears
whole or not at all: the frame is written to a hidden temporary file beside the target and
renamed over it. CSV and Parquet hold the same values with no limit on a field's size
(nested values arrive as JSON text, see :mod:`cueshift.store.readonly`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import polars as pl

from cueshift.errors import CueshiftError

#: Output formats by file suffix (lower case).
FORMATS: Final[dict[str, Literal["csv", "parquet"]]] = {".csv": "csv", ".parquet": "parquet"}


@dataclass(frozen=True)
class ExportTarget:
    """A checked output file: where it goes and in which format."""

    path: Path
    format: Literal["csv", "parquet"]


def check_target(path: Path, *, force: bool, protected: Iterable[Path] = ()) -> ExportTarget:
    """Check that ``path`` may receive a query result, before anything runs.

    Parameters
    ----------
    path
        The file given with ``--out``.
    force
        Whether an existing file may be replaced.
    protected
        Files that must never be written (the study database).

    Returns
    -------
    ExportTarget
        The path and the format its suffix names.

    Raises
    ------
    CueshiftError
        Unknown suffix, a directory that does not exist or is not writable, an existing
        file without ``force``, an existing directory, or a protected file.
    """
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise CueshiftError(f"--out {path}: name a .csv or .parquet file")
    resolved = path.resolve()
    for guarded in protected:
        guarded = Path(guarded).resolve()
        if resolved in (guarded, guarded.with_name(guarded.name + ".wal")):
            raise CueshiftError(f"--out {path}: that is the study database; name another file")
    parent = resolved.parent
    if not parent.is_dir():
        raise CueshiftError(f"--out {path}: no such directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CueshiftError(f"--out {path}: the directory {parent} is not writable")
    if path.is_dir():
        raise CueshiftError(f"--out {path}: is a directory")
    if path.exists() and not force:
        raise CueshiftError(f"--out {path}: the file exists (add --force to replace it)")
    return ExportTarget(path, fmt)


def write_frame(frame: pl.DataFrame, target: ExportTarget) -> None:
    """Write ``frame`` to ``target`` whole, or leave nothing behind.

    Parameters
    ----------
    frame
        The query result (flat columns only, as :func:`cueshift.store.readonly.run_query` returns).
    target
        A target checked by :func:`check_target`.

    Raises
    ------
    CueshiftError
        The file cannot be written (full disk, permissions): no partial file remains.
    """
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.path.name}.", dir=target.path.resolve().parent)
    except OSError as exc:
        raise CueshiftError(f"--out {target.path}: cannot write: {exc.strerror or exc}") from None
    os.close(handle)
    try:
        if target.format == "csv":
            frame.write_csv(temporary)
        else:
            frame.write_parquet(temporary)
        os.replace(temporary, target.path)
    except (OSError, pl.exceptions.PolarsError) as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc).splitlines()[0]
        raise CueshiftError(f"--out {target.path}: cannot write: {reason}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise

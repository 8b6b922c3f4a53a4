"""File-level checks of the loaders: error locations, safe paths, image inspection, atomic writes."""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from PIL import Image
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from cueshift._console import console_for
from cueshift.errors import ImageSetError


@dataclass(frozen=True)
class Location:
    """Where a record came from: a file and, for tabular files, its 1-based data row."""

    file: Path
    row: int | None = None

    def __str__(self) -> str:
        return f"{self.file}: row {self.row}" if self.row is not None else str(self.file)

    @property
    def short(self) -> str:
        """Compact form for cross-references inside a message (``row 3`` or the file name)."""
        return f"row {self.row}" if self.row is not None else self.file.name


def input_error(where: Location, field: str | None, message: str) -> ImageSetError:
    """The loaders' one-line error: ``<file>: row <n>: field '<field>': <message>``.

    ``field`` is None for errors about a whole file or row (unparseable CSV, malformed JSON).
    """
    prefix = f"{where}: field '{field}'" if field else str(where)
    return ImageSetError(f"{prefix}: {message}")


@dataclass(frozen=True)
class FileFacts:
    """What the image table records about an image file."""

    sha256: str
    width: int
    height: int


def clean_relative_path(raw: str, where: Location, field: str) -> str:
    """Normalise a relative image path to POSIX form, refusing absolute paths and ``..``.

    Parameters
    ----------
    raw
        The path as written in the source (``/`` or ``\\`` separators).
    where, field
        Error location.

    Returns
    -------
    str
        The path with ``.`` segments removed and ``/`` separators.
    """
    text = raw.strip()
    if not text:
        raise input_error(where, field, "empty image path")
    if any(ord(ch) < 32 for ch in text):  # NUL and other control characters: no file has them
        raise input_error(where, field, f"image path {text!r} contains a control character")
    if PurePosixPath(text).is_absolute() or PureWindowsPath(text).anchor:
        raise input_error(
            where, field, f"image path {text!r} is absolute; paths must be relative to the image-set root"
        )
    parts = PureWindowsPath(text).parts  # accepts both separators
    if ".." in parts:
        raise input_error(where, field, f"image path {text!r} escapes the image-set root ('..')")
    return PurePosixPath(*parts).as_posix()


def resolve_inside(root: Path, relative: str, where: Location, field: str) -> Path:
    """The existing image file ``root/relative``, which must resolve (symlinks too) inside ``root``."""
    resolved_root = root.resolve()
    target = (root / relative).resolve()
    if not target.is_relative_to(resolved_root):
        raise input_error(
            where,
            field,
            f"image path {relative!r} resolves outside the image-set root {resolved_root} "
            f"(to {target}; a symlink?)",
        )
    if not target.is_file():
        raise input_error(where, field, f"image file {relative!r} does not exist under {resolved_root}")
    return target


def inspect_image(path: Path, relative: str, where: Location, field: str) -> FileFacts:
    """Hash an image file and read its size, refusing files PIL cannot decode.

    PNG files are checked by :meth:`PIL.Image.Image.verify` (every chunk's CRC, so a
    truncated or altered file fails without a full decode); other formats are decoded,
    JPEG at reduced scale (``draft``) to keep large releases fast.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise input_error(
            where, field, f"cannot read image file {relative!r}: {exc.strerror or exc}"
        ) from None
    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
            image_format = img.format
            img.verify()
        if image_format != "PNG":
            with Image.open(io.BytesIO(data)) as img:
                img.draft("RGB", (64, 64))
                img.load()
    except Exception as exc:  # PIL signals bad data with many exception types
        raise input_error(
            where, field, f"image file {relative!r} is not a decodable image ({type(exc).__name__}: {exc})"
        ) from None
    return FileFacts(sha256=hashlib.sha256(data).hexdigest(), width=width, height=height)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and :func:`os.replace` (never a partial file)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(data)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


@contextmanager
def progress_bar(enabled: bool, *extra_fields: str) -> Iterator[Progress | None]:
    """A rich progress bar on stderr (spinner, bar, count, percent, elapsed, ETA), or ``None``.

    ``extra_fields`` are rich format strings shown before the times, e.g.
    ``"{task.fields[written]} drawn"``.
    """
    if not enabled:
        yield None
        return
    columns = (
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        *(TextColumn(text) for text in extra_fields),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console_for(stderr=True), transient=False) as bar:  # 120 wide piped
        yield bar

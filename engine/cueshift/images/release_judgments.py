"""Judgments made with the StylisticBias release code, read fast and checked strictly.

Layout (one JSON file per judgment)::

    output/judgements/<model>/<face>/<img>/<img>_scenario<i>_order<o>_seed<s>.json

with the fields ``face_image_name`` (the judged image's file name; its stem is ``<img>``),
``characteristics``, ``order`` (= ``<o>``), ``seed`` (= ``<s>``), ``prompt``, ``timestamp``,
``options`` (``{"a": descriptor, "b": descriptor}``), ``chosen_option`` (the release's own
reading of the answer) and ``raw_output`` (the model's answer). ``raw_output = null`` (a call
that returned nothing) is read as an empty answer. Of the prompt only the order of its two
options is kept (:func:`first_letter`), which with ``options`` fixes the prompt ordering, and
where the model's own answer lies in ``raw_output`` when that echoes the prompt
(``answer_start``, ``answer_end``; :mod:`cueshift.images.release_echo`).
Hidden files are skipped; any other file or folder outside the layout is an error.

The tree is read in parallel, one task per face folder (:func:`read_judgment_tree`): each task
lists its folder and parses its files into columns, so a tree of millions of files is read
at the speed of the disk and the JSON decoder, with nothing per file but the read and the checks.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path, PurePath
from typing import Any

import polars as pl

from cueshift.errors import ImageSetError
from cueshift.images.release_echo import answer_span
from cueshift.study.release_tree import face_folders, judgements_folder, subfolders

FILE_NAME = re.compile(r"^(?P<img>.+)_scenario(?P<scenario>\d+)_order(?P<order>\d+)_seed(?P<seed>\d+)\.json$")
#: Columns of :func:`read_judgment_tree`'s frame (``file`` relative to the judgements folder).
SCHEMA: dict[str, type[pl.DataType]] = {
    "file": pl.String,
    "model": pl.String,
    "face": pl.String,
    "img": pl.String,
    "scenario_index": pl.Int64,
    "order": pl.Int64,
    "seed": pl.Int64,
    "option_a": pl.String,
    "option_b": pl.String,
    "first_letter": pl.String,
    "chosen_option": pl.String,
    "raw_output": pl.String,
    "timestamp": pl.String,
    "answer_start": pl.Int64,
    "answer_end": pl.Int64,
}


def _error(path: str, field: str | None, message: str) -> ImageSetError:
    return ImageSetError(f"{path}: field '{field}': {message}" if field else f"{path}: {message}")


def _integer(data: dict[str, Any], field: str, expected: int, path: str) -> int:
    value = data.get(field)
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip().isdigit():
        raise _error(path, field, f"missing, or not a non-negative integer (got {value!r})")
    if int(value) != expected:
        raise _error(path, field, f"{value!r} differs from the file name's {expected}")
    return expected


def first_letter(prompt: str, option_a: str, option_b: str) -> str | None:
    """The letter whose option the prompt lists first: by the ``(a)`` / ``(b)`` markers, else by
    where the two descriptors first appear; ``None`` when the prompt names neither."""
    text = prompt.casefold()
    markers = [text.find(f"({letter})") for letter in ("a", "b")]
    if min(markers) < 0:
        markers = [text.find(option.casefold().strip()) for option in (option_a, option_b)]
    if min(markers) < 0 or markers[0] == markers[1]:
        return None
    return "a" if markers[0] < markers[1] else "b"


def parse_judgment(text: bytes, path: str, model: str, face: str, img: str) -> tuple[Any, ...]:
    """One judgment file as a row of :data:`SCHEMA` (``path`` relative, for messages and ``file``).

    Raises
    ------
    ImageSetError
        A name outside the layout, malformed JSON, a missing or mistyped field, or ``order`` /
        ``seed`` / ``face_image_name`` disagreeing with the file's place in the tree.
    """
    name = PurePath(path).name
    match = FILE_NAME.match(name)
    if match is None or match["img"] != img:
        raise _error(path, "file name", f"expected {img}_scenario<i>_order<o>_seed<s>.json in folder {img}/")
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _error(path, None, f"malformed judgment JSON: {exc}") from None
    if not isinstance(data, dict):
        raise _error(path, None, "a judgment file must hold a JSON object")
    order = _integer(data, "order", int(match["order"]), path)
    seed = _integer(data, "seed", int(match["seed"]), path)
    image_name = data.get("face_image_name")
    if not isinstance(image_name, str) or PurePath(image_name.strip()).stem != img:
        raise _error(path, "face_image_name", f"{image_name!r} does not name the image {img} of its folder")
    options = data.get("options")
    if not isinstance(options, dict):
        raise _error(path, "options", "missing, or not an object {a: descriptor, b: descriptor}")
    for letter in ("a", "b"):
        if not isinstance(options.get(letter), str) or not options[letter].strip():
            raise _error(path, f"options.{letter}", "missing, or not a non-empty string")
    if not isinstance(data.get("characteristics"), dict):
        raise _error(path, "characteristics", "missing, or not a JSON object")
    prompt = data.get("prompt")
    if not isinstance(prompt, str):
        raise _error(path, "prompt", "missing, or not a string")
    raw = data.get("raw_output")
    if raw is not None and not isinstance(raw, str):
        raise _error(path, "raw_output", f"must be a string or null (got {type(raw).__name__})")
    chosen = data.get("chosen_option")
    if chosen is not None and not isinstance(chosen, str):
        raise _error(path, "chosen_option", f"must be a string or null (got {type(chosen).__name__})")
    stamp = data.get("timestamp")
    start, end = answer_span(raw or "", prompt)
    return (
        path, model, face, img, int(match["scenario"]), order, seed, options["a"], options["b"],
        first_letter(prompt, options["a"], options["b"]), chosen, raw or "",
        None if stamp is None else str(stamp), start, end,
    )  # fmt: skip


def read_face_folder(root: str, model: str, face: str) -> dict[str, list[Any]]:
    """Every judgment file under ``root/model/face`` as columns of :data:`SCHEMA` (one parallel task)."""
    columns: list[list[Any]] = [[] for _ in SCHEMA]
    base = Path(root)
    for image in subfolders(base / model / face, "image (<img>)"):
        with os.scandir(image.path) as entries:
            names = sorted(e.name for e in entries if not e.name.startswith("."))
        for name in names:
            relative = f"{model}/{face}/{image.name}/{name}"
            try:
                with open(os.path.join(image.path, name), "rb") as handle:
                    text = handle.read()
            except IsADirectoryError:
                raise ImageSetError(f"{relative}: expected judgment files here, found a folder") from None
            except OSError as exc:
                raise ImageSetError(f"{relative}: cannot read: {exc.strerror or exc}") from None
            for column, value in zip(
                columns, parse_judgment(text, relative, model, face, image.name), strict=True
            ):
                column.append(value)
    return dict(zip(SCHEMA, columns, strict=True))


def _context() -> multiprocessing.context.BaseContext:
    """``fork`` on Linux, else ``spawn``.

    A forked worker starts at once with this module loaded, while ``spawn`` / ``forkserver``
    workers re-import the caller's ``__main__`` (the command line, with every layer above) and
    cost seconds each. The workers run only :func:`read_face_folder` (``os``, ``open``, ``json``),
    which takes no lock another thread of the parent could hold at the fork.
    """
    return multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")


def read_judgment_tree(
    root: Path, *, workers: int | None = None, advance: Callable[[int], None] | None = None
) -> pl.DataFrame:
    """Read and check every judgment file of a release's ``judgements`` tree (layout above).

    Parameters
    ----------
    root
        The release checkout, its ``output`` folder or the ``judgements`` folder itself.
    workers
        Processes reading face folders in parallel (default: the CPU count); 1 reads in this
        process.
    advance
        Called with the number of files after each face folder (a progress bar).

    Returns
    -------
    pl.DataFrame
        One row per file, columns :data:`SCHEMA`, in path order.

    Raises
    ------
    ImageSetError
        The first problem found (one line naming the file and field); nothing is returned.
    """
    folder = judgements_folder(root)
    tasks = face_folders(folder)
    workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
    parts: list[pl.DataFrame] = []

    def collect(columns: dict[str, list[Any]]) -> None:
        parts.append(pl.DataFrame(columns, schema=SCHEMA))
        if advance is not None:
            advance(len(columns["file"]))

    if workers == 1 or len(tasks) == 1:
        for model, face in tasks:
            collect(read_face_folder(str(folder), model, face))
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(tasks)), mp_context=_context()) as pool:
            for columns in pool.map(read_face_folder, [str(folder)] * len(tasks), *zip(*tasks, strict=True)):
                collect(columns)
    return pl.concat(parts) if parts else pl.DataFrame(schema=SCHEMA)

"""Rendering a report document to HTML and PDF, with Quarto or without it.

* ``quarto`` on PATH: ``quarto render`` (HTML, and PDF through the typst Quarto bundles).
* Otherwise: :mod:`cueshift.render._pandoc` executes the document's cells with a Jupyter
  kernel and converts their outputs with pandoc (HTML) and pandoc + typst (PDF).

The database is checked first (:func:`~cueshift.render._database.open_for_report`): a
missing or empty database is a one-line :class:`~cueshift.errors.CueshiftError`, never a
broken document.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from cueshift.errors import CueshiftError
from cueshift.render._database import open_for_report
from cueshift.render._pandoc import FALLBACK, Format, render_fallback
from cueshift.render._paths import DEFAULT_OUT
from cueshift.store.model_subset import parse_models

Engine = Literal["auto", "quarto", "jupyter"]
FORMATS: tuple[Format, ...] = ("html", "pdf")
ENGINES: tuple[Engine, ...] = ("auto", "quarto", "jupyter")


@dataclass(frozen=True)
class RenderResult:
    """What a render produced and how."""

    engine: str
    outputs: Mapping[str, Path]
    seconds: float
    models: tuple[str, ...] = ()
    timings: Mapping[str, float] = field(default_factory=dict)


def quarto_available() -> bool:
    """Whether ``quarto`` is on PATH."""
    return shutil.which("quarto") is not None


def check_engine(name: str) -> Engine:
    """``name`` as a render engine; a :class:`~cueshift.errors.CueshiftError` names the bad option."""
    for engine in ENGINES:
        if name == engine:
            return engine
    raise CueshiftError(f"--engine {name!r}: expected auto, quarto or jupyter")


def check_formats(names: Iterable[str]) -> list[Format]:
    """The output formats asked for, deduplicated in order; an unknown or empty list is an error."""
    wanted: list[Format] = []
    for name in names:
        fmt = next((f for f in FORMATS if f == name), None)
        if fmt is None:
            raise CueshiftError(f"--format {name!r}: expected html or pdf")
        if fmt not in wanted:
            wanted.append(fmt)
    if not wanted:
        raise CueshiftError("--format: nothing to render")
    return wanted


def check_out_dir(out_dir: Path) -> Path:
    """The resolved output folder, refused before anything is rendered when it cannot be written.

    Raises
    ------
    CueshiftError
        ``--out`` names a file (or lies under one), or a folder that is not writable.
    """
    if "\x00" in str(out_dir):
        raise CueshiftError(f"--out {out_dir!r}: a path may not contain a NUL byte")
    out = out_dir.resolve()
    if out.exists() and not out.is_dir():
        raise CueshiftError(f"--out {out_dir}: a file of that name exists; give a folder")
    ancestor = out
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise CueshiftError(f"--out {out_dir}: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise CueshiftError(f"--out {out_dir}: the folder {ancestor} is not writable")
    return out


def check_document(document: str | Path) -> Path:
    """The report source, refused before anything is said or rendered when it is no file.

    Raises
    ------
    CueshiftError
        One line naming the file and ``--document``.
    """
    if not Path(document).is_file():
        raise CueshiftError(f"{document}: no such report document (use --document PATH.qmd)")
    return Path(document)


def render_report(
    db: str | Path,
    *,
    document: str | Path,
    models: str | Sequence[str] | None = None,
    out_dir: str | Path = DEFAULT_OUT,
    formats: Iterable[str] = FORMATS,
    engine: str = "auto",
    timeout: int = 600,
) -> RenderResult:
    """Render a report document for a study database.

    Parameters
    ----------
    db : str or Path
        Study database (DuckDB file).
    document : str or Path
        The ``.qmd`` source (a design's is ``Catalog.document_path``).
    models : str or sequence of str, optional
        Model subset (comma-separated or a list); default: every model in the database.
    out_dir : str or Path
        Output folder (created); the documents are ``<stem>.html`` and ``<stem>.pdf``.
    formats : iterable of {'html', 'pdf'}
        Formats to produce (:func:`check_formats`).
    engine : {'auto', 'quarto', 'jupyter'}
        ``auto`` uses Quarto when it is on PATH and the fallback otherwise.
    timeout : int
        Seconds a single cell may run.

    Returns
    -------
    RenderResult
        The engine used (``'quarto'`` or the fallback's name), output paths and timing.

    Raises
    ------
    CueshiftError
        Unusable database, unknown model, bad document, a failing cell or converter.
    """
    started = time.perf_counter()
    how = check_engine(engine)
    out = check_out_dir(Path(out_dir))
    db_path = Path(db).resolve()
    con, selected, _ = open_for_report(db_path, models)
    con.close()
    document = check_document(document)
    wanted = check_formats(formats)
    params = {"db": str(db_path), "models": ",".join(parse_models(models))}
    use_quarto = how == "quarto" or (how == "auto" and quarto_available())
    if how == "quarto" and not quarto_available():
        raise CueshiftError("--engine quarto: `quarto` is not on PATH (use --engine auto or jupyter)")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        if use_quarto:
            outputs, timings = _render_quarto(document, params, out, wanted)
            name = "quarto"
        else:
            outputs, timings = render_fallback(document, params, out, wanted, timeout)
            name = FALLBACK
    except BaseException:
        if created:  # a report that failed leaves no folder it made (an existing one keeps its files)
            shutil.rmtree(out, ignore_errors=True)
        raise
    return RenderResult(name, outputs, time.perf_counter() - started, tuple(selected), timings)


# ---------------------------------------------------------------------------------------- quarto


def _render_quarto(
    document: Path, params: Mapping[str, str], out: Path, formats: Sequence[Format]
) -> tuple[dict[str, Path], dict[str, float]]:
    outputs: dict[str, Path] = {}
    timings: dict[str, float] = {}
    for fmt in formats:
        to = "html" if fmt == "html" else "typst"
        cmd = ["quarto", "render", str(document), "--to", to, "--output-dir", str(out)]
        for name, value in params.items():
            cmd += ["-P", f"{name}:{value}"]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        timings[f"quarto {to}"] = time.perf_counter() - t0
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()
            raise CueshiftError(f"quarto render --to {to} failed: {tail[-1] if tail else proc.returncode}")
        path = out / f"{document.stem}.{fmt}"
        if not path.is_file():
            raise CueshiftError(f"quarto render --to {to} wrote no {path.name} in {out}")
        outputs[fmt] = path
    return outputs, timings

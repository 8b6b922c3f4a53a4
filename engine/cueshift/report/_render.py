"""Rendering a report document to HTML and PDF, with Quarto or without it.

* ``quarto`` on PATH: ``quarto render`` (HTML, and PDF through the typst Quarto bundles).
* Otherwise: parse the ``.qmd`` (:mod:`cueshift.report._qmd`), execute its Python cells with a
  Jupyter kernel (nbclient), assemble markdown from the cell outputs (markdown, PNG figures),
  then pandoc → self-contained HTML (images embedded as data URIs) and pandoc → ``.typ`` →
  ``typst.compile`` → PDF.

The database is checked first (:func:`~cueshift.report._database.open_for_report`): a
missing or empty database is a one-line :class:`~cueshift.errors.CueshiftError`, never a
broken document.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import nbformat

from cueshift.errors import CueshiftError
from cueshift.report._database import open_for_report, parse_models
from cueshift.report._qmd import QmdDocument, parse_qmd, to_notebook

#: The report documents, shipped as package data (``cueshift/reports`` is the top-level ``reports/``).
REPORTS_DIR = Path(str(resources.files("cueshift").joinpath("reports")))
DEFAULT_DOCUMENT = REPORTS_DIR / "study.qmd"
DEFAULT_OUT = Path("reports/_out")

Format = Literal["html", "pdf"]
Engine = Literal["auto", "quarto", "jupyter"]
FALLBACK = "jupyter (nbclient) + pandoc + typst"

_CSS = """
body { max-width: 62em; margin: 2em auto; padding: 0 1.5em; font-family: system-ui, -apple-system,
  "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; line-height: 1.5; color: #222; }
h1, h2, h3 { line-height: 1.2; } h1.title { margin-bottom: 0.2em; }
p.subtitle { font-size: 1.2em; color: #555; margin-top: 0; }
figure { margin: 1.5em 0; text-align: center; } figure img { max-width: 100%; }
figcaption { font-size: 0.9em; color: #444; margin-top: 0.4em; }
blockquote { border-left: 4px solid #e0a030; background: #fff8e8; margin: 1em 0; padding: 0.4em 1em; }
.gt_table { margin: 1em auto !important; }
nav#TOC { background: #f7f7f7; padding: 0.5em 1.5em; border-radius: 4px; }
code { font-size: 0.9em; }
"""


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


def render_report(
    db: str | Path,
    *,
    document: str | Path = DEFAULT_DOCUMENT,
    models: str | Sequence[str] | None = None,
    out_dir: str | Path = DEFAULT_OUT,
    formats: Iterable[Format] = ("html", "pdf"),
    engine: Engine = "auto",
    timeout: int = 600,
) -> RenderResult:
    """Render a report document for a study database.

    Parameters
    ----------
    db : str or Path
        Study database (DuckDB file).
    document : str or Path
        The ``.qmd`` source (default ``reports/study.qmd``).
    models : str or sequence of str, optional
        Model subset (comma-separated or a list); default: every model in the database.
    out_dir : str or Path
        Output folder (created); the documents are ``<stem>.html`` and ``<stem>.pdf``.
    formats : iterable of {'html', 'pdf'}
        Formats to produce.
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
    if engine not in ("auto", "quarto", "jupyter"):
        raise CueshiftError(f"--engine {engine!r}: expected auto, quarto or jupyter")
    db_path = Path(db).resolve()
    con, selected, _ = open_for_report(db_path, models)
    con.close()
    document = Path(document)
    if not document.is_file():
        raise CueshiftError(f"{document}: no such report document (use --document PATH.qmd)")
    wanted: list[Format] = []
    for fmt in formats:
        if fmt not in ("html", "pdf"):
            raise CueshiftError(f"--format {fmt!r}: expected html or pdf")
        if fmt not in wanted:
            wanted.append(fmt)
    if not wanted:
        raise CueshiftError("--format: nothing to render")
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    params = {"db": str(db_path), "models": ",".join(parse_models(models))}
    use_quarto = engine == "quarto" or (engine == "auto" and quarto_available())
    if engine == "quarto" and not quarto_available():
        raise CueshiftError("--engine quarto: `quarto` is not on PATH (use --engine auto or jupyter)")
    if use_quarto:
        outputs, timings = _render_quarto(document, params, out, wanted)
        name = "quarto"
    else:
        outputs, timings = _render_fallback(document, params, out, wanted, timeout)
        name = FALLBACK
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


# -------------------------------------------------------------------------------------- fallback


def execute_notebook(
    nb: nbformat.NotebookNode, cwd: Path, timeout: int = 600, log: Path | None = None
) -> nbformat.NotebookNode:
    """Execute a notebook with the ``python3`` kernel of this interpreter (matplotlib Agg).

    The kernel's own stderr (start-up chatter, crash messages) goes to ``log`` when given.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    previous = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "Agg"
    try:
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            allow_errors=False,
            resources={"metadata": {"path": str(cwd)}},
        )
        if log is not None:
            with log.open("w") as sink:
                client.execute(stderr=sink)
        else:
            client.execute()
    except CellExecutionError as exc:
        raise CueshiftError(_cell_error(nb, exc)) from None
    finally:
        if previous is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = previous
    return nb


def _cell_error(nb: nbformat.NotebookNode, exc: Exception) -> str:
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                where = (
                    cell.metadata.get("quarto", {}).get("label")
                    or f"line {cell.metadata.get('qmd_line', '?')}"
                )
                message = f"{output.get('ename')}: {output.get('evalue')}"
                if output.get("ename") == "CueshiftError":
                    return str(output.get("evalue"))
                return f"report cell {where} failed: {message}"
    return f"report execution failed: {str(exc).strip().splitlines()[-1]}"


def notebook_markdown(nb: nbformat.NotebookNode, figures: Path, link_prefix: str) -> str:
    """Markdown of an executed notebook: markdown cells, and each code cell's displayed outputs.

    ``text/markdown`` outputs are taken as they are (tables carry HTML and typst raw blocks);
    PNG images are written to ``figures`` and linked with the cell's ``fig-cap``; other HTML
    becomes a raw HTML block. Code is never echoed; streams are dropped.
    """
    parts: list[str] = []
    n_fig = 0
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            parts.append(cell.source)
            continue
        if cell.cell_type != "code":
            continue
        options: Mapping[str, Any] = cell.metadata.get("quarto", {})
        if options.get("output") is False or options.get("include") is False:
            continue
        label = options.get("label")
        for output in cell.get("outputs", []):
            if output.get("output_type") not in ("display_data", "execute_result"):
                continue
            data = output.get("data", {})
            if "text/markdown" in data:
                parts.append(_joined(data["text/markdown"]))
            elif "image/png" in data:
                n_fig += 1
                name = f"{label or f'cell-{index}'}-{n_fig}.png".replace("/", "-")
                (figures / name).write_bytes(base64.b64decode(_joined(data["image/png"])))
                caption = str(options.get("fig-cap", ""))
                attrs = []
                if isinstance(label, str) and label.startswith("fig-"):
                    attrs.append(f"#{label}")
                if options.get("out-width"):
                    attrs.append(f"width={options['out-width']}")
                suffix = "{" + " ".join(attrs) + "}" if attrs else ""
                parts.append(f"![{caption}]({link_prefix}{name}){suffix}")
            elif "text/html" in data:
                parts.append(f"```{{=html}}\n{_joined(data['text/html'])}\n```")
    return "\n\n".join(parts) + "\n"


def _joined(value: str | list[str]) -> str:
    return "".join(value) if isinstance(value, list) else value


def _pandoc_metadata(doc: QmdDocument, params: Mapping[str, str]) -> dict[str, Any]:
    header = doc.header
    meta: dict[str, Any] = {
        k: header[k] for k in ("title", "subtitle", "author", "date", "abstract") if k in header
    }
    typst_opts = (header.get("format") or {}).get("typst") if isinstance(header.get("format"), dict) else None
    if isinstance(typst_opts, dict):
        for key in ("papersize", "margin", "fontsize", "mainfont", "section-numbering", "columns"):
            if key in typst_opts:
                meta[key] = typst_opts[key]
    meta.setdefault("papersize", "a4")
    meta.setdefault("margin", {"x": "2cm", "y": "2cm"})
    meta.setdefault("fontsize", "10pt")
    meta.setdefault("section-numbering", "1.1")
    return meta


def _toc_wanted(doc: QmdDocument) -> bool:
    fmt = doc.header.get("format")
    if isinstance(fmt, dict):
        return any(isinstance(v, dict) and v.get("toc") for v in fmt.values())
    return bool(doc.header.get("toc"))


def _render_fallback(
    document: Path, params: Mapping[str, str], out: Path, formats: Sequence[Format], timeout: int
) -> tuple[dict[str, Path], dict[str, float]]:
    import pypandoc
    import yaml

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    doc = parse_qmd(document)
    nb = to_notebook(doc, params)
    build = out / "_build"
    figures = build / "figures"
    if figures.exists():
        shutil.rmtree(figures)
    figures.mkdir(parents=True)
    execute_notebook(nb, document.resolve().parent, timeout, log=build / "kernel.log")
    timings["execute"] = time.perf_counter() - t0
    nbformat.write(nb, str(build / f"{document.stem}.ipynb"))  # type: ignore[no-untyped-call]

    # captions carry the paper's numbering ("Table 2.", "Figure 3."): no typst auto-numbering
    body = "```{=typst}\n#set figure(numbering: none)\n```\n\n" + notebook_markdown(nb, figures, "figures/")
    meta = _pandoc_metadata(doc, params)
    markdown = "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n\n" + body
    md_path = build / f"{document.stem}.md"
    md_path.write_text(markdown, encoding="utf-8")
    reader = "markdown"
    toc = ["--toc"] if _toc_wanted(doc) else []
    outputs: dict[str, Path] = {}
    if "html" in formats:
        t1 = time.perf_counter()
        css = build / "report.css"
        css.write_text(_CSS, encoding="utf-8")
        html = out / f"{document.stem}.html"
        _pandoc(
            pypandoc,
            md_path,
            "html5",
            html,
            reader,
            [
                "--standalone",
                "--embed-resources",
                "--css",
                str(css),
                "--number-sections",
                "--resource-path",
                str(build),
                *toc,
            ],
        )
        outputs["html"] = html
        timings["pandoc html"] = time.perf_counter() - t1
    if "pdf" in formats:
        import typst

        t2 = time.perf_counter()
        typ = build / f"{document.stem}.typ"
        _pandoc(pypandoc, md_path, "typst", typ, reader, ["--standalone", *toc])
        pdf = out / f"{document.stem}.pdf"
        try:
            typst.compile(str(typ), output=str(pdf), root=str(build))
        except Exception as exc:  # typst raises its own error types
            raise CueshiftError(f"typst: {str(exc).strip().splitlines()[0]} (source: {typ})") from None
        outputs["pdf"] = pdf
        timings["pandoc+typst pdf"] = time.perf_counter() - t2
    return outputs, timings


def _pandoc(pypandoc: Any, source: Path, to: str, target: Path, reader: str, args: list[str]) -> None:
    try:
        pypandoc.convert_file(
            str(source),
            to,
            format=reader,
            outputfile=str(target),
            extra_args=args,
            cworkdir=str(source.parent),
        )
    except RuntimeError as exc:
        raise CueshiftError(f"pandoc → {to}: {str(exc).strip().splitlines()[-1]}") from None

"""The fallback renderer: qmd → executed notebook → markdown → pandoc HTML and pandoc typst → PDF.

Used when Quarto is not on PATH: the document is parsed (:mod:`cueshift.render._qmd`), executed
(:mod:`cueshift.render._notebook`), and its markdown converted by pandoc to self-contained HTML
(images embedded as data URIs) and to typst, which ``typst.compile`` turns into the PDF.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from cueshift.errors import CueshiftError
from cueshift.extras import importing
from cueshift.render._notebook import execute_notebook, notebook_markdown
from cueshift.render._outputs import typst_string
from cueshift.render._qmd import QmdDocument, parse_qmd, to_notebook

Format = Literal["html", "pdf"]
#: Name of the fallback engine (``RenderResult.engine``).
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


#: Label of the text a document asks to repeat at the top of every PDF page (:data:`RUNNING_HEADER`).
RUNNING_HEADER_LABEL = "cueshift-running-header"
#: Typst page rule of the PDF path: the page header shows the first ``#metadata`` labelled
#: :data:`RUNNING_HEADER_LABEL` in the document (e.g. the preamble's simulated-judges warning),
#: nothing where there is none. In the template's header-includes, before its own page rule.
RUNNING_HEADER = (
    "#set page(header: context {\n"
    f"  let found = query(<{RUNNING_HEADER_LABEL}>)\n"
    '  if found.len() > 0 { align(center, text(size: 8pt, fill: rgb("#8a4b00"), found.first().value)) }\n'
    "})"
)


def running_header(text: str) -> str:
    r"""A raw typst block (markdown) asking the PDF to repeat ``text`` at the top of every page;
    the HTML path drops it.

    Examples
    --------
    >>> running_header('Simulated "judges"').splitlines()[1]
    '#metadata("Simulated \\"judges\\"") <cueshift-running-header>'
    """
    return f"```{{=typst}}\n#metadata({typst_string(text)}) <{RUNNING_HEADER_LABEL}>\n```"


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


def render_fallback(
    document: Path, params: Mapping[str, str], out: Path, formats: Sequence[Format], timeout: int
) -> tuple[dict[str, Path], dict[str, float]]:
    with importing("report", "cueshift report"):  # the 'report' extra: imported when a report renders
        import nbformat
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
    execute_notebook(
        nb, document.resolve().parent, timeout, log=build / "kernel.log", database=params.get("db")
    )
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
        with importing("report", "cueshift report"):
            import typst

        t2 = time.perf_counter()
        typ = build / f"{document.stem}.typ"
        header = ["--variable", f"header-includes={RUNNING_HEADER}"]
        _pandoc(pypandoc, md_path, "typst", typ, reader, ["--standalone", *header, *toc])
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

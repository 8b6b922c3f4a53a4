"""Executing a report document without Quarto: the notebook run and the markdown of its outputs.

:func:`execute_notebook` runs the document's cells with a Jupyter kernel (nbclient);
:func:`notebook_markdown` assembles markdown from the cell outputs: markdown (tables carry HTML
and typst raw blocks), PNG figures written next to it, other HTML as raw blocks.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from cueshift.errors import CueshiftError
from cueshift.extras import importing
from cueshift.store.damage import is_damage, unreadable

if TYPE_CHECKING:  # nbformat and nbclient: the 'report' extra, imported when a notebook runs
    import nbformat


def execute_notebook(
    nb: nbformat.NotebookNode,
    cwd: Path,
    timeout: int = 600,
    log: Path | None = None,
    database: str | None = None,
) -> nbformat.NotebookNode:
    """Execute a notebook with the ``python3`` kernel of this interpreter (matplotlib Agg).

    The kernel's own stderr (start-up chatter, crash messages) goes to ``log`` when given; a
    cell that meets a damaged block of ``database`` fails in the line naming it
    (:func:`cueshift.store.damage.unreadable`).
    """
    with importing("report", "cueshift report"):
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
        raise CueshiftError(_cell_error(nb, exc, database)) from None
    finally:
        if previous is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = previous
    return nb


def _cell_error(nb: nbformat.NotebookNode, exc: Exception, database: str | None) -> str:
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
                damaged = duckdb.Error(str(output.get("evalue")))
                if database is not None and is_damage(damaged):  # e.g. an index block no check reads
                    return unreadable([database], damaged)
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

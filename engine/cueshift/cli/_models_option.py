"""``--models``: the model subset of ``analyze`` and ``report``, comma-separated and repeatable;
``--model``, its old spelling, still works (hidden, with a note on stderr)."""

from __future__ import annotations

from typing import Annotated

import typer

from cueshift.cli._common import err_console

ModelsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--models",
        "-m",
        metavar="ID,ID",
        help="Model subset: ids, comma-separated or repeated (default: every model).",
    ),
]
#: The old spelling of ``--models`` (``analyze --model a --model b``), hidden from ``--help``.
OldModelOption = Annotated[
    list[str] | None, typer.Option("--model", hidden=True, help="Old name of --models.")
]

#: The note ``--model`` prints on stderr.
OLD_MODEL_NOTE = "note: --model is deprecated; use --models (comma-separated or repeated)"


def chosen_models(models: list[str] | None, old: list[str] | None) -> tuple[str, ...]:
    """The subset ``--models`` and the old ``--model`` name together, each id once.

    >>> chosen_models(["a,b"], None)
    ('a', 'b')
    """
    from cueshift.store.model_subset import parse_models

    if old:
        err_console.print(OLD_MODEL_NOTE, markup=False, highlight=False, soft_wrap=True)
    return tuple(parse_models([*(models or []), *(old or [])]))

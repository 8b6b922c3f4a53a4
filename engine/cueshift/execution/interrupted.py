"""Whether an error came of an interrupt, told without loading DuckDB (:func:`after_interrupt`).

The command line's guard and the API's one-line errors ask this of every error they turn into
one line; a study file's error must stay light (D90, D93), so DuckDB and the interrupt machinery
(:mod:`cueshift.execution.interrupts`) are loaded only where DuckDB already is.
"""

from __future__ import annotations

import sys


def after_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` came of an interrupt (:func:`cueshift.execution.interrupts.is_interrupt`):
    Ctrl-C, SIGTERM, or a DuckDB statement either stopped.

    Before DuckDB is loaded no statement ran and no SIGTERM handler is installed (installing it
    loads DuckDB), so only a Ctrl-C in the error's chain counts, found here without loading them.

    Examples
    --------
    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt
    ...     except KeyboardInterrupt:
    ...         raise ValueError("while stopping")
    ... except ValueError as error:
    ...     after_interrupt(error), after_interrupt(ValueError("a bad field"))
    (True, False)
    """
    if "duckdb" not in sys.modules:
        seen: BaseException | None = exc
        while seen is not None:
            if isinstance(seen, KeyboardInterrupt) or (
                isinstance(seen, RuntimeError) and "interrupted" in str(seen).lower()
            ):
                return True
            seen = seen.__context__
        return False
    from cueshift.execution.interrupts import is_interrupt

    return is_interrupt(exc)


__all__ = ["after_interrupt"]

"""The result tables the designs declare, handed to the result check when it is loaded (D90).

The design registry finds the designs without loading the result check
(:mod:`cueshift.schemas.results`, which loads pandera and polars), so that reading a study file
loads no data library. Each design found is handed here (:func:`declare`) with a function that
gives its tables (its :attr:`~cueshift.designs.protocol.Design.result_schemas`): declared to the
result check at once when the check is loaded, else kept until it is (:func:`attach`, which the
check calls as it loads). Either way the check knows every design found before it validates a
table. This module loads nothing: it sits below the layers it connects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from cueshift.errors import ConfigError

#: The result check's declaration (:func:`cueshift.schemas.results.declare_result_schemas`) once
#: it is loaded: ``(design, tables)``, raising ``ValueError`` on a table declared twice.
Declarer = Callable[[str, Mapping[str, Any]], None]
#: What declaring one design takes: where it was found (for the message), its name, its tables.
Pending = tuple[str, str, Callable[[], Mapping[str, Any]]]

_declarer: list[Declarer] = []
_pending: list[Pending] = []


def declare(where: str, design: str, tables: Callable[[], Mapping[str, Any]]) -> None:
    """Hand the result tables of ``design`` (found at ``where``) to the result check: at once when
    the check is loaded, else when it is (``tables()`` is called then, not now).

    Raises
    ------
    ConfigError
        The check is loaded and a table is declared already (one line naming ``where``).
    """
    if _declarer:
        _declare(_declarer[0], (where, design, tables))
    else:
        _pending.append((where, design, tables))


def attach(declarer: Declarer) -> None:
    """Called by the result check as it loads: declare every design handed here so far, and the
    later ones at once."""
    while _pending:  # a refused one stays: the check refuses it again when loaded again
        _declare(declarer, _pending[0])
        _pending.pop(0)
    _declarer[:] = [declarer]


def forget() -> None:
    """Drop the designs not yet declared to the check (the registry's caches are cleared)."""
    _pending.clear()


def _declare(declarer: Declarer, pending: Pending) -> None:
    where, design, tables = pending
    try:
        declarer(design, tables())
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


__all__ = ["Declarer", "Pending", "attach", "declare", "forget"]

"""The Python API: open a study database and read its results, run ``infer``, ``analyze`` and
``report`` from Python (docs/api.md). ``import cueshift as cs`` re-exports the main names.

Public surface::

    from cueshift.api import open_study, Study, infer, analyze, report, export, describe, write_demo_study
    from cueshift.api import plan_study, Plan, status, show_study, merge, upgrade
    from cueshift.api import import_judgments, import_omi, view

Each function does what its ``cueshift`` command does, with the same internals, defaults and
checks; a bad input raises :class:`~cueshift.errors.CueshiftError` with the command's one line.
"""

from __future__ import annotations

from cueshift.api._analyze import analyze
from cueshift.api._audit import audit
from cueshift.api._build import build
from cueshift.api._commands import export, infer
from cueshift.api._databases import merge, show_study, upgrade
from cueshift.api._demo import write_demo_study
from cueshift.api._describe import describe
from cueshift.api._import_judgments import import_judgments
from cueshift.api._import_omi import import_omi
from cueshift.api._invariance import check_invariance
from cueshift.api._multiverse import multiverse
from cueshift.api._open_study import open_study
from cueshift.api._plan import plan_study
from cueshift.api._plan_result import Plan
from cueshift.api._prereg import prereg
from cueshift.api._report import report
from cueshift.api._status import status
from cueshift.api._study import Study
from cueshift.api._view import view

__all__ = [
    "Plan",
    "Study",
    "analyze",
    "audit",
    "build",
    "check_invariance",
    "describe",
    "export",
    "import_judgments",
    "import_omi",
    "infer",
    "merge",
    "multiverse",
    "open_study",
    "plan_study",
    "prereg",
    "report",
    "show_study",
    "status",
    "upgrade",
    "view",
    "write_demo_study",
]

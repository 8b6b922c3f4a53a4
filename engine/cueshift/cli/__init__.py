"""The `cueshift` command line (the justfile recipes are thin wrappers over it).

One module per command group: :mod:`~cueshift.cli.run` (infer, status, merge, upgrade),
:mod:`~cueshift.cli.analysis` (analyze, sql, show-study), :mod:`~cueshift.cli.audit` (audit),
:mod:`~cueshift.cli.publish` (report, view), :mod:`~cueshift.cli.data` (import omi, import
judgments) and :mod:`~cueshift.cli.plan`;
:mod:`~cueshift.cli._common` holds the app, the consoles and the one-line error guard. The commands
are registered here, in the order ``cueshift --help`` lists them. Optional features (report, view,
models, ray, croissant) import their extras only when they run (:mod:`cueshift.extras`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType


def _stop_while_starting(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C or SIGTERM while this package loads (seconds: DuckDB, polars): nothing is done yet."""
    how = "stopped by SIGTERM" if signum == signal.SIGTERM else "interrupted"
    sys.stderr.write(f"{how} while starting: nothing was done\n")
    sys.stderr.flush()
    os._exit(128 + signum)


# until the end of this module (then the handlers before it again): one line, not a traceback
_STARTING = (
    {signum: signal.signal(signum, _stop_while_starting) for signum in (signal.SIGINT, signal.SIGTERM)}
    if threading.current_thread() is threading.main_thread()
    else {}
)

from cueshift.cli import analysis, audit, data, plan, publish, run  # noqa: E402
from cueshift.cli._common import app, guard  # noqa: E402

app.command()(guard(run.infer))
app.command()(guard(analysis.analyze))
app.command()(guard(audit.audit))
app.command()(guard(run.status))
app.command()(guard(analysis.sql))
app.command()(guard(analysis.export))
app.command()(guard(run.merge))
app.command()(guard(run.upgrade))
app.command("show-study")(guard(analysis.show_study))
app.command("report")(guard(publish.report_command()))
app.command()(guard(publish.view))
app.command("plan")(guard(plan.plan_command))
app.add_typer(data.import_app, name="import")
data.import_app.command("omi")(guard(data.import_omi_command))
data.import_app.command("judgments")(guard(data.import_judgments_command))


def main() -> None:
    app()


for _signum, _handler in _STARTING.items():
    if _handler is not None:  # None: a handler not set from Python, left as it is
        signal.signal(_signum, _handler)

__all__ = ["app", "main"]

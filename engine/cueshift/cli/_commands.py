"""The commands of the command line, registered on the app in the order ``cueshift --help`` lists them.

Imported by :func:`cueshift.cli.main` (the console script and ``python -m cueshift.cli``) under the
start-up signal handlers, or on first access of ``cueshift.cli.app``.
"""

from __future__ import annotations

from cueshift.cli import (
    analysis,
    audit,
    build,
    data,
    invariance,
    multiverse,
    plan,
    prereg,
    publish,
    report,
    run,
)
from cueshift.cli._common import app, guard

app.command()(guard(build.build))
app.command()(guard(run.infer))
app.command()(guard(prereg.prereg))
app.command()(guard(analysis.analyze))
app.command("multiverse")(guard(multiverse.multiverse))
app.command()(guard(audit.audit))
app.command()(guard(run.status))
app.command("check-invariance")(guard(invariance.check_invariance))
app.command()(guard(analysis.sql))
app.command()(guard(analysis.export))
app.command()(guard(run.merge))
app.command()(guard(run.upgrade))
app.command("show-study")(guard(analysis.show_study))
app.command("report")(guard(report.report))
app.command()(guard(publish.view))
app.command("plan")(guard(plan.plan_command))
app.add_typer(data.import_app, name="import")
data.import_app.command("omi")(guard(data.import_omi_command))
data.import_app.command("judgments")(guard(data.import_judgments_command))


__all__ = ["app"]

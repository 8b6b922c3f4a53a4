"""``cueshift build`` end to end: plan, make what is missing, write the set, summarize."""

from __future__ import annotations

from rich.console import Console

from cueshift import store
from cueshift.stimuli.audit_gate import EditGate
from cueshift.stimuli.croissant_record import write_croissant
from cueshift.stimuli.files import sweep_orphans
from cueshift.stimuli.output import manifest_rows, write_manifest, write_release_layout
from cueshift.stimuli.run import BuildOptions, Maker, features_of, make_all, plan_build
from cueshift.stimuli.summary import BuildSummary, summarize
from cueshift.store.runs import build_versions
from cueshift.study.config import Study


def build_study(
    study: Study, options: BuildOptions | None = None, *, console: Console | None = None
) -> BuildSummary:
    """Make (or resume) the image set of ``study``'s ``[build]`` section.

    Parameters
    ----------
    study
        A study with a ``[build]`` section and a manifest image set (where the set is written).
    options
        Database, shard, ``limit`` (base faces to try first), progress bar.
    console
        Where the progress bar goes.

    Returns
    -------
    BuildSummary
        Counts, losses by cell and by value, and the lines to print.

    Raises
    ------
    ConfigError
        A bad grid, prompt family, feature file or generator setting (nothing written).
    """
    options = options if options is not None else BuildOptions()
    plan = plan_build(study, options)
    gate = EditGate(study, plan.config.audit, features_of(plan))
    db_path = options.shard.database_path(options.database or study.database_path)
    manifest = plan.manifest
    if options.shard.count > 1:
        manifest = manifest.with_name(
            f"{manifest.stem}.shard-{options.shard.index}-of-{options.shard.count}{manifest.suffix}"
        )
    con = store.open_study(db_path)
    slots = [*plan.bases, *plan.variations]
    try:
        record = store.start_run(
            con,
            store.RunRecord(
                study.name,
                str(options.shard),
                study.model_dump_json(),
                len(slots),
                versions=build_versions(),
            ),
        )
        maker = Maker(plan, con, record.run_id, gate)
        make_all(plan, maker, console, options.progress)
        rows = manifest_rows(con, slots, gate.active)
        write_manifest(rows, manifest)
        if options.shard.count == 1:
            named = con.execute("SELECT DISTINCT sha256 FROM generation WHERE sha256 IS NOT NULL").fetchall()
            sweep_orphans(plan.root, [str(n[0]) for n in named])
        release = write_release_layout(rows, plan.root)
        write_croissant(release.parent.parent, study.name, rows)
        store.finish_run(con, record, maker.n_tries)
        return summarize(con, slots, db_path, manifest, maker.n_tries)
    finally:  # every try made is committed already: closing loses nothing
        con.close()


__all__ = ["build_study"]

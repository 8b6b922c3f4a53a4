"""A study database read from Python: the read-only :class:`Study` (made by
:func:`~cueshift.api._open_study.open_study`; its connections and tables: :mod:`._study_reads`)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from cueshift.api._study_reads import _MANIFEST, DatabaseReads
from cueshift.errors import CueshiftError

if TYPE_CHECKING:
    import polars as pl


class Study(DatabaseReads):
    """A study database, read-only: its answers, the views over them and the ``result_*`` tables.

    No connection is held between calls: each method opens the file read-only (a running
    ``cueshift infer``'s snapshot while it holds the file), reads and closes it, so ``infer`` and
    ``analyze`` can write the database meanwhile and every call sees it as it is then.
    Made by :func:`open_study`; a context manager (after :meth:`close` every read is refused).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import cueshift as cs
    >>> from cueshift.api import write_demo_study
    >>> study_file = write_demo_study(Path(tempfile.mkdtemp()))
    >>> summary = cs.infer(study_file, progress=False)
    >>> with cs.open_study(study_file) as study:
    ...     print(study.name, study.design, study.models(), study.judgments().height)
    demo stylisticbias ['sim'] 20700
    >>> study.result_names()  # closed now
    Traceback (most recent call last):
    ...
    cueshift.errors.CueshiftError: ...demo.duckdb: the study is closed; open it again with cs.open_study
    """

    def __init__(self, path: Path, name: str, design: str | None) -> None:
        self.path = path
        """The study database file."""
        self.name = name
        """The study's name (its file's, else the latest run's, else the database file's stem)."""
        self.design = design
        """The study's design (e.g. ``'stylisticbias'``); None when the database does not say."""
        self._closed = False

    # -- the public reads ----------------------------------------------------------------------

    def result_names(self) -> list[str]:
        """The names of the stored results (``result_manifest`` order; empty before ``analyze``).

        Returns
        -------
        list of str
            Each name reads as :meth:`results`; its table is ``result_<name>``.
        """
        return list(self._result_tables())

    def results(self, name: str) -> pl.DataFrame:
        """The result table ``result_<name>`` (``"result_<name>"`` is accepted too).

        Raises
        ------
        CueshiftError
            No such result; the message lists the stored ones, or says to run ``cueshift analyze``.
            Result tables an older cueshift wrote (an older result schema): the line says to re-run
            ``cueshift analyze``, as ``cueshift report`` does.
        """
        self._check_result_version()
        tables = self._result_tables()
        key = name if name in tables else name.removeprefix("result_")
        if key not in tables:
            known = ", ".join(tables) if tables else "none yet (run `cueshift analyze` first)"
            raise CueshiftError(f"{self.path}: no result {name!r}; stored results: {known}")
        return self._frame(f'SELECT * FROM "{tables[key]}"')

    def manifest(self) -> pl.DataFrame:
        """``result_manifest``: one row per result table (how it was computed, rows, seconds).

        Raises
        ------
        CueshiftError
            ``analyze`` has not run on this database.
        """
        if _MANIFEST not in self._tables():
            raise CueshiftError(f"{self.path}: no result_manifest yet (run `cueshift analyze` first)")
        return self._frame(f"SELECT * FROM {_MANIFEST} ORDER BY rowid")

    def delta(self) -> pl.DataFrame:
        """The ``delta`` view: each variation's φ minus its base face's φ (``sql/views/delta.sql``)."""
        return self._frame("SELECT * FROM delta")

    def phi(self) -> pl.DataFrame:
        """The ``phi`` view: the favourable share φ per image, scenario and model (``sql/views/phi.sql``)."""
        return self._frame("SELECT * FROM phi")

    def edit_audit(self, *, failed_only: bool = False) -> pl.DataFrame:
        """``edit_audit``: the edit audit, one row per variation and measure (``cueshift audit``).

        ``failed_only``: only the measures that failed. The one-row-per-variation verdict is the
        ``edit_verdict`` view (``.sql("FROM edit_verdict")``).

        Raises
        ------
        CueshiftError
            The database has no edit audit (run ``cueshift audit`` first).
        """
        if (
            "edit_audit" not in self._tables()
            or self._frame("SELECT count(*) AS n FROM edit_audit")["n"].item() == 0
        ):
            raise CueshiftError(f"{self.path}: no edit audit yet (run `cueshift audit` first)")
        where = " WHERE failed" if failed_only else ""
        return self._frame(f"SELECT * FROM edit_audit{where} ORDER BY image_id, check_kind, measure")

    def models(self) -> list[str]:
        """The model ids of the study (its ``model`` table), sorted."""
        return self._frame("SELECT model_id FROM model ORDER BY model_id")["model_id"].to_list()

    def judgments(
        self, models: str | Sequence[str] | None = None, *, model: str | None = None
    ) -> pl.DataFrame:
        """The stored forced-choice answers (``judgment``), of the models ``models`` names when given.

        Parameters
        ----------
        models
            A model id, ``"a,b"`` or a list (``--models``; default: every model).
        model
            The old name of ``models`` (one id; a :class:`DeprecationWarning`).

        Raises
        ------
        CueshiftError
            A model that is not a model of the study (the message lists them).
        """
        from cueshift.store.model_subset import parse_models, unknown_models_line

        if model is not None:
            warnings.warn("judgments(model=...) is deprecated; use models=", DeprecationWarning, stacklevel=2)
        wanted = parse_models([*parse_models(models), *parse_models(model)])
        if not wanted:
            return self._frame("SELECT * FROM judgment")
        known = self.models()
        unknown = [m for m in wanted if m not in known]
        if unknown:
            raise CueshiftError(unknown_models_line(unknown, self.path, known))
        return self._frame("SELECT * FROM judgment WHERE list_contains(?, model_id)", [wanted])

    def sql(self, query: str) -> pl.DataFrame:
        """Run one read-only statement, fenced as ``cueshift sql`` is (:mod:`cueshift.store.readonly`).

        Raises
        ------
        CueshiftError
            A statement that is not a query (any write), more than one, or DuckDB's error.
        """
        if self._closed:
            self._connect()  # raises
        from cueshift.store.readonly import run_query

        return run_query(self.path, query)

    # -- lifetime and display -------------------------------------------------------------------

    def close(self) -> None:
        """Refuse further reads (no connection is held between calls, so nothing else to release)."""
        self._closed = True

    def __enter__(self) -> Study:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._closed:
            return f"<cueshift Study {self.name!r}, closed: {self.path}>"
        from cueshift.store.snapshot import count_answers

        try:
            con = self._connect()
            try:
                answers = count_answers(con)
            finally:
                con.close()
            results = self.result_names()
            models = self.models()
        except CueshiftError as exc:  # a file removed or replaced since: say so, do not raise
            return f"<cueshift Study {self.name!r}: {exc}>"
        shown = ", ".join(results[:8]) + (f", ... ({len(results)} in all)" if len(results) > 8 else "")
        return (
            f"<cueshift Study {self.name!r} ({self.design or 'design unknown'}) at {self.path}\n"
            f"  models: {', '.join(models) or 'none'}\n"
            f"  answers: {answers:,}\n"
            f"  results: {shown or 'none (run cueshift analyze)'}>"
        )

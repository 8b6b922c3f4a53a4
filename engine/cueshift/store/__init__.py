"""The study database: DuckDB file, DDL and views from ``sql/``, validated writes, run records,
result tables, merging, the embedding cache.

Every write goes through :func:`write_tables`: each frame passes its pandera schema
(``schemas/``) and all frames of a batch land in one transaction, or none does.

Public surface (modules: ``database``, ``writes``, ``runs``, ``results``, ``merge`` with
``merge_checks`` and ``merge_rows``, ``embedding_cache``, ``readonly``, ``export``,
``interrupts``)::

    from cueshift.store import open_study, query, write_tables, upsert_dimension, insert_missing
    from cueshift.store import RunRecord, start_run, finish_run, replace_results, merge_databases
"""

from cueshift.store.database import (
    SCHEMA_VERSION,
    VIEWS,
    StoredTable,
    create_views,
    open_study,
    query,
    sql_text,
    study_tables,
)
from cueshift.store.merge import merge_databases
from cueshift.store.merge_rows import CACHE_TABLES
from cueshift.store.results import replace_results
from cueshift.store.runs import RunRecord, finish_run, start_run, versions
from cueshift.store.writes import insert_missing, upsert_dimension, upsert_dimensions, validate, write_tables

__all__ = [
    "CACHE_TABLES",
    "SCHEMA_VERSION",
    "VIEWS",
    "RunRecord",
    "StoredTable",
    "create_views",
    "finish_run",
    "insert_missing",
    "merge_databases",
    "open_study",
    "query",
    "replace_results",
    "sql_text",
    "start_run",
    "study_tables",
    "upsert_dimension",
    "upsert_dimensions",
    "validate",
    "versions",
    "write_tables",
]

"""A `cueshift upgrade` killed (SIGKILL) at each step leaves the old database whole, or the upgraded
one; running it again finishes the upgrade with every judgment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from cueshift.store.upgrade import upgrade_database
from tests.store.old_study import build_old_study, judgment_rows

ENGINE = Path(__file__).resolve().parents[2] / "engine"
ROOT = ENGINE.parent
#: Kill the process as it enters ``cueshift.store.upgrade.<function>``; ``os.replace`` of the
#: new file onto the old one is the swap itself.
KILLER = """
import os, signal, sys
from pathlib import Path
from cueshift.store import upgrade

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

point, path = sys.argv[1], Path(sys.argv[2])
if point == "swap":
    replace = os.replace
    def swap(src, dst):
        if Path(src).name.endswith(".upgrading"):
            die()
        replace(src, dst)
    upgrade.os.replace = swap
else:
    setattr(upgrade, point, die)
upgrade.upgrade_database(path)
"""


def _version(path: Path) -> str:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return str(
            con.execute("SELECT value FROM cueshift_meta WHERE key = 'schema_version'").fetchall()[0][0]
        )
    finally:
        con.close()


@pytest.mark.parametrize(
    ("point", "after"),
    [("derive_invalid_reasons", "4"), ("_keep", "4"), ("swap", "4"), ("_sync_folder", "5")],
)
def test_a_killed_upgrade_leaves_a_whole_database(tmp_path, point, after) -> None:
    path = tmp_path / "study.duckdb"
    build_old_study(path, 4)
    before = judgment_rows(path)
    data = path.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ENGINE) + os.pathsep + str(ROOT)}

    killed = subprocess.run(
        [sys.executable, "-c", KILLER, point, str(path)], env=env, timeout=120, check=False
    )

    assert killed.returncode == -9
    assert _version(path) == after
    assert judgment_rows(path) == before
    if after == "4":
        assert path.read_bytes() == data
    done = upgrade_database(path)
    assert _version(path) == "5"
    assert judgment_rows(path) == before
    assert judgment_rows(tmp_path / "study.schema-v4.duckdb") == before
    assert done.copied is None if after == "5" else done.copied is not None
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_rows_only_in_a_write_ahead_log_are_upgraded(tmp_path) -> None:
    path = tmp_path / "study.duckdb"
    build_old_study(path, 2)
    crash = (
        "import duckdb, os, sys\n"
        "con = duckdb.connect(sys.argv[1])\n"
        "con.execute(\"SET checkpoint_threshold = '1GB'\")\n"
        'con.execute("UPDATE judgment SET latency_ms = -1 WHERE seed = 0")\n'
        "os._exit(0)\n"  # no checkpoint: the update lives in study.duckdb.wal only
    )
    subprocess.run([sys.executable, "-c", crash, str(path)], timeout=120, check=True)
    assert (tmp_path / "study.duckdb.wal").exists()
    before = judgment_rows(path)
    assert sum(1 for row in before if row[10] == -1) == 8

    upgrade_database(path)
    assert judgment_rows(path) == before
    assert not (tmp_path / "study.duckdb.wal").exists()

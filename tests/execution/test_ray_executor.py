"""``--executor ray`` on a local Ray cluster (the 2 CPUs of this machine), simulated and tiny
transformers backends: the same rows as the local runner, a worker killed mid-unit retried by
Ray, a killed driver resumed by the next run, bad settings refused before anything is written.

The simulated judge is deterministic per judgment and the tiny transformers model in score mode
is exact, so any lost, duplicated or altered row shows up as a difference from a local run.

The studies are small (2 demo faces, 3,312 judgments; a pairwise study of 10 portraits): the
claims hold for any study cut into many units over two actors, and the time goes to starting
actors, not to answering. One Ray instance serves the module, the killed driver included.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import polars as pl
import pytest

ray = pytest.importorskip("ray")

from cueshift.designs import load_study  # noqa: E402
from cueshift.designs.work import UnitKind  # noqa: E402
from cueshift.errors import ConfigError, CueshiftError  # noqa: E402
from cueshift.execution.executor import Answered  # noqa: E402
from cueshift.execution.ray_executor import RayExecutor, actor_resources  # noqa: E402
from cueshift.execution.run_options import RunOptions  # noqa: E402
from cueshift.execution.runner import run_study  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from tests.execution.test_runner import (  # noqa: E402
    KEY,
    _design_study,
    _inode,
    _wait_for_commits,
    judgments,
    study_file,
)

#: demo faces of the simulated study (3,312 judgments) and of the tiny transformers study
FACES = 2


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """One local Ray instance for the module (starting one takes seconds); its address, for the
    drivers of other processes to join (``--address``)."""
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    yield str(context.address_info["gcs_address"])
    ray.shutdown()


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("demo-cache")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, cache: Path) -> pl.DataFrame:
    """The local runner's rows of the small simulated study."""
    tmp = tmp_path_factory.mktemp("reference")
    summary = run_study(load_study(study_file(tmp, cache, faces=FACES)), RunOptions(progress=False))
    return judgments(summary.database)


class KillOneWorker(RayExecutor):
    """Kills (SIGKILL) the process of an actor that holds units, once, after the first answered
    unit; records its pid and the pid the restarted actor then reports."""

    def __init__(self) -> None:
        super().__init__(workers=2)
        self.killed: tuple[int, int] | None = None  # (old pid, pid after the restart)

    def answer(
        self, model: ModelConfig, kind: UnitKind, plan: pl.DataFrame, budget: int
    ) -> Iterator[Answered]:
        victim = None
        for item in super().answer(model, kind, plan, budget):
            if victim is None and self._pool is not None:
                busy = [i for i, n in enumerate(self._pool.inflight) if n > 0]
                assert busy, "units should be in flight while others are answered"
                victim = busy[0]
                os.kill(self._pool.pids[victim], signal.SIGKILL)
            yield item
        if victim is not None and self._pool is not None:
            restarted = ray.get(self._pool.actors[victim].ready.remote())
            self.killed = (self._pool.pids[victim], restarted)


def test_ray_stores_exactly_the_local_rows_and_resumes_to_nothing(
    cluster: str, cache: Path, reference: pl.DataFrame, tmp_path: Path
) -> None:
    study = load_study(study_file(tmp_path, cache, faces=FACES))
    summary = run_study(study, RunOptions(progress=False), executor=RayExecutor())
    assert summary.n_written == reference.height
    assert judgments(summary.database).equals(reference)
    again = run_study(study, RunOptions(progress=False), executor=RayExecutor())
    assert again.n_written == 0 and again.n_stored_before == reference.height


def test_a_worker_killed_mid_unit_is_restarted_and_its_units_sent_again(
    cluster: str, cache: Path, reference: pl.DataFrame, tmp_path: Path
) -> None:
    study = load_study(study_file(tmp_path, cache, faces=FACES, batch_size=60))  # units of <= 60 rows: many
    executor = KillOneWorker()
    summary = run_study(study, RunOptions(progress=False), executor=executor)
    assert executor.killed is not None and executor.killed[0] != executor.killed[1]
    stored = judgments(summary.database)
    assert stored.select(KEY).is_duplicated().sum() == 0
    assert stored.equals(reference)


def test_a_limited_ray_run_then_a_resume_equals_the_reference(
    cluster: str, cache: Path, reference: pl.DataFrame, tmp_path: Path
) -> None:
    study = load_study(study_file(tmp_path, cache, faces=FACES))
    first = run_study(study, RunOptions(progress=False, limit=1000), executor=RayExecutor())
    assert first.n_written == 1000
    run_study(study, RunOptions(progress=False), executor=RayExecutor())
    assert judgments(first.database).equals(reference)


def _stored(db: Path) -> int:
    if not db.exists():
        return 0
    with duckdb.connect(str(db), read_only=True) as con:
        (n,) = con.execute("SELECT count(*) FROM judgment").fetchall()[0]
    return int(n)


def test_a_killed_driver_loses_nothing_and_the_next_run_resumes(
    cluster: str, cache: Path, reference: pl.DataFrame, tmp_path: Path
) -> None:
    """`cueshift infer --executor ray --address <the module's Ray instance>`, SIGKILLed once
    answers are being written (its actors, owned by the dead driver, are stopped by Ray); the
    rerun, another driver on the same instance, completes the study with exactly the reference
    rows. (A driver that starts its own instance is stopped by SIGTERM in
    tests/hardening/test_running.py.)"""
    path = study_file(tmp_path, cache, faces=FACES, batch_size=20)  # one small transaction per unit
    db = tmp_path / "t.duckdb"
    command = [sys.executable, "-m", "cueshift.cli", "infer", "--study", str(path), "--no-progress"]
    command += ["--executor", "ray", "--workers", "2", "--address", cluster]
    mid_run = False
    for _ in range(3):
        stale = _inode(db.with_name(db.name + ".snapshot"))  # a killed run leaves its snapshot
        process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            _wait_for_commits(db, process, stale, commits=5)  # answers are being committed
            process.send_signal(signal.SIGKILL)
            process.wait()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        if 0 < _stored(db) < reference.height:
            mid_run = True
            break
    assert mid_run, "no kill landed while answers were being written"
    final = subprocess.run(command, capture_output=True, text=True, timeout=300, start_new_session=True)
    assert final.returncode == 0, final.stderr
    assert judgments(db).equals(reference)


def test_tiny_transformers_on_ray_equal_the_local_run_with_a_worker_killed(
    cluster: str, cache: Path, tmp_path: Path
) -> None:
    from cueshift.inference.stand_ins.tiny import build_tiny_model

    checkpoint = build_tiny_model("qwen2_vl", tmp_path / "tiny-qwen2-vl")
    study = load_study(Path(__file__).parents[2] / "studies" / "tiny-transformers.toml")
    (model,) = study.models
    study = study.model_copy(
        update={
            "models": [
                model.model_copy(
                    update={
                        "checkpoint": str(checkpoint),
                        "settings": {**model.settings, "trust_remote_code": True},  # its processor's code
                    }
                )
            ],
            "image_set": study.image_set.model_copy(update={"size": FACES, "cache_dir": cache}),
            "batch_size": 16,  # units of one image's 16 prompts
        }
    )
    local = run_study(study, RunOptions(database=tmp_path / "local.duckdb", progress=False))
    executor = KillOneWorker()
    remote = run_study(study, RunOptions(database=tmp_path / "ray.duckdb", progress=False), executor=executor)
    assert executor.killed is not None
    assert remote.n_written == local.n_written > 0
    columns = "image_id, scenario_id, ordering, seed, response_text, p_favorable, p_neither"
    with (
        duckdb.connect(str(local.database), read_only=True) as a,
        duckdb.connect(str(remote.database), read_only=True) as b,
    ):
        expected = a.sql(f"SELECT {columns} FROM judgment ORDER BY ALL").pl()
        got = b.sql(f"SELECT {columns} FROM judgment ORDER BY ALL").pl()
    assert got.drop("p_favorable", "p_neither").equals(expected.drop("p_favorable", "p_neither"))
    assert (got["p_favorable"] - expected["p_favorable"]).abs().max() < 1e-5


def test_bad_settings_fail_in_one_line_before_the_database_exists(
    cluster: str, cache: Path, tmp_path: Path
) -> None:
    path = study_file(tmp_path, cache, settings="seed = 3\nnot_a_setting = 1")
    with pytest.raises(ConfigError, match="not_a_setting") as err:
        run_study(load_study(path), RunOptions(progress=False), executor=RayExecutor())
    assert "\n" not in str(err.value)
    assert not (tmp_path / "t.duckdb").exists()


def test_actor_resources_follow_the_model_and_the_cluster() -> None:
    cpu_only = {"CPU": 8.0}
    gpus = {"CPU": 16.0, "GPU": 4.0}
    sim = ModelConfig(model_id="s", backend="simulated")
    assert [(r.num_cpus, r.num_gpus) for r in actor_resources(sim, cpu_only, None)] == [(1.0, 0.0)] * 8
    hf = ModelConfig(model_id="h", backend="transformers", checkpoint="x", settings={"gpus_per_replica": 2})
    assert [r.num_gpus for r in actor_resources(hf, gpus, None)] == [2.0, 2.0]
    assert [r.num_gpus for r in actor_resources(hf, cpu_only, 3)] == [0.0] * 3  # device auto: the CPU
    cuda = ModelConfig(model_id="c", backend="transformers", checkpoint="x", settings={"device": "cuda"})
    with pytest.raises(ConfigError, match="0 GPUs"):
        actor_resources(cuda, cpu_only, None)
    urls = ["http://a:8000/v1", "http://b:8000/v1", "http://c:8000/v1"]
    api = ModelConfig(model_id="o", backend="openai", checkpoint="m", settings={"base_urls": urls})
    replicas = actor_resources(api, gpus, None)
    assert [r.model.settings["base_urls"] for r in replicas] == [[u] for u in urls]
    assert all(r.num_gpus == 0 and r.num_cpus < 1 for r in replicas)


def test_ray_executor_options_are_checked() -> None:
    """The names and pairings are checked by RunOptions (tests/execution/test_run_options.py)."""
    assert isinstance(RunOptions(executor="ray", workers=2).build_executor(), RayExecutor)
    with pytest.raises(ConfigError, match="--workers 0"):
        RunOptions(executor="ray", workers=0).build_executor()


def test_errors_on_a_worker_reach_the_driver_in_one_line(cluster: str) -> None:
    """A backend's own error raised inside an actor is raised as itself; any other failure of a
    worker is one line naming the model."""

    def refuse() -> None:
        raise ConfigError("model 'sim': settings.base_urls: the server said no")

    def crash() -> None:
        raise ZeroDivisionError("division by zero")

    model = ModelConfig(model_id="sim", backend="simulated")
    executor = RayExecutor()
    with pytest.raises(ConfigError, match="the server said no"):
        executor._get(ray.remote(refuse).remote(), model)
    with pytest.raises(CueshiftError, match="model 'sim': a Ray worker failed: ZeroDivisionError") as err:
        executor._get(ray.remote(crash).remote(), model)
    assert "\n" not in str(err.value)


def test_two_image_trials_and_ratings_on_ray_equal_the_local_run(cluster: str, tmp_path: Path) -> None:
    """The pairwise design (seed 002, 10 portraits, its first two models, seeds 0 and 1): trials
    grouped by left image, ratings by image."""
    (tmp_path / "study").mkdir()
    study = _design_study("pairwise", tmp_path / "study", "s")
    local = run_study(study, RunOptions(database=tmp_path / "local.duckdb", progress=False))
    remote = run_study(
        study, RunOptions(database=tmp_path / "ray.duckdb", progress=False), executor=RayExecutor()
    )
    assert remote.n_written == local.n_written > 0
    for table, columns in (
        ("pairwise_trial", "model_id, left_image_id, right_image_id, scenario_id, seed, response_text"),
        ("rating", "rater_id, image_id, attribute, seed, rating, response_text"),
    ):
        with (
            duckdb.connect(str(local.database), read_only=True) as a,
            duckdb.connect(str(remote.database), read_only=True) as b,
        ):
            expected = a.sql(f"SELECT {columns} FROM {table} ORDER BY ALL").pl()
            got = b.sql(f"SELECT {columns} FROM {table} ORDER BY ALL").pl()
        assert got.height > 0 and got.equals(expected), table


def test_an_openai_model_gets_one_client_actor_per_server(cluster: str, cache: Path, tmp_path: Path) -> None:
    """Two local chat-completions servers in base_urls: two client actors, the local run's answers."""
    import json

    from cueshift.designs.registry import parse_study
    from tests.hardening.openai_study import study_data
    from tests.inference.chat_server import serve

    servers = serve()
    make = next(servers)
    try:
        urls = [make()[1], make()[1]]
        data = study_data(tmp_path, cache, urls[0])
        data["models"][0]["settings"]["base_urls"] = urls
        data["prompt"] = {"orderings": [1, 2]}
        study = parse_study(data, "test")
        local = run_study(study, RunOptions(database=tmp_path / "local.duckdb", progress=False))
        remote = run_study(
            study, RunOptions(database=tmp_path / "ray.duckdb", progress=False), executor=RayExecutor()
        )
    finally:
        next(servers, None)
    columns = "image_id, scenario_id, ordering, seed, response_text, outcome"
    with (
        duckdb.connect(str(local.database), read_only=True) as a,
        duckdb.connect(str(remote.database), read_only=True) as b,
    ):
        expected = a.sql(f"SELECT {columns} FROM judgment ORDER BY ALL").pl()
        got = b.sql(f"SELECT {columns} FROM judgment ORDER BY ALL").pl()
        (report,) = b.execute("SELECT backend_report FROM run").fetchall()[0]
    assert got.height > 0 and got.equals(expected)
    assert len(json.loads(report)["served"]["replicas"]) == 2  # each server answered its own actor

"""The README's Python API block runs: its read lines against a small default study (the default
study's two simulated judges on two demo faces), analysed as the API fixtures are."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

import cueshift as cs
from cueshift.api import write_demo_study
from tests.api.conftest import RESAMPLES, SEED

ROOT = Path(__file__).resolve().parents[2]
#: The default study's database as the README names it (replaced by the small study's).
README_DB = '"runs/default.duckdb"'


def readme_python_api_reads() -> str:
    """The README's Python API block up to the commands that write (``cs.infer``, ``cs.analyze``)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### Python API\n.*?```python\n(.*?)```", readme, re.S)
    assert block is not None, "README: no Python API block"
    reads = block.group(1).split("\ncs.infer(")[0]
    assert README_DB in reads
    return reads


@pytest.fixture(scope="module")
def small_default(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default study's models on two demo faces, judged and analysed: its database."""
    folder = tmp_path_factory.mktemp("readme-default")
    study_file = write_demo_study(folder, name="default")
    default = (ROOT / "studies" / "default.toml").read_text(encoding="utf-8")
    models = default[default.index("[[models]]") :]
    text = study_file.read_text(encoding="utf-8")
    study_file.write_text(text[: text.index("[[models]]")] + models, encoding="utf-8")
    summary = cs.infer(study_file, progress=False)
    cs.analyze(study_file, db=summary.database, resamples=RESAMPLES, seed=SEED)
    return summary.database


def test_the_readme_python_api_reads_run_on_the_default_study(small_default: Path) -> None:
    reads = readme_python_api_reads()
    for line in (
        "cs.open_study(",
        'study.results("sbs")',
        "study.delta()",
        "study.judgments(",
        'study.sql("SELECT count(*) FROM judgment")',
    ):
        assert line in reads, line
    namespace: dict[str, object] = {}
    exec(reads.replace(README_DB, repr(str(small_default))), namespace)  # noqa: S102
    study = namespace["study"]
    assert isinstance(study, cs.Study)
    assert study.models() == ["sim-judge", "sim-judge-b"]
    argument = re.search(r"study\.judgments\((.*?)\)", reads)
    assert argument is not None
    judged = eval(f"study.judgments({argument.group(1)})", {"study": study})  # noqa: S307
    assert isinstance(judged, pl.DataFrame) and judged.height > 0

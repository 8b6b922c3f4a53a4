"""``check-invariance`` on a tiny LLaVA-NeXT study run by the runner on the CPU: a correct backend
answers identically one at a time and batched; a planted padding bug (suffixes left-padded without
an attention mask, so real tokens attend to padding in batches only) is found and flagged."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import cueshift as cs  # noqa: E402
import cueshift.inference.backends.hf_score as hf_score  # noqa: E402
from cueshift.designs.registry import load_study  # noqa: E402
from cueshift.errors import ConfigError  # noqa: E402
from cueshift.execution.invariance import check_invariance_study  # noqa: E402
from cueshift.execution.run_options import RunOptions  # noqa: E402
from cueshift.execution.runner import run_study  # noqa: E402
from cueshift.execution.status import study_status  # noqa: E402
from cueshift.inference.stand_ins.tiny import build_tiny_model  # noqa: E402
from cueshift.study.config import Study  # noqa: E402

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model("llava_next", tmp_path_factory.mktemp("ckpt") / "llava_next")


def _study(checkpoint: Path, root: Path, **settings: Any) -> Study:
    study = load_study(ROOT / "studies" / "tiny-transformers.toml")
    (model,) = study.models
    model = model.model_copy(
        update={
            "checkpoint": str(checkpoint),
            "settings": {**model.settings, "device": "cpu", "dtype": "float32", **settings},
        }
    )
    return study.model_copy(
        update={
            "models": [model],
            "image_set": study.image_set.model_copy(update={"cache_dir": root / "demo"}),
            "database": root / "tiny.duckdb",
        }
    )


def _left_padded(model: Any, enc: Any, *, batch_size: int, **_: Any) -> list[tuple[float, float]]:
    """score_shared_prefix with the padding side flipped: rows of a batch are left-padded and no
    attention mask hides the padding (the lmms-eval #236 kind of bug); a batch of one is exact."""
    import copy

    cache = hf_score.prefix_cache(model, enc)
    rows = hf_score.score_rows(enc)
    result = [[float("nan"), float("nan")] for _ in enc.suffix_ids]
    with torch.inference_mode():
        for lo in range(0, len(rows), batch_size):
            chunk = rows[lo : lo + batch_size]
            width = max(len(r.tokens) for r in chunk)
            keep = max(len(r.tokens) - r.start for r in chunk)
            ids = torch.tensor([[r.tokens[0]] * (width - len(r.tokens)) + r.tokens for r in chunk])
            positions = torch.tensor(  # each row's own positions, shifted by its left padding
                [[width - len(r.tokens) + min(r.start + j, len(r.tokens) - 1) for j in range(keep)]
                 for r in chunk]
            )  # fmt: skip
            past = copy.deepcopy(cache)
            past.batch_repeat_interleave(len(chunk))
            out = model(input_ids=ids, past_key_values=past, use_cache=True, logits_to_keep=positions)
            logits = out.logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            for i, row in enumerate(chunk):
                hf_score._collect(row, logprobs[i], result)
    return [(a, b) for a, b in result]


def test_a_correct_backend_answers_identically(checkpoint: Path, tmp_path: Path) -> None:
    study = _study(checkpoint, tmp_path)
    _assert_identical(study)
    pytest.importorskip("great_tables")
    from cueshift.designs.stylisticbias.report import CATALOG
    from cueshift.render import Report

    with Report.open(study.database_path, None, CATALOG) as report:
        assert report.text("invariance_summary").text.startswith("No model's answers depend on batching")


def test_qwen_vl_answers_identically(tmp_path: Path) -> None:
    """Another class: Qwen2.5-VL (multimodal rotary offsets from the prefix pass), score mode."""
    checkpoint = build_tiny_model("qwen2_5_vl", tmp_path / "qwen2_5_vl")
    _assert_identical(_study(checkpoint, tmp_path, trust_remote_code=True))


def _assert_identical(study: Study) -> None:
    run_study(study, RunOptions(database=study.database_path, progress=False))
    _, frame = check_invariance_study(study.database_path, study, sample=40, seed=1)
    rows = {r["comparison"]: r for r in frame.iter_rows(named=True)}
    assert set(rows) == {"one_at_a_time", "batched"}
    for row in rows.values():
        assert row["n"] == 40 and row["share_identical"] == 1.0 and not row["flagged"]
        assert row["phi_diff"] == 0.0 and row["max_abs_p_diff"] < 1e-4
    assert (rows["one_at_a_time"]["batch_size"], rows["batched"]["batch_size"]) == (1, 32)
    assert not study_status(study.database_path).invariance_flags
    assert cs.status(db=study.database_path)["depends_on_batching"].to_list() == [False]


def test_a_planted_padding_bug_is_flagged(
    checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hf_score, "score_shared_prefix", _left_padded)
    study = _study(checkpoint, tmp_path)
    run_study(study, RunOptions(database=study.database_path, progress=False))
    _, frame = check_invariance_study(study.database_path, study, sample=96, seed=0)
    rows = {r["comparison"]: r for r in frame.iter_rows(named=True)}
    alone, batched = rows["one_at_a_time"], rows["batched"]
    assert alone["share_identical"] < 0.99 and alone["flagged"]
    assert alone["max_abs_p_diff"] > 1e-3 and alone["n_identical"] == round(alone["share_identical"] * 96)
    assert batched["share_identical"] == 1.0 and not batched["flagged"]  # the bug reproduces itself
    flags = study_status(study.database_path).invariance_flags
    assert len(flags) == 1 and "tiny-llava-next" in flags[0] and "one at a time" in flags[0]
    _assert_report_flags(study.database_path, alone["share_identical"])


def _assert_report_flags(database: Path, share: float) -> None:
    """The StylisticBias report's section 'invariance': the sentence and Table B1 flag the model."""
    pytest.importorskip("great_tables")
    from cueshift.designs.stylisticbias.report import CATALOG
    from cueshift.render import Report

    with Report.open(database, None, CATALOG) as report:
        sentence = report.text("invariance_summary").text
        rows = report.styled("invariance").texts()
    assert sentence.startswith("**FLAG: answers depend on batching** for tiny-llava-next (one at a time")
    assert f"{share:.1%}".replace("-", "") in sentence
    verdicts = {row[1]: row[-1] for row in rows}
    assert verdicts == {"batched": "ok", "one at a time": "FLAG"}


def test_bad_options_are_one_line(checkpoint: Path, tmp_path: Path) -> None:
    study = _study(checkpoint, tmp_path)
    with pytest.raises(ConfigError, match="--sample 0"):
        check_invariance_study(study.database_path, study, sample=0)
    with pytest.raises(ConfigError, match="--bound 1.5"):
        check_invariance_study(study.database_path, study, bound=1.5)
    with pytest.raises(Exception, match="no such study database"):
        check_invariance_study(study.database_path, study)
    assert not study.database_path.exists()


def test_the_commands_print_and_flag(
    checkpoint: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cueshift check-invariance` on a study file, then `cueshift status`, with the planted bug."""
    from typer.testing import CliRunner

    from cueshift.cli import app

    text = (ROOT / "studies" / "tiny-transformers.toml").read_text(encoding="utf-8")
    text = text.replace('checkpoint = ".cueshift-cache/tiny-llava_next"', f"checkpoint = {str(checkpoint)!r}")
    text = text.replace('device = "auto"', 'device = "cpu"').replace('dtype = "auto"', 'dtype = "float32"')
    text = text.replace("[image_set]\n", f"database = {str(tmp_path / 'cli.duckdb')!r}\n\n[image_set]\n")
    text = text.replace('kind = "demo"', f'kind = "demo"\ncache_dir = {str(tmp_path / "demo")!r}')
    study_file = tmp_path / "tiny.toml"
    study_file.write_text(text, encoding="utf-8")
    monkeypatch.setattr(hf_score, "score_shared_prefix", _left_padded)
    runner = CliRunner()
    refused = runner.invoke(app, ["check-invariance", "--study", str(study_file), "--sample", "0"])
    assert refused.exit_code == 2 and "--sample 0: use 1 or more" in refused.output
    assert not (tmp_path / "cli.duckdb").exists()
    run_study(load_study(study_file), RunOptions(progress=False))
    assert cs.status(study_file)["depends_on_batching"].to_list() == [None]  # not checked yet
    done = runner.invoke(app, ["check-invariance", "--study", str(study_file), "--sample", "64"])
    assert done.exit_code == 0, done.output
    assert "result_invariance" in done.output and "FLAG model tiny-llava-next" in done.output
    status = runner.invoke(app, ["status", "--study", str(study_file)])
    assert status.exit_code == 0
    assert "FLAG model 'tiny-llava-next': answers depend on batching" in status.output
    assert cs.status(study_file)["depends_on_batching"].to_list() == [True]


def test_a_seeded_generate_run_answers_identically(checkpoint: Path, tmp_path: Path) -> None:
    """Generate mode at temperature 0.2: the same seeds give the same answers one at a time and
    batched; score mode's greedy answer is reported beside them, not held to the bound."""
    study = _study(checkpoint, tmp_path, mode="generate", max_new_tokens=4, batch_size=8)
    run_study(study, RunOptions(database=study.database_path, progress=False))
    _, frame = check_invariance_study(study.database_path, study, sample=24, seed=2)
    rows = {r["comparison"]: r for r in frame.iter_rows(named=True)}
    assert set(rows) == {"one_at_a_time", "batched", "score"}
    for name in ("one_at_a_time", "batched"):
        assert rows[name]["share_identical"] == 1.0 and rows[name]["checked"] and not rows[name]["flagged"]
    assert rows["score"]["n"] == 24 and not rows["score"]["checked"] and not rows["score"]["flagged"]
    assert rows["batched"]["mode"] == "generate" and rows["batched"]["batch_size"] == 8

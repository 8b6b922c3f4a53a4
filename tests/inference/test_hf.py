"""The transformers backend on tiny random models of every supported architecture class.

No hub, no network: each model, tokenizer, image processor and processor is built from a
config in :mod:`cueshift.inference.stand_ins.tiny`. Torch runs single-threaded (the machines
are shared, and tiny matmuls are slower with more threads).
"""

from __future__ import annotations

import math
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import pytest  # noqa: E402

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("quiet_torch")  # torch on one thread (tests/inference/conftest.py)

from PIL import Image  # noqa: E402

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.errors import ConfigError, CueshiftError  # noqa: E402
from cueshift.inference.backends import backend_spec  # noqa: E402
from cueshift.inference.backends.base import ImageRecord, StudyContext  # noqa: E402
from cueshift.inference.backends.hf import TransformersBackend  # noqa: E402
from cueshift.inference.backends.hf_answers import answer_from_logprobs, judgment_seed, phi_at_temperature  # noqa: E402
from cueshift.inference.backends.hf_prompts import encode_image  # noqa: E402
from cueshift.inference.backends.hf_score import score_full, score_shared_prefix  # noqa: E402
from cueshift.inference.stand_ins.tiny import ARCHS, REMOTE_CODE, build_tiny, build_tiny_model, main  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE  # noqa: E402

# scenarios whose descriptors tokenize to different lengths, so suffix padding is exercised
KEEP = {"competent", "emotionally_stable"}
SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25 if s.scenario_id in KEEP}


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> StudyContext:
    """Three tiny images of different sizes (so processors tile and resize differently)."""
    root = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(0)
    images = {}
    for i, size in enumerate([(40, 30), (32, 48), (64, 64)]):
        path = root / f"face{i}.png"
        Image.fromarray(rng.integers(0, 255, (size[1], size[0], 3), dtype=np.uint8)).save(path)
        images[f"face{i}"] = ImageRecord(
            f"face{i}", f"id{i}", path, "base", None, None, None, "portrait", None, None, None, None
        )
    return StudyContext(images=images, scenarios=SCENARIOS, template=RELEASED_TEMPLATE)


def _batch(images: list[str], scenarios: list[str], orderings: list[int], seeds: list[int]) -> pl.DataFrame:
    rows = [(i, s, o, k) for i in images for s in scenarios for o in orderings for k in seeds]
    return pl.DataFrame(
        rows,
        schema={"image_id": pl.String, "scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32},
        orient="row",
    )


def _backend(context: StudyContext, loaded: Any, **settings: Any) -> TransformersBackend:
    cfg = ModelConfig(model_id="tiny", backend="transformers", checkpoint="in-memory", settings=settings)
    return TransformersBackend(cfg, context, loaded=loaded)


@pytest.fixture(scope="module", params=list(ARCHS))
def tiny(request: pytest.FixtureRequest) -> tuple[str, Any]:
    """(arch, (model, processor)), built once per architecture."""
    return request.param, build_tiny(request.param, seed=1)


def _prompts(context: StudyContext) -> list[str]:
    scenarios = context.scenarios.values()
    return [ORDERING_BY_ID[o].render(context.template, s) for s in scenarios for o in (1, 2, 3, 4)]


def _assert_equivalent(model: Any, processor: Any, context: StudyContext, image_id: str) -> list[float]:
    """Shared-prefix scores equal plain full forward passes; returns P(a | a or b) per prompt."""
    with Image.open(context.images[image_id].path) as im:
        image = im.convert("RGB")
    enc = encode_image(processor, image, _prompts(context))
    assert len({len(s) for s in enc.suffix_ids}) > 1, "suffixes should differ in length (padding path)"
    fast = score_shared_prefix(model, enc, batch_size=3)  # chunks of 3: a partial last chunk too
    one_copy = score_shared_prefix(model, enc, batch_size=3, shared_attention=True)  # cascade attention
    slow = score_full(model, enc)
    p_a = []
    for (la, lb), (sa, sb), (ra, rb) in zip(fast, one_copy, slow, strict=True):
        assert abs(la - ra) < 1e-4 and abs(lb - rb) < 1e-4
        assert abs(sa - ra) < 1e-4 and abs(sb - rb) < 1e-4
        _, pa, neither = answer_from_logprobs(la, lb)
        _, qa, q_neither = answer_from_logprobs(ra, rb)
        assert pa is not None and qa is not None
        assert abs(pa - qa) < 1e-4 and abs(neither - q_neither) < 1e-4
        p_a.append(pa)
    return p_a


# --- one test per architecture class --------------------------------------------------------------


def test_score_mode(tiny: tuple[str, Any], context: StudyContext) -> None:
    arch, loaded = tiny
    backend = _backend(context, loaded, mode="score", batch_size=5)
    assert backend.deterministic and backend.mode == "score"
    batch = _batch(list(context.images), list(context.scenarios), [1, 2, 3, 4], [1, 2])
    answers = backend.judge(batch)
    assert answers.p_favorable is not None and answers.p_neither is not None
    assert len(answers.response_text) == batch.height
    for row, text, p_fav, neither in zip(
        batch.iter_rows(named=True),
        answers.response_text,
        answers.p_favorable,
        answers.p_neither,
        strict=True,
    ):
        assert text in {"(a)", "(b)"}
        assert p_fav is not None and 0.0 <= p_fav <= 1.0 and neither is not None and 0.0 <= neither <= 1.0
        fav_letter = ORDERING_BY_ID[row["ordering"]].favorable_letter
        # the greedy letter is the favorable one exactly when P(favorable) > 1/2
        assert (text == f"({fav_letter})") == (p_fav > 0.5), arch
    # seeds do not matter in score mode: rows that differ only by seed are identical
    frame = batch.with_columns(p=pl.Series(answers.p_favorable), t=pl.Series(answers.response_text))
    per_key = frame.group_by("image_id", "scenario_id", "ordering").agg(
        pl.col("p").n_unique(), pl.col("t").n_unique()
    )
    assert per_key["p"].max() == 1 and per_key["t"].max() == 1
    assert all(lat >= 0 for lat in answers.latency_ms)


def test_generate_mode_reproduces(tiny: tuple[str, Any], context: StudyContext) -> None:
    arch, loaded = tiny
    backend = _backend(context, loaded, mode="generate", max_new_tokens=4)
    assert not backend.deterministic
    batch = _batch(list(context.images)[:2], ["competent"], [1, 3], [1, 2])
    first = backend.judge(batch)
    assert first.p_favorable is None and len(first.response_text) == batch.height
    assert all(isinstance(t, str) for t in first.response_text)
    # rerun in another order and split across calls: every judgment is seeded on its own
    again = backend.judge(batch.reverse())
    assert list(reversed(again.response_text)) == first.response_text, arch
    # the release protocol (no prefix reuse, image processed per prompt) samples the same answers
    plain = _backend(context, loaded, mode="generate", max_new_tokens=4, shared_prefix=False)
    assert plain.judge(batch).response_text == first.response_text, arch


def test_prefix_cache_equals_full_forward(tiny: tuple[str, Any], context: StudyContext) -> None:
    _, (model, processor) = tiny
    p_a = _assert_equivalent(model, processor, context, "face0")
    # perturbed weights: far from uniform, so the comparison means something
    assert max(abs(p - 0.5) for p in p_a) > 0.05


@pytest.mark.parametrize("arch", ["llava_next", "qwen2_vl", "gemma3"])
def test_multi_token_answers(arch: str, context: StudyContext) -> None:
    """When "(a)" splits into "(" "a" ")", the whole sequence is scored (two rows per prompt)."""
    model, processor = build_tiny(arch, seed=2, whole_answers=False)
    with Image.open(context.images["face1"].path) as im:
        enc = encode_image(processor, im.convert("RGB"), _prompts(context))
    ans_a, ans_b = enc.answers[0]
    assert len(ans_a) == len(ans_b) == 3 and ans_a[0] == ans_b[0] and ans_a[1] != ans_b[1]
    _assert_equivalent(model, processor, context, "face1")


# --- mapping, formulas, settings ------------------------------------------------------------------


def test_favorable_mapping_flips_with_letter(monkeypatch: pytest.MonkeyPatch, context: StudyContext) -> None:
    """With the same scores for every prompt, orderings 3/4 (favorable = b) get 1 - P(a)."""
    import cueshift.inference.backends.hf_score as hf_score

    la, lb = math.log(0.3), math.log(0.1)  # P(a | a or b) = 0.75, neither = 0.6
    monkeypatch.setattr(
        hf_score, "score_shared_prefix", lambda model, enc, **_: [(la, lb)] * len(enc.suffix_ids)
    )
    backend = _backend(context, build_tiny("idefics3"))
    answers = backend.judge(_batch(["face0"], ["competent"], [1, 2, 3, 4], [0]))
    assert answers.p_favorable == pytest.approx([0.75, 0.75, 0.25, 0.25])
    assert answers.p_neither == pytest.approx([0.6] * 4)
    assert answers.response_text == ["(a)"] * 4


def test_answer_from_logprobs() -> None:
    assert answer_from_logprobs(math.log(0.2), math.log(0.6)) == pytest.approx(("(b)", 0.25, 0.2))
    text, p_a, neither = answer_from_logprobs(-800.0, -801.0)  # underflow-safe
    assert text == "(a)" and p_a == pytest.approx(1 / (1 + math.exp(-1))) and neither == 1.0
    assert answer_from_logprobs(-1.0, -1.0)[0] == "tie"
    assert answer_from_logprobs(-math.inf, -math.inf)[1] is None


def test_phi_at_temperature() -> None:
    assert phi_at_temperature(0.6, 1.0) == pytest.approx(0.6)
    assert phi_at_temperature(0.6, 0.2) == pytest.approx(1 / (1 + (0.4 / 0.6) ** 5))
    assert phi_at_temperature(0.6, 0.0) == 1.0 and phi_at_temperature(0.4, 0.0) == 0.0
    assert phi_at_temperature(0.5, 0.0) == 0.5 and phi_at_temperature(0.5, 0.2) == pytest.approx(0.5)
    out = phi_at_temperature(np.array([0.0, 0.3, 1.0]), 0.5)
    assert isinstance(out, np.ndarray) and out[0] == 0.0 and out[2] == 1.0
    with pytest.raises(ValueError):
        phi_at_temperature(0.5, -1.0)


def test_judgment_seed_is_stable_and_distinct() -> None:
    a = judgment_seed(1, "img", "competent", 1)
    assert a == judgment_seed(1, "img", "competent", 1) and 0 <= a < 2**63
    assert len({a, judgment_seed(2, "img", "competent", 1), judgment_seed(1, "img", "competent", 2)}) == 3


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"mode": "sample"}, "settings.mode"),
        ({"temperature": -1}, "settings.temperature"),
        ({"batchsize": 8}, "settings.batchsize"),
        ({"dtype": "int8"}, "settings.dtype"),
    ],
)
def test_bad_settings_are_one_line_config_errors(
    settings: dict[str, Any], field: str, context: StudyContext
) -> None:
    cfg = ModelConfig(model_id="m", backend="transformers", checkpoint="x", settings=settings)
    with pytest.raises(ConfigError) as err:
        TransformersBackend(cfg, context)
    assert field in str(err.value) and "\n" not in str(err.value)


# --- checkpoints on disk --------------------------------------------------------------------------


@pytest.mark.parametrize("arch", ["llava_next", "qwen2_5_vl"])
def test_checkpoint_directory(
    arch: str, tmp_path: Path, context: StudyContext, capsys: pytest.CaptureFixture[str]
) -> None:
    """`python -m cueshift.inference.stand_ins.tiny` writes a directory the registry's backend loads.

    Both through AutoProcessor, the backend's ordinary path: qwen2_5_vl's directory carries
    its processor's code (no torchvision), so it needs trust_remote_code.
    """
    out = tmp_path / arch
    assert main([arch, str(out)]) == 0 and str(out) in capsys.readouterr().out
    cls = backend_spec("transformers").backend_class()
    assert cls is TransformersBackend
    settings: dict[str, Any] = {"device": "cpu", "dtype": "float32"}
    if arch in REMOTE_CODE:
        cfg = ModelConfig(model_id="tiny", backend="transformers", checkpoint=str(out), settings=settings)
        with pytest.raises(CueshiftError, match=r"cannot load .*custom code") as refused:
            cls(cfg, context)
        assert "\n" not in str(refused.value)
        settings["trust_remote_code"] = True
    cfg = ModelConfig(model_id="tiny", backend="transformers", checkpoint=str(out), settings=settings)
    backend = cls(cfg, context)
    answers = backend.judge(_batch(["face2"], ["competent"], [1, 4], [0]))
    assert answers.response_text[0] in {"(a)", "(b)"}
    batch = _batch(["face2"], ["competent"], [1, 4], [0])
    in_memory = _backend(context, build_tiny(arch, seed=0)).judge(batch)
    assert answers.p_favorable == pytest.approx(in_memory.p_favorable, abs=1e-6)
    backend.close()


@pytest.mark.parametrize("arch", list(ARCHS))
def test_every_tiny_directory_loads_its_processor_through_auto_processor(arch: str, tmp_path: Path) -> None:
    """No arch is special-cased on load: AutoProcessor reads back a processor that encodes a chat
    turn with an image exactly as the one built in memory."""
    from transformers import AutoProcessor

    directory = build_tiny_model(arch, tmp_path / arch)
    loaded = AutoProcessor.from_pretrained(directory, trust_remote_code=arch in REMOTE_CODE)
    _, in_memory = build_tiny(arch)
    image = Image.fromarray(np.random.default_rng(0).integers(0, 255, (40, 48, 3), dtype=np.uint8))
    turn: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "(a) or (b)?"}]}
    ]
    encoded = [
        p(images=[image], text=[p.apply_chat_template(turn, add_generation_prompt=True)], return_tensors="pt")
        for p in (loaded, in_memory)
    ]
    assert type(loaded).__name__ == type(in_memory).__name__
    assert encoded[0].keys() == encoded[1].keys()
    for key in encoded[1]:
        assert torch.equal(encoded[0][key], encoded[1][key]), key


def test_missing_checkpoint_is_one_line(tmp_path: Path, context: StudyContext) -> None:
    cfg = ModelConfig(
        model_id="m", backend="transformers", checkpoint=str(tmp_path / "nowhere"), settings={"device": "cpu"}
    )
    with pytest.raises(Exception) as err:
        TransformersBackend(cfg, context)
    assert "cannot load" in str(err.value) and "\n" not in str(err.value)


def test_build_tiny_model_rejects_unknown_arch(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown tiny architecture"):
        build_tiny_model("llama_vision", tmp_path)
    assert main(["nope", str(tmp_path)]) == 2


def test_tiny_study_file_runs_end_to_end(tmp_path: Path) -> None:
    """studies/tiny-transformers.toml through the runner: score mode, seed 0 only, once per judgment."""
    import duckdb

    from cueshift.designs.registry import load_study
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.runner import run_study

    study = load_study(Path(__file__).parents[2] / "studies" / "tiny-transformers.toml")
    (model,) = study.models
    checkpoint = build_tiny_model("llava_next", tmp_path / "ckpt")
    study = study.model_copy(
        update={
            "models": [model.model_copy(update={"checkpoint": str(checkpoint)})],
            "image_set": study.image_set.model_copy(update={"cache_dir": tmp_path / "demo"}),
        }
    )
    database = tmp_path / "tiny.duckdb"
    run_study(study, RunOptions(database=database, progress=False))
    with duckdb.connect(str(database), read_only=True) as con:
        seeds, n, n_keys, bad = con.execute(
            "SELECT list(DISTINCT seed), count(*), count(DISTINCT (image_id, scenario_id, ordering)), "
            "count(*) FILTER (p_favorable IS NULL OR outcome = 'invalid') FROM judgment"
        ).fetchone()  # type: ignore[misc]
    assert seeds == [0] and n == n_keys > 0 and bad == 0
    again = run_study(study, RunOptions(database=database, progress=False))
    assert again.n_written == 0  # resumes to nothing


def test_paired_design_runs_on_a_tiny_transformers_model(tmp_path: Path) -> None:
    """studies/paired-001.toml (seed 001) with its judge swapped for a tiny LLaVA-NeXT in score mode."""
    import duckdb

    from cueshift.designs.registry import load_study
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.runner import run_study
    from cueshift.study.config import ModelConfig

    study = load_study(Path(__file__).parents[2] / "studies" / "paired-001.toml")
    checkpoint = build_tiny_model("llava_next", tmp_path / "ckpt")
    study = study.model_copy(
        update={
            "models": [ModelConfig(model_id="tiny", backend="transformers", checkpoint=str(checkpoint))],
            "scenarios": study.scenarios.model_copy(
                update={"only": ["job-chef-vs-baker", "job-aircraft-pilot-vs-flight-attendant"]}
            ),
            "database": tmp_path / "paired.duckdb",
        }
    )
    summary = run_study(study, RunOptions(database=None, progress=False, limit=None), console=None)
    with duckdb.connect(str(summary.database), read_only=True) as con:
        seeds, n, n_keys, n_scored = con.execute(
            "SELECT list(DISTINCT seed), count(*), count(DISTINCT (image_id, scenario_id, ordering)), "
            "count(p_favorable) FROM judgment"
        ).fetchone()  # type: ignore[misc]
        (n_filtered,) = con.execute(
            "SELECT count(*) FROM image WHERE feature_key = 'beauty_filter'"
        ).fetchone()  # type: ignore[misc]
    assert seeds == [0] and n == n_keys == n_scored > 0 and n_filtered > 0

"""Echoed prompts in release answers (the release's local LLaVA-v1.6 / Phi-4 backends decode prompt
and answer together): cut off only when the text up to the answer is the chat template around the
prompt that was sent, then read by the same strict parser."""

from __future__ import annotations

import io
import json
from pathlib import Path

import duckdb
import pytest
from rich.console import Console

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.images.release_echo import answer_span
from cueshift.imports.console import print_judgment_summary
from cueshift.imports.judgments import import_judgments
from cueshift.inference.parser import parse_answer
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE
from tests.images.release_layout import release_study, write_release_images, write_release_judgments

SCENARIO = STYLISTICBIAS_25[0]
PROMPT = ORDERING_BY_ID[1].render(RELEASED_TEMPLATE, SCENARIO)
OPTIONS = ORDERING_BY_ID[1].descriptor_by_letter(SCENARIO)


def llava_v16(prompt: str, answer: str) -> str:
    """``LlavaNextForConditionalGeneration`` + ``batch_decode(skip_special_tokens=True)``: the Mistral
    template ``[INST] <image>\\n{prompt} [/INST]`` with the image tokens dropped."""
    return f"[INST]  \n{prompt} [/INST] {answer}"


def phi4_tokens(prompt: str, answer: str) -> str:
    """Phi-4-multimodal's template when its role tokens survive decoding."""
    return f"<|user|><|image_1|>{prompt}<|end|><|assistant|>{answer}<|end|>"


def phi4_plain(prompt: str, answer: str) -> str:
    """Phi-4-multimodal with its special tokens skipped: prompt and answer run together."""
    return f"{prompt}{answer}"


def vicuna(prompt: str, answer: str) -> str:
    return f"USER: <image>\n{prompt} ASSISTANT: {answer}"


@pytest.mark.parametrize("shape", [llava_v16, phi4_tokens, phi4_plain, vicuna])
@pytest.mark.parametrize(
    ("answer", "letter"), [("(a)", "a"), ("(b)", "b"), ("(B).", "b"), ("(a) or (b)", None)]
)
def test_echoed_prompt_is_cut_and_the_answer_parsed_strictly(shape, answer, letter):
    raw = shape(PROMPT, answer)
    assert parse_answer(raw, OPTIONS).letter is None  # the echo names both options: lost without the cut
    start, end = answer_span(raw, PROMPT)
    assert raw[start:end] == answer
    assert parse_answer(raw[start:end], OPTIONS).letter == letter


def test_markers_match_case_insensitively_and_white_space_loosely():
    raw = "[inst] " + " \n ".join(PROMPT.upper().split()) + " [/Inst]  (b)"
    start, end = answer_span(raw, PROMPT)
    assert raw[start:end] == "(b)"


@pytest.mark.parametrize(
    "raw",
    [
        "(b) is my guess [/INST] (a)",  # an answer that mentions the marker: no prompt before it
        "[INST] Is the person competent? [/INST] (a)",  # another prompt than the one sent
        f"I think (b). {PROMPT} [/INST] (a)",  # the prompt, but not at the start
        "(a)",
        "",
    ],
)
def test_answers_without_the_prompt_sent_are_left_whole(raw):
    assert answer_span(raw, PROMPT) == (0, len(raw))


def test_a_genuine_answer_mentioning_the_marker_stays_invalid():
    raw = "(b) is my guess [/INST] (a)"
    start, end = answer_span(raw, PROMPT)
    assert parse_answer(raw[start:end], OPTIONS).letter is None


def test_import_cuts_echoes_counts_them_per_model_and_records_them(tmp_path: Path):
    checkout = write_release_images(tmp_path / "StylisticBias")
    scenarios = STYLISTICBIAS_25
    shapes = {"llava-v1.6-mistral-7b": llava_v16, "phi-4-multimodal": phi4_plain}

    def answer(model: str, img: str, s_index: int, order: int, seed: int) -> str:
        prompt = ORDERING_BY_ID[order + 1].render(RELEASED_TEMPLATE, scenarios[s_index])
        letter = "(a)" if (seed + order) % 2 == 0 else "(b)"
        if model == "clean":
            return letter
        if seed == 1 and order == 3:  # one in eight answers came back without the echo
            return letter
        return shapes[model](prompt, letter)

    paths = write_release_judgments(checkout, models=("clean", *shapes), answer=answer)
    n_per_model = len(paths) // 3
    study = release_study(checkout, tmp_path, models=("clean", *shapes))
    result = import_judgments(checkout, study, workers=1)
    rows = {r["model_id"]: r for r in result.agreement.iter_rows(named=True)}
    assert rows["clean"]["echo_stripped"] == 0
    for model in shapes:
        assert rows[model]["echo_stripped"] == n_per_model - n_per_model // 8
    con = duckdb.connect(str(tmp_path / "release.duckdb"), read_only=True)
    try:
        invalid = con.sql("SELECT count(*) FROM judgment WHERE outcome = 'invalid'").fetchall()[0]
        echoed = con.sql(
            "SELECT count(*) FROM judgment WHERE response_text LIKE '%No other text%'"
        ).fetchall()[0]
        letters = con.sql(
            "SELECT model_id, ordering, seed, chosen_letter FROM judgment ORDER BY ALL"
        ).fetchall()
        report = con.sql("SELECT backend_report FROM run").fetchall()[0]
    finally:
        con.close()
    assert invalid == (0,)  # every echoed answer read
    assert echoed == (2 * (n_per_model - n_per_model // 8),)  # response_text keeps the whole output
    assert all(
        letter == ("a" if (seed + ordering - 1) % 2 == 0 else "b") for _, ordering, seed, letter in letters
    )
    assert report is not None
    stored = json.loads(report[0])["release_import"]
    assert {m: stored[m]["echo_stripped"] for m in stored} == {m: r["echo_stripped"] for m, r in rows.items()}
    out = io.StringIO()
    print_judgment_summary(result, Console(file=out, width=250))
    assert (
        "cut to the answer before parsing: clean 0, llava-v1.6-mistral-7b 147, phi-4-multimodal 147"
        in out.getvalue()
    )

"""Study-file errors: one line naming the file and every bad field; misspelt keys get the closest
field names (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cueshift.cli import app
from cueshift.designs import load_study
from cueshift.errors import ConfigError

MODEL = '[[models]]\nmodel_id = "m"\n'


def _error(tmp_path: Path, body: str) -> str:
    path = tmp_path / "bad.toml"
    path.write_text(f'name = "x"\n{body}')
    with pytest.raises(ConfigError) as info:
        load_study(path)
    return str(info.value)


EXTRA = "Extra inputs are not permitted"


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (f"seeeds = [1]\n{MODEL}", f"field 'seeeds': {EXTRA} (did you mean 'seeds'?)"),
        (f"[image_set]\nsise = 2\n{MODEL}", f"field 'image_set.sise': {EXTRA} (did you mean 'size'?)"),
        (f'{MODEL}backned = "simulated"\n', f"field 'models.0.backned': {EXTRA} (did you mean 'backend'?)"),
        (
            f'design = "paired"\n[paired]\nalpah = 0.1\n{MODEL}',
            f"field 'paired.alpah': {EXTRA} (did you mean 'alpha'?)",
        ),
        (f"colour = 1\n{MODEL}", f"field 'colour': {EXTRA}"),
    ],
)
def test_a_misspelt_key_names_the_closest_fields(tmp_path, body, line):
    message = _error(tmp_path, body)
    assert message == f"{tmp_path / 'bad.toml'}: {line}"


def test_every_error_is_shown_on_the_one_line(tmp_path):
    message = _error(tmp_path, f"seeds = [1, 1]\nbatch_size = 0\n[prompt]\norderngs = [1]\n{MODEL}")
    source, _, errors = message.partition(": ")
    fields = sorted(part.split("'")[1] for part in errors.split("; "))
    assert (source, fields) == (str(tmp_path / "bad.toml"), ["batch_size", "prompt.orderngs", "seeds"])
    assert "\n" not in message and "more)" not in message


def test_the_command_line_prints_every_error_and_exits_2(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(f'name = "x"\nbatch_size = 0\n[prompt]\norderngs = [1]\n{MODEL}')
    result = CliRunner().invoke(app, ["show-study", "--study", str(path)])
    assert result.exit_code == 2 and (result.exception is None or isinstance(result.exception, SystemExit))
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [
        f"error: {path}: field 'prompt.orderngs': {EXTRA} (did you mean 'orderings'?); "
        "field 'batch_size': Input should be greater than or equal to 1"
    ], result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("design", ["[]", "{a = 1}", "3"])
def test_a_design_that_is_no_name_is_one_line(tmp_path, design):
    """`design = []` (found by the fuzzer) is a one-line error, not a TypeError while suggesting."""
    message = _error(tmp_path, f"design = {design}\n{MODEL}")
    assert message.startswith(f"{tmp_path / 'bad.toml'}: ") and "design" in message and "\n" not in message


STUDIES = Path(__file__).resolve().parents[2] / "studies"
PAIRED, PAIRWISE = (STUDIES / "paired-001.toml").read_text(), (STUDIES / "pairwise-002.toml").read_text()
PHI_LINE = "'a': use 'greedy', 'expected' or 'T=<temperature >= 0>' (e.g. T=0.2)"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            f"{PAIRWISE}\n[audit]\n",
            "[audit]: the 'pairwise' design does not read it (it has no base/variation edits for "
            "`cueshift audit`); leave it out",
        ),
        (
            f"{PAIRED}\n[variations]\nwhitelist = {{}}\n",
            "[variations]: the 'paired' design does not read it (it judges every photo of [paired] "
            "filter_feature_key and its original); leave it out",
        ),
        (
            f'name = "x"\ndesign = "paired"\n[image_set]\nplacebos = true\n{MODEL}',
            "[image_set] placebos = true: the 'paired' design's analyses do not read the noise-floor "
            "placebos; leave it out",
        ),
        (
            PAIRWISE.replace('other_group = "local"', 'other_group = "western"'),
            "[pairwise]: target_group and other_group must differ",
        ),
        (
            PAIRWISE.replace("scale_max = 10", "scale_max = -1"),
            "[pairwise.synthetic_humans]: scale_max must exceed scale_min",
        ),
        (
            f'name = "x"\n{MODEL}{MODEL}',
            "field 'models': model_id 'm' given twice: give each [[models]] table its own",
        ),
        (f'name = "x"\n[multiverse]\nphi = ["a"]\n{MODEL}', f"field 'multiverse.phi': {PHI_LINE}"),
    ],
    ids=[
        "unread-audit",
        "unread-variations",
        "placebos",
        "section",
        "subsection",
        "models",
        "multiverse-phi",
    ],
)
def test_a_validators_refusal_is_the_files_one_line_without_pydantics_prefix(tmp_path, text, line):
    """D73: a validator's message after the file and the section it checked ("field '<top>': Value
    error, ..." before); the command exits 2 with the line, the API raises it."""
    import cueshift as cs

    path = tmp_path / "bad.toml"
    path.write_text(text)
    result = CliRunner().invoke(app, ["analyze", "--study", str(path), "--no-progress"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [f"error: {path}: {line}"], result.stderr
    with pytest.raises(cs.CueshiftError) as info:
        cs.analyze(path)
    assert str(info.value) == f"{path}: {line}"

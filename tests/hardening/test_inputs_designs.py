"""Every input a study names is checked before the first write, for every design (docs/decisions.md#d15).

Through the CLI (``cueshift infer``, in process): one broken input per case gives exit code 2,
one ``error:`` line naming the file (or model), row and field, no traceback, and no file at all
(no database, no placebo folder) beside the inputs. Input kinds and the designs that read them:

=================  ===========================================================================
manifest           every design (``[image_set] kind = "manifest"``)
template           ``[prompt] template``: every design's study file; CLIP probe templates
                   (``[models.settings] templates``) of the probe design. The pairwise prompts
                   (``[pairwise] prompt``, ``rating_prompt``) are literal text without slots.
model settings     every design (``[models.settings]``), before planning writes any cache
ratings            probe (``human_ratings``), pairwise (``stimuli``, ``human_ratings``);
                   stylisticbias and paired read no ratings
reliability        probe (``reliability``, read by the analyses, checked before ``infer`` asks)
=================  ===========================================================================
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hardening.failing import one_line, run
from tests.hardening.inputs_layout import DESIGNS, study_file

BAD_TEMPLATE = '[prompt]\ntemplate = "{first_letter} {first} {second_letter} {second} {bogus}"\n'


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _refused(folder: Path, study: Path, *expected: str) -> str:
    """Run ``infer`` on ``study``: one line holding every ``expected`` text, no file written."""
    before = _files(folder)
    line = one_line(run("infer", "--study", str(study), "--no-progress"))
    for text in expected:
        assert text in line, line
    assert _files(folder) == before
    return line


@pytest.mark.parametrize("design", DESIGNS)
def test_the_good_study_of_each_design_runs(tmp_path: Path, design: str) -> None:
    result = run("infer", "--study", str(study_file(tmp_path, design)), "--no-progress")
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert (tmp_path / "s.duckdb").is_file()


@pytest.mark.parametrize("design", DESIGNS)
def test_a_bad_manifest_row(tmp_path: Path, design: str) -> None:
    study = study_file(tmp_path, design)
    manifest = tmp_path / "faces.csv"
    manifest.write_text(manifest.read_text().replace(",variation,q0,", ",variant,q0,"))
    _refused(tmp_path, study, str(manifest), "row 4", "field 'role'", "'variant'")


@pytest.mark.parametrize("design", DESIGNS)
def test_a_bad_prompt_template(tmp_path: Path, design: str) -> None:
    study = study_file(tmp_path, design, extra=BAD_TEMPLATE)
    _refused(tmp_path, study, str(study), "prompt.template", "{bogus}")


@pytest.mark.parametrize("design", DESIGNS)
def test_bad_model_settings(tmp_path: Path, design: str) -> None:
    study = study_file(tmp_path, design, model="[models.settings]\nseed = 1\nface_sd = -1\n")
    _refused(tmp_path, study, "model 'm'", "settings.face_sd")


@pytest.mark.parametrize("design", DESIGNS)
def test_an_unknown_settings_key(tmp_path: Path, design: str) -> None:
    study = study_file(tmp_path, design, model="[models.settings]\nsede = 1\n")
    _refused(tmp_path, study, "model 'm'", "settings.sede")


def test_a_clip_probe_template_without_its_slot(tmp_path: Path) -> None:
    study = study_file(
        tmp_path,
        "probe",
        backend="clip",
        model='checkpoint = "cueshift:tiny-random-clip"\n[models.settings]\ntemplates = ["a photo"]\n',
    )
    _refused(tmp_path, study, "model 'm'", "settings.templates", "{x}")


@pytest.mark.parametrize(
    ("file", "text", "expected"),
    [
        ("ratings.csv", "stimulus,attribute,rater,rating\np0,trustworthy,r1,five\n", ("row 1", "'rating'")),
        ("ratings.csv", "stimulus,attribute,rater,rating\nzz,trustworthy,r1,4\n", ("row 1", "'stimulus'")),
        ("ratings.csv", "stimulus,attribute,rating\np0,trustworthy,4\n", ("field 'rater'",)),
        ("reliability.csv", "attribute,reliability\ntrustworthy,1.7\n", ("row 1", "'reliability'")),
        ("reliability.csv", "attribute,reliability\ntrustworthy,high\n", ("row 1", "'reliability'")),
        ("reliability.csv", "attribute,reliability\nnot-an-attribute,0.5\n", ("row 1", "'attribute'")),
    ],
)
def test_probe_ratings_and_reliability(
    tmp_path: Path, file: str, text: str, expected: tuple[str, ...]
) -> None:
    study = study_file(tmp_path, "probe")
    (tmp_path / file).write_text(text, encoding="utf-8")
    _refused(tmp_path, study, str(tmp_path / file), *expected)


@pytest.mark.parametrize(
    ("file", "text", "expected"),
    [
        (
            "stimuli.csv",
            "image_id,cohort,stimulus_group\nzz,A,western\nq0,A,local\n",
            ("row 1", "'image_id'"),
        ),
        ("stimuli.csv", "image_id,cohort\np0,A\n", ("field 'stimulus_group'",)),
        (
            "ratings.csv",
            "stimulus,attribute,rater,rating\np0,western-aesthetic,r1,12\n",
            ("row 1", "'rating'"),
        ),
    ],
)
def test_pairwise_stimuli_and_ratings(
    tmp_path: Path, file: str, text: str, expected: tuple[str, ...]
) -> None:
    extra = f'human_ratings = "{(tmp_path / "ratings.csv").as_posix()}"\n' if file == "ratings.csv" else ""
    study = study_file(tmp_path, "pairwise", extra=extra)
    (tmp_path / file).write_text(text, encoding="utf-8")
    _refused(tmp_path, study, str(tmp_path / file), *expected)

"""The diffusers generator on tiny random pipelines of the real classes (CPU; CUDA when present)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("diffusers")

from PIL import Image  # noqa: E402

from cueshift.errors import ConfigError  # noqa: E402
from cueshift.stimuli.generators.base import ImageRequest  # noqa: E402
from cueshift.stimuli.generators.registry import generator_spec  # noqa: E402
from tests.stimuli.tiny_pipelines import tiny_pipeline, tiny_sdxl_pipeline  # noqa: E402

SETTINGS = {"steps": 2, "guidance": 1.0, "dtype": "float32", "device": "cpu"}


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pipes")
    return tiny_pipeline(root, edit=False), tiny_pipeline(root, edit=True)


def test_base_then_edit_same_seed_same_image(folders: tuple[Path, Path]) -> None:
    spec = generator_spec("diffusers")
    base_gen = spec.build(str(folders[0]), {**SETTINGS, "pipeline": "StableDiffusionPipeline"})
    request = ImageRequest("base", "a face", seed=7, parent_png=None, width=32, height=32)
    first, again = base_gen.generate(request), base_gen.generate(request)
    assert first.outcome == "ok" and first.png is not None, first.message
    assert first.png == again.png  # the seed fixes the image
    other = base_gen.generate(ImageRequest("base", "a face", seed=8, parent_png=None, width=32, height=32))
    assert other.png != first.png
    with Image.open(io.BytesIO(first.png)) as image:
        assert image.size == (32, 32)
    edit_gen = spec.build(
        str(folders[1]),
        {**SETTINGS, "pipeline": "StableDiffusionInstructPix2PixPipeline", "image_guidance": 1.5},
    )
    edited = edit_gen.generate(ImageRequest("variation", "add glasses", 7, first.png, 32, 32))
    assert edited.outcome == "ok" and edited.png is not None and edited.png != first.png, edited.message


def test_an_sdxl_pipeline_makes_bases(tmp_path: Path) -> None:
    gen = generator_spec("diffusers").build(
        str(tiny_sdxl_pipeline(tmp_path)), {**SETTINGS, "pipeline": "StableDiffusionXLPipeline"}
    )
    request = ImageRequest("base", "a face", seed=7, parent_png=None, width=32, height=48)
    first, again = gen.generate(request), gen.generate(request)
    assert first.outcome == "ok" and first.png is not None, first.message
    assert first.png == again.png  # the seed fixes the image
    assert gen.generate(ImageRequest("base", "a face", 8, None, 32, 48)).png != first.png
    with Image.open(io.BytesIO(first.png)) as image:
        assert image.size == (32, 48)


def test_a_call_that_raises_is_a_failed_try(folders: tuple[Path, Path]) -> None:
    edit_gen = generator_spec("diffusers").build(str(folders[1]), SETTINGS)
    result = edit_gen.generate(ImageRequest("variation", "x", 1, b"not a png", 32, 32))
    assert result.outcome == "failed" and result.message


def test_bad_settings_are_one_line(tmp_path: Path) -> None:
    spec = generator_spec("diffusers")
    with pytest.raises(ConfigError, match="unknown key 'stepz'"):
        spec.check_settings(str(tmp_path), {"stepz": 2})
    with pytest.raises(ConfigError, match="not a local pipeline folder"):
        spec.check_settings("stabilityai/sdxl", {})
    with pytest.raises(ConfigError, match="dtype 'float8'"):
        spec.check_settings(str(tmp_path), {"dtype": "float8"})


@pytest.mark.skipif("not __import__('torch').cuda.is_available()", reason="needs a CUDA GPU")
def test_on_cuda_in_half_precision(folders: tuple[Path, Path]) -> None:
    gen = generator_spec("diffusers").build(
        str(folders[0]), {**SETTINGS, "device": "cuda", "dtype": "float16"}
    )
    result = gen.generate(ImageRequest("base", "a face", 3, None, 32, 32))
    assert result.outcome == "ok" and result.png is not None, result.message


def test_a_build_with_the_tiny_pipelines_writes_a_set_infer_reads(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    import cueshift as cs
    from tests.stimuli.studies import write_study

    edit = '{steps = 2, guidance = 1.0, device = "cpu", pipeline = "StableDiffusionInstructPix2PixPipeline"}'
    path = write_study(
        tmp_path, count=2, edit=edit, edit_generator="diffusers", edit_model=folders[1].as_posix()
    )
    text = (
        path.read_text()
        .replace(
            'generator = "demo-faces"\nsettings = {refuse_rate = 0.2}',
            (
                f'generator = "diffusers"\nmodel = "{folders[0].as_posix()}"\n'
                'settings = {steps = 2, guidance = 1.0, device = "cpu", pipeline = "StableDiffusionPipeline"}'
            ),
        )
        .replace("[build]\n", "[build]\nwidth = 32\nheight = 32\n")
    )
    path.write_text(text)
    built = cs.build(path, progress=False)
    assert built.n_slots == 2 * 3 and built.n_kept == built.n_slots  # random weights still change pixels
    assert cs.infer(path, progress=False).n_written > 0

"""Stand-in checkpoint ids resolve to a directory written once, which ``from_pretrained`` loads.

The tiny CLIP loaded from its resolved directory has the weights and the processor of the
model built in memory with the same seed; concurrent processes materialising the same
stand-in all succeed and leave one directory.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from cueshift.errors import CueshiftError  # noqa: E402
from cueshift.inference.stand_ins import checkpoints  # noqa: E402
from cueshift.inference.stand_ins.checkpoints import resolve_checkpoint, stand_in_dir  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import TINY_CLIP_CHECKPOINT, build_tiny_clip, save_tiny_clip  # noqa: E402

pytestmark = pytest.mark.timeout(180)


class Saves:
    """Counts the stand-ins written (calls of ``save_tiny_clip`` by the resolver)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seeds: list[int] = []
        self._save = save_tiny_clip
        monkeypatch.setattr(checkpoints, "save_tiny_clip", self.save)

    def save(self, directory: str | Path, seed: int = 0) -> Path:
        self.seeds.append(seed)
        return self._save(directory, seed=seed)


def test_other_checkpoints_come_back_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saves = Saves(monkeypatch)
    for checkpoint in ("openai/clip-vit-base-patch32", str(tmp_path), "cueshift:tiny-random-other"):
        assert resolve_checkpoint(checkpoint, tmp_path / "cache") == checkpoint
    assert saves.seeds == [] and not (tmp_path / "cache").exists()


def test_written_once_per_seed_and_loaded_as_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saves = Saves(monkeypatch)
    cache = tmp_path / "stand-ins"
    path = resolve_checkpoint(TINY_CLIP_CHECKPOINT, cache, seed=3)
    assert Path(path) == cache / "tiny-random-clip-seed3" == stand_in_dir(TINY_CLIP_CHECKPOINT, cache, 3)
    assert resolve_checkpoint(TINY_CLIP_CHECKPOINT, cache, seed=3) == path  # found, not written again
    assert saves.seeds == [3]
    assert resolve_checkpoint(TINY_CLIP_CHECKPOINT, cache, seed=4) != path and saves.seeds == [3, 4]
    assert sorted(p.name for p in cache.iterdir()) == ["tiny-random-clip-seed3", "tiny-random-clip-seed4"]

    loaded = transformers.CLIPModel.from_pretrained(path)
    processor = transformers.CLIPProcessor.from_pretrained(path)
    built, built_processor = build_tiny_clip(3)
    expected = built.state_dict()
    assert loaded.state_dict().keys() == expected.keys()
    for name, tensor in loaded.state_dict().items():
        assert torch.equal(tensor, expected[name]), name
    picture = Image.fromarray(np.random.default_rng(1).integers(0, 256, (40, 30, 3), dtype=np.uint8))
    pixels = processor(images=[picture], return_tensors="pt")["pixel_values"]
    assert torch.equal(pixels, built_processor(images=[picture], return_tensors="pt")["pixel_values"])
    texts = ["a photo of someone who is honest", "a close-up photo"]
    ids = processor(text=texts, padding=True, return_tensors="pt")["input_ids"]
    assert torch.equal(ids, built_processor(text=texts, padding=True, return_tensors="pt")["input_ids"])


def test_the_default_cache_is_under_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = resolve_checkpoint(TINY_CLIP_CHECKPOINT)
    assert path == str(Path(".cueshift-cache") / "stand-ins" / "tiny-random-clip-seed0")
    assert (tmp_path / path / "config.json").is_file()


def test_an_unwritable_cache_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(CueshiftError, match="stand-in cache .*a-file.*cannot write") as info:
        resolve_checkpoint(TINY_CLIP_CHECKPOINT, blocker / "stand-ins")
    assert "\n" not in str(info.value)


# Each process writes its copy, then waits until both have written before renaming, so the
# renames race: one wins, the other finds the directory in place and uses it.
RACER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from cueshift.inference.stand_ins import checkpoints

    cache, me = Path(sys.argv[1]), sys.argv[2]
    save = checkpoints.save_tiny_clip

    def save_then_wait(directory, seed=0):
        written = save(directory, seed=seed)
        (cache.parent / f"written-{me}").touch()
        deadline = time.monotonic() + 120
        while len(list(cache.parent.glob("written-*"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        return written

    checkpoints.save_tiny_clip = save_then_wait
    print(checkpoints.resolve_checkpoint("cueshift:tiny-random-clip", cache, seed=0))
    """
)


def test_two_processes_materialising_at_once_both_succeed_with_one_directory(tmp_path: Path) -> None:
    cache = tmp_path / "stand-ins"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(cache), str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    outputs = [racer.communicate(timeout=170) for racer in racers]
    assert [racer.returncode for racer in racers] == [0, 0], [err for _, err in outputs]
    assert sorted(p.name for p in tmp_path.glob("written-*")) == ["written-0", "written-1"]  # both wrote
    paths = {out.strip().splitlines()[-1] for out, _ in outputs}
    assert paths == {str(cache / "tiny-random-clip-seed0")}
    assert [p.name for p in cache.iterdir()] == ["tiny-random-clip-seed0"]  # no scratch copy left
    loaded = transformers.CLIPModel.from_pretrained(paths.pop())
    built, _ = build_tiny_clip(0)
    assert all(torch.equal(t, built.state_dict()[k]) for k, t in loaded.state_dict().items())

"""The next image is prepared while the current one is judged (:mod:`.backends.one_ahead`)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from cueshift.inference.backends.one_ahead import one_ahead

WAIT_S = 20.0  # generous: an overlap shows at once, its absence only after the wait


def test_results_in_order_and_an_error_at_its_turn() -> None:
    def work(x: int) -> int:
        if x == 3:
            raise ValueError("three")
        return x * 10

    seen = []
    with pytest.raises(ValueError, match="three"):
        for item, result in one_ahead([1, 2, 3, 4], work):
            seen.append((item, result))
    assert seen == [(1, 10), (2, 20)]
    assert list(one_ahead([], work)) == []


def test_the_next_item_runs_while_the_caller_holds_the_current_one() -> None:
    started = {k: threading.Event() for k in (1, 2)}

    def work(x: int) -> int:
        started[x].set()
        return x

    overlapped = []
    for item, _ in one_ahead([1, 2], work):
        if item == 1:  # the caller is busy with item 1: item 2's work has started meanwhile
            overlapped.append(started[2].wait(WAIT_S))
    assert overlapped == [True]


def test_the_backend_encodes_the_next_image_while_judging_one(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("transformers")
    from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
    from cueshift.inference.backends import hf_score
    from cueshift.inference.backends.hf import TransformersBackend
    from cueshift.inference.stand_ins.tiny import build_tiny
    from tests.inference.random_faces import HOT, prompt_batch, random_faces, tiny_backend

    context = random_faces(tmp_path, 3, {s.scenario_id: s for s in STYLISTICBIAS_25[:1]})
    second = threading.Event()
    real_encode, real_prefix = TransformersBackend._encode, hf_score.prefix_cache

    def encode(self: Any, requests: Any) -> Any:
        if requests[0].image.image_id == "face1":
            second.set()
        return real_encode(self, requests)

    waited: list[bool] = []

    def prefix(model: Any, enc: Any) -> Any:
        if not waited:  # judging the first image: the second one's encoding has begun
            waited.append(second.wait(WAIT_S))
        return real_prefix(model, enc)

    monkeypatch.setattr(TransformersBackend, "_encode", encode)
    monkeypatch.setattr(hf_score, "prefix_cache", prefix)
    batch = prompt_batch(context, [1])
    answers = tiny_backend(context, build_tiny("llava_next", seed=1), **HOT).judge(batch)
    assert waited == [True] and len(answers.response_text) == batch.height

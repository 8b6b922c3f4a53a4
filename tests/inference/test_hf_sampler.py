"""The batched per-row sampler of :mod:`cueshift.inference.backends.hf_sampler`.

Gumbel-max draws with counter-based noise: distributed as ``softmax(logits / T)`` (chi-square
against the exact probabilities), a row's draw independent of its batch neighbours and the
batch size, seeds giving different streams, and one decoding step of a batch costs a fixed
number of sampling calls (never one per row, never ``torch.multinomial``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from scipy import stats
from transformers import LogitsProcessorList, TemperatureLogitsWarper

from cueshift.inference.backends import hf_sampler
from cueshift.inference.backends.hf_sampler import PerRowSampler, gumbel_noise, sample_rows

LOGITS = torch.tensor([1.2, -0.4, 0.3, 2.0, -1.5, 0.0])


@pytest.mark.parametrize("temperature", [0.2, 1.5])
def test_draws_follow_softmax_of_scaled_logits(temperature: float) -> None:
    """Many seeds, one row each at step 0, and one seed across many steps: both histograms fit
    the exact probabilities ``softmax(logits / T)`` computed in numpy."""
    n = 20_000
    logits = LOGITS.to(torch.float64).numpy() / temperature
    exact = np.exp(logits - logits.max())
    exact /= exact.sum()
    scaled = (LOGITS / temperature).expand(n, -1)
    across_seeds = sample_rows(scaled, torch.arange(n, dtype=torch.int64) * 7919 + 3, 0)
    across_steps = torch.stack([sample_rows(scaled[:1], torch.tensor([42]), t)[0] for t in range(4000)])
    for drawn, size in ((across_seeds, n), (across_steps, 4000)):
        observed = np.bincount(drawn.numpy(), minlength=len(exact))
        expected = exact * size
        keep = expected >= 5  # pool the rare tokens of T = 0.2 into one cell
        obs = np.append(observed[keep], observed[~keep].sum())
        exp = np.append(expected[keep], expected[~keep].sum())
        if exp[-1] == 0:
            obs, exp = obs[:-1], exp[:-1]
        assert stats.chisquare(obs, exp).pvalue > 1e-3, (temperature, size, observed, expected)


def test_a_rows_draw_ignores_its_neighbours_and_the_batch_size() -> None:
    g = torch.Generator().manual_seed(0)
    scores = torch.randn(9, 50, generator=g)
    seeds = torch.tensor([5, 17, 5, 2**40 + 1, -3, 0, 99, 123456789, 8])
    for step in (0, 3):
        full = sample_rows(scores, seeds, step)
        alone = torch.cat([sample_rows(scores[i : i + 1], seeds[i : i + 1], step) for i in range(9)])
        assert torch.equal(full, alone)
        other = torch.randn(9, 50, generator=g)
        other[4] = scores[4]
        mixed = sample_rows(other, seeds.flip(0).clone().index_put_((torch.tensor([4]),), seeds[4]), step)
        assert mixed[4] == full[4]
        assert torch.equal(sample_rows(scores[2:5], seeds[2:5], step), full[2:5])
    noise = gumbel_noise(seeds, 1, 50)
    assert torch.equal(noise[3], gumbel_noise(seeds[3:4], 1, 50)[0])


def test_seeds_and_steps_give_different_streams() -> None:
    noise = gumbel_noise(torch.arange(64, dtype=torch.int64), 0, 1000)
    assert len({tuple(row[:4].tolist()) for row in noise}) == 64
    assert not torch.equal(gumbel_noise(torch.tensor([1]), 0, 1000), gumbel_noise(torch.tensor([1]), 1, 1000))
    flat = torch.zeros(200, 30)
    streams = {
        tuple(sample_rows(flat[:1], torch.tensor([s]), t).item() for t in range(12)) for s in range(200)
    }
    assert len(streams) > 190  # uniform over 30 tokens, 12 steps: collisions all but impossible
    # the noise is standard Gumbel (mean = Euler's gamma, variance pi^2 / 6)
    assert abs(noise.mean().item() - np.euler_gamma) < 0.01
    assert abs(noise.var().item() - np.pi**2 / 6) < 0.03


def test_one_step_of_a_batch_makes_a_fixed_number_of_sampling_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: dict[str, int] = {"sample_rows": 0}
    real = hf_sampler.sample_rows

    def counted(*args: Any, **kwargs: Any) -> torch.Tensor:
        calls["sample_rows"] += 1
        return real(*args, **kwargs)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("torch.multinomial must not run")

    monkeypatch.setattr(hf_sampler, "sample_rows", counted)
    monkeypatch.setattr(torch, "multinomial", refuse)
    warpers = LogitsProcessorList([TemperatureLogitsWarper(1.5)])
    for rows in (1, 300):
        calls["sample_rows"] = 0
        sampler = PerRowSampler(warpers, list(range(rows)), torch.device("cpu"))
        out = sampler(torch.zeros(rows, 3, dtype=torch.long), torch.randn(rows, 40))  # type: ignore[arg-type]
        assert calls["sample_rows"] == 1
        assert out.shape == (rows, 40) and bool(((out == 0).sum(dim=1) == 1).all())
        assert sampler.step == 1

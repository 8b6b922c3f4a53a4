"""Correlation structure: normalised Frobenius similarity, adjusted Rand index (by hand), and
Ward clustering recovering planted clusters."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from cueshift.stats import adjusted_rand_index, attribute_correlations, frobenius_similarity, ward_clusters


def test_frobenius_and_adjusted_rand_by_hand() -> None:
    a, b = np.eye(2), np.array([[1.0, 0.5], [0.5, 1.0]])
    assert frobenius_similarity(a, b) == pytest.approx(2 / math.sqrt(2 * 2.5))  # <A,B> = 2
    c = np.array([[1, 0.3, -0.2], [0.3, 1, 0.1], [-0.2, 0.1, 1]])
    assert frobenius_similarity(c, c, off_diagonal=True) == pytest.approx(1.0)
    assert frobenius_similarity(c, -c + 2 * np.eye(3), off_diagonal=True) == pytest.approx(-1.0)
    # contingency [[2,0],[0,1],[0,1]] -> index 1, rows 1, cols 2, E = 2/6: (1 - 1/3)/(3/2 - 1/3) = 4/7
    assert adjusted_rand_index([0, 0, 1, 1], [0, 0, 1, 2]) == pytest.approx(4 / 7)
    assert adjusted_rand_index([0, 0, 1, 2], [5, 5, 7, 9]) == pytest.approx(1.0)  # labels are names


def test_ward_recovers_planted_clusters_from_spearman_matrix() -> None:
    rng = np.random.default_rng(8)
    n = 500
    factors = rng.normal(size=(n, 3))
    planted = {f"a{i}": i % 3 for i in range(9)}
    columns = {a: factors[:, k] + rng.normal(scale=0.4, size=n) for a, k in planted.items()}
    long = pl.DataFrame(
        {
            "image_id": np.tile([f"i{j}" for j in range(n)], len(planted)),
            "attribute": np.repeat(list(planted), n),
            "value": np.concatenate(list(columns.values())),
        }
    )
    attributes = list(planted)
    matrix = attribute_correlations(long, "value", attributes)
    expected = np.corrcoef(
        np.argsort(np.argsort(np.column_stack(list(columns.values())), axis=0), axis=0), rowvar=False
    )
    np.testing.assert_allclose(matrix, expected, atol=1e-12)  # Spearman = Pearson of the ranks
    _, labels, order = ward_clusters(matrix, 3)
    assert adjusted_rand_index(labels.tolist(), list(planted.values())) == pytest.approx(1.0)
    assert sorted(order) == list(range(len(attributes)))

"""The StylisticBias tests and intervals that ``cueshift analyze --test`` / ``--ci`` switch, as
placeholders (:mod:`cueshift._method_words`): filled with what ran when ``analyze`` writes the
manifest's ``statistic`` and ``description``, and when the report renders a note (D66).

>>> from cueshift._method_words import StoredMethods, fill_methods
>>> fill_methods(f"face-level mean Delta; {FACE_TEST}", StoredMethods(test=("permutation",)))
'face-level mean Delta; sign-flip permutation test'
"""

from __future__ import annotations

from typing import Final

from cueshift._method_words import by_ci_method, by_test

#: The one-sample test of per-face values (a cell's SBS, a paired difference) against 0.
FACE_TEST: Final = by_test(rank="WSRT", permutation="sign-flip permutation test")
#: :data:`FACE_TEST` by its full name.
FACE_TEST_NAME: Final = by_test(rank="Wilcoxon signed-rank test", permutation="sign-flip permutation test")
#: The test of two groups' per-face values (Table 4's elderly − young contrast).
TWO_GROUP_TEST: Final = by_test(rank="Mann–Whitney U test", permutation="label-permutation test")
#: Table 9's tests of base-face φ between a dimension's groups.
GROUP_TESTS: Final = by_test(rank="Kruskal–Wallis or Mann–Whitney U", permutation="label-permutation test")
#: The manifest's words for the tests of two groups and of k groups (ASCII, as its other text).
TWO_SAMPLE: Final = by_test(rank="MWU", permutation="label-permutation test")
K_SAMPLE: Final = by_test(rank="Kruskal-Wallis", permutation="label-permutation test")
GROUP_TESTS_ASCII: Final = by_test(rank="Kruskal-Wallis / Mann-Whitney", permutation="label-permutation test")
#: Table 9's statistics: the rank tests', or the label permutation's.
GROUP_STATISTICS: Final = by_test(
    rank="KW H (age, body, ethnicity), MWU U (gender)",
    permutation="between-group sum of squares (k > 2), mean difference (two groups)",
)
#: The kind of a face-level bootstrap interval.
CI_METHOD: Final = by_ci_method(bca="BCa", percentile="percentile")

__all__ = [
    "CI_METHOD",
    "FACE_TEST",
    "FACE_TEST_NAME",
    "GROUP_STATISTICS",
    "GROUP_TESTS",
    "GROUP_TESTS_ASCII",
    "K_SAMPLE",
    "TWO_GROUP_TEST",
    "TWO_SAMPLE",
]

"""A stratified split into training and test points, the Explore page's.

Explore holds back ``test_fraction`` of each class as test points, drawn by a
seeded generator, and keeps at least one training point per class; the code
the page writes for its view (:mod:`svmlab.snippets`) calls the same function,
so a notebook gets the page's very split.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmlab.array_types import Array

__all__ = ["split_indices", "stratified_split"]


def split_indices(
    y: ArrayLike, fraction: float, seed: int
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Stratified train/test indices (labels -1 and +1), each sorted; each class
    keeps at least one training point. The permutation comes from
    ``numpy.random.default_rng(seed + 7919)``, one class after the other."""
    y = np.asarray(y)
    rng = np.random.default_rng(seed + 7919)
    train, test = [], []
    for label in (-1.0, 1.0):
        idx = np.flatnonzero(y == label)
        idx = idx[rng.permutation(idx.size)]
        k = min(round(fraction * idx.size), max(idx.size - 1, 0))
        test.append(idx[:k])
        train.append(idx[k:])
    return np.sort(np.concatenate(train)), np.sort(np.concatenate(test))


def stratified_split(
    X: ArrayLike, y: ArrayLike, test_fraction: float = 0.3, seed: int = 0
) -> tuple[Array, Array, Array, Array]:
    """``(X_train, y_train, X_test, y_test)`` as Explore splits its data
    (:func:`split_indices`)."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    train, test = split_indices(y, test_fraction, seed)
    return X[train], y[train], X[test], y[test]

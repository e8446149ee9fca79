"""Shared fixtures and problem factories (STYLE rule 13)."""

from __future__ import annotations

import os

# One BLAS thread: the machine has two cores and pytest runs the browser too.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The app shows visitors a generic sentence for an uncaught exception
# (.streamlit/config.toml); a failing test must show the real one. (The
# environment variable reaches the browser tests' server; AppTest reads the
# option set here.)
os.environ.setdefault("STREAMLIT_CLIENT_SHOW_ERROR_DETAILS", "full")

import numpy as np
import pytest
from streamlit import config as _streamlit_config

_streamlit_config.set_option("client.showErrorDetails", "full")


def random_problem(
    seed: int, n: int = 60, *, outliers: int = 0, kind: str = "xor"
) -> tuple[np.ndarray, np.ndarray]:
    """A small random 2-D problem: XOR-like or two overlapping blobs, with optional
    outliers (points of class +1 far inside class -1's side)."""
    rng = np.random.default_rng(seed)
    if kind == "xor":
        X = rng.normal(size=(n, 2))
        y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    else:
        y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        X = rng.normal(size=(n, 2)) + 1.2 * y[:, None]
    if outliers:
        X[:outliers] = rng.normal(size=(outliers, 2)) * 0.3 + np.array([-5.0, -5.0])
        y[:outliers] = 1.0
    return X, y


def relative_difference(a: np.ndarray, b: np.ndarray) -> float:
    """``max |a - b| / max(1, max |b|)``: how far a solver's numbers are from the
    reference's, relative to their size."""
    return float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))


@pytest.fixture(scope="module")
def grid() -> np.ndarray:
    """A 25 x 25 evaluation grid over [-3, 3]^2."""
    g = np.linspace(-3.0, 3.0, 25)
    xx, yy = np.meshgrid(g, g)
    return np.c_[xx.ravel(), yy.ravel()]

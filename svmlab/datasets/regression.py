"""One-dimensional regression data sets: the pictures a lecture on SVR draws.

The same contract as :mod:`svmlab.datasets` (STYLE rule 11), with real targets::

    make_<name>(n_samples, *, noise=..., random_state=None, **shape) -> (X, t)

``X`` has shape ``(n_samples, 1)``, sorted by x so that a line through the
points draws left to right, and ``t`` shape ``(n_samples,)``, both float64.
Each generator calls ``np.random.default_rng(random_state)`` once: x first
(uniform on ``[-3, 3]``), then the noise, so the same seed gives the same arrays.

:data:`GENERATORS`, :data:`TITLES` and :data:`PARAMS` describe them for a page,
and :func:`make` calls one by name (:func:`svmlab.datasets.make_from`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from svmlab.datasets import generator_contract as contract
from svmlab.datasets.generator_contract import Param, Seed
from svmlab.errors import ParameterError

__all__ = [
    "GENERATORS",
    "PARAMS",
    "TITLES",
    "X_RANGE",
    "make",
    "make_heteroscedastic",
    "make_line",
    "make_sinc",
    "make_sine_outliers",
    "make_step",
]

Dataset: TypeAlias = tuple[NDArray[np.float64], NDArray[np.float64]]

#: The interval the inputs are drawn from.
X_RANGE: tuple[float, float] = (-3.0, 3.0)


def _inputs(n: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """n points uniform on :data:`X_RANGE`, sorted."""
    return np.sort(rng.uniform(*X_RANGE, size=n))


def _draw_inputs(
    n_samples: int, noise: float, random_state: Seed
) -> tuple[NDArray[np.float64], float, np.random.Generator]:
    """The checked ``noise``, the sorted inputs x and the generator the noise
    is drawn from next (x first, then the noise: the module's contract)."""
    n = contract.check_n(n_samples)
    noise = contract.check_real("noise", noise)
    rng = contract.random_generator(random_state)
    return _inputs(n, rng), noise, rng


def _curve(
    n_samples: int,
    noise: float,
    random_state: Seed,
    curve: Callable[[NDArray[np.float64]], NDArray[np.float64]],
) -> Dataset:
    """``t = curve(x) + e``, e ~ N(0, noise^2): x drawn first, then the noise."""
    x, noise, rng = _draw_inputs(n_samples, noise, random_state)
    return x[:, None], curve(x) + rng.normal(0.0, noise, x.size)


def make_sinc(
    n_samples: int = 100, *, noise: float = 0.1, random_state: Seed = None
) -> Dataset:
    """``t = sin(pi x) / (pi x) + e``, e ~ N(0, noise^2): the standard SVR
    picture (Vapnik, Golowich & Smola 1997; Smola & Schölkopf 2004).

    Parameters
    ----------
    n_samples
        Number of points.
    noise
        Standard deviation of the Gaussian noise on t.
    random_state
        Seed or ``numpy.random.Generator``.
    """
    return _curve(n_samples, noise, random_state, np.sinc)


def make_line(
    n_samples: int = 60,
    *,
    noise: float = 0.3,
    slope: float = 0.5,
    random_state: Seed = None,
) -> Dataset:
    """``t = slope x + e``, e ~ N(0, noise^2): a linear kernel's case, where the
    tube is a band of width 2ε around a line.

    Parameters
    ----------
    n_samples
        Number of points.
    noise
        Standard deviation of the Gaussian noise on t.
    slope
        The line's slope.
    random_state
        Seed or ``numpy.random.Generator``.
    """
    slope = contract.check_real("slope", slope, low=-np.inf)
    return _curve(n_samples, noise, random_state, lambda x: slope * x)


def make_step(
    n_samples: int = 80,
    *,
    noise: float = 0.1,
    height: float = 1.0,
    random_state: Seed = None,
) -> Dataset:
    """``t = height [x > 0] + e``: a jump no smooth kernel fits exactly; a narrow
    Gaussian follows it and overshoots, a wide one smooths it.

    Parameters
    ----------
    n_samples
        Number of points.
    noise
        Standard deviation of the Gaussian noise on t.
    height
        The size of the jump at x = 0.
    random_state
        Seed or ``numpy.random.Generator``.
    """
    height = contract.check_real("height", height, low=-np.inf)
    return _curve(n_samples, noise, random_state, lambda x: height * (x > 0.0))


def make_sine_outliers(
    n_samples: int = 80,
    *,
    noise: float = 0.1,
    n_outliers: int = 5,
    outlier_size: float = 3.0,
    random_state: Seed = None,
) -> Dataset:
    """``t = sin x + e`` with a few targets moved by ``± outlier_size``: the
    ε-insensitive loss grows linearly, so each outlier pulls f by at most C
    (``|α - α*| <= C``), where least squares would be pulled quadratically.

    Parameters
    ----------
    n_samples
        Number of points including the outliers.
    noise
        Standard deviation of the Gaussian noise on t.
    n_outliers
        How many targets are moved (at most n_samples), chosen at random;
        each up or down at random.
    outlier_size
        How far they are moved.
    random_state
        Seed or ``numpy.random.Generator``.
    """
    n = contract.check_n(n_samples)
    noise = contract.check_real("noise", noise)
    k = contract.check_n(n_outliers, "n_outliers", low=0)
    if k > n:
        raise ParameterError(f"n_outliers must be at most n_samples = {n}; got {k}.")
    size = contract.check_real("outlier_size", outlier_size)
    rng = contract.random_generator(random_state)
    x = _inputs(n, rng)
    t = np.sin(x) + rng.normal(0.0, noise, n)
    which = rng.choice(n, size=k, replace=False)
    t[which] += size * rng.choice([-1.0, 1.0], size=k)
    return x[:, None], t


def make_heteroscedastic(
    n_samples: int = 120, *, noise: float = 0.2, random_state: Seed = None
) -> Dataset:
    """``t = sin x + e`` with the noise growing from 0 at x = -3 to
    ``2 noise`` at x = 3: one ε cannot suit both ends (ν-SVR's ε is a
    compromise; a tube of varying width would need Schölkopf et al. 2000's
    parametric insensitivity models).

    Parameters
    ----------
    n_samples
        Number of points.
    noise
        The noise's standard deviation at x = 0 (it is ``noise (x + 3) / 3``).
    random_state
        Seed or ``numpy.random.Generator``.
    """
    x, noise, rng = _draw_inputs(n_samples, noise, random_state)
    spread = noise * (x - X_RANGE[0]) / 3.0
    return x[:, None], np.sin(x) + spread * rng.normal(0.0, 1.0, x.size)


GENERATORS: dict[str, Callable[..., Dataset]] = {
    "sinc": make_sinc,
    "line": make_line,
    "step": make_step,
    "sine_outliers": make_sine_outliers,
    "heteroscedastic": make_heteroscedastic,
}

TITLES: dict[str, str] = {
    "sinc": "sinc(x) with noise",
    "line": "A noisy line",
    "step": "A step",
    "sine_outliers": "sin(x) with outliers",
    "heteroscedastic": "sin(x), noise growing with x",
}


def _n(default: int) -> Param:
    return contract.sample_count_param(default, 5, 1000, 5)


def _noise(default: float, high: float, help: str = "") -> Param:
    # Every curve but the heteroscedastic one has the same noise on t.
    return contract.noise_param(
        default, high, help or "Standard deviation of the noise on t."
    )


PARAMS: dict[str, tuple[Param, ...]] = {
    "sinc": (
        _n(100),
        _noise(0.1, 0.5),
    ),
    "line": (
        _n(60),
        _noise(0.3, 1.5),
        Param("slope", "Slope", 0.5, -2.0, 2.0, 0.1),
    ),
    "step": (
        _n(80),
        _noise(0.1, 0.5),
        Param("height", "Step height", 1.0, -2.0, 2.0, 0.1),
    ),
    "sine_outliers": (
        _n(80),
        _noise(0.1, 0.5),
        Param("n_outliers", "Outliers", 5, 0, 5, 1, integer=True, help="At most n."),
        Param("outlier_size", "Outlier size", 3.0, 0.0, 6.0, 0.5),
    ),
    "heteroscedastic": (
        _n(120),
        _noise(0.2, 1.0, "Noise at x = 0; 0 at x = -3, twice as much at x = 3."),
    ),
}


def make(name: str, **params: Any) -> Dataset:
    """Generate the regression data set called ``name`` (a key of
    :data:`GENERATORS`) with its keyword parameters (:data:`PARAMS`)."""
    return contract.make_from(GENERATORS, name, **params)

"""svmlab.datasets.regression: the shape contract, determinism, each generator's
function at zero noise, and the UI tables (as tests/test_datasets.py does for
the classification sets)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from svmlab import EpsilonSVR
from svmlab.datasets import regression as rd
from svmlab.errors import ParameterError, UnknownNameError

NAMES = ["sinc", "line", "step", "sine_outliers", "heteroscedastic"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [2, 5, 300])
def test_shape_dtype_order_and_determinism(name, n):
    extra = {"n_outliers": min(2, n)} if name == "sine_outliers" else {}
    X, t = rd.GENERATORS[name](n, random_state=4, **extra)
    assert X.shape == (n, 1) and t.shape == (n,)
    assert X.dtype == np.float64 and t.dtype == np.float64
    assert np.all(np.diff(X[:, 0]) >= 0) and np.all(np.abs(X) <= 3.0)
    X2, t2 = rd.make(name, n_samples=n, random_state=4, **extra)
    assert_array_equal(X, X2)
    assert_array_equal(t, t2)


def test_functions_at_zero_noise():
    X, t = rd.make_sinc(50, noise=0.0, random_state=0)
    assert_allclose(t, np.sin(np.pi * X[:, 0]) / (np.pi * X[:, 0]))
    X, t = rd.make_line(50, noise=0.0, slope=-1.5, random_state=0)
    assert_allclose(t, -1.5 * X[:, 0])
    X, t = rd.make_step(50, noise=0.0, height=2.0, random_state=0)
    assert_allclose(t, np.where(X[:, 0] > 0, 2.0, 0.0))
    X, t = rd.make_sine_outliers(50, noise=0.0, n_outliers=4, random_state=0)
    moved = np.abs(t - np.sin(X[:, 0]))
    assert np.sum(moved > 1e-12) == 4
    assert_allclose(moved[moved > 1e-12], 3.0)


def test_heteroscedastic_noise_grows_left_to_right():
    X, t = rd.make_heteroscedastic(20_000, noise=0.3, random_state=1)
    r = t - np.sin(X[:, 0])
    left, right = r[X[:, 0] < -2.0], r[X[:, 0] > 2.0]
    assert left.std() < 0.1 < 0.45 < right.std()


def test_errors_and_tables():
    with pytest.raises(ParameterError, match="n_outliers must be at most"):
        rd.make_sine_outliers(5, n_outliers=6)
    with pytest.raises(ParameterError, match="noise"):
        rd.make_sinc(10, noise=-1.0)
    with pytest.raises(UnknownNameError, match="sinc"):
        rd.make("spiral")
    assert list(rd.GENERATORS) == list(rd.TITLES) == list(rd.PARAMS) == NAMES
    for name in NAMES:
        sig = inspect.signature(rd.GENERATORS[name]).parameters
        params = rd.PARAMS[name]
        assert [p.name for p in params] == [p for p in sig if p != "random_state"]
        for p in params:
            assert p.default == sig[p.name].default and p.low <= p.default <= p.high
        for end in ("low", "high"):
            kwargs = {p.name: getattr(p, end) for p in params}
            X, _ = rd.make(name, random_state=0, **kwargs)
            assert X.shape == (kwargs["n_samples"], 1)


@pytest.mark.parametrize("name", NAMES)
def test_every_default_set_fits(name):
    X, t = rd.make(name, random_state=0)
    model = EpsilonSVR(C=5.0, epsilon=0.1, sigma=0.5).fit(X, t)
    if name == "sine_outliers":  # R^2 counts the outliers; f follows sin x
        assert np.abs(model.predict(X) - np.sin(X[:, 0])).mean() < 0.1
    else:
        assert model.score(X, t) > 0.5

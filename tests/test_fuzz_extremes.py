"""Extreme settings (issue 14): sigma and C anywhere in [1e-300, 1e300], every
loss x bias x solver, a time budget on every fit.

Whatever the values, ``svmlab.SVC.fit`` returns a model with finite numbers or
raises a typed :class:`svmlab.SvmlabError` with a sentence (never another
exception, never NaN), and no fit runs past its ``max_seconds`` by more than the
slack below (the budget is checked between compiled chunks of ~20 ms; the slack
covers a loaded machine, it is a bound on the mechanism, not a speed target).

Derandomized, so CI sees the same examples every run; ``SVMLAB_FUZZ_EXAMPLES``
(see tests/test_fuzz.py) makes it a longer random search.
"""

from __future__ import annotations

import math
import time

import numpy as np
from hypothesis import event
from hypothesis import strategies as st
from test_fuzz import (
    assert_plain_message,
    extra_points,
    fit_or_error,
    fitting_fuzz,
    fuzz_settings,
    svc_params,
)

import svmlab

BUDGET_S = 0.1
SLACK_S = 1.5

EXTREMES = fuzz_settings(25)


def log_uniform_wide(lo: float, hi: float) -> st.SearchStrategy[float]:
    """log10-uniform on [lo, hi], the ends and the float extremes near them
    sampled often (they are where underflow and overflow live)."""
    return st.one_of(
        st.sampled_from([lo, hi, 1e-200, 1e-160, 1e-154, 1e154, 1e160, 1e200]),
        st.floats(math.log10(lo), math.log10(hi)).map(lambda e: 10.0**e),
    ).map(lambda v: min(max(v, lo), hi))


@st.composite
def extreme_kernels(draw) -> dict:
    kernel = draw(st.sampled_from(["gaussian", "gaussian", "polynomial", "linear"]))
    params: dict = {"kernel": kernel}
    if kernel == "gaussian":
        params["sigma"] = draw(log_uniform_wide(1e-300, 1e300))
    elif kernel == "polynomial":
        params["degree"] = draw(st.integers(1, 12))
        params["coef0"] = draw(st.sampled_from([0.0, 1.0, 1e3, 1e100]))
    return params


@fitting_fuzz(
    EXTREMES,
    kernel=extreme_kernels(),
    C=log_uniform_wide(1e-300, 1e300),
    delta=st.sampled_from([1e-4, 0.1, 0.9]),
)
def test_extreme_sigma_and_C_give_a_finite_model_or_a_typed_error_in_budget(
    loss, bias, solver, data, kernel, C, delta, offs
):
    X, y, shape = data
    event(f"data: {shape}")
    params = svc_params(loss, bias, solver, kernel, C, delta)
    model = svmlab.SVC(max_iter=10**7, max_seconds=BUDGET_S, **params)
    start = time.perf_counter()
    error = fit_or_error(model, X, y)
    elapsed = time.perf_counter() - start
    if error is not None:
        assert elapsed < BUDGET_S + SLACK_S, f"refused after {elapsed:.2f} s"
        return
    assert elapsed < BUDGET_S + SLACK_S, (
        f"fit took {elapsed:.2f} s with max_seconds={BUDGET_S} "
        f"({model.stop_reason_}, {model.n_iter_} iterations)"
    )
    event(f"outcome: {model.stop_reason_}")
    assert model.stop_reason_ in ("converged", "max_iter", "max_seconds", "rule")
    assert model.converged_ == (model.stop_reason_ == "converged")
    for name in ("alpha_", "intercept_", "margins_"):
        value = getattr(model, name)
        assert np.all(np.isfinite(value)), f"{name} not finite: {value}"
    assert math.isfinite(model.kkt_violation_)
    for points in (X, extra_points(X, offs)):
        try:
            f = model.decision_function(points)
        except svmlab.SvmlabError as error:  # e.g. K(x, x_i) overflows off the data
            assert_plain_message(error)
            continue
        assert np.all(np.isfinite(f)), f"decision_function not finite: {f}"

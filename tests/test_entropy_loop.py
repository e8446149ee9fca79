"""svmlab.solvers.entropy_loop: every step's working set against the rule
written out in plain Python from ``lo``, ``hi``, ``la`` and ``a`` (the loop
reads its own per-point scan arrays instead), and the solution against the
exact dual on kernel rows computed on demand."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from svmlab.datasets import make_two_circles
from svmlab.kernels import KernelRows, gram
from svmlab.losses import make_loss
from svmlab.solvers import Problem, solve
from svmlab.solvers.base import Budget
from svmlab.solvers.entropy_dual import TOL_FRACTION, EntropyState


def reference_pair(state: EntropyState) -> tuple[int, int]:
    """Fan-Chen-Lin's second-order pair with the entropy's curvature
    (svmlab/solvers/entropy_steps.py, module docstring), from the state's
    ``lo, hi, la, a, q`` over the active list, in plain Python."""
    y, q, lo, hi, la, a = state.y, state.q, state.lo, state.hi, state.la, state.a
    tol = TOL_FRACTION * state.tol
    delta, floor = state.delta, tol * state.C
    act = state.act[: state.ist[0]]

    def bounds(k):
        if y[k] > 0:
            return lo[k] - q[k], hi[k] - q[k]
        return q[k] - hi[k], q[k] - lo[k]

    def grad(k):  # y_k G_k, at a_k >= tol^2 C (the gain's floor)
        return y[k] * (1.0 - delta - delta * max(la[k], 2 * math.log(tol)) - q[k])

    i = max(act, key=lambda k: (bounds(k)[0], -k))  # first of the largest L
    big_l = bounds(i)[0]
    Ki = KernelRows(state_X, sigma=SIGMA).rows(np.array([i]))[0]
    best_b2, best_quad, j, fallback, small_u = 0.0, 1.0, -1, -1, math.inf
    for k in act:
        U = bounds(k)[1]
        if U >= big_l:
            continue
        if U < small_u:
            small_u, fallback = U, k
        quad = (
            max(state.diag[k] + state.diag[i] - 2.0 * Ki[k], 0.0)
            + delta / max(a[i], floor)
            + delta / max(a[k], floor)
        )
        b2 = (grad(i) - grad(k)) ** 2
        if math.isfinite(quad) and b2 * best_quad > best_b2 * quad:
            best_b2, best_quad, j = b2, quad, k
    return i, (j if j >= 0 else fallback)


SIGMA = 0.5
state_X, _labels = make_two_circles(150, noise=0.15, random_state=4)


@pytest.mark.parametrize("C", [1.0, 30.0])
def test_every_step_takes_the_pair_the_written_out_rule_takes(C):
    state = _cold_state(C)
    checked = 0
    for _ in range(120):
        before = state.a.copy()
        want = reference_pair(state)
        state._steps(state.it + 1, Budget(None), None)
        moved = set(np.flatnonzero(state.a != before).tolist())
        if not moved:
            break
        assert moved <= set(want), (moved, want)
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("bias", [True, False])
def test_kernel_rows_on_demand_reach_the_dense_answer(bias):
    y = np.where(_labels > 0, 1.0, -1.0)
    loss = make_loss("modified_hinge", delta=0.1)
    K = gram(state_X, sigma=SIGMA)
    dense = solve(Problem(K, y, loss, 10.0, bias), method="entropy_dual", tol=1e-10)
    rows = solve(
        Problem(None, y, loss, 10.0, bias, kernel=KernelRows(state_X, sigma=SIGMA)),
        method="entropy_dual",
        tol=1e-10,
    )
    assert rows.kkt <= 1e-10 and dense.kkt <= 1e-10
    f_dense = K @ (dense.alpha * y) + dense.b
    f_rows = K @ (rows.alpha * y) + rows.b
    np.testing.assert_allclose(f_rows, f_dense, atol=1e-8)
    assert rows.extras["dual_value"] == pytest.approx(
        dense.extras["dual_value"], rel=1e-12
    )
    # The loop tests its intervals at TOL_FRACTION tol: the final check holds.
    assert TOL_FRACTION < 1.0


def _cold_state(C: float) -> EntropyState:
    y = np.where(_labels > 0, 1.0, -1.0)
    s = EntropyState(
        None, y, C, 0.1, 1e-6, True, np.zeros(y.size),
        kernel=KernelRows(state_X, sigma=SIGMA),
    )  # fmt: skip
    s.use_newton = False
    return s


def _same_steps(long: EntropyState, short: EntropyState, steps: int) -> None:
    """``long`` takes ``steps`` steps in one chunk, ``short`` one chunk a step
    (each chunk scans the active list for its first i); the states must agree
    to the last bit."""
    start = long.it
    long._steps(start + steps, Budget(None), None)
    for _ in range(steps):
        short._steps(short.it + 1, Budget(None), None)
    assert long.it == short.it == start + steps
    np.testing.assert_array_equal(long.a, short.a)
    np.testing.assert_array_equal(long.q, short.q)
    np.testing.assert_array_equal(long.act, short.act)


@pytest.mark.parametrize("C", [1.0, 30.0])
def test_one_long_chunk_takes_the_steps_of_one_step_chunks(C):
    """A chunk finds each step's i in the previous step's margin update (while
    at least half the points are active); a chunk of one step scans the active
    list for it. Both take the same steps, through shrinking rounds."""
    long, short = _cold_state(C), _cold_state(C)
    _same_steps(long, short, 400)
    assert long.stats["shrink_rounds"] >= 3


def test_the_margin_update_never_picks_a_point_off_the_active_list():
    """The largest violators taken off the active list (as shrinking would
    if their margins later fell back): the next steps' i, found in the margin
    update over all n points, must still come from the active list."""
    state = _cold_state(30.0)
    state._steps(60, Budget(None), None)
    y, q = state.y, state.q
    L = np.where(y > 0, state.lo - q, q - state.hi)
    keep = np.sort(np.argsort(-L, kind="stable")[10:])
    state.act[: keep.size] = keep
    state.ist[0] = keep.size  # NACT
    state.ist[1] = 10**6  # COUNTER: no shrinking in the next steps
    off = np.setdiff1d(np.arange(y.size), keep)
    before = state.a[off].copy()
    short = copy.deepcopy(state)
    _same_steps(state, short, 20)
    np.testing.assert_array_equal(state.a[off], before)

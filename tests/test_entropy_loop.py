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
from svmlab.solvers import Problem, entropy_loop, solve
from svmlab.solvers.base import Budget, kkt_violation
from svmlab.solvers.entropy_dual import TOL_FRACTION, EntropyState
from svmlab.solvers.entropy_steps import pair_step


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


def _cold_state(C: float, second: bool = False) -> EntropyState:
    """A cold start, no Newton phases; ``second``: the runner-up partner steps
    (off by default: a chunk of one step never takes one, so the comparisons
    of long and one-step chunks below need them off)."""
    y = np.where(_labels > 0, 1.0, -1.0)
    s = EntropyState(
        None, y, C, 0.1, 1e-6, True, np.zeros(y.size),
        kernel=KernelRows(state_X, sigma=SIGMA),
    )  # fmt: skip
    s.use_newton = False
    s.second = second
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


def _plain_partner(
    i, Ki, kii, y, q, diag, BU, P, CV, act, nact, full, big_l, skip=None
):
    """One running best over the list in order, in plain Python: the first of
    the largest ``b^2 / quad`` among the ``k`` with ``U_k < L_i`` (positions
    ``r`` with ``skip(r)`` true left out)."""
    gi = P[i] - y[i] * q[i]
    best_b2, best_quad, j = 0.0, 1.0, -1
    for r in range(nact):
        if skip is not None and skip(r):
            continue
        k = r if full else int(act[r])
        yq = y[k] * q[k]
        if BU[k] - yq >= big_l:
            continue
        b2 = (gi - (P[k] - yq)) ** 2
        quad = max(diag[k] + kii - 2.0 * Ki[k], 0.0) + CV[i] + CV[k]
        if b2 * best_quad > best_b2 * quad:
            best_b2, best_quad, j = b2, quad, k
    return j, (best_b2 / best_quad if j >= 0 else 0.0)


def _lane_of(r: int, nact: int) -> int:
    """The lane of list position r in entropy_loop._partner: r mod 4, the last
    nact mod 4 positions in lane 0."""
    return r % 4 if r < nact - nact % 4 else 0


@pytest.mark.parametrize("seed", range(40))
def test_the_four_lane_partner_scan_takes_the_first_of_the_best(seed):
    """entropy_loop._partner scans in four lanes and merges them; on random
    scan arrays with many exact ties in the gain (values drawn from a few
    levels), lists of every length mod 4 and both the full and a shrunk
    list, it must return the partner of one running best in list order, and
    as the runner-up the best of the positions outside the winner's lane."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    levels = rng.choice([1, 2, 3, 50], p=[0.3, 0.3, 0.2, 0.2])
    y = rng.choice([-1.0, 1.0], size=n)
    q = rng.integers(0, levels, size=n) * 0.5 * y  # y q on a grid: ties
    P = rng.integers(0, levels, size=n) * 0.25 * y
    BU = rng.integers(-2, 3, size=n).astype(float) + y * q
    diag = np.ones(n)
    Ki = rng.integers(0, levels, size=n) * 0.125
    CV = rng.choice([0.5, 1.0, np.inf], size=n, p=[0.45, 0.45, 0.1])
    i = int(rng.integers(0, n))
    CV[i] = 0.5
    big_l = float(rng.integers(-1, 3))
    full = bool(rng.integers(0, 2))
    # A shrunk list: ascending (as shrinking keeps it), its first nact entries.
    act = np.arange(n, dtype=np.int64) if full else np.sort(rng.permutation(n))
    nact = n if full else int(rng.integers(0, n + 1))
    args = (i, Ki, 1.0, y, q, diag, BU, P, CV, act, nact, full, big_l)
    want = _plain_partner(*args)
    got = entropy_loop._partner(*args)
    assert got[0] == want[0]
    assert got[1] == want[1]
    if want[0] < 0:
        assert got[2] == -1
        return
    position = next(r for r in range(nact) if (r if full else act[r]) == want[0])
    lane = _lane_of(position, nact)
    runner_up = _plain_partner(*args, skip=lambda r: _lane_of(r, nact) == lane)
    assert got[2] == runner_up[0]


def _scan_inputs(state: EntropyState, i: int):
    """The arguments of entropy_loop._partner for ``i``, its scan arrays
    written out from ``lo, hi, la, a, q`` (as reference_pair reads them)."""
    y, q, lo, hi, la, a = state.y, state.q, state.lo, state.hi, state.la, state.a
    tol = TOL_FRACTION * state.tol
    delta, floor = state.delta, tol * state.C
    BU = np.where(y > 0, hi, -lo)
    BL = np.where(y > 0, lo, -hi)
    P = y * (1.0 - delta - delta * np.maximum(la, 2 * math.log(tol)))
    CV = delta / np.maximum(a, floor)
    nact = int(state.ist[0])
    Ki = KernelRows(state_X, sigma=SIGMA).rows(np.array([i]))[0]
    big_l = BL[i] - y[i] * q[i]
    full = nact == y.size
    return (i, Ki, state.diag[i], y, q, state.diag, BU, P, CV, state.act, nact,
            full, big_l)  # fmt: skip


@pytest.mark.parametrize("C", [1.0, 30.0])
def test_a_two_step_chunk_is_the_pair_then_the_runner_up_done_by_hand(C):
    """With the runner-up on, a chunk of two steps takes the scan's pair, then
    (if it still violates with i) the pair of i and the runner-up partner
    (the best outside the winner's lane: the test above). The same two steps
    by hand: a one-step chunk, then the runner-up's exact pair step with its
    bookkeeping in plain numpy (the margins from kernel rows computed here);
    the states must agree."""
    state = _cold_state(C, second=True)
    K = gram(state_X, sigma=SIGMA)
    taken = 0
    for _ in range(60):
        i, j = reference_pair(state)
        args = _scan_inputs(state, i)
        if entropy_loop._partner(*args)[0] < 0:
            break  # no pair has a gain (the fallback partner): no runner-up
        assert entropy_loop._partner(*args)[0] == j
        nact = args[10]
        act = np.arange(state.y.size) if args[11] else state.act
        position = int(np.flatnonzero(act[:nact] == j)[0])
        lane = _lane_of(position, nact)
        j2, _ = _plain_partner(
            *args, skip=lambda r, m=nact, w=lane: _lane_of(r, m) == w
        )
        by_hand = copy.deepcopy(state)
        by_hand.second = False
        start = state.it
        state._steps(start + 2, Budget(None), None)
        by_hand._steps(start + 1, Budget(None), None)
        y, q, a, la = by_hand.y, by_hand.q, by_hand.a, by_hand.la
        lo, hi = by_hand.lo, by_hand.hi

        def bounds(k, y=y, q=q, lo=lo, hi=hi):
            if y[k] > 0:
                return lo[k] - q[k], hi[k] - q[k]
            return q[k] - hi[k], q[k] - lo[k]

        if j2 >= 0 and bounds(j2)[1] < bounds(i)[0]:
            la_i, la_j, new_i, new_j = pair_step(
                y[i], y[j2], a[i], a[j2], la[i], la[j2], q[i], q[j2],
                K[i, i], K[j2, j2], K[i, j2], by_hand.C, by_hand.delta,
            )  # fmt: skip
            ci = y[i] * (new_i - a[i]) if la_i != la[i] else 0.0
            cj = y[j2] * (new_j - a[j2]) if la_j != la[j2] else 0.0
            q += y * (ci * K[i] + cj * K[j2])
            if la_i != la[i]:
                a[i], la[i] = new_i, la_i
            if la_j != la[j2]:
                a[j2], la[j2] = new_j, la_j
            taken += 1
        else:
            by_hand._steps(start + 2, Budget(None), None)
        np.testing.assert_array_equal(state.a, by_hand.a)
        np.testing.assert_allclose(state.q, by_hand.q, rtol=0, atol=1e-12)
    assert taken >= 30


@pytest.mark.parametrize("C", [1.0, 30.0])
def test_the_runner_up_steps_reach_the_optimum_of_the_plain_loop(monkeypatch, C):
    """The solver with the runner-up steps and without (entropy_loop.SECOND):
    the same optimum, to 1e-10 in the dual value, at tol 1e-10, scored from
    margins recomputed from the Gram matrix rather than the solver's own."""
    y = np.where(_labels > 0, 1.0, -1.0)
    loss = make_loss("modified_hinge", delta=0.1)
    K = gram(state_X, sigma=SIGMA)
    out = {}
    for second in (False, True):
        monkeypatch.setattr(entropy_loop, "SECOND", second)
        problem = Problem(
            None, y, loss, C, True, kernel=KernelRows(state_X, sigma=SIGMA)
        )
        res = solve(problem, method="entropy_dual", tol=1e-10)
        assert res.converged
        assert kkt_violation(Problem(K, y, loss, C, True), res.alpha, res.b) <= 1e-9
        out[second] = res
    off, on = out[False], out[True]
    assert on.extras["steps"] != off.extras["steps"]  # the runner-up steps ran
    assert on.extras["dual_value"] == pytest.approx(off.extras["dual_value"], rel=1e-10)
    np.testing.assert_allclose(on.alpha, off.alpha, rtol=0, atol=1e-6 * C)

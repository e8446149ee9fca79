"""The Crammer-Singer multiclass SVM dual: an exact QP and a block decomposition.

With classes ``m = 0 .. k-1``, scores ``f_m(x) = sum_i alpha_{i,m} k(x_i, x)``
(no bias; ``k + 1`` gives each class a regularized one) and ``e_i`` the indicator
of ``y_i``, the dual (Sugiyama 2015, section 27.5; Crammer & Singer 2001) is

.. math::

    \\max_\\alpha \\; \\sum_i \\alpha_{i,y_i}
        - \\tfrac12 \\sum_{i,j} K_{ij} \\sum_m \\alpha_{i,m} \\alpha_{j,m}
    \\quad\\text{s.t.}\\quad \\sum_m \\alpha_{i,m} = 0, \\;
    \\alpha_{i,m} \\le C [m = y_i].

So every point owns a block of k variables summing to zero: at most C on its own
class, at most 0 on the others (docs/corrections.md, "Crammer-Singer").

Two solvers reach the same optimum:

* :func:`solve_qp`: CVXOPT's interior point on all ``n k`` variables (the QP
  with ``P = K (x) I_k``), then polished by block updates so that the answer
  sits exactly on its bounds (interior points never do);
* :func:`solve_blocks`: one point's block at a time, each subproblem solved in
  closed form (the sort-based solution of Crammer & Singer's fixed-point
  subproblem as LIBLINEAR's ``Solver_MCSVM_CS::solve_sub_problem`` writes it;
  Keerthi, Sundararajan, Chang, Hsieh, Lin 2008 for the block view), compiled
  with numba, sweeping the points in a random order until no block violates its
  KKT conditions by more than ``tol``. When the sweeps stall (still not
  converged after :data:`CHUNK_AFTER` sweeps), every :data:`CHUNK_EVERY` sweeps
  a working set of the most violating and the free blocks, at most
  :data:`CHUNK_VARIABLES` variables, is solved exactly by the QP with the other
  blocks fixed (Osuna, Freund, Girosi 1997's decomposition; the sweeps go on
  in between).

Why the sweeps stall (issue 27, item 18): exact block minimisation is
coordinate descent, whose rate is set by how strongly the blocks are coupled
through K relative to the box. On a kernel with a huge range, such as an
unscaled polynomial (degree 2 on a 45-point spiral: K_ii from 2.5 to 8.8e4,
rank 6), C times the kernel scale is about 4e4, near the hard margin, where
dual coordinate descent is known to crawl (Hsieh et al. 2008); the optimum is
also degenerate (many alpha with the same scores). There the sweeps needed about
120,000 passes to reach tol 1e-3 (KKT 0.089 after 100,000, 2.67 after the
default 10,000), and neither over-relaxation (2x) nor greedy block selection
(5x) changes that; continuation in C does not either. The exact QP on a chunk
of coupled blocks does: one chunk solves that problem (after 810 cheap
sweeps), and a 400-point one (1,200 variables) takes 25 chunks, about 4 s (the
QP on all 1,200 variables: about 3 s). A well-scaled kernel (Gaussian)
converges in tens to hundreds of sweeps, mostly before the first chunk.

KKT conditions (minimisation form, gradient ``G_{i,m} = f_m(x_i) - [m = y_i]``):
for each i there is a ``nu_i`` with ``G_{i,m} = nu_i`` where ``alpha_{i,m}`` is
below its bound and ``G_{i,m} <= nu_i`` where it sits at it, so the violation of
block i is ``max_m G_{i,m} - min_{m below bound} G_{i,m}`` (in margin units).

References
----------
Crammer, Singer (2001), On the algorithmic implementation of multiclass
kernel-based vector machines, JMLR 2. Keerthi, Sundararajan, Chang, Hsieh, Lin
(2008), A sequential dual method for large scale multi-class linear SVMs, KDD.
Fan, Chang, Hsieh, Wang, Lin (2008), LIBLINEAR, JMLR 9. Hsieh, Chang, Lin,
Keerthi, Sundararajan (2008), A dual coordinate descent method for large-scale
linear SVM, ICML. Osuna, Freund, Girosi (1997), An improved training algorithm
for support vector machines, NNSP.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.errors import ProblemError, short_reason
from svmlab.solvers import crammer_singer_low_rank
from svmlab.solvers.base import Budget
from svmlab.solvers.qp import interior_point

__all__ = [
    "QP_MAX_VARIABLES",
    "SNAP_BLOCK",
    "CSDual",
    "CSSolution",
    "block_sub_problem",
    "block_violations",
    "chunk_blocks",
    "chunk_pace",
    "dual_objective",
    "primal_objective",
    "solve",
    "solve_blocks",
    "solve_qp",
]


#: ``solver="auto"`` uses the exact QP up to this many variables (n k), the block
#: decomposition above (the QP's dense (n k)^2 system grows fast).
QP_MAX_VARIABLES = 900
#: Tolerance of the block polish after the interior point (margin units).
POLISH_TOL = 1e-9
#: Relative distance to a bound below which the QP's answer is put on it.
SNAP = 1e-6
#: A block entry this close to 0 (relative to C) is put on it.
SNAP_BLOCK = 1e-13
#: Sweeps of the block polish after the interior point.
POLISH_SWEEPS = 200
#: Fewest sweeps of :func:`solve_blocks` before a run short of tol solves its
#: first chunk exactly (a well-scaled problem has converged by then), and
#: between two chunks; both grow to :func:`chunk_pace`.
CHUNK_AFTER = 50
CHUNK_EVERY = 20
#: Most variables (blocks times k) of one chunk's QP: about 50 ms of CVXOPT.
CHUNK_VARIABLES = 300
#: One chunk's QP of V variables costs about this times V^3 / (n^2 k) sweeps
#: (measured: 45 ms against 0.5 ms a sweep at n = 400, k = 3).
CHUNK_COST = 2.0


@dataclass(frozen=True)
class CSDual:
    """One Crammer-Singer dual, what every solver here takes: the Gram matrix
    ``K`` (n, n), each point's class number ``codes`` (0 .. k-1), the number of
    classes ``k`` and the bound ``C``."""

    K: Array
    codes: NDArray[np.int64]
    k: int
    C: float


@dataclass(frozen=True)
class CSSolution:
    """A Crammer-Singer dual solution.

    ``alpha`` (n, k); ``objective`` the dual objective (maximised);
    ``kkt`` the largest block violation (margin units); ``converged`` whether
    ``kkt <= tol``; ``stop_reason`` ``"converged"``, ``"max_iter"`` or
    ``"max_seconds"``; ``n_iter`` interior-point iterations or sweeps;
    ``method`` ``"qp"`` or ``"blocks"``; ``n_chunks`` the chunks the block
    decomposition solved exactly (0 when the sweeps alone converged).
    """

    alpha: Array
    objective: float
    kkt: float
    converged: bool
    stop_reason: str
    n_iter: int
    method: str
    n_chunks: int = 0


def _bounds(codes: NDArray[np.int64], k: int, C: float) -> Array:
    upper = np.zeros((codes.shape[0], k))
    upper[np.arange(codes.shape[0]), codes] = C
    return upper


def dual_objective(K: Array, alpha: Array, codes: NDArray[np.int64]) -> float:
    """``sum_i alpha_{i,y_i} - 1/2 sum_m alpha_m' K alpha_m``."""
    own = float(alpha[np.arange(alpha.shape[0]), codes].sum())
    return own - 0.5 * float(np.sum(alpha * (K @ alpha)))


def primal_objective(
    K: Array, alpha: Array, codes: NDArray[np.int64], C: float
) -> float:
    """``1/2 sum_m ||f_m||^2 + C sum_i xi_i`` at ``f_m = K alpha_m``, with the
    smallest slack ``xi_i = max_m (f_m(x_i) + [m != y_i]) - f_{y_i}(x_i)``."""
    F = K @ alpha
    n = alpha.shape[0]
    t = np.ones_like(F)
    t[np.arange(n), codes] = 0.0
    xi = (F + t).max(axis=1) - F[np.arange(n), codes]
    return 0.5 * float(np.sum(alpha * F)) + C * float(xi.sum())


def block_violations(
    F: Array, alpha: Array, codes: NDArray[np.int64], C: float
) -> Array:
    """Each block's KKT violation (n,), from the scores ``F = K alpha`` (n, k)."""
    n = alpha.shape[0]
    G = F.copy()
    G[np.arange(n), codes] -= 1.0
    below = alpha < _bounds(codes, alpha.shape[1], C)
    low = np.where(below, G, np.inf).min(axis=1)
    return np.maximum(G.max(axis=1) - low, 0.0)


@njit(cache=True, nogil=True)
def block_sub_problem(A, B, own, C, act, out):  # pragma: no cover - compiled
    """One block's exact minimiser over its first ``act`` entries (all ``k`` on
    the kernel path; the active ones in the linear path's shrinking, whose
    LIBLINEAR ``solve_sub_problem`` this is): ``min 1/2 A |a|^2 + B'a`` with
    the entries summing to ``-C`` plus the own one, ``a_own <= C``, the others
    ``<= 0``; ``own = -1`` when the own entry is not active (it sits at C).
    ``a_m = min(bound_m, (beta - B_m) / A)`` with ``beta`` found by sorting
    (Crammer & Singer 2001)."""
    # ``out`` holds the sorted copy of B until the answer overwrites it: a
    # block is solved up to n times a sweep, and allocating the copy (copy,
    # negate, sort) cost more than the arithmetic on digits (issue 48).
    # Insertion sort, descending (``act`` is at most the number of classes;
    # numpy's sort past 64).
    for m in range(act):
        out[m] = B[m]
    if own >= 0:
        out[own] += A * C
    if act > 64:
        out[:act] = -np.sort(-out[:act])
    for m in range(1, act if act <= 64 else 0):
        value = out[m]
        j = m - 1
        while j >= 0 and out[j] < value:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = value
    beta = out[0] - A * C
    r = 1
    while r < act and beta < r * out[r]:
        beta += out[r]
        r += 1
    beta /= r
    # Rounding leaves entries a few ulps off 0, so those are put on the bound
    # and the own entry keeps the sum.
    total = 0.0
    for m in range(act):
        if m != own:
            value = (beta - B[m]) / A
            out[m] = value if value < -SNAP_BLOCK * C else 0.0
            total += out[m]
    if own >= 0:
        # At its bound the own entry is C exactly (a rounded 1 - 1e-16 would
        # read as "below the bound" and break the KKT check).
        out[own] = C if (beta - B[own]) / A >= C else min(C, -total)


@njit(cache=True, nogil=True)
def _sweep(K, alpha, F, codes, C, order, tol):  # pragma: no cover - compiled
    """One pass over the blocks in ``order``; updates ``alpha`` and ``F = K alpha``
    in place. Returns the largest violation met (before its update)."""
    k = alpha.shape[1]
    n = K.shape[0]
    worst = 0.0
    B = np.empty(k)
    new = np.empty(k)
    for i in order:
        yi = codes[i]
        big = -np.inf
        low = np.inf
        for m in range(k):
            g = F[i, m] - (1.0 if m == yi else 0.0)
            if g > big:
                big = g
            bound = C if m == yi else 0.0
            if alpha[i, m] < bound and g < low:
                low = g
        violation = big - low
        if violation > worst:
            worst = violation
        if violation <= tol:
            continue
        A = K[i, i]
        if A <= 1e-12:
            # k(x_i, .) = 0: the block changes no score; its own term wants C.
            for m in range(k):
                new[m] = C if m == yi else -C / (k - 1)
        else:
            for m in range(k):
                B[m] = F[i, m] - (1.0 if m == yi else 0.0) - A * alpha[i, m]
            block_sub_problem(A, B, yi, C, k, new)
        for m in range(k):
            d = new[m] - alpha[i, m]
            if d != 0.0:
                alpha[i, m] = new[m]
                for j in range(n):
                    F[j, m] += d * K[j, i]
    return worst


def solve_blocks(
    dual: CSDual,
    *,
    tol: float = 1e-3,
    max_iter: int = 10_000,
    init: Array | None = None,
    random_state: int | None = 0,
    budget: Budget | None = None,
    chunks: bool = True,
) -> CSSolution:
    """The block decomposition: sweeps over the points in a random order (a new
    permutation each sweep) until a whole sweep finds no block violating its KKT
    conditions by more than ``tol``; ``max_iter`` sweeps at most.

    With ``chunks`` (the default), a run still short of ``tol`` after
    :func:`chunk_pace` sweeps (at least :data:`CHUNK_AFTER`) solves a chunk of
    blocks exactly (:func:`_solve_chunk`; module docstring, "Why the sweeps
    stall"), and another after as many sweeps again, so the chunks take about
    as long as the sweeps: where the chunks do not help, the run is at most
    about twice as slow. ``init`` (n, k) must be feasible (the QP's answer,
    say); by default all zeros, which is.
    """
    n, k, C = dual.K.shape[0], dual.k, dual.C
    # Read-only whatever the caller's (svmlab.compiled.arguments): one compiled sweep.
    K = read_only(np.ascontiguousarray(dual.K, dtype=np.float64))
    alpha = np.zeros((n, k)) if init is None else np.array(init, dtype=np.float64)
    F = K @ alpha
    rng = np.random.default_rng(random_state)
    codes = np.ascontiguousarray(dual.codes, dtype=np.int64)
    budget = budget if budget is not None else Budget(None)
    sweeps, solved, stop = 0, 0, "max_iter"
    pace = chunk_pace(n, k)
    next_chunk = max(CHUNK_AFTER, pace) if chunks else math.inf
    low_rank_tried = not chunks
    while sweeps < max_iter:
        worst = _sweep(K, alpha, F, codes, float(C), rng.permutation(n), float(tol))
        sweeps += 1
        if worst <= tol:
            stop = "converged"
            break
        if budget.check():
            stop = "max_seconds"
            break
        if sweeps >= next_chunk and not low_rank_tried:
            # Stalled: a small-rank kernel's primal first (its module).
            low_rank_tried = True
            if _start_from_low_rank(K, alpha, codes, k, float(C)):
                F = K @ alpha
                solved += 1
                next_chunk = sweeps + pace
                continue
        if sweeps >= next_chunk:
            F = K @ alpha  # afresh before the chunk reads it
            try:
                solved += _solve_chunk(K, alpha, F, codes, k, float(C), float(tol))
                next_chunk = sweeps + pace
            except ProblemError:  # CVXOPT broke down: sweeps only from here
                next_chunk = math.inf
            F = K @ alpha
    F = K @ alpha  # afresh: the in-place updates accumulate rounding
    kkt = float(block_violations(F, alpha, codes, C).max(initial=0.0))
    return CSSolution(
        alpha=alpha,
        objective=dual_objective(K, alpha, codes),
        kkt=kkt,
        converged=kkt <= tol,
        stop_reason="converged" if kkt <= tol else stop,
        n_iter=sweeps,
        method="blocks",
        n_chunks=solved,
    )


def _start_from_low_rank(
    K: Array, alpha: Array, codes: NDArray[np.int64], k: int, C: float
) -> bool:
    """Write the small-rank primal's answer (:func:`svmlab.solvers.
    crammer_singer_low_rank.start`), put on the bounds, into ``alpha`` if it
    raises the dual objective; whether it did."""
    guess = crammer_singer_low_rank.start(K, codes, k, C)
    if guess is None:
        return False
    new = _on_bounds(guess, codes, C)
    if dual_objective(K, new, codes) <= dual_objective(K, alpha, codes):
        return False
    alpha[:] = new
    return True


def chunk_pace(n: int, k: int) -> int:
    """Sweeps that cost about as much as one chunk's QP, at least
    :data:`CHUNK_EVERY`: ``CHUNK_COST V^3 / (n^2 k)`` with ``V`` the chunk's
    variables (an interior point's factorisations against a sweep's ``n k``
    score updates per block)."""
    variables = min(CHUNK_VARIABLES, n * k)
    return max(CHUNK_EVERY, math.ceil(CHUNK_COST * variables**3 / (n * n * k)))


def chunk_blocks(
    F: Array, alpha: Array, codes: NDArray[np.int64], C: float, tol: float
) -> NDArray[np.intp]:
    """The blocks of the next chunk, sorted: the most violating ones (largest
    violation first) and then free ones (an entry strictly inside its bounds:
    the blocks that move with them), at most ``CHUNK_VARIABLES // k`` (and 2)."""
    k = alpha.shape[1]
    most = max(2, CHUNK_VARIABLES // k)
    violation = block_violations(F, alpha, codes, C)
    violating = np.flatnonzero(violation > tol)
    violating = violating[np.argsort(-violation[violating], kind="stable")][:most]
    inside = (alpha < _bounds(codes, k, C)) & (alpha != 0.0)
    free = np.setdiff1d(np.flatnonzero(inside.any(axis=1)), violating)
    return np.sort(np.concatenate([violating, free[: most - violating.size]]))


def _solve_chunk(
    K: Array,
    alpha: Array,
    F: Array,
    codes: NDArray[np.int64],
    k: int,
    C: float,
    tol: float,
) -> int:
    """Solve the dual over the blocks of :func:`chunk_blocks` exactly, the
    others fixed (their scores enter as a linear term), and write the answer
    into ``alpha`` if it raises the dual objective; returns 1 if so, else 0.

    The subproblem is the same dual with ``q = -e + L``, ``L = F_W - K_WW
    alpha_W`` the fixed blocks' part of the scores of the chunk's points.
    """
    W = chunk_blocks(F, alpha, codes, C, tol)
    K_W = K[np.ix_(W, W)]
    linear = F[W] - K_W @ alpha[W]
    x, _ = _interior_point(K_W, codes[W], k, C, linear)
    new = _on_bounds(x, codes[W], C)
    own = codes[W]
    rows = np.arange(W.size)

    # The dual objective restricted to the chunk (the rest is constant).
    def value(a: Array) -> float:
        return float(a[rows, own].sum() - np.sum(a * (0.5 * (K_W @ a) + linear)))

    if value(new) <= value(alpha[W]):
        return 0
    alpha[W] = new
    return 1


def _interior_point(
    K: Array,
    codes: NDArray[np.int64],
    k: int,
    C: float,
    linear: Array | None = None,
) -> tuple[Array, int]:
    """CVXOPT on the whole dual (``n k`` variables), plus ``linear`` (n, k) in
    the objective's linear term; returns ``x`` (n, k) and the iterations.

    Variables in row order ``a[i k + m] = alpha_{i,m}``: ``P = K (x) I_k``,
    ``q = -e + linear`` (``e`` the own-class indicators), ``a <= C e`` and
    ``sum_m a_{i,m} = 0``.
    """
    import cvxopt

    n = K.shape[0]
    size = n * k
    upper = _bounds(codes, k, C).ravel()
    P = np.kron(K, np.eye(k))
    q = -(upper > 0).astype(np.float64)
    if linear is not None:
        q += np.asarray(linear, dtype=np.float64).ravel()
    G = cvxopt.spmatrix(1.0, range(size), range(size), (size, size))
    A = cvxopt.spmatrix(
        1.0, np.repeat(np.arange(n), k).tolist(), list(range(size)), (n, size)
    )
    try:
        result = interior_point(
            P, q, G, upper, A, cvxopt.matrix(np.zeros(n)), tol=1e-10
        )
    except (ValueError, ArithmeticError) as error:
        raise ProblemError(
            "The exact QP broke down on this Crammer-Singer problem "
            f"({short_reason(error)}); use the block decomposition instead."
        ) from error
    x = np.asarray(result["x"], dtype=np.float64).reshape(n, k)
    return x, int(result["iterations"])


def _on_bounds(x: Array, codes: NDArray[np.int64], C: float) -> Array:
    """An interior point's ``x`` (n, k) made feasible and put on its bounds.

    Clip to the bounds, put entries within ``SNAP C`` of 0 or of their bound
    there (interior points stop short of the bounds), then put each block's sum
    back on the own-class entry (<= C after clipping the others to <= 0).
    """
    n, k = x.shape
    bound = _bounds(codes, k, C)
    alpha = np.minimum(x, bound)
    alpha[np.abs(alpha) < SNAP * C] = 0.0
    near = np.abs(alpha - bound) < SNAP * C
    alpha[near] = bound[near]
    rows = np.arange(n)
    own = alpha[rows, codes] - alpha.sum(axis=1)
    over = own > C
    alpha[rows, codes] = np.minimum(own, C)
    if np.any(over):
        # The others sum below -C there: shrink them towards 0 to sum to -C.
        others = alpha[over].sum(axis=1) - C
        alpha[over] *= (C / -others)[:, None]
        alpha[np.flatnonzero(over), codes[over]] = C
    return alpha


def solve_qp(
    dual: CSDual,
    *,
    tol: float = 1e-3,
    random_state: int | None = 0,
    budget: Budget | None = None,
) -> CSSolution:
    """CVXOPT on the whole dual (``n k`` variables, :func:`_interior_point`),
    then a block polish (sweeps only) from its answer put on the bounds."""
    budget = budget if budget is not None else Budget(None)
    x, iterations = _interior_point(dual.K, dual.codes, dual.k, dual.C)
    budget.check()
    polished = solve_blocks(
        dual,
        tol=min(POLISH_TOL, tol),
        max_iter=POLISH_SWEEPS,
        init=_on_bounds(x, dual.codes, dual.C),
        random_state=random_state,
        budget=budget,
        chunks=False,
    )
    return CSSolution(
        alpha=polished.alpha,
        objective=polished.objective,
        kkt=polished.kkt,
        converged=polished.kkt <= tol,
        stop_reason="converged" if polished.kkt <= tol else polished.stop_reason,
        n_iter=iterations,
        method="qp",
    )


def solve(
    dual: CSDual,
    *,
    method: str = "auto",
    tol: float = 1e-3,
    max_iter: int = 10_000,
    random_state: int | None = 0,
    max_seconds: float | None = None,
) -> tuple[CSSolution, float]:
    """Solve the dual with ``method`` ``"qp"``, ``"blocks"`` or ``"auto"`` (the QP
    up to :data:`QP_MAX_VARIABLES` variables); returns the solution and seconds."""
    start = time.perf_counter()
    budget = Budget(max_seconds)
    if method == "auto":
        method = "qp" if dual.K.shape[0] * dual.k <= QP_MAX_VARIABLES else "blocks"
    if method == "qp":
        solution = solve_qp(dual, tol=tol, random_state=random_state, budget=budget)
    else:
        solution = solve_blocks(
            dual,
            tol=tol,
            max_iter=max_iter,
            random_state=random_state,
            budget=budget,
        )
    return solution, time.perf_counter() - start

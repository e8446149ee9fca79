"""A start for the Crammer-Singer blocks when the kernel has a small rank.

Why (issue 44, item 2): an unscaled polynomial kernel of degree 2 on 2-D points
has rank 6 whatever n is (the monomials of degree <= 2), with entries up to
2e7 on 400 spiral points times 4. Then the scores ``F = K alpha`` live in a
6-dimensional space per class while the dual has ``n k`` variables: its
optimum is wildly degenerate (396 of 400 blocks free at the optimum) and every
block is coupled to every other through ``K``. Block sweeps crawl there
(coordinate descent near the hard margin, :mod:`svmlab.solvers.crammer_singer`),
and exact chunks of at most 300 variables only ever move a quarter of the
coupled blocks: 10,000 sweeps and 82 chunks left a KKT violation of 15.

With ``K = Phi Phi'`` (``Phi`` (n, r), a pivoted Cholesky factor) the primal is
small whatever the degeneracy of the dual: ``r k`` weights and ``n`` slacks,

.. math::

    \\min_{W, \\xi} \\tfrac12 \\|W\\|^2 + C \\sum_i \\xi_i \\quad\\text{s.t.}\\quad
    w_m'\\phi_i - w_{y_i}'\\phi_i - \\xi_i \\le -[m \\ne y_i]
    \\quad (\\text{all } i, m),

and its multipliers ``z_{i,m} >= 0`` are the dual's answer: stationarity in
``xi_i`` gives ``sum_m z_{i,m} = C`` and in ``w_m`` gives ``w_m = sum_i (C[m =
y_i] - z_{i,m}) phi_i``, so ``alpha_{i,m} = C[m = y_i] - z_{i,m}``, which meets
the dual's constraints. CVXOPT's interior point solves it in about 0.5 s at
n = 400 (the problem is unique in ``W``, so the interior point does not care
how degenerate ``alpha`` is); the sweeps then only polish (6,600 cheap sweeps
there, 0.3 s, from KKT 14.5 after rounding onto the bounds to below 1e-3).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from svmlab.array_types import Array

__all__ = ["LOW_RANK_MAX_RANK", "LOW_RANK_MAX_VARIABLES", "low_rank_factor", "start"]

#: The largest rank taken as small (the pivoted Cholesky stops beyond it: a
#: well-scaled Gaussian kernel costs ``n`` times this squared and is left alone).
LOW_RANK_MAX_RANK = 40
#: Most variables (``r k + n``) of the primal QP: its interior point factors a
#: dense system of this size about 15 times (measured 0.45 s at 418).
LOW_RANK_MAX_VARIABLES = 1_500
#: A pivot below this fraction of the largest diagonal entry ends the factor:
#: what is left of ``K`` is rounding (the sweeps use the exact ``K`` after).
RANK_TOL = 1e-12


def low_rank_factor(K: Array, max_rank: int = LOW_RANK_MAX_RANK) -> Array | None:
    """``Phi`` (n, r) with ``K = Phi Phi'`` up to :data:`RANK_TOL` of its
    largest diagonal entry, by a pivoted Cholesky (Harbrecht, Peters,
    Schneider 2012), or ``None`` if ``K``'s rank exceeds ``max_rank``."""
    n = K.shape[0]
    residual = np.array(np.diag(K), dtype=np.float64)
    scale = float(residual.max(initial=0.0))
    if not scale > 0.0:
        return None
    columns: list[Array] = []
    for _ in range(min(max_rank, n)):
        pivot = int(np.argmax(residual))
        if residual[pivot] <= RANK_TOL * scale:
            break
        column = np.asarray(K[:, pivot], dtype=np.float64).copy()
        for previous in columns:
            column -= previous * previous[pivot]
        column /= np.sqrt(residual[pivot])
        columns.append(column)
        residual -= column**2
    else:
        if float(residual.max(initial=0.0)) > RANK_TOL * scale:
            return None
    return np.column_stack(columns) if columns else np.zeros((n, 0))


def start(K: Array, codes: NDArray[np.int64], k: int, C: float) -> Array | None:
    """The dual ``alpha`` (n, k) from the primal's multipliers when ``K`` has a
    small rank (module docstring), before rounding onto the bounds; ``None``
    when the rank or the primal is too large, or CVXOPT breaks down (the
    caller goes on with its chunks)."""
    import cvxopt

    from svmlab.solvers.qp import interior_point

    n = K.shape[0]
    Phi = low_rank_factor(K)
    if Phi is None:
        return None
    r = Phi.shape[1]
    size = r * k + n
    if size > LOW_RANK_MAX_VARIABLES:
        return None
    # Rows i k + m: the weights' part (phi_i in w_m, -phi_i in w_{y_i}; they
    # cancel for m = y_i, which leaves -xi_i <= 0) and -1 on xi_i.
    rows, cols, values = [], [], []
    h = np.zeros(n * k)
    for i in range(n):
        own = int(codes[i])
        for m in range(k):
            row = i * k + m
            if m != own:
                rows += [row] * (2 * r)
                cols += list(range(m * r, (m + 1) * r))
                cols += list(range(own * r, (own + 1) * r))
                values += Phi[i].tolist() + (-Phi[i]).tolist()
                h[row] = -1.0
            rows.append(row)
            cols.append(r * k + i)
            values.append(-1.0)
    G = cvxopt.spmatrix(values, rows, cols, (n * k, size))
    P = np.zeros((size, size))
    P[: r * k, : r * k] = np.eye(r * k)
    q = np.concatenate([np.zeros(r * k), np.full(n, float(C))])
    try:
        result = interior_point(P, q, G, h, None, None, tol=1e-10)
    except (ValueError, ArithmeticError):
        return None
    if result["z"] is None:
        return None
    z = np.asarray(result["z"], dtype=np.float64).reshape(n, k)
    alpha = -z
    alpha[np.arange(n), codes] += C
    return alpha if np.all(np.isfinite(alpha)) else None

"""Newton phases of the entropy-dual solver: the dual's quadratic model on the
free multipliers, solved by a Cholesky factorisation, compiled with numba.

The coordinate and pair steps (:mod:`svmlab.solvers.entropy_steps`) converge
linearly, slowly where many free multipliers share an ill-conditioned block of
``H`` (a large C, a smooth kernel, and the tight margins a small delta asks
for). There Newton's method converges quadratically once the bound set is
right: :func:`newton` maximises the dual's second-order model over the free,
non-stiff multipliers with the others held, keeps every multiplier in
``(0, C]`` and backtracks until the dual increases.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from svmlab.solvers.entropy_steps import interval, kernel_row, violation

__all__ = ["newton"]


#: Reassociation lets LLVM vectorise the factorisation's dot products (3x at
#: 150 x 150: 61 against 182 us); the factor changes at rounding level, and
#: every Newton step is accepted only if the dual increases. The triangular
#: solves stay exact IEEE order: with them reassociated too, a fit at tol 1e-10
#: and delta 1e-4 stalled at a residual of 1.7e-10 (tests/test_entropy_dual.py,
#: the IRWLS comparison), where the solves are cheap anyway (f^2).
_FAST = {"reassoc", "contract", "nsz"}


@njit(cache=True, nogil=True, fastmath=_FAST)
def _cholesky_into(M, f):
    """``M[:f, :f]`` overwritten by its lower Cholesky factor; False if a pivot
    is not positive (not numerically positive definite)."""
    for j in range(f):
        s = M[j, j]
        for k in range(j):
            s -= M[j, k] * M[j, k]
        if not s > 0.0:
            return False
        d = math.sqrt(s)
        M[j, j] = d
        for i in range(j + 1, f):
            t = M[i, j]
            for k in range(j):
                t -= M[i, k] * M[j, k]
            M[i, j] = t / d
    return True


@njit(cache=True, nogil=True)
def _cho_solve_into(L, f, x):
    """``x[:f] = (L L')^{-1} x[:f]`` with the factor in ``L[:f, :f]``."""
    for i in range(f):
        s = x[i]
        for j in range(i):
            s -= L[i, j] * x[j]
        x[i] = s / L[i, i]
    for i in range(f - 1, -1, -1):
        x[i] /= L[i, i]
        xi = x[i]
        for j in range(i):
            x[j] -= L[i, j] * xi


@njit(cache=True, nogil=True)
def _newton_direction(rows, y, a, la, q, F, f, delta, pair, M, H, d, z):
    """The Newton direction on ``F[:f]``: ``(H_FF + diag(delta / a_F)) d = G_F``
    (projected on ``y_F' d = 0`` with the bias); False if the matrix is not
    numerically positive definite. ``H`` keeps ``H_FF`` for the gain."""
    for r in range(f):
        kr = F[r]
        row = kernel_row(kr, rows)
        for c in range(r + 1):
            kc = F[c]
            h = y[kr] * y[kc] * row[kc]
            H[r, c] = h
            H[c, r] = h
            M[r, c] = h
        M[r, r] += delta / a[kr]
        d[r] = 1.0 - delta - delta * la[kr] - q[kr]
    if not _cholesky_into(M, f):
        return False
    _cho_solve_into(M, f, d)
    if pair:
        for r in range(f):
            z[r] = y[F[r]]
        _cho_solve_into(M, f, z)
        num = 0.0
        den = 0.0
        for r in range(f):
            num += y[F[r]] * d[r]
            den += y[F[r]] * z[r]
        if den > 0.0:
            for r in range(f):
                d[r] -= num / den * z[r]
    return True


@njit(cache=True, nogil=True)
def _newton_gain(a, la, q, F, f, d, s, delta, quad):
    """The dual's increase from ``a_F`` to ``a_F + s d`` (the rest fixed),
    the entropy's change written with ``log1p`` so that a short step does not
    vanish in the difference of two large sums."""
    lin = 0.0
    ent = 0.0
    for r in range(f):
        k = F[r]
        lin += d[r] * (1.0 - q[k] - delta * la[k])
        ent += (a[k] + s * d[r]) * math.log1p(s * d[r] / a[k])
    return s * lin - delta * ent - 0.5 * s * s * quad


@njit(cache=True, nogil=True)
def newton(rows, diag, y, a, la, q, lo, hi, eligible, C, delta, tol, pair, stiff,
           rounds, max_free, M, H, d, z, F):  # fmt: skip
    """Up to ``rounds`` Newton iterations on the free, non-stiff multipliers
    (the others fixed); returns the number taken.

    Each maximises the dual's quadratic model over ``F`` (with ``y_F' d = 0``
    with the bias), keeps ``0 < a <= C`` (a multiplier may shrink by at most
    99 % per step; one reaching C stops the step and stays there) and halves
    the step until the dual increases. ``F``: eligible points not held at C
    by their gradient and with ``delta / a_k <= stiff K_kk`` (a stiffer one's
    row is diagonally dominant: the coordinate steps do what Newton would).
    A point on the tail (``a_k <= tol C``) that meets its KKT interval is
    held too, as at a bound. More than ``max_free`` free points: no step (the
    factorisation would cost more than it saves). ``M, H`` (at least
    ``min(n, max_free)`` square), ``d, z`` (n) and ``F`` (n, int) are work
    space.
    """
    n = y.shape[0]
    index = np.empty(n, dtype=np.int64)
    count = 0
    for k in range(n):
        if eligible[k]:
            index[count] = k
            count += 1
    taken = 0
    for _ in range(rounds):
        b = 0.0
        if pair:
            _, big_l, small_u = violation(y, q, lo, hi, index, count, True)
            if math.isfinite(big_l) and math.isfinite(small_u):
                b = 0.5 * (big_l + small_u)
        f = 0
        for r in range(count):
            k = index[r]
            g = 1.0 - delta - delta * la[k] - q[k]
            if a[k] >= C and g - b * y[k] >= 0.0:
                continue
            if not a[k] > 0.0 or delta / a[k] > stiff * max(diag[k], 1e-12):
                continue
            # A point out on the tail (a_k <= tol C: its interval has no upper
            # end) that meets its lower end is at its "bound": Newton would only
            # drive it towards 0 by 99 % a step and block the others.
            if math.isinf(hi[k]) and q[k] + b * y[k] >= lo[k]:
                continue
            F[f] = k
            f += 1
        if f > max_free:
            break
        solved = False
        for _attempt in range(6):
            if f == 0:
                break
            if not _newton_direction(rows, y, a, la, q, F, f, delta, pair, M, H, d, z):
                break
            # Active-set repair: a multiplier at C that the step would raise
            # stays at C: it leaves F and the system is solved again. (Dropping
            # the ones the step would more than halve as well was measured 17x
            # slower on the 10 x 10 leave-one-out grid at n = 200.)
            drops = 0
            for r in range(f):
                k = F[r]
                drops += a[k] >= C and d[r] > 0.0
            if drops == 0 or _attempt == 5:
                solved = True
                break
            kept = 0
            for r in range(f):
                k = F[r]
                if a[k] >= C and d[r] > 0.0:
                    continue
                F[kept] = k
                kept += 1
            f = kept
        if not solved:
            break
        s, hit = 1.0, -1
        for r in range(f):
            k = F[r]
            if d[r] < 0.0:
                s = min(s, 0.99 * a[k] / -d[r])
        for r in range(f):
            k = F[r]
            if d[r] > 0.0:
                room = (C - a[k]) / d[r]
                if room <= s:
                    s, hit = room, r
        quad = 0.0
        for r in range(f):
            t = 0.0
            for c in range(f):
                t += H[r, c] * d[c]
            quad += d[r] * t
        ok = False
        for _halving in range(30):
            if _newton_gain(a, la, q, F, f, d, s, delta, quad) > 0.0:
                ok = True
                break
            s *= 0.5
            hit = -1
        if not ok:
            break
        for r in range(f):
            k = F[r]
            new = a[k] + s * d[r]
            if r == hit or new >= C:
                new = C
            dc = y[k] * (new - a[k])
            a[k] = new
            la[k] = 0.0 if new >= C else max(math.log(new / C), -700.0)
            lo[k], hi[k] = interval(la[k], tol, delta)
            if dc != 0.0:
                row = kernel_row(k, rows)
                for t in range(n):
                    q[t] += y[t] * dc * row[t]
        taken += 1
        worst, _, _ = violation(y, q, lo, hi, index, count, pair)
        if worst <= 0.0:
            break
    return taken

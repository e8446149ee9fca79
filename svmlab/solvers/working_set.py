"""LIBSVM's working-set rules, compiled: which variables the next step moves.

The solver state is :mod:`svmlab.solvers.shrinking`'s arrays ``y, a, G, QD, U``
over the active positions ``0 .. active - 1`` (passed one by one, not as the
state tuple: unpacking a tuple of arrays in the hot loop costs reference counts,
measured at 0.4 µs of a 0.75 µs iteration); ``G`` is the
gradient of ``0.5 a'Q a + p'a`` with ``Q = Y K Y + diag(R)`` and ``U`` the
upper bounds (``0 <= a_t <= U_t``). Writing ``v_t = -y_t G_t``,
``I_up = {t: y_t = +1, a_t < U_t} | {t: y_t = -1, a_t > 0}`` (``v_t`` may grow)
and ``I_low`` the reverse:

- **one equality** ``y'a = c`` (LIBSVM's ``Solver::select_working_set``, WSS 2
  of Fan, Chen & Lin 2005): ``i = argmax_{I_up} v_t``, then ``j`` over
  ``I_low`` with ``v_j < v_i`` maximising the second-order decrease
  ``(v_i - v_j)^2 / (Q_ii + Q_jj - 2 K_ij)``; optimal when
  ``max_{I_up} v - min_{I_low} v <= tol``.
- **two equalities** ``y'a = c`` and ``1'a = d`` (ν-SVC, ν-SVR: LIBSVM's
  ``Solver_NU::select_working_set``): a step must keep both sums, so the two
  variables share a class. The rule above runs in each class separately (one
  ``i`` per class) and the better of the two candidate ``j`` wins; optimal when
  both classes' gaps are ``<= tol``.
- **no equality** (bias ``"none"`` or ``"regularized"``): the coordinate with
  the largest projected gradient (Rifkin's "simple SVM algorithm").

A curvature ``<= 0`` (an indefinite kernel, or the SVR pair ``t, t + n``) is
replaced by ``TAU``, as in LIBSVM, so each step still descends.

References
----------
Chang, Lin (2011), LIBSVM, ACM TIST 2, sections 4.1.2 and 4.1.4 (``svm.cpp``:
``Solver::select_working_set``, ``Solver_NU::select_working_set``). Fan, Chen,
Lin (2005), Working set selection using second order information for training
support vector machines, JMLR 6. Chen, Lin, Schölkopf (2005), A tutorial on
ν-support vector machines, Appl. Stoch. Models Bus. Ind. 21.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "TAU",
    "max_violator",
    "nu_partner",
    "nu_violators",
    "pair_partner",
    "select_single",
]

#: Curvature used when ``Q_ii + Q_jj - 2 Q_ij <= 0`` (LIBSVM's TAU).
TAU = 1e-12


@njit(cache=True, nogil=True, inline="always")
def pair_partner(i, gmax, Ki, y, a, G, QD, U, act, tol):  # pragma: no cover
    """WSS 2's ``j`` for ``i`` (``Ki``: its kernel row), ``-1`` when the
    active set is optimal (``m(a) - M(a) <= tol``)."""
    qi = QD[i]
    gmin = np.inf
    # Largest b^2 / quad, compared as b^2 best_quad >= best_b2 quad: no division
    # (the last of equals wins, as LIBSVM's <=). Written out, not a helper call:
    # this is the solver's hot loop (issue 30 tried one inline helper for this
    # test here and in nu_partner: SMO ran 4x slower, numba leaving the nested
    # inline call a call per point).
    best_b2, best_quad = 0.0, 1.0
    j = -1
    for t in range(act):
        if y[t] > 0.0:
            if not a[t] > 0.0:
                continue
            v = -G[t]
        else:
            if not a[t] < U[t]:
                continue
            v = G[t]
        if v < gmin:
            gmin = v
        b = gmax - v
        if b > 0.0:
            quad = qi + QD[t] - 2.0 * Ki[t]
            if quad <= 0.0:
                quad = TAU
            b2 = b * b
            if b2 * best_quad >= best_b2 * quad:
                best_b2, best_quad = b2, quad
                j = t
    if gmax - gmin <= tol:
        return -1
    return j


@njit(cache=True, nogil=True, inline="always")
def nu_violators(y, a, G, U, act):  # pragma: no cover - compiled
    """``Solver_NU``'s two candidates ``(ip, gp, in, gn)``: the largest ``-G``
    over ``y = +1, a < U`` and the largest ``G`` over ``y = -1, a > 0``."""
    gp, ip = -np.inf, -1
    gn, i_n = -np.inf, -1
    for t in range(act):
        if y[t] > 0.0:
            if a[t] < U[t] and -G[t] >= gp:
                gp = -G[t]
                ip = t
        elif a[t] > 0.0 and G[t] >= gn:
            gn = G[t]
            i_n = t
    return ip, gp, i_n, gn


@njit(cache=True, nogil=True, inline="always")
def max_violator(y, a, G, U, act):  # pragma: no cover - compiled
    """``(i, v_i)``: ``i = argmax_{I_up} -y_t G_t`` over the active set (the
    last of equals, as LIBSVM's ``>=``), ``-1`` when no variable can move up.

    The better of :func:`nu_violators`' two class candidates: the last of
    equals over both classes is the later of the two when they tie."""
    ip, gp, i_n, gn = nu_violators(y, a, G, U, act)
    if gp > gn:
        return ip, gp
    if gn > gp:
        return i_n, gn
    return max(ip, i_n), gp


@njit(cache=True, nogil=True, inline="always")
def nu_partner(ip, gp, i_n, gn, Kp, Kn, y, a, G, QD, U, act, tol):  # pragma: no cover
    """``Solver_NU``'s rule given its candidates and their rows: ``(i, j)``
    of one class, ``j = -1`` when both classes are optimal on the active set.
    A class without its ``i`` has ``gp`` (or ``gn``) ``= -inf``: no ``t`` of
    it has ``b > 0``, so its row (any stand-in) is never read."""
    qp = QD[ip] if ip >= 0 else 0.0
    qn = QD[i_n] if i_n >= 0 else 0.0
    gp2, gn2 = -np.inf, -np.inf  # -min over each class's I_low of -y G
    best_b2, best_quad = 0.0, 1.0
    j = -1
    for t in range(act):
        if y[t] > 0.0:
            if not a[t] > 0.0:
                continue
            if G[t] >= gp2:
                gp2 = G[t]
            b = gp + G[t]
            if b > 0.0:
                quad = qp + QD[t] - 2.0 * Kp[t]
                if quad <= 0.0:
                    quad = TAU
                b2 = b * b
                if b2 * best_quad >= best_b2 * quad:
                    best_b2, best_quad = b2, quad
                    j = t
        else:
            if not a[t] < U[t]:
                continue
            if -G[t] >= gn2:
                gn2 = -G[t]
            b = gn - G[t]
            if b > 0.0:
                quad = qn + QD[t] - 2.0 * Kn[t]
                if quad <= 0.0:
                    quad = TAU
                b2 = b * b
                if b2 * best_quad >= best_b2 * quad:
                    best_b2, best_quad = b2, quad
                    j = t
    if max(gp + gp2, gn + gn2) <= tol or j < 0:
        return ip if ip >= 0 else i_n, -1
    return (ip if y[j] > 0.0 else i_n), j


@njit(cache=True, nogil=True, inline="always")
def select_single(a, G, U, act, tol):  # pragma: no cover - compiled
    """The active coordinate with the largest projected gradient, or -1."""
    worst = 0.0
    k = -1
    for t in range(act):
        g = G[t]
        if a[t] <= 0.0 and g > 0.0:
            continue
        if a[t] >= U[t] and g < 0.0:
            continue
        if abs(g) > worst:
            worst = abs(g)
            k = t
    if worst <= tol:
        return -1
    return k

"""LIBSVM's working-set rules, compiled: which variables the next step moves.

The solver state is :mod:`svmlab.solvers.shrinking`'s ``vec = (y, a, G, G_bar,
p, QD, U, R)`` over the active positions ``0 .. active - 1``; ``G`` is the
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

from svmlab.solvers.row_cache import ACTIVE, NEXT, cached_row

__all__ = ["TAU", "select_nu", "select_pair", "select_single"]

#: Curvature used when ``Q_ii + Q_jj - 2 Q_ij <= 0`` (LIBSVM's TAU).
TAU = 1e-12


@njit(cache=True, nogil=True)
def select_pair(vec, src, cache, ist, tol):  # pragma: no cover - compiled
    """WSS 2 over the active set: ``(i, j)``, ``j = -1`` when optimal there,
    ``(-1, -1)`` when no variable can move up."""
    y, a, G, _Gb, _p, QD, U, _R = vec
    act = ist[ACTIVE]
    i = ist[NEXT]
    if i == -2:  # not known from the last update: scan
        gmax = -np.inf
        i = -1
        for t in range(act):
            if y[t] > 0.0:
                if a[t] < U[t] and -G[t] >= gmax:
                    gmax = -G[t]
                    i = t
            elif a[t] > 0.0 and G[t] >= gmax:
                gmax = G[t]
                i = t
    if i < 0:
        return -1, -1
    gmax = -y[i] * G[i]
    Ki = cached_row(i, act, src, cache, ist)
    qi = QD[i]
    gmin = np.inf
    # Largest b^2 / quad, compared as b^2 best_quad >= best_b2 quad: no division
    # (the last of equals wins, as LIBSVM's <=). Written out, not a helper call:
    # this is the solver's hot loop.
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
        return i, -1
    return i, j


@njit(cache=True, nogil=True)
def select_nu(vec, src, cache, ist, tol):  # pragma: no cover - compiled
    """``Solver_NU``'s rule: ``(i, j)`` of one class, ``j = -1`` when both
    classes are optimal on the active set, ``(-1, -1)`` when nothing can move."""
    y, a, G, _Gb, _p, QD, U, _R = vec
    act = ist[ACTIVE]
    gp, ip = -np.inf, -1  # max -G over y = +1, a < U
    gn, i_n = -np.inf, -1  # max G over y = -1, a > 0
    for t in range(act):
        if y[t] > 0.0:
            if a[t] < U[t] and -G[t] >= gp:
                gp = -G[t]
                ip = t
        elif a[t] > 0.0 and G[t] >= gn:
            gn = G[t]
            i_n = t
    if ip < 0 and i_n < 0:
        return -1, -1
    # A class without its i has gp (or gn) = -inf: no t of it has b > 0, so
    # its row is never read (any row will do as a stand-in).
    Kp = cached_row(ip if ip >= 0 else i_n, act, src, cache, ist)
    Kn = cached_row(i_n if i_n >= 0 else ip, act, src, cache, ist)
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


@njit(cache=True, nogil=True)
def select_single(vec, ist, tol):  # pragma: no cover - compiled
    """The active coordinate with the largest projected gradient, or -1."""
    _y, a, G, _Gb, _p, _QD, U, _R = vec
    worst = 0.0
    k = -1
    for t in range(ist[ACTIVE]):
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

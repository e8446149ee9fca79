"""What :meth:`svmlab.SVC.fit` checks around a solve: a Gram matrix handed in
(once per matrix), the solution's finiteness, and the sentences that say when
its numbers cannot be fully trusted. Split from :mod:`svmlab.svm.classifier` so that
each stays under the house limit of about 600 lines (STYLE rule 15).
"""

from __future__ import annotations

import math
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import ArrayLike
from sklearn.exceptions import ConvergenceWarning

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.compiled.summation import numpy_sum
from svmlab.errors import DataError, ProblemError, counted
from svmlab.solvers.base import Problem

__all__ = [
    "GRAM_CHECKS_KEPT",
    "LARGE_C",
    "ROUNDING_NOTE",
    "check_finite_solution",
    "check_gram",
    "convergence_message",
    "fit_notes",
    "kernel_part",
    "numerical_notes",
    "warn_unconverged_parts",
]


#: Rounding of f, in margin units, above which a fit gets a note: f sums terms
#: alpha_j y_j k(x_j, x) whose size grows with C, and float64 keeps about 16
#: digits of the largest (at alpha = 1e15 that is 0.2 of a margin).
ROUNDING_NOTE = 1e-3
#: From this C on, a failed KKT check is put down to the scale of the problem.
LARGE_C = 1e6


def fit_notes(problem: Problem, solution: Any, tol: float) -> tuple[str, ...]:
    """The sentences a fit carries (``fit_notes_``): :func:`numerical_notes`,
    led by the solver's own sentence when a rule of its own stopped it
    (``extras["stop_note"]``, e.g. the floating-point floor)."""
    notes = numerical_notes(problem, solution, tol)
    note = solution.extras.get("stop_note")
    return (note, *notes) if note else notes


def numerical_notes(problem: Problem, solution: Any, tol: float) -> tuple[str, ...]:
    """Plain sentences for a fit whose numbers cannot be trusted (issue 14, item 3).

    Rounding: ``f_i = sum_j alpha_j y_j K_ij`` is computed with an error of about
    ``eps * sum_j |alpha_j K_ij|`` (Higham, *Accuracy and Stability of Numerical
    Algorithms*, 2002, section 3.1; the worst case is n times that). KKT: the
    solution's own optimality check (margin units) above ``tol`` at a large C,
    where rounding and the slow growth of alpha towards C are the usual cause.
    """
    notes: list[str] = []
    alpha = solution.alpha
    C = problem.C
    # |K_ij| <= max_k K_kk for a positive semidefinite K, so the sizes of the
    # terms of f are at most max diag times sum |alpha| (O(n)); only when that
    # bound could reach the note is |K| |alpha| formed.
    size = _rounding_bound(problem, alpha)
    eps = _EPS
    if not (eps * size <= ROUNDING_NOTE):
        with np.errstate(over="ignore", invalid="ignore"):
            size = float(
                problem.kernel_times(np.abs(alpha), absolute=True).max(initial=0.0)
            )
    rounding = eps * size
    if not math.isfinite(rounding) or rounding > ROUNDING_NOTE:
        amax = float(np.abs(alpha).max(initial=0.0))
        how = (
            f"can reach about {rounding:.1g}"
            if math.isfinite(rounding)
            else "is unbounded"
        )
        notes.append(
            f"With C = {_c_text(C)} the coefficients αᵢ reach {amax:.3g}, so the "
            f"rounding error of f(x) {how} (a margin is 1): the margins, the "
            "objective and the picture may be inaccurate. A smaller C avoids this."
        )
    kkt = float(solution.kkt)
    if C >= LARGE_C and not kkt <= tol:
        other = "" if solution.extras.get("solver") == "qp" else ", or the qp solver,"
        notes.append(
            f"The fit fails its optimality (KKT) check by {kkt:.2g} margin units "
            f"(tol {tol:g}): at C = {_c_text(C)} the coefficients may have to grow "
            "very large, which solvers reach slowly and round inexactly. A smaller "
            f"C{other} gives a reliable fit."
        )
    return tuple(notes)


def _c_text(C: float) -> str:
    """C as a note says it."""
    return "∞ (hard margin)" if math.isinf(C) else f"{C:g}"


#: float64's machine epsilon (np.finfo's, read once).
_EPS = float(np.finfo(np.float64).eps)


def _diagonal(problem: Problem) -> Array:
    """``K_kk`` for every k."""
    if problem.K is not None:
        return np.diagonal(problem.K)
    return problem.kernel.diagonal()


def _rounding_bound(problem: Problem, alpha: Array) -> float:
    """``max_k |K_kk| * sum |alpha|``, the bound of :func:`numerical_notes`:
    one compiled pass on float64 vectors (:func:`_max_abs_times_sum`), the
    NumPy formula otherwise (the same number either way)."""
    diag = _diagonal(problem)
    if _vector(diag) and _vector(alpha):
        return _max_abs_times_sum(
            read_only(np.ascontiguousarray(diag)),
            read_only(np.ascontiguousarray(alpha)),
        )
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.abs(diag).max(initial=0.0)) * float(np.abs(alpha).sum())


def _vector(a: Any) -> bool:
    """A float64 vector (what the compiled checks take, in one version)."""
    return isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == 1


@njit(cache=True, nogil=True)
def _max_abs(a):  # pragma: no cover - compiled
    """``np.abs(a).max(initial=0.0)``: NaN where ``a`` holds one."""
    top = 0.0
    for t in range(a.shape[0]):
        v = abs(a[t])
        if v != v:
            return v
        top = max(top, v)
    return top


@njit(cache=True, nogil=True)
def _max_abs_times_sum(diag, alpha):  # pragma: no cover - compiled
    """``max |diag| (initial 0) * sum |alpha|`` as NumPy computes it, the sum
    in NumPy's pairwise order (:func:`svmlab.compiled.summation.numpy_sum`).
    Issue 48: NumPy's five calls and their error state took 6 us of each pair
    of a one-vs-one fit."""
    size = np.empty(alpha.shape[0])
    for t in range(alpha.shape[0]):
        size[t] = abs(alpha[t])
    return _max_abs(diag) * numpy_sum(size, size.shape[0])


def kernel_part(problem: Problem, solution: Any) -> Array:
    """``K (alpha * y)``: as the solver's result scored it, else formed here."""
    part = getattr(solution, "kernel_part", None)
    if part is not None:
        return part
    with np.errstate(over="ignore", invalid="ignore"):
        return problem.kernel_times(solution.alpha * problem.y)


def _surely_finite(problem: Problem, solution: Any) -> bool:
    """Whether :func:`check_finite_solution` would pass, from three maxima
    (issue 48: its checks took 6 us a pair of a one-vs-one fit, these 3):
    rounding is monotone, so ``|alpha_i y_i| <= max|alpha| max|y|`` and
    ``|f_i| = |Kc_i + b| <= max|Kc| + |b|`` are finite when the bounds are
    (a NaN makes a bound NaN). False: the full check decides."""
    part = solution.kernel_part
    if part is None:
        return False
    alpha, y = solution.alpha, problem.y
    if _vector(alpha) and _vector(y) and _vector(part):
        return _finite_bounds(
            read_only(np.ascontiguousarray(alpha)),
            read_only(np.ascontiguousarray(y)),
            read_only(np.ascontiguousarray(part)),
            float(solution.b),
        )
    coef = float(np.abs(alpha).max(initial=0.0)) * float(np.abs(y).max(initial=0.0))
    f = float(np.abs(part).max(initial=0.0)) + abs(solution.b)
    return math.isfinite(coef) and math.isfinite(f)


@njit(cache=True, nogil=True)
def _finite_bounds(alpha, y, part, b):  # pragma: no cover - compiled
    """:func:`_surely_finite`'s bounds from three maxima in one compiled call
    (a NaN makes its bound NaN: not finite)."""
    coef = _max_abs(alpha) * _max_abs(y)
    return np.isfinite(coef) and np.isfinite(_max_abs(part) + abs(b))


def check_finite_solution(problem: Problem, solution: Any, name: str) -> None:
    """A ProblemError instead of a model whose numbers are NaN or infinite
    (:func:`_surely_finite` first: three maxima settle the usual case)."""
    if _surely_finite(problem, solution):
        return
    coef = solution.alpha * problem.y
    with np.errstate(over="ignore", invalid="ignore"):
        f = kernel_part(problem, solution) + solution.b
    if (
        np.all(np.isfinite(coef))
        and math.isfinite(solution.b)
        and np.all(np.isfinite(f))
    ):
        return
    C = "∞" if math.isinf(problem.C) else f"{problem.C:g}"
    raise ProblemError(
        f"The {name} solver's answer is not a finite number (an overflow in "
        f"floating point at C = {C}); use a smaller C or scale the data."
    )


def convergence_message(name: str, solution: Any, tol: float) -> str:
    """The ConvergenceWarning's sentence: which limit or rule stopped the solver."""
    reason = solution.stop_reason
    kkt = f"(KKT violation {solution.kkt:.2e})"
    if reason == "max_seconds":
        return (
            f"The {name} solver stopped after {solution.fit_time:.1f} s, its time "
            f"budget, without meeting tol={tol} {kkt}. Raise max_seconds or tol."
        )
    if reason == "rule" and solution.extras.get("stop_note"):
        return (
            f"The {name} solver stopped without meeting tol={tol}: "
            f"{solution.extras['stop_note']}"
        )
    return (
        f"The {name} solver stopped after {counted(solution.n_iter, 'iteration')} "
        f"(max_iter) without meeting tol={tol} {kkt}. Raise max_iter or tol."
    )


#: Gram matrices handed to :meth:`SVC.fit` that passed the full check:
#: ``id -> (weak reference, fingerprint)``, the last :data:`GRAM_CHECKS_KEPT`.
_CHECKED_GRAMS: dict[int, tuple[weakref.ref, tuple]] = {}
GRAM_CHECKS_KEPT = 16
#: Entries of K sampled into its fingerprint.
_GRAM_SAMPLE = 64


def _gram_fingerprint(K: Array) -> tuple:
    """Where K lives, its shape, and a spread of its entries: a matrix checked
    before is recognised in O(1); one edited in place at a sampled entry, its
    diagonal or its first row is checked again."""
    flat = K.reshape(-1)
    sample = flat[np.linspace(0, flat.size - 1, _GRAM_SAMPLE).astype(np.int64)]
    return (
        K.__array_interface__["data"][0],
        K.shape,
        K.strides,
        sample.tobytes(),
        float(np.diagonal(K).sum()),
        float(K[0].sum()),
    )


def _full_check(K: Array) -> None:
    """Finite and symmetric, or a DataError (O(n^2))."""
    if not np.all(np.isfinite(K)):
        raise DataError("K contains NaN or infinite values; it must be finite.")
    # A kernel matrix is symmetric; the solvers read only one triangle of it in
    # places, so a non-symmetric K would give answers that depend on which.
    if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * float(np.abs(K).max())):
        raise DataError(
            "K is not symmetric (K[i, j] differs from K[j, i]); a Gram matrix "
            "k(x_i, x_j) must be."
        )


def check_gram(K: ArrayLike, n: int, *, full: bool = False) -> Array:
    """A precomputed Gram matrix as float64 (n, n), or a DataError.

    Finiteness and symmetry cost O(n^2) (symmetry 97 ms of a 121 ms fit at
    n = 2000 before issue 29), so each matrix is checked once: a matrix seen
    before (same object, same fingerprint, :func:`_gram_fingerprint`) is not
    checked again, so a C path, a grid row or a cross-validation that hands the
    same K to many fits pays once. ``full=True`` checks anyway.
    """
    # An array that is float64 already is kept as the same object (asarray
    # would make a new view when its dtype is an equal but distinct instance,
    # as numba's are, and the cache below would never recognise it).
    if not (type(K) is np.ndarray and K.dtype == np.float64):
        try:
            K = np.asarray(K, dtype=np.float64)
        except (TypeError, ValueError) as error:
            raise DataError(
                f"K must be a numeric ({n}, {n}) Gram matrix of the training "
                "points: numbers only, every row the same length."
            ) from error
    if K.shape != (n, n):
        shape = ", ".join(str(int(k)) for k in K.shape)
        raise DataError(
            f"K must be the ({n}, {n}) Gram matrix of the {n} training points; "
            f"got shape ({shape})."
        )
    seen = _CHECKED_GRAMS.get(id(K))
    fingerprint = _gram_fingerprint(K) if n else ()
    if not full and seen is not None and seen[0]() is K and seen[1] == fingerprint:
        return K
    _full_check(K)
    while len(_CHECKED_GRAMS) >= GRAM_CHECKS_KEPT:
        _CHECKED_GRAMS.pop(next(iter(_CHECKED_GRAMS)))
    _CHECKED_GRAMS[id(K)] = (weakref.ref(K), fingerprint)
    return K


def warn_unconverged_parts(
    models: Sequence[Any], caught: Sequence[warnings.WarningMessage], parts: str
) -> int:
    """After fitting a multiclass machine's binary ``models`` under
    ``warnings.catch_warnings(record=True)``: pass on every caught warning but
    the binary fits' ConvergenceWarnings, and say those once for all, as
    "3 of the 10 <parts> did not converge" (a reduction would otherwise print
    one warning per binary fit). Returns how many did not converge.
    """
    missed = sum(not m.converged_ for m in models)
    for w in caught:
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if missed:
        # 4: this function, the multiclass fit's helper, its fit, the caller.
        warnings.warn(
            f"{missed} of the {len(models)} {parts} did not converge "
            "(tol, max_iter or max_seconds); their boundaries are approximate.",
            ConvergenceWarning,
            stacklevel=4,
        )
    return missed

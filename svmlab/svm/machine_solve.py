"""The C-SVM's solves on input checked once: the binary machine and every pair.

:class:`svmlab.SVC` checks its input, its parameters and its class and sample
weights once per ``fit``; what is left is one solve (two classes) or one per
pair of classes (more, LIBSVM's one-vs-one). Both are :func:`solve_machine`: the
solver resolved, the kernel as rows on demand (SMO, the entropy dual: LIBSVM's
kernel cache) or a Gram matrix, one :class:`~svmlab.solvers.base.Problem`
handed to :func:`svmlab.solvers.solve` (the solvers' one signature), and the
result checked for NaN.

:func:`solve_pairs` runs it on each pair's rows of the arrays already checked,
with no binary estimator built, cloned or validated per pair (issue 48: on iris
those took three quarters of a one-vs-one fit, the solves a fifth). Each pair
gives a :class:`PairFit`, what :func:`svmlab.svm.libsvm_layout.assemble` and
the fitted attributes need.

The kernel is not formed once for all pairs: on digits (1,797 points, 45
pairs) SMO's rows on demand computed 1.29 million kernel entries over all
pairs, the full Gram matrix is 3.23 million (and LIBSVM, too, starts a fresh
kernel cache for each pair, ``svm_train_one``). A precomputed or callable
kernel's Gram matrix is computed (or checked) once and sliced per pair.

From :data:`PAIR_THREADS_FROM` training points, with a free core and outside a
fit lane, the pairs run on two threads (:func:`pair_threads`): SMO's compiled
loop releases the interpreter lock (numba ``nogil``), so on digits (45 pairs of
about 360 points, 1.3 ms of compiled loop and 0.25 ms of Python each) two pairs
run at once; scikit-learn's LIBSVM runs its pairs one after another on one
core. Each pair runs in a copy of the caller's context (its ``cancel_when``
predicate) and gives the same answer to the bit whichever thread solved it.
"""

from __future__ import annotations

import contextvars
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmlab import solvers
from svmlab.array_types import Array
from svmlab.compiled.threads import idle_core
from svmlab.kernels import PSD_KERNELS, KernelRows
from svmlab.kernels.psd import check_bounded_dual
from svmlab.losses import Loss
from svmlab.solvers.base import Budget, DualSolution, Problem
from svmlab.solvers.lane import in_lane
from svmlab.svm.fit_checks import check_finite_solution, fit_notes
from svmlab.svm.kernel_spec import KernelSpec

__all__ = [
    "PairFit",
    "intercept",
    "kernel_rows_of",
    "pair_threads",
    "solve_machine",
    "solve_pairs",
    "solver_name",
]


@dataclass(frozen=True)
class PairFit:
    """One pair's machine (classes ``i < j``) as the multiclass layout needs it.

    ``rows`` are the training rows it was solved on, ``coef`` their ``y
    alpha`` with class i as +1 (LIBSVM's orientation), ``intercept`` its
    ``-rho`` (its value is positive for class i). The other fields carry a
    binary estimator's names, so that a pair solved here and a fitted binary
    estimator (:class:`svmlab.NuSVC`'s pairs) are read alike.
    """

    rows: NDArray[np.intp]
    coef: Array
    intercept: float
    n_iter_: int
    converged_: bool
    stop_reason_: str
    kkt_violation_: float
    solver_: str | None
    fit_notes_: tuple[str, ...]


def solve_machine(
    model: Any,
    loss: Loss,
    spec: KernelSpec,
    y: Array,
    *,
    points: Array | None = None,
    K: Array | None = None,
    weights: Array | None = None,
    init: Array | None = None,
    record_history: bool = False,
    max_seconds: float | None = None,
    rows_of: KernelRows | None = None,
    name: str | None = None,
) -> tuple[Problem, DualSolution, str]:
    """One binary C-SVM solve with ``model``'s settings (an :class:`svmlab.SVC`):
    labels ``y`` in {-1, +1}, the built-in kernel's ``points`` or the Gram
    matrix ``K`` (the plain kernel: the regularized bias's ``+ 1`` is added
    here), ``weights`` each point's factor on C (None: all 1). ``rows_of``,
    the kernel rows of ``points`` (:func:`kernel_rows`), saves building them;
    ``name``, the solver :func:`solver_name` gives these settings, resolving it.

    Returns the problem, the checked solution and the solver's name."""
    fit_intercept = model.bias == "unregularized"
    if name is None:
        name = solver_name(model, weighted=weights is not None)
    shift = _shift(model)
    kernel_rows = None
    if K is None and name in solvers.ON_DEMAND:
        # SMO and the entropy dual compute and cache only the kernel rows
        # they visit (LIBSVM).
        kernel_rows = rows_of or kernel_rows_of(model, spec, points)
    else:
        K = spec.gram(points) if K is None else K
        if shift:
            K = K + shift
    if model.loss == "squared_hinge" and spec.kernel not in PSD_KERNELS:
        # No box on α: an indefinite K + I/C leaves the dual unbounded.
        check_bounded_dual(
            kernel_rows.full() if K is None else K,
            float(model.C),
            loss="squared hinge",
            boxed="hinge",
            weights=weights,
        )
    problem = Problem(
        K=K,
        y=y,
        loss=loss,
        C=float(model.C),
        fit_intercept=fit_intercept,
        kernel=kernel_rows,
        weights=weights,
    )
    solution = solvers.solve(
        problem,
        method=name,
        tol=float(model.tol),
        max_iter=model._iteration_cap(name),
        init=init,
        record_history=record_history,
        max_seconds=max_seconds,
        **(model.solver_options or {}),
    )
    check_finite_solution(problem, solution, name)
    return problem, solution, name


def solver_name(model: Any, *, weighted: bool) -> str:
    """The concrete solver of ``model``'s settings (``"auto"`` resolved)."""
    return solvers.resolve_solver(
        model.solver,
        model.loss,
        fit_intercept=model.bias == "unregularized",
        hard_margin=math.isinf(model.C),
        weighted=weighted,
    )


def intercept(model: Any, solution: DualSolution, y: Array) -> float:
    """b of the solved machine: the solver's, plus the implicit ``sum alpha_i
    y_i`` of the regularized bias (its kernel K + 1 carries b)."""
    extra = float(solution.alpha @ y) if model.bias == "regularized" else 0.0
    return solution.b + extra


def _shift(model: Any) -> float:
    """The regularized bias is the kernel K + 1 (Rifkin's slides)."""
    return 1.0 if model.bias == "regularized" else 0.0


def kernel_rows_of(model: Any, spec: KernelSpec, points: Array) -> KernelRows:
    """The kernel rows on demand of ``points`` (with the regularized bias's
    shift) that SMO and the entropy dual read."""
    return KernelRows(spec.points(points), **spec.settings(), shift=_shift(model))


def solve_pairs(
    model: Any,
    loss: Loss,
    data: Array,
    spec: KernelSpec,
    codes: NDArray[np.intp],
    pairs: list[tuple[tuple[int, int], NDArray[np.intp]]],
    weights: Array | None,
    budget: Budget,
) -> list[PairFit]:
    """Every pair ``(i, j)`` of ``pairs``, given with its training rows
    (:meth:`svmlab.svm.libsvm_layout.PairwiseInput.pair_rows`), solved on those
    rows of ``data``: the
    built-in kernel's dense points, or (``spec`` not built in) the Gram matrix
    of all the training points, checked by the caller.

    Each pair's C per point is ``C w_c`` (``model.class_weight_``) times the
    sample weight; points of weight 0 or less are left out (their alpha is 0,
    as in the binary fit). Class i is the +1 of the solve, as in LIBSVM's
    ``svm_train``: SMO then picks LIBSVM's working sets, step for step (a
    binary :class:`svmlab.SVC` on the two labels makes class j the +1 and
    took up to a fifth more or fewer steps at tol 1e-3 on iris, wine and digits).
    """
    class_factor = model.class_weight_
    uniform = bool(np.all(class_factor == 1.0))
    square = not spec.builtin
    tol = float(model.tol)
    weighted = weights is not None or not uniform
    every_row = None
    # One solver for every pair: a pair is weighted where the fit is.
    solver = solver_name(model, weighted=weighted)
    if not square and solver in solvers.ON_DEMAND:
        # Checked once; each pair takes its points' rows (KernelRows.take).
        every_row = kernel_rows_of(model, spec, data)

    def solve_pair(pair: tuple[tuple[int, int], NDArray[np.intp]]) -> PairFit:
        (i, _j), rows = pair
        factor = None if uniform else class_factor[codes[rows]]
        if weights is not None:
            w = weights[rows]
            factor = w if factor is None else factor * w
            kept = w > 0.0
            rows, factor = rows[kept], factor[kept]
        y = np.where(codes[rows] == i, 1.0, -1.0)
        problem, solution, name = solve_machine(
            model,
            loss,
            spec,
            y,
            # The rows on demand carry the points (no copy of them here).
            points=None if square or every_row is not None else data[rows],
            K=data[np.ix_(rows, rows)] if square else None,
            weights=factor,
            max_seconds=budget.remaining(),
            rows_of=None if every_row is None else every_row.take(rows),
            name=solver,
        )
        return PairFit(
            rows=rows,
            coef=solution.alpha * y,
            intercept=intercept(model, solution, y),
            n_iter_=int(solution.n_iter),
            converged_=bool(solution.converged),
            stop_reason_=solution.stop_reason,
            kkt_violation_=float(solution.kkt),
            solver_=name,
            fit_notes_=fit_notes(problem, solution, tol),
        )

    workers = pair_threads(codes.shape[0], len(pairs))
    if workers == 1:
        return [solve_pair(pair) for pair in pairs]
    # Each pair in this thread's context (its cancel_when predicate); the
    # results in pairs' order, the first failing pair's error raised.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(contextvars.copy_context().run, solve_pair, pair)
            for pair in pairs
        ]
        return [future.result() for future in futures]


#: Training points from which a one-vs-one fit solves its pairs in two threads
#: (issue 48; see :func:`pair_threads`).
PAIR_THREADS_FROM = 500


def pair_threads(n: int, n_pairs: int) -> int:
    """Threads for ``n_pairs`` pair solves on ``n`` training points: 2 when
    there are 2 pairs or more, at least :data:`PAIR_THREADS_FROM` points, a
    free core (:func:`svmlab.compiled.threads.idle_core`) and no fit lane
    (:func:`svmlab.solvers.lane.in_lane`: a lane keeps long fits on one
    core), else 1.

    SMO's compiled loop releases the interpreter lock (numba ``nogil``), so
    two pairs run at once on two cores; each pair's answer is the same
    whichever thread solved it. Below the threshold a pair's Python set-up
    (which holds the lock) is most of its time and threads gain nothing."""
    if n_pairs < 2 or n < PAIR_THREADS_FROM or in_lane() or not idle_core():
        return 1
    return 2

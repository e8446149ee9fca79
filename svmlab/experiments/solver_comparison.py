"""Every solver on one problem, side by side: the Solvers page's table, traces
and race, and ``benchmarks/solvers.py``'s per-solver rows (one code path).

:func:`compare_solvers` builds one :class:`~svmlab.solvers.Problem` from the data
and a :class:`ModelSpec`, runs every solver registered for its loss and bias
(:func:`svmlab.solvers.valid_solvers`) twice: once timed without a history (the
table's time), once with :class:`~svmlab.solvers.History` recorded (the traces
and the race), and scikit-learn's ``SVC`` (LIBSVM) and ``LinearSVC``
(LIBLINEAR) where they solve the same problem, as library references. Every
answer is scored by the same formulas (:mod:`svmlab.solvers.base`): the primal
objective ``0.5 ||f||^2 + C sum loss(m_i)``, the KKT violation, the duality gap
``primal - dual`` (box-QP losses; it bounds ``objective - optimum``, Sugiyama
§27.2) and ``max |f - f_ref|`` over a grid of the plane, ``f_ref`` the reference
solution (:func:`reference_solution`).

The race (:func:`svmlab.experiments.solver_race.race_frames`) reads the
recorded iterates kept in a :class:`Comparison`.
"""

from __future__ import annotations

import math
import statistics
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmlab.array_types import Array, Bounds
from svmlab.errors import IncompatibleLossError, SvmlabError
from svmlab.experiments.robustness import plane_window
from svmlab.kernels import gamma_from_sigma, gram, kernel_settings
from svmlab.losses import make_loss
from svmlab.solvers import SOLVERS, DualSolution, Problem, check_solver, solve
from svmlab.solvers.base import sv_states

__all__ = [
    "LIBRARY",
    "Comparison",
    "ModelSpec",
    "SolverRow",
    "Trace",
    "compare_solvers",
    "library_reason",
    "libsvm_estimator",
    "reference_solution",
    "solver_order",
    "timed_solve",
    "warm_up",
]


#: The library references: name -> title.
LIBRARY: dict[str, str] = {
    "libsvm": "scikit-learn SVC (LIBSVM)",
    "liblinear": "scikit-learn LinearSVC (LIBLINEAR)",
}
#: Tolerance of the reference solve (the QP's KKT violation is then ~1e-12).
REFERENCE_TOL = 1e-8
#: A fit under this many seconds is timed as the median of :data:`REPEATS` runs.
QUICK_SECONDS = 0.05
REPEATS = 3


@dataclass(frozen=True)
class ModelSpec:
    """One model, as primitives: kernel, loss, C, sigma, bias, tol, time budget.

    ``bias`` is the estimator's: ``"unregularized"`` (``sum alpha_i y_i = 0``),
    ``"regularized"`` (the kernel ``K + 1``, Rifkin) or ``"none"`` (Lee).
    ``C = math.inf`` is the hard margin. ``max_seconds`` is every fit's budget.
    """

    kernel: str = "gaussian"
    loss: str = "hinge"
    C: float = 10.0
    sigma: float = 0.5
    degree: int = 3
    bias: str = "unregularized"
    delta: float = 0.1
    tol: float = 1e-3
    max_seconds: float | None = 5.0

    @property
    def fit_intercept(self) -> bool:
        return self.bias == "unregularized"

    @property
    def shift(self) -> float:
        """What the regularized bias adds to every kernel value (Rifkin)."""
        return 1.0 if self.bias == "regularized" else 0.0

    def gram(self, X: ArrayLike, Z: ArrayLike | None = None) -> Array:
        """The effective kernel ``k(x, z) + shift``, shape (n_X, n_Z)."""
        K = gram(
            np.asarray(X, dtype=np.float64),
            None if Z is None else np.asarray(Z, dtype=np.float64),
            **kernel_settings(self),
        )
        return K + self.shift if self.shift else K

    def problem(self, K: Array, y: ArrayLike) -> Problem:
        return Problem(
            K,
            np.asarray(y, dtype=np.float64),
            make_loss(self.loss, delta=self.delta),
            float(self.C),
            self.fit_intercept,
        )


@dataclass
class SolverRow:
    """One row of the table. ``valid`` False: ``reason`` says why it cannot solve
    this problem; ``error``: the engine's sentence when the fit itself failed.
    Numbers a solver cannot give (LIBLINEAR's dual, say) stay None."""

    name: str
    title: str
    library: bool
    valid: bool
    reason: str = ""
    error: str = ""
    fit_time: float | None = None
    n_iter: int | None = None
    objective: float | None = None
    kkt: float | None = None
    gap: float | None = None
    n_free: int | None = None
    n_bound: int | None = None
    max_f_diff: float | None = None
    met_tol: bool | None = None
    stop_reason: str = ""
    note: str = ""


@dataclass
class Trace:
    """One iterative solver's recorded run (:class:`~svmlab.solvers.History`).

    ``time`` is the recorded clock rescaled so that the run ends at the timed
    run's ``fit_time`` (recording snapshots slows a run, evenly); ``alpha`` the
    float32 snapshots, shape (records, n); ``final_alpha``/``final_b`` the run's
    answer (the race's last frame).
    """

    name: str
    iteration: NDArray[np.int64]
    time: Array
    objective: Array
    kkt: Array
    alpha: NDArray[np.float32]
    intercept: Array
    final_alpha: Array
    final_b: float
    fit_time: float


@dataclass
class Comparison:
    """Everything the page draws; see :func:`compare_solvers`."""

    model: ModelSpec
    X: Array
    y: Array
    rows: list[SolverRow]
    traces: dict[str, Trace]
    reference: str | None
    best_objective: float | None
    bounds: Bounds
    resolution: int
    K_grid: Array = field(repr=False)
    f_reference: Array | None = field(default=None, repr=False)
    f_final: dict[str, Array] = field(default_factory=dict, repr=False)
    gram_time: float = 0.0

    def row(self, name: str) -> SolverRow:
        return next(r for r in self.rows if r.name == name)


def solver_order() -> list[str]:
    """Every svmlab solver, then the library references (the page's order)."""
    return [*SOLVERS, *LIBRARY]


def library_reason(name: str, model: ModelSpec) -> str:
    """Why a library reference does not solve ``model`` ("" when it does)."""
    if math.isinf(model.C):
        return "scikit-learn needs a finite C (no hard margin)."
    if name == "libsvm":
        if model.loss != "hinge":
            return "LIBSVM's SVC minimises the hinge loss only."
        if model.bias != "unregularized":
            return "LIBSVM's SVC always fits an unregularized b (Σ αᵢyᵢ = 0)."
        return ""
    if model.kernel != "linear":
        return "LinearSVC fits the linear kernel only."
    if model.loss not in ("hinge", "squared_hinge"):
        return "LinearSVC minimises the hinge or the squared hinge only."
    if model.bias == "unregularized":
        return (
            "LinearSVC regularizes its intercept (x extended by 1: the regularized "
            "bias), or fits none."
        )
    return ""


def timed_solve(
    problem: Problem,
    name: str,
    *,
    tol: float,
    max_seconds: float | None,
    repeats: int = REPEATS,
    **options: object,
) -> tuple[DualSolution, float]:
    """One solver's answer and its time: the median of ``repeats`` runs when the
    first takes under :data:`QUICK_SECONDS` (a millisecond fit is noise-bound),
    else the first run's. The time is :func:`svmlab.solvers.solve`'s
    ``fit_time`` (the Gram matrix is formed before, once, by the caller)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(problem, method=name, tol=tol, max_seconds=max_seconds, **options)
        times = [sol.fit_time]
        if sol.fit_time < QUICK_SECONDS:
            for _ in range(repeats - 1):
                times.append(
                    solve(
                        problem,
                        method=name,
                        tol=tol,
                        max_seconds=max_seconds,
                        **options,
                    ).fit_time
                )
    return sol, float(statistics.median(times))


def warm_up() -> None:
    """Every solver run once with every loss and bias, with and without a
    history, and the library references once, so that no timed fit pays for
    compiling (numba) or importing (CVXOPT, scikit-learn): the one warm-up of
    :func:`svmlab.compiled.precompile.warm_up`, once per process (waits for it if the
    server's background thread is running it)."""
    from svmlab.compiled import precompile

    precompile.warm_up()


def reference_solution(
    problem: Problem, max_seconds: float | None = None
) -> tuple[str, DualSolution] | None:
    """The referee for ``max |f - f_ref|`` and the objective gap, or None.

    Hinge and squared hinge: the exact QP (Sugiyama §27.2 eq. 27.3, polished by
    an active-set step) at tol :data:`REFERENCE_TOL`. Modified hinge (no QP
    form): IRWLS with the KKT stopping rule at the same tol (Lee 2006 §3, as
    corrected in the project's notes). The ramp losses are non-convex: no
    solver's answer is *the* optimum, so none.
    """
    loss = problem.loss.name
    if loss in ("hinge", "squared_hinge"):
        name, options = "qp", {}
    elif loss == "modified_hinge":
        name, options = "irwls", {"stop": "kkt"}
    else:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sol = solve(
            problem,
            method=name,
            tol=REFERENCE_TOL,
            max_seconds=max_seconds,
            **options,
        )
    return name, sol


def _states(sol: DualSolution, model: ModelSpec) -> tuple[int, int]:
    state = sv_states(sol.alpha, model.C, model.loss)
    return int(np.count_nonzero(state == 1)), int(np.count_nonzero(state == 2))


def _row_from(
    name: str, title: str, sol: DualSolution, fit_time: float, model: ModelSpec
) -> SolverRow:
    n_free, n_bound = _states(sol, model)
    return SolverRow(
        name=name,
        title=title,
        library=name in LIBRARY,
        valid=True,
        fit_time=fit_time,
        n_iter=int(sol.n_iter),
        objective=float(sol.objective),
        kkt=float(sol.kkt),
        gap=sol.duality_gap(),
        n_free=n_free,
        n_bound=n_bound,
        met_tol=bool(sol.converged),
        stop_reason=sol.stop_reason,
        note=str(sol.extras.get("stop_note", "")),
    )


def libsvm_estimator(model: ModelSpec):
    """scikit-learn's SVC for ``model``, unfitted. The kernel is scikit-learn's:
    rbf with ``gamma = 1 / (2 sigma^2)``, poly with ``gamma = 1, coef0 = 1``
    (svmlab's ``(x'z + 1)^p``), or linear."""
    from sklearn.svm import SVC as LibSVC

    params: dict[str, object] = {"kernel": "linear"}
    if model.kernel == "gaussian":
        params = {"kernel": "rbf", "gamma": gamma_from_sigma(model.sigma)}
    elif model.kernel == "polynomial":
        params = {"kernel": "poly", "gamma": 1.0, "coef0": 1.0}
        params["degree"] = model.degree
    return LibSVC(C=model.C, tol=model.tol, **params)


def _libsvm(X: Array, y: Array, model: ModelSpec, problem: Problem):
    """scikit-learn's SVC on the same problem; its answer as a DualSolution
    (alpha from ``dual_coef_ = y_i alpha_i``, b from ``intercept_``), scored by
    svmlab's own formulas."""
    lib = libsvm_estimator(model)
    start = time.perf_counter()
    lib.fit(X, y)
    seconds = time.perf_counter() - start
    alpha = np.zeros(len(y))
    alpha[lib.support_] = np.abs(lib.dual_coef_[0])
    # LIBSVM runs without an iteration cap here (scikit-learn's max_iter=-1):
    # fit_status_ 0 is its own stopping test (m - M <= tol on its float32 kernel
    # cache), 1 an iteration cap. Its stop is that, whatever svmlab's float64
    # KKT measure of the answer says (the table shows both).
    own = int(lib.fit_status_) == 0
    sol = DualSolution.finish(
        problem, alpha, float(lib.intercept_[0]), n_iter=int(lib.n_iter_[0]),
        tol=model.tol, stop_reason="converged" if own else "max_iter",
        rule="LIBSVM stopped by its own test (m − M ≤ tol, computed with its "
        "float32 kernel cache)",
    )  # fmt: skip
    return lib, sol, seconds


def _liblinear(X: Array, y: Array, model: ModelSpec):
    """scikit-learn's LinearSVC: the regularized bias is its ``intercept_scaling
    = 1`` (x extended by a constant 1, so ``||w||^2`` includes ``b^2``); its
    squared hinge is ``sum max(0, 1 - m)^2``, svmlab's is half that, so C / 2.
    Returns the estimator, its primal objective, iterations and seconds."""
    from sklearn.svm import LinearSVC

    squared = model.loss == "squared_hinge"
    lib = LinearSVC(
        loss=model.loss,
        C=model.C / 2.0 if squared else model.C,
        dual=True,
        tol=model.tol,
        fit_intercept=model.bias == "regularized",
        intercept_scaling=1.0,
        max_iter=100_000,
        # LIBLINEAR visits the coordinates in a random order: seeded, so the
        # table's iterations and f are the same at every run (and in the
        # page's code for this view).
        random_state=0,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib.fit(X, y)
    seconds = time.perf_counter() - start
    w, b = lib.coef_.ravel(), float(np.ravel(lib.intercept_)[0])
    m = y * (X @ w + b)
    norm2 = float(w @ w) + (b * b if model.bias == "regularized" else 0.0)
    loss = make_loss(model.loss).value(m)
    objective = 0.5 * norm2 + model.C * float(loss.sum())
    return lib, objective, int(lib.n_iter_), seconds


def _trace(name: str, sol: DualSolution, fit_time: float) -> Trace:
    h = sol.history
    raw = np.asarray(h.time, dtype=np.float64)
    # Recording costs time; scale the clock so the run ends at the timed run's
    # end (the race's common clock compares solvers, not their recording).
    total = max(sol.fit_time, raw[-1] if raw.size else 0.0, 1e-12)
    iteration = np.asarray(h.iteration, dtype=np.int64)
    objective = np.asarray(h.objective, dtype=np.float64)
    kkt = np.asarray(h.kkt_violation, dtype=np.float64)
    alpha = np.asarray(h.alpha, dtype=np.float32).reshape(len(h), -1)
    intercept = np.asarray(h.intercept, dtype=np.float64)
    times = raw * (fit_time / total)
    if iteration[-1] != sol.n_iter or objective[-1] != sol.objective:
        # End every trace at the answer: thinning may skip the last iterate, and
        # a final step may not be an iteration (retargeted LS's active-set
        # polish jumps to the exact solution after its last record).
        iteration = np.append(iteration, sol.n_iter)
        objective = np.append(objective, sol.objective)
        kkt = np.append(kkt, sol.kkt)
        alpha = np.vstack([alpha, sol.alpha.astype(np.float32)])
        intercept = np.append(intercept, sol.b)
        times = np.append(times, fit_time)
    return Trace(
        name=name,
        iteration=iteration,
        time=times,
        objective=objective,
        kkt=kkt,
        alpha=alpha,
        intercept=intercept,
        final_alpha=sol.alpha,
        final_b=float(sol.b),
        fit_time=fit_time,
    )


def _plane(bounds: Bounds, resolution: int) -> Array:
    x0, x1, y0, y1 = bounds
    gx, gy = np.meshgrid(
        np.linspace(x0, x1, resolution), np.linspace(y0, y1, resolution)
    )
    return np.column_stack([gx.ravel(), gy.ravel()])


def compare_solvers(
    X: ArrayLike,
    y: ArrayLike,
    model: ModelSpec,
    *,
    bounds: Bounds | None = None,
    resolution: int = 50,
    traces: bool = True,
    library: bool = True,
) -> Comparison:
    """Every solver (and library reference) on one problem, scored alike.

    Parameters
    ----------
    X, y
        Training points, shape (n, 2) (any d for ``bounds`` given), labels in
        {-1, +1}, shape (n,).
    model
        The kernel, loss, C, sigma, bias, tol and per-fit budget.
    bounds
        The plane ``(x0, x1, y0, y1)`` over which ``max |f - f_ref|`` is taken and
        the race draws (default: :func:`svmlab.experiments.robustness.plane_window`).
    resolution
        Grid points per side of the plane.
    traces
        Also run every iterative solver with its history recorded.
    library
        Also fit scikit-learn's references where they apply.

    Returns
    -------
    Comparison
        One :class:`SolverRow` per solver in :func:`solver_order` (invalid ones
        with their reason), the traces, the reference's name and the lowest
        objective reached (the traces' gap is measured from it).

    Raises
    ------
    SvmlabError
        Only for a model no solver can even start on (an unknown kernel, a
        bad parameter); a solver's own failure is its row's ``error``.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    start = time.perf_counter()
    K = model.gram(X)
    gram_time = time.perf_counter() - start
    problem = model.problem(K, y)
    bounds = bounds or plane_window(X)
    K_grid = model.gram(_plane(bounds, resolution), X)
    rows: list[SolverRow] = []
    found: dict[str, Trace] = {}
    f_final: dict[str, Array] = {}
    hard = math.isinf(model.C)

    ref_name, f_ref = None, None
    try:
        ref = reference_solution(problem, model.max_seconds)
    except SvmlabError:
        ref = None  # the same failure shows in that solver's own row
    if ref is not None:
        ref_name, ref_sol = ref
        f_ref = K_grid @ (ref_sol.alpha * y) + ref_sol.b

    for name, spec in SOLVERS.items():
        try:
            check_solver(
                name, model.loss, fit_intercept=model.fit_intercept, hard_margin=hard
            )
        except IncompatibleLossError as error:
            rows.append(SolverRow(name, spec.title, False, False, reason=str(error)))
            continue
        try:
            sol, seconds = timed_solve(
                problem, name, tol=model.tol, max_seconds=model.max_seconds
            )
            if traces and spec.iterative:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    recorded = solve(
                        problem,
                        method=name,
                        tol=model.tol,
                        max_seconds=model.max_seconds,
                        record_history=True,
                    )
                if len(recorded.history):
                    found[name] = _trace(name, recorded, seconds)
        except SvmlabError as error:
            rows.append(SolverRow(name, spec.title, False, True, error=str(error)))
            continue
        # The table's time is kernel + solve, as the library's own time is.
        row = _row_from(name, spec.title, sol, gram_time + seconds, model)
        f_final[name] = K_grid @ (sol.alpha * y) + sol.b
        if f_ref is not None:
            row.max_f_diff = float(np.abs(f_final[name] - f_ref).max())
        rows.append(row)

    if library:
        rows += _library_rows(X, y, model, problem, bounds, resolution, f_ref, f_final)
    finite = [
        r.objective
        for r in rows
        if r.objective is not None and math.isfinite(r.objective)
    ]
    best = min(finite) if finite else None
    return Comparison(
        model=model,
        X=X,
        y=y,
        rows=rows,
        traces=found,
        reference=ref_name,
        best_objective=best,
        bounds=bounds,
        resolution=resolution,
        K_grid=K_grid,
        f_reference=f_ref,
        f_final=f_final,
        gram_time=gram_time,
    )


def _library_rows(X, y, model, problem, bounds, resolution, f_ref, f_final):
    rows = []
    plane = _plane(bounds, resolution)
    for name, title in LIBRARY.items():
        reason = library_reason(name, model)
        if reason:
            rows.append(SolverRow(name, title, True, False, reason=reason))
            continue
        try:
            if name == "libsvm":
                lib, sol, seconds = _libsvm(X, y, model, problem)
                row = _row_from(name, title, sol, seconds, model)
            else:
                lib, objective, n_iter, seconds = _liblinear(X, y, model)
                row = SolverRow(
                    name, title, True, True, fit_time=seconds, n_iter=n_iter,
                    objective=objective, stop_reason="library",
                )  # fmt: skip
        except ValueError as error:  # scikit-learn's own validation
            rows.append(SolverRow(name, title, True, True, error=str(error)))
            continue
        f_final[name] = lib.decision_function(plane)
        if f_ref is not None:
            row.max_f_diff = float(np.abs(f_final[name] - f_ref).max())
        rows.append(row)
    return rows

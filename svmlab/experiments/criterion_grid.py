"""Every model-selection criterion over a (sigma, C) grid: :func:`grid_sweep`.

Per sigma the Gram matrix is computed once and the full fits are warm-started
along increasing C; every criterion of :data:`svmlab.experiments.selection.CRITERIA` at
a cell starts from that cell's full fit, so a criterion's time is the whole
computation it needs and speed-ups compare like with like. The rows can run in
this process, in local processes or on a Dask cluster
(:func:`svmlab.experiments.executors.run_tasks`); a row that does not finish is NaN,
never zero, and :attr:`SweepResult.missing_rows` says why.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.stats
from numpy.typing import ArrayLike, NDArray
from sklearn.base import clone

from svmlab.array_types import Array
from svmlab.errors import ParameterError, plain_value
from svmlab.experiments.executors import run_tasks
from svmlab.experiments.selection import (
    CRITERIA,
    CriterionResult,
    FullFit,
    approximation_from_fit,
    check_approximable,
    check_data,
    fit_quietly,
    kfold_from_fit,
    loo_from_fit,
)
from svmlab.svm.classifier import SVC

__all__ = ["SweepResult", "grid_sweep"]


@dataclass(frozen=True)
class SweepResult:
    """Every criterion over a (sigma, C) grid: arrays of shape (n_sigma, n_C[, n]).

    ``sigmas`` use svmlab's convention ``k = exp(-||x - z||^2 / (2 sigma^2))``.
    """

    Cs: Array
    sigmas: Array
    criteria: tuple[str, ...]
    scores: dict[str, Array]
    errors: dict[str, Array]
    seconds: dict[str, Array]
    converged: dict[str, NDArray[np.bool_]]
    margins: dict[str, Array]
    #: sigma index -> why that row has no result (a time budget, a cluster
    #: failure); its cells are NaN, never zero (svmlab.experiments.executors).
    missing_rows: dict[int, str] = field(default_factory=dict)
    #: Where the rows ran, in words
    #: (:func:`svmlab.experiments.executors.describe_executor`).
    where: str = "this process"

    def argmin(self, name: str) -> tuple[int, int]:
        """(sigma index, C index) of the smallest finite score (first on ties)."""
        s = np.where(np.isfinite(self.scores[name]), self.scores[name], np.inf)
        i, j = np.unravel_index(int(np.argmin(s)), s.shape)
        return int(i), int(j)

    def best(self, name: str) -> tuple[float, float]:
        """(C, sigma) at :meth:`argmin`."""
        i, j = self.argmin(name)
        return float(self.Cs[j]), float(self.sigmas[i])

    def spearman(self, name: str, reference: str = "loo") -> float:
        """Spearman rank correlation of the two surfaces over the finite cells."""
        a, b = self.scores[name].ravel(), self.scores[reference].ravel()
        ok = np.isfinite(a) & np.isfinite(b)
        if ok.sum() < 3:
            return math.nan
        return float(scipy.stats.spearmanr(a[ok], b[ok]).statistic)

    def total_seconds(self, name: str) -> float:
        return float(np.nansum(self.seconds[name]))

    def speedup(self, name: str, reference: str = "loo") -> float:
        """Total ``reference`` seconds over total ``name`` seconds."""
        return self.total_seconds(reference) / max(self.total_seconds(name), 1e-12)

    def argmin_distance(self, name: str, reference: str = "loo") -> int:
        """``max(|di|, |dj|)``: grid steps between the two argmins."""
        (i, j), (i_ref, j_ref) = self.argmin(name), self.argmin(reference)
        return max(abs(i - i_ref), abs(j - j_ref))


def _sweep_row(
    estimator: SVC,
    X: Array,
    y: NDArray,
    Cs: Array,
    sigma: float,
    criteria: Sequence[str],
    tick: Callable[[str], None] | None,
    row: dict[str, list[CriterionResult]] | None = None,
    on_cell: Callable[[], None] | None = None,
) -> dict[str, list[CriterionResult]]:
    """One sigma: the Gram matrix once, the full fits warm-started along C
    (cold for a solver stopped by a rule other than its optimality measure:
    its answer would carry the start). The cells are appended to ``row`` (a
    new one if None) as they finish, and ``on_cell()`` is called after each."""
    base = clone(estimator).set_params(sigma=float(sigma))
    K = base._gram(X)
    if row is None:
        row = {c: [] for c in criteria}
    init, warm = None, True
    for C in Cs:
        est = clone(base).set_params(C=float(C))
        start = time.perf_counter()
        # The grid and the estimator were checked up front (grid_sweep), so a
        # ParameterError here is a bug to see, not a cell to leave NaN.
        model = fit_quietly(est, X, y, K=K, init=init)
        if model.stop_reason_ == "rule":
            # Stopped by a rule, not its optimality measure (IRWLS by Lee's
            # change rule): its answer carries its start, so a warm start from
            # the previous C would make the cell depend on the order of the
            # grid (issue 44, item 4). That cell is fitted cold, and so is the
            # rest of the row.
            if init is not None:
                model = fit_quietly(est, X, y, K=K, init=None)
            warm = False
        init = model.alpha_ if warm else None
        fit_seconds = time.perf_counter() - start
        for c in criteria:
            t0 = time.perf_counter() - fit_seconds  # every criterion pays the fit
            if c == "loo":
                result = loo_from_fit(FullFit(est, X, y, K, t0, model))
            elif c == "kfold":
                result = kfold_from_fit(FullFit(est, X, y, K, t0, model))
            else:
                result = approximation_from_fit(c, model, K, t0)
            row[c].append(result)
        if tick is not None:
            tick(f"sigma = {sigma:.3g}, C = {C:.3g}")
        if on_cell is not None:
            on_cell()
    return row


def _sweep_row_task(
    sigma: float,
    *,
    estimator: SVC,
    X: Array,
    y: NDArray,
    Cs: Array,
    criteria: Sequence[str],
) -> dict[str, list[CriterionResult]]:
    """:func:`_sweep_row` as one task of :func:`svmlab.experiments.executors.run_tasks`
    (the row's sigma first; the shared inputs by name)."""
    return _sweep_row(estimator, X, y, Cs, sigma, criteria, None)


def _grid_axis(values: ArrayLike, name: str) -> Array:
    """One axis of the grid as a flat float array, or a ParameterError.

    Every value must be a positive finite number. Checked up front: a C of inf
    (the hard margin, which only the hinge has) or a NaN used to reach the fits,
    whose ParameterError left that cell NaN while ``missing_rows`` stayed empty,
    so nothing said why (issue 27, item 13).
    """
    try:
        axis = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError) as error:
        raise ParameterError(
            f"The grid's {name} values must be numbers; some are not."
        ) from error
    if axis.size == 0:
        raise ParameterError("The grid needs at least one C and one sigma.")
    bad = axis[~(np.isfinite(axis) & (axis > 0))]
    if bad.size:
        raise ParameterError(
            f"Every {name} of the grid must be a positive finite number; got "
            f"{plain_value(float(bad[0]))}."
        )
    return axis


def grid_sweep(
    estimator: SVC,
    X: ArrayLike,
    y: ArrayLike,
    Cs: ArrayLike,
    sigmas: ArrayLike,
    criteria: Sequence[str] = ("lee", "plugin", "loo"),
    progress: Callable[[float, str], None] | None = None,
    n_jobs: int = 1,
    executor: object = None,
    max_seconds: float | None = None,
    on_partial: Callable[[SweepResult], None] | None = None,
) -> SweepResult:
    """Evaluate ``criteria`` at every (C, sigma) of the grid.

    Per sigma the Gram matrix is computed once and the full fits are
    warm-started along increasing C (cold where a fit stops by a rule, not by
    its optimality measure, so that no cell depends on the order of the grid);
    every criterion at a cell starts from that cell's full fit (its time
    includes it, so speed-ups compare whole computations). With ``n_jobs !=
    1`` the sigma rows run in parallel (joblib processes) and
    ``progress`` is called per finished row instead of per cell.

    ``executor`` (:func:`svmlab.experiments.executors.run_tasks`) sends the rows
    elsewhere instead: a number of local processes, or a Dask scheduler's address or
    client (a row is one task; the points, labels and estimator go to each
    worker once). Rows finish in any order and ``progress`` counts them. Rows
    not finished within ``max_seconds``, or lost on the cluster, are reported
    in ``missing_rows`` (their cells NaN); finished rows are kept.

    ``on_partial`` is given the grid as far as it is done, after every cell
    (every row when the rows run elsewhere): the cells not done are NaN and
    their rows are in ``missing_rows`` as "not computed yet", so a partial
    grid is never taken for a whole one.
    """
    X, y = check_data(X, y)
    Cs = np.sort(_grid_axis(Cs, "C"))
    sigmas = _grid_axis(sigmas, "sigma")
    criteria = tuple(criteria)
    for c in criteria:
        if c not in CRITERIA:
            raise ParameterError(
                f"Unknown criterion {str(c)!r}. Choose one of: {', '.join(CRITERIA)}."
            )
        if CRITERIA[c].approximate:
            check_approximable(estimator)
    # The estimator's own parameters (tol, loss, kernel, ...) at the first cell:
    # refused here, not by every fit of every row.
    clone(estimator).set_params(C=float(Cs[0]), sigma=float(sigmas[0]))._check_params()
    cells, done = Cs.size * sigmas.size, 0

    def tick(message: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done / cells, message)

    rows: list[dict[str, list[CriterionResult]] | None] = [None] * sigmas.size

    def partial() -> None:
        if on_partial is not None:
            not_yet = {
                i: "not computed yet"
                for i, row in enumerate(rows)
                if row is None or len(row[criteria[0]]) < Cs.size
            }
            on_partial(
                _collect(Cs, sigmas, criteria, rows, X.shape[0], missing=not_yet)
            )

    if executor is None and n_jobs == 1 and max_seconds is None:
        for i, s in enumerate(sigmas):
            rows[i] = {c: [] for c in criteria}
            _sweep_row(estimator, X, y, Cs, s, criteria, tick, rows[i], partial)
        return _collect(Cs, sigmas, criteria, rows, X.shape[0])
    if executor is None:
        executor = n_jobs

    def row_done(i: int, row: object) -> None:
        nonlocal done
        done += Cs.size - 1
        rows[i] = row  # type: ignore[assignment]
        tick(f"sigma = {sigmas[i]:.3g} done")
        partial()

    ran = run_tasks(
        _sweep_row_task,
        [(float(s),) for s in sigmas],
        shared={
            "estimator": estimator,
            "X": X,
            "y": y,
            "Cs": Cs,
            "criteria": criteria,
        },
        executor=executor,
        on_result=row_done,
        max_seconds=max_seconds,
    )
    return _collect(
        Cs,
        sigmas,
        criteria,
        ran.results,
        X.shape[0],
        missing=ran.missing,
        where=ran.where,
    )


def _collect(
    Cs, sigmas, criteria, rows, n, missing=None, where="this process"
) -> SweepResult:
    shape = (sigmas.size, Cs.size)
    out = {
        key: {c: np.full(shape, np.nan) for c in criteria}
        for key in ("scores", "errors", "seconds")
    }
    converged = {c: np.zeros(shape, dtype=bool) for c in criteria}
    margins = {c: np.full((*shape, n), np.nan) for c in criteria}
    for i, row in enumerate(rows):
        if row is None:  # a missing row stays NaN (missing_rows says why)
            continue
        for c in criteria:
            for j, result in enumerate(row[c]):
                if result is None:
                    continue
                out["scores"][c][i, j] = result.score
                out["errors"][c][i, j] = result.error
                out["seconds"][c][i, j] = result.seconds
                converged[c][i, j] = result.converged
                margins[c][i, j] = result.margins
    return SweepResult(
        Cs=Cs,
        sigmas=sigmas,
        criteria=criteria,
        scores=out["scores"],
        errors=out["errors"],
        seconds=out["seconds"],
        converged=converged,
        margins=margins,
        missing_rows=dict(missing or {}),
        where=where,
    )

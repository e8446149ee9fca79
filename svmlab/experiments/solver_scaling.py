"""How each solver's time grows with n, under a time budget; Lee's Table 1 beside.

:func:`scaling` fits every solver valid for one :class:`ModelSpec` (and the
library references) on data of growing size from the same source, times each
fit as the Solvers page's table does
(:func:`svmlab.experiments.solver_comparison.timed_solve`, kernel included) and stops a
solver before a size its last time predicts it cannot finish within the budget.
:func:`lee_table` reruns Lee (2006) Table 1's setting (IRWLS on the modified hinge
against the QP on the hinge, no bias, C = 500, sigma_L^2 = 0.7, delta = 1e-4, n =
100..400) beside the paper's numbers; ``benchmarks/solvers.py`` prints the same rows.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from svmlab import datasets
from svmlab.array_types import Array
from svmlab.errors import IncompatibleLossError, SvmlabError
from svmlab.experiments.solver_comparison import (
    LIBRARY,
    ModelSpec,
    _liblinear,
    library_reason,
    libsvm_estimator,
    timed_solve,
)
from svmlab.kernels import sigma_from_lee_sigma2
from svmlab.solvers import SOLVERS, check_solver

__all__ = [
    "LEE_PAPER",
    "SIZES",
    "LeeRow",
    "ScalingResult",
    "lee_table",
    "scaling",
]


#: A prediction is multiplied by this before it is compared with the budget:
#: small-n times are noisy, and the QP's interior point cannot stop mid-call.
SAFETY = 1.5

#: The page's sizes (up to 5000).
SIZES: tuple[int, ...] = (100, 200, 500, 1000, 2000, 5000)

#: Lee (2006) Table 1, CPU seconds (IRWLS, QP): MATLAB 6.5 on a Pentium IV.
LEE_PAPER: dict[int, tuple[float, float]] = {
    100: (0.609, 1.313),
    200: (2.640, 16.563),
    300: (10.375, 65.875),
    400: (49.968, 303.500),
}


@dataclass
class ScalingResult:
    """Seconds per solver and size (None: not run), and why a solver stopped.

    ``times[name][i]`` is the time at ``sizes[i]``; ``stopped[name]`` a short
    sentence (predicted over the budget, hit its time limit, failed).
    """

    sizes: list[int]
    times: dict[str, list[float | None]]
    stopped: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def _exponent(sizes: list[int], times: list[float | None]) -> float:
    """The slope of log t against log n over the last two timed sizes (2 by
    default: one kernel pass per point), at least 1 and at most 3."""
    pts = [(n, t) for n, t in zip(sizes, times, strict=False) if t]
    if len(pts) < 2:
        return 2.0
    (n0, t0), (n1, t1) = pts[-2], pts[-1]
    slope = math.log(t1 / t0) / math.log(n1 / n0)
    return min(max(slope, 1.0), 3.0)


def _fit_once(name: str, X: Array, y: Array, model: ModelSpec) -> float:
    """Seconds of one fit of ``name`` (kernel included) on ``(X, y)``."""
    if name == "libsvm":
        lib = libsvm_estimator(model)
        start = time.perf_counter()
        lib.fit(X, y)
        return time.perf_counter() - start
    if name == "liblinear":
        return _liblinear(X, y, model)[3]
    start = time.perf_counter()
    problem = model.problem(model.gram(X), y)
    kernel_seconds = time.perf_counter() - start
    _, seconds = timed_solve(
        problem, name, tol=model.tol, max_seconds=model.max_seconds, repeats=1
    )
    return kernel_seconds + seconds


def scaling(
    make_data: Callable[[int], tuple[Array, Array]],
    model: ModelSpec,
    sizes: Sequence[int] = SIZES,
    *,
    budget_seconds: float = 60.0,
    on_progress: Callable[[int, int], None] | None = None,
    on_partial: Callable[[ScalingResult], None] | None = None,
) -> ScalingResult:
    """Fit time against n for every solver valid for ``model``, and the library.

    Parameters
    ----------
    make_data
        ``n -> (X, y)``: the page's data source at size n.
    model
        The model; ``model.max_seconds`` caps each fit.
    sizes
        Increasing sizes.
    budget_seconds
        The whole sweep's budget. Before each fit the solver's last time is
        extrapolated (``t (n / n_prev)^p``, p the measured slope, 1 to 3); a fit
        predicted (times :data:`SAFETY`) to exceed the per-fit cap or what is
        left of the budget is not started, and that solver stops there. A fit
        already started may overrun the sweep's budget by up to its cap.
    on_progress
        Called with (fits done, fits planned) after every fit.
    on_partial
        Given the result over the sizes done so far after each size but the
        last.
    """
    hard = math.isinf(model.C)
    names = []
    for name in SOLVERS:
        try:
            check_solver(
                name, model.loss, fit_intercept=model.fit_intercept, hard_margin=hard
            )
            names.append(name)
        except IncompatibleLossError:
            continue
    names += [name for name in LIBRARY if not library_reason(name, model)]
    sizes = list(sizes)
    times: dict[str, list[float | None]] = {name: [] for name in names}
    stopped: dict[str, str] = {}
    cap = model.max_seconds or math.inf
    start = time.perf_counter()
    total, done = len(names) * len(sizes), 0
    for n in sizes:
        X, y = make_data(n)
        for name in names:
            done += 1
            row = times[name]
            left = budget_seconds - (time.perf_counter() - start)
            if name not in stopped and row:
                last = next((t for t in reversed(row) if t), None)
                if last is not None:
                    p = _exponent(sizes[: len(row)], row)
                    guess = last * (n / sizes[len(row) - 1]) ** p
                    if SAFETY * guess > min(cap, left):
                        stopped[name] = (
                            f"not run from n = {n}: predicted {guess:.3g} s, over "
                            f"the {'fit' if cap < left else 'sweep'}'s budget"
                        )
            if name in stopped or left <= 0:
                stopped.setdefault(name, f"not run from n = {n}: out of time")
                row.append(None)
            else:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        seconds = _fit_once(name, X, y, model)
                except SvmlabError as error:
                    stopped[name] = f"failed at n = {n}: {error}"
                    seconds = None
                row.append(seconds)
                if seconds is not None and seconds >= cap:
                    stopped[name] = f"hit its {cap:g} s limit at n = {n}"
            if on_progress is not None:
                on_progress(done, total)
        k = len(times[names[0]]) if names else 0
        if on_partial is not None and k < len(sizes):
            on_partial(
                ScalingResult(
                    sizes[:k],
                    {name: list(row) for name, row in times.items()},
                    dict(stopped),
                    time.perf_counter() - start,
                )
            )
    return ScalingResult(sizes, times, stopped, time.perf_counter() - start)


@dataclass(frozen=True)
class LeeRow:
    """One size of Lee's Table 1: the paper's seconds and ours."""

    n: int
    paper_irwls: float
    paper_qp: float
    irwls: float
    qp: float
    irwls_iter: int
    max_rel_diff_f: float

    @property
    def paper_ratio(self) -> float:
        """QP / IRWLS in the paper (> 1: IRWLS faster)."""
        return self.paper_qp / self.paper_irwls

    @property
    def ratio(self) -> float:
        """QP / IRWLS here."""
        return self.qp / self.irwls


def lee_table(
    sizes: Sequence[int] = tuple(LEE_PAPER), repeats: int = 1
) -> list[LeeRow]:
    """Lee (2006) Table 1's setting, timed here (kernel + solve, median of
    ``repeats``): two circles (seed 0), no bias, C = 500, sigma_L^2 = 0.7;
    IRWLS (modified hinge, delta = 1e-4, Lee's stopping rule) against the exact
    QP (hinge). ``max_rel_diff_f``: max |f_IRWLS - f_QP| / max |f_QP| on the
    training points (two losses: close, not equal)."""
    sigma = sigma_from_lee_sigma2(0.7)
    rows = []
    for n in sizes:
        X, y = datasets.make_two_circles(n, random_state=0)
        fits = {}
        for name, loss in (("irwls", "modified_hinge"), ("qp", "hinge")):
            model = ModelSpec(
                kernel="gaussian", loss=loss, C=500.0, sigma=sigma, bias="none",
                delta=1e-4, max_seconds=None,
            )  # fmt: skip
            seconds = []
            for _ in range(repeats):
                start = time.perf_counter()
                K = model.gram(X)
                problem = model.problem(K, y)
                kernel_seconds = time.perf_counter() - start
                sol, t = timed_solve(
                    problem, name, tol=model.tol, max_seconds=None, repeats=1
                )
                seconds.append(kernel_seconds + t)
            fits[name] = (float(np.median(seconds)), sol, K @ (sol.alpha * y) + sol.b)
        paper_irwls, paper_qp = LEE_PAPER.get(n, (math.nan, math.nan))
        f_ir, f_qp = fits["irwls"][2], fits["qp"][2]
        rows.append(
            LeeRow(
                n=n,
                paper_irwls=paper_irwls,
                paper_qp=paper_qp,
                irwls=fits["irwls"][0],
                qp=fits["qp"][0],
                irwls_iter=int(fits["irwls"][1].n_iter),
                max_rel_diff_f=float(np.abs(f_ir - f_qp).max() / np.abs(f_qp).max()),
            )
        )
    return rows

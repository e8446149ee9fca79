"""The solver family: one signature, one result type, one compatibility table.

``SOLVERS`` maps a name to a :class:`SolverSpec`; pages build their solver list from
it, filtered by :func:`valid_solvers`. ``solve(problem, method=...)`` is the single
front (in the spirit of qpsolvers' ``solve_qp``): it validates the name and the
loss x solver x bias pair, times the call and returns a :class:`DualSolution`.

Every solver takes ``max_seconds`` (a wall-clock budget; None, the default, is
unlimited) and stops at its current feasible point with
``stop_reason="max_seconds"`` when it runs out; inside :func:`cancel_when` it
raises :class:`svmlab.errors.FitCancelled` once the predicate says so.
"""

from __future__ import annotations

import time
from typing import Any

from numpy.typing import NDArray

from svmlab.errors import IncompatibleLossError, UnknownNameError
from svmlab.solvers import (
    base,
    cccp,
    coordinate,
    entropy_dual,
    irwls,
    qp,
    retargeted_ls,
    smo,
)
from svmlab.solvers.base import (
    STOP_REASONS,
    DualSolution,
    History,
    Problem,
    SolverSpec,
    cancel_when,
)

__all__ = [
    "AUTO",
    "COMPATIBLE",
    "DEFAULT_MAX_ITER",
    "ON_DEMAND",
    "SCALED_CAP",
    "SOLVERS",
    "STOP_REASONS",
    "WEIGHTS_NOTE",
    "DualSolution",
    "History",
    "Problem",
    "SolverSpec",
    "cancel_when",
    "check_solver",
    "resolve_solver",
    "solve",
    "valid_solvers",
]


SOLVERS: dict[str, SolverSpec] = {
    spec.name: spec
    for spec in (
        smo.SPEC,
        qp.SPEC,
        coordinate.SPEC,
        irwls.SPEC,
        entropy_dual.SPEC,
        retargeted_ls.SPEC,
        cccp.SPEC,
    )
}

#: solver name -> the losses it can minimise (STYLE rule 8).
COMPATIBLE: dict[str, frozenset[str]] = {k: s.losses for k, s in SOLVERS.items()}

#: loss -> solvers in order of preference for ``solver="auto"``.
AUTO: dict[str, tuple[str, ...]] = {
    "hinge": ("smo", "qp"),
    "squared_hinge": ("smo", "qp"),
    "ramp": ("cccp",),
    "squared_ramp": ("retargeted_ls", "cccp"),
    "modified_hinge": ("entropy_dual", "irwls"),
}


#: The iteration cap :func:`solve` passes when given none, except to
#: :data:`SCALED_CAP` solvers, which get None and choose a cap that grows with n.
DEFAULT_MAX_ITER = 10_000
SCALED_CAP: frozenset[str] = frozenset({"smo", "entropy_dual"})

#: Solvers that work from kernel rows on demand (``Problem.kernel``, no ``K``);
#: the others get the full Gram matrix, formed once by :func:`solve`.
ON_DEMAND: frozenset[str] = frozenset({"smo", "entropy_dual"})


def valid_solvers(loss: str, *, fit_intercept: bool = True) -> list[str]:
    """Registered solvers that can minimise ``loss`` in this bias mode."""
    return [
        name
        for name, spec in SOLVERS.items()
        if loss in spec.losses
        and (spec.with_intercept if fit_intercept else spec.without_intercept)
    ]


base._registry_lookup = valid_solvers


#: What class weights need, for the sentence that refuses them.
WEIGHTS_NOTE = "class weights (a C per class)"


def check_solver(
    name: str,
    loss: str,
    *,
    fit_intercept: bool,
    hard_margin: bool,
    weighted: bool = False,
) -> None:
    """Raise a typed error naming the valid choices if ``name`` cannot do the job
    (``weighted``: the problem has a C per point, :attr:`Problem.weights`)."""
    if name not in SOLVERS:
        raise UnknownNameError("solver", name, [*SOLVERS, "auto"])
    spec = SOLVERS[name]
    if weighted and not spec.weights:
        raise IncompatibleLossError(
            name,
            WEIGHTS_NOTE,
            [
                s
                for s in valid_solvers(loss, fit_intercept=fit_intercept)
                if SOLVERS[s].weights
            ],
        )
    if loss not in spec.losses:
        raise IncompatibleLossError(
            name, f"the {loss} loss", valid_solvers(loss, fit_intercept=fit_intercept)
        )
    if fit_intercept and not spec.with_intercept:
        raise IncompatibleLossError(
            name,
            "an unregularized bias (sum alpha_i y_i = 0); use bias='none' or "
            "'regularized' with it",
            valid_solvers(loss, fit_intercept=True),
        )
    if not fit_intercept and not spec.without_intercept:
        raise IncompatibleLossError(
            name,
            "a model without an unregularized bias",
            valid_solvers(loss, fit_intercept=False),
        )
    if hard_margin and not spec.hard_margin:
        raise IncompatibleLossError(
            name,
            "the hard margin (C = inf)",
            [
                s
                for s in valid_solvers(loss, fit_intercept=fit_intercept)
                if SOLVERS[s].hard_margin
            ],
        )


def resolve_solver(
    name: str,
    loss: str,
    *,
    fit_intercept: bool,
    hard_margin: bool,
    weighted: bool = False,
) -> str:
    """The concrete solver for ``name`` (``"auto"`` picks by :data:`AUTO`)."""
    if name == "auto":
        for candidate in AUTO.get(loss, ()):
            if candidate in SOLVERS:
                try:
                    check_solver(
                        candidate,
                        loss,
                        fit_intercept=fit_intercept,
                        hard_margin=hard_margin,
                        weighted=weighted,
                    )
                except IncompatibleLossError:
                    continue
                return candidate
        for candidate in valid_solvers(loss, fit_intercept=fit_intercept):
            spec = SOLVERS[candidate]
            if (not hard_margin or spec.hard_margin) and (not weighted or spec.weights):
                return candidate
        raise IncompatibleLossError(
            "auto",
            f"the {loss} loss in this bias mode",
            valid_solvers(loss, fit_intercept=fit_intercept),
        )
    check_solver(
        name,
        loss,
        fit_intercept=fit_intercept,
        hard_margin=hard_margin,
        weighted=weighted,
    )
    return name


def solve(
    problem: Problem,
    *,
    method: str = "auto",
    tol: float = 1e-3,
    max_iter: int | None = None,
    init: NDArray | None = None,
    record_history: bool = False,
    max_seconds: float | None = None,
    **options: Any,
) -> DualSolution:
    """Solve ``problem`` with the named solver; see :mod:`svmlab.solvers.base`.

    ``max_seconds`` is the solver's time budget (None: no limit); it is passed on
    only when given, so solvers registered without the keyword keep working.
    ``max_iter=None`` is :data:`DEFAULT_MAX_ITER` for every solver except those
    whose cap scales with the problem (SMO: LIBSVM's ``max(10^7, 100 n)``).
    """
    import math

    name = resolve_solver(
        method,
        problem.loss.name,
        fit_intercept=problem.fit_intercept,
        hard_margin=math.isinf(problem.C),
        weighted=problem.weights is not None,
    )
    if max_iter is None and name not in SCALED_CAP:
        max_iter = DEFAULT_MAX_ITER
    if max_seconds is not None:
        options["max_seconds"] = max_seconds
    start = time.perf_counter()
    if problem.K is None and name not in ON_DEMAND:
        problem = problem.dense()
    solution = SOLVERS[name].solve(
        problem,
        tol=tol,
        max_iter=max_iter,
        init=init,
        record_history=record_history,
        **options,
    )
    solution.fit_time = time.perf_counter() - start
    solution.extras.setdefault("solver", name)
    return solution

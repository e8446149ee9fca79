"""One solve's common settings and bookkeeping: the solvers' one signature.

Every solver is called as (:class:`~svmlab.solvers.base.SolveFunction`)::

    solve(problem, *, tol=1e-3, max_iter=<the solver's>, init=None,
          record_history=False, max_seconds=None, **options)

:func:`solve_function` writes that signature once: a solver module writes its
body as ``body(problem, run, *, <its own options>)`` and decorates it with its
default ``max_iter``; the decorated function has the signature above (what
``inspect.signature`` and ``help`` show: the common keywords, then the body's
own) and hands the body a :class:`Run` built from the common keywords. The run
holds what every solver keeps the same way (the time budget, the history) and
builds the result (:meth:`Run.finish`), so no solver restates the keywords that
pass them on.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from svmlab.array_types import Array
from svmlab.solvers.base import Budget, DualSolution, History, Problem, kkt_violation

__all__ = ["Run", "solve_function"]


@dataclass
class Run:
    """The common keywords of one solve, and what a solver keeps while it runs.

    The fields before ``budget`` are the signature's common keywords, in its
    order and with its defaults (``max_iter``'s is each solver's own).

    Attributes
    ----------
    tol
        The threshold of the solver's KKT measure: the result is ``converged``
        when its measure meets it (each solver's docstring says what else its
        loop tests against it).
    max_iter
        The iteration cap (what an iteration is, each solver says); None only
        where a solver scales its cap with the problem (SMO).
    init
        A previous ``alpha`` (warm start) or None.
    record_history
        Whether :attr:`history` is filled (one record per iteration, thinned).
    max_seconds
        The time budget (None: unlimited); :attr:`budget` counts from the
        moment the run is made, which is when the solver is called.
    """

    tol: float = 1e-3
    max_iter: int | None = None
    init: Array | None = None
    record_history: bool = False
    max_seconds: float | None = None
    budget: Budget = field(init=False, repr=False)
    history: History = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.budget = Budget(self.max_seconds)
        self.history = History()

    def record(
        self, it: int, problem: Problem, alpha: Array, b: float, *, objective: float
    ) -> None:
        """Record iteration ``it`` at ``(alpha, b)`` when the history is kept and
        wants it, with :func:`kkt_violation` there and the seconds since the
        solver was called."""
        if self.record_history and self.history.wants(it):
            self.history.record(
                it,
                objective=objective,
                kkt_violation=kkt_violation(problem, alpha, b),
                time=time.perf_counter() - self.budget.start,
                alpha=alpha,
                intercept=b,
            )

    def finish(
        self,
        problem: Problem,
        alpha: Array,
        b: float,
        *,
        n_iter: int,
        stop_reason: str | None,
        rule: str | None = None,
        extras: dict[str, Any] | None = None,
        Kc: Array | None = None,
        kkt: float | None = None,
    ) -> DualSolution:
        """The result at ``(alpha, b)`` after ``n_iter`` iterations, scored by
        :meth:`DualSolution.finish` against this run's ``tol``, with its history
        (``stop_reason`` and ``rule``: what ended the loop; ``Kc`` and
        ``kkt``: what the solver has of them, as there)."""
        return DualSolution.finish(
            problem,
            alpha,
            b,
            n_iter=n_iter,
            tol=self.tol,
            stop_reason=stop_reason,
            rule=rule,
            history=self.history,
            extras=extras,
            Kc=Kc,
            kkt=kkt,
        )


def solve_function(
    *, max_iter: int | None
) -> Callable[[Callable[..., DualSolution]], Callable[..., DualSolution]]:
    """Decorate a solver body ``body(problem, run, *, own options, **options)``
    into the one solver signature, with ``max_iter`` as its default cap."""
    defaults = {f.name: f.default for f in fields(Run) if f.init}
    defaults["max_iter"] = max_iter

    def decorate(body: Callable[..., DualSolution]) -> Callable[..., DualSolution]:
        def solve(problem: Problem, **keywords: Any) -> DualSolution:
            common = {k: keywords.pop(k, d) for k, d in defaults.items()}
            return body(problem, Run(**common), **keywords)

        # What help() and inspect.signature show: problem, the common keywords
        # (annotated as Run's fields), then the body's own options.
        own = inspect.signature(body)
        params = list(own.parameters.values())
        types = {f.name: f.type for f in fields(Run)}
        common = [
            inspect.Parameter(k, _KEYWORD, default=d, annotation=types[k])
            for k, d in defaults.items()
        ]
        shown = own.replace(parameters=[params[0], *common, *params[2:]])
        functools.update_wrapper(solve, body)
        solve.__signature__ = shown  # type: ignore[attr-defined]
        return solve

    return decorate


_KEYWORD = inspect.Parameter.KEYWORD_ONLY

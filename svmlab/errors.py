"""The errors svmlab raises: one base class, a few subclasses, plain sentences.

Every message is written for a student reading it on a page: it says what is wrong
and, where it can, what to do instead. Pages catch :class:`SvmlabError` and show
``str(error)`` with ``st.error``; anything else reaching a page is a bug.

Non-convergence is *not* an error: a solver that stops at ``max_iter`` returns
``converged=False`` and the estimator emits ``sklearn.exceptions.ConvergenceWarning``.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "DataError",
    "IncompatibleLossError",
    "ParameterError",
    "ProblemError",
    "SvmlabError",
    "UnknownNameError",
]


class SvmlabError(ValueError):
    """Base class of every error svmlab raises on purpose.

    It derives from ``ValueError`` so that scikit-learn's own checks (which expect a
    ``ValueError`` for bad input) accept it.
    """


class UnknownNameError(SvmlabError):
    """A kernel, loss, solver, bias mode or data set name that svmlab does not know."""

    def __init__(self, kind: str, name: object, valid: Iterable[str]) -> None:
        valid = sorted(valid)
        super().__init__(f"Unknown {kind} {name!r}. Choose one of: {', '.join(valid)}.")
        self.kind, self.name, self.valid = kind, name, valid


class IncompatibleLossError(SvmlabError):
    """A solver asked to minimise a loss (or use a bias model) it cannot handle."""

    def __init__(self, solver: str, what: str, valid: Iterable[str]) -> None:
        valid = sorted(valid)
        choices = ", ".join(valid) if valid else "none yet"
        super().__init__(
            f"The solver {solver!r} cannot handle {what}. Solvers that can: {choices}."
        )
        self.solver, self.what, self.valid = solver, what, valid


class ParameterError(SvmlabError):
    """A hyperparameter out of its range (C <= 0, sigma <= 0, NaN, ...)."""


class DataError(SvmlabError):
    """Data the SVM cannot use (one class, NaN, too few points, ...)."""


class ProblemError(SvmlabError):
    """The optimisation problem itself fails: infeasible, unbounded, or a back end
    error (re-raised here so that no back-end exception type leaks to a page)."""

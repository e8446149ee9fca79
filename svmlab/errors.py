"""The errors svmlab raises: one base class, a few subclasses, plain sentences.

Every message is written for a student reading it on a page: it says what is wrong
and, where it can, what to do instead. Pages catch :class:`SvmlabError` and show
``str(error)`` with ``st.error``; anything else reaching a page is a bug.

Non-convergence is *not* an error: a solver that stops at ``max_iter`` or
``max_seconds`` returns ``converged=False`` and the estimator emits
``sklearn.exceptions.ConvergenceWarning``. A fit cancelled through
:func:`svmlab.solvers.cancel_when` raises :class:`FitCancelled`.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "ClusterError",
    "DataError",
    "DataTypeError",
    "FitCancelled",
    "IncompatibleLossError",
    "InfeasibleNuError",
    "ParameterError",
    "ProblemError",
    "SvmlabError",
    "UnknownNameError",
    "counted",
    "plain_value",
    "short_reason",
]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 iteration"``, ``"2 iterations"``, ``"1,000 iterations"``: a count and
    its noun, singular for exactly one (a sentence never says "1 iterations")."""
    word = noun if n == 1 else (plural or noun + "s")
    return f"{n:,} {word}"


def plain_value(value: object, limit: int = 40) -> str:
    """A value as a student would write it: ``1``, ``0.5``, ``1e-200``, ``'rbf'``.

    NumPy scalars lose their ``np.int64(...)`` wrapper (``.item()``), floats are
    printed with ``:g``, text is quoted and cut to ``limit`` characters, and
    anything else (arrays, dicts, ...) is named by its kind, never dumped.
    """
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        value = item()
    if value is None or isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        text = str(value)
        if len(text) <= limit:
            return text
        # A float's digits, or the power of ten of an int float64 cannot hold.
        sign = "-" if value < 0 else ""
        return (
            f"{sign}1e+{len(text.lstrip('-')) - 1}"
            if len(text) > 309
            else f"{float(value):g}"
        )
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        text = value if len(value) <= limit else value[: limit - 1] + "…"
        return f"'{text}'"
    return f"a {type(value).__name__}"


def short_reason(error: BaseException, limit: int = 80) -> str:
    """The first line of a library's message, cut before any array it dumps.

    For a short suffix such as ``(CVXOPT: division by zero)``; empty if nothing
    readable is left.
    """
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    for marker in ("array(", "array=", "[[", "np."):
        cut = text.find(marker)
        if cut >= 0:
            text = text[:cut]
    text = text.strip(" :;,.(")
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


class SvmlabError(ValueError):
    """Base class of every error svmlab raises on purpose.

    It derives from ``ValueError`` so that scikit-learn's own checks (which expect a
    ``ValueError`` for bad input) accept it.
    """


class UnknownNameError(SvmlabError):
    """A kernel, loss, solver, bias mode or data set name that svmlab does not know."""

    def __init__(self, kind: str, name: object, valid: Iterable[str]) -> None:
        valid = sorted(valid)
        super().__init__(
            f"Unknown {kind} {plain_value(name)}. Choose one of: {', '.join(valid)}."
        )
        self.kind, self.name, self.valid = kind, name, valid


class IncompatibleLossError(SvmlabError):
    """A solver asked to minimise a loss (or use a bias model) it cannot handle."""

    def __init__(self, solver: str, what: str, valid: Iterable[str]) -> None:
        valid = sorted(valid)
        choices = ", ".join(valid) if valid else "none yet"
        super().__init__(
            f"The solver {plain_value(solver)} cannot handle {what}. "
            f"Solvers that can: {choices}."
        )
        self.solver, self.what, self.valid = solver, what, valid


class ParameterError(SvmlabError):
    """A hyperparameter out of its range (C <= 0, sigma <= 0, NaN, ...)."""


class InfeasibleNuError(ParameterError):
    """A ν that the data cannot meet: ν-SVC needs ``ν <= 2 min(n+, n-) / n``
    (LIBSVM's "specified nu is infeasible"); the other settings stay valid."""


class DataError(SvmlabError):
    """Data the SVM cannot use (one class, NaN, too few points, ...)."""


class DataTypeError(DataError, TypeError):
    """Data of a kind the engine cannot take: features that are not numbers at all
    (a dict, a list in a cell, ...), or a sparse matrix.

    Also a ``TypeError``, which is what scikit-learn's estimator checks expect
    for such input (NumPy's ``argument must be a string or a real number``).
    """


class ClusterError(ParameterError):
    """A Dask cluster that was asked for cannot be used: no ``distributed``
    package, or no scheduler answering at the address. The work can still run
    on this machine (the Model selection page does so, and says why)."""


class ProblemError(SvmlabError):
    """The optimisation problem itself fails: infeasible, unbounded, or a back end
    error (re-raised here so that no back-end exception type leaks to a page)."""


class FitCancelled(SvmlabError):
    """A fit stopped by its ``cancel_when`` predicate: nobody will see its result.

    Raised by every solver where it checks its time budget (see
    :func:`svmlab.solvers.base.cancel_when`); the estimator does not catch it.
    """

    def __init__(self) -> None:
        super().__init__("The fit was stopped because its result is no longer needed.")

"""Checks of an estimator's numeric parameters, one plain sentence each.

Every estimator (:class:`svmlab.SVC`, the multiclass ones, the ν- and regression
machines) and the kernels check their numbers here, in one way, so that a bad C,
tol or max_iter gets the same :class:`svmlab.errors.ParameterError` sentence
whichever estimator it was given to.
"""

from __future__ import annotations

import math

import numpy as np

from svmlab.errors import ParameterError, plain_value

__all__ = ["check_max_iter", "check_nu", "check_positive", "is_number"]


def is_number(value: object) -> bool:
    """A real number (Python or NumPy) that float64 can hold, not a bool or a
    string. A Python int beyond float64's range (``10**400``) is not one: every
    check and every use would overflow on it (issue 44, item 5)."""
    if not isinstance(value, int | float | np.integer | np.floating) or isinstance(
        value, bool | np.bool_
    ):
        return False
    return not isinstance(value, int) or abs(value) <= _LARGEST_INT


#: The largest int float64 can hold (rounding to finite, not overflowing).
_LARGEST_INT = int(np.finfo(np.float64).max)


def check_positive(name: str, value: object, what: str = "") -> float:
    """A positive finite number, or a ParameterError naming it."""
    if not (is_number(value) and math.isfinite(value) and value > 0):
        raise ParameterError(
            f"{name} must be a positive number{what}; got {plain_value(value)}."
        )
    return float(value)


def check_max_iter(max_iter: object) -> int | None:
    """None (the solver's own cap) or a whole number >= 1, or a ParameterError.

    scikit-learn's -1 ("no limit") is None: the solver's own cap (for SMO
    LIBSVM's ``max(10^7, 100 n)``, which a converging problem never reaches).
    """
    m = max_iter
    if m is None or (is_number(m) and m == -1):
        return None
    if not (is_number(m) and math.isfinite(m) and int(m) == m and m >= 1):
        raise ParameterError(
            "max_iter must be a whole number of at least 1 (or -1 for the "
            f"solver's own cap); got {plain_value(m)}."
        )
    return int(m)


def check_nu(nu: object) -> float:
    """ν as a float in (0, 1], or a ParameterError (LIBSVM: "nu <= 0 or nu > 1").

    ν bounds the fraction of margin errors from above and the fraction of
    support vectors from below (Schölkopf et al. 2000, Proposition 5), so it is
    a fraction of the training points.
    """
    if not (is_number(nu) and math.isfinite(nu) and 0.0 < nu <= 1.0):
        raise ParameterError(
            f"nu must be a number in (0, 1]: a fraction of the training points; "
            f"got {plain_value(nu)}."
        )
    return float(nu)

"""Sample weights: a C per point, ``C_i = C w_i`` (LIBSVM's ``W``, as
scikit-learn's ``sample_weight``).

scikit-learn's LIBSVM multiplies each point's upper bound by its weight:
``C w_i`` for C-SVC, ε-SVR and ν-SVR, ``w_i`` for ν-SVC and the one-class SVM
(whose ``sum a = ν sum w``), and leaves out every point of weight 0 or less
before solving (``svm.cpp``: ``remove_zero_weight``): such a point could only
sit at a bound of zero width, which would enter the bias's bounds as a point
at its upper bound. The primal reads ``0.5 ||f||^2 + C sum_i w_i loss_i``, so
an integer weight is the point repeated that many times.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.errors import DataError
from svmlab.svm.validation import floats_per_point

__all__ = ["check_sample_weight", "kept_points"]


def check_sample_weight(sample_weight: Any, n: int) -> Array | None:
    """``sample_weight`` as n finite floats (None stays None), or a DataError.

    Weights of 0 or less are allowed here (their points are left out:
    :func:`kept_points`).
    """
    w, got = floats_per_point(
        sample_weight, n, "sample_weight must be one number per training point."
    )
    if w is None:
        return None
    if w.ndim == 0:  # one number for every point
        w, got = np.full(n, float(w)), ""
    if got:
        raise DataError(
            f"sample_weight must hold one number per training point ({n}); got {got}."
        )
    if not np.all(np.isfinite(w)):
        raise DataError(
            "sample_weight contains NaN or infinite values; each weight must be a "
            "finite number (it multiplies the point's C)."
        )
    return w


def kept_points(weights: Array | None, n: int) -> NDArray[np.intp] | None:
    """The points a weighted fit keeps (weight > 0), or None when it keeps all.

    All of them left out is scikit-learn's (LIBSVM's) "Invalid input - all
    samples have zero or negative weights.", as a DataError.
    """
    if weights is None:
        return None
    keep = np.flatnonzero(weights > 0.0)
    if keep.size == 0:
        raise DataError(
            "Invalid input - all samples have zero or negative weights: "
            "a point of weight 0 or less is left out of the fit (its C would be "
            "0), which leaves none here."
        )
    return None if keep.size == n else keep

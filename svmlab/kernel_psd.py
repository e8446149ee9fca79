"""Whether a Gram matrix is positive semidefinite, and what it means if not.

A Mercer kernel (Gaussian, polynomial with ``a >= 0``, linear) gives a positive
semidefinite Gram matrix for any data, so every SVM dual built on it is convex.
The sigmoid ``tanh(a x'z + r)`` does not (Lin & Lin 2003, "A study on sigmoid
kernels for SVM and the training of non-PSD kernels by SMO-type methods"): the
smallest eigenvalue of its Gram matrix on the data at hand says whether this
problem is convex, and :func:`psd_note` says in one sentence what the solvers
then do.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from svmlab.errors import DataError

__all__ = ["psd_note", "smallest_eigenvalue"]

Array = NDArray[np.float64]


def smallest_eigenvalue(K: Array) -> float:
    """The smallest eigenvalue of the symmetric matrix ``K`` (LAPACK's
    ``syevr`` for that one eigenvalue, via :func:`scipy.linalg.eigvalsh`).

    ``K`` is positive semidefinite exactly when it is >= 0; rounding leaves
    about ``n eps max|K|`` below zero for a matrix that is PSD in exact
    arithmetic (Higham 2002, section 3.1), which :func:`psd_note` allows for.
    """
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1] or K.shape[0] == 0:
        raise DataError("The smallest eigenvalue needs a square Gram matrix.")
    values = scipy.linalg.eigvalsh(K, subset_by_index=[0, 0])
    return float(values[0])


def psd_note(K: Array) -> tuple[float, str | None]:
    """``(smallest eigenvalue, sentence)``: the sentence is None when ``K`` is
    positive semidefinite up to rounding (``lambda_min >= -n eps max|K|``),
    else it says what the solvers then do.

    With an indefinite ``K`` the SVM dual is not convex: SMO still decreases
    the dual at every step (LIBSVM's ``tau`` replaces a non-positive curvature
    ``K_ii + K_jj - 2 K_ij``; Chen, Fan & Lin 2006 prove it converges) and
    stops at a point where the KKT conditions hold, which may be a local
    solution that depends on the start; the exact QP solver needs a convex
    problem and may refuse.
    """
    K = np.asarray(K, dtype=np.float64)
    lam = smallest_eigenvalue(K)
    slack = K.shape[0] * np.finfo(np.float64).eps * float(np.abs(K).max(initial=0.0))
    if lam >= -slack:
        return lam, None
    return lam, (
        f"This Gram matrix is not positive semidefinite (its smallest eigenvalue "
        f"is {lam:.3g}), so the dual is not convex: SMO still lowers it at every "
        "step and stops where the KKT conditions hold, which may be a local "
        "solution that depends on the start, and the exact QP solver may refuse."
    )

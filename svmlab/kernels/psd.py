"""Whether a Gram matrix is positive semidefinite, and what it means if not.

A Mercer kernel (Gaussian, polynomial with ``a >= 0``, linear) gives a positive
semidefinite Gram matrix for any data, so every SVM dual built on it is convex.
The sigmoid ``tanh(a x'z + r)`` does not (Lin & Lin 2003, "A study on sigmoid
kernels for SVM and the training of non-PSD kernels by SMO-type methods"): the
smallest eigenvalue of its Gram matrix on the data at hand says whether this
problem is convex, and :func:`psd_note` says in one sentence what the solvers
then do.

A squared loss (the squared hinge, the squared ε-insensitive loss) has no box
on the multipliers: its dual maximises ``-½ a'(K + I/C) a + ...`` over an
unbounded set, which has a maximum only when ``K + I/C`` is positive
semidefinite. :func:`check_bounded_dual` refuses the fit otherwise, in one
sentence, instead of letting a solver run off to infinity.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from svmlab.array_types import Array
from svmlab.errors import DataError, ParameterError

__all__ = ["check_bounded_dual", "psd_note", "smallest_eigenvalue"]


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


def check_bounded_dual(
    K: Array,
    C: float,
    *,
    loss: str,
    boxed: str,
    weights: Array | None = None,
) -> None:
    """Raise :class:`~svmlab.errors.ParameterError` when ``K + diag(1/(C w))``
    is not positive semidefinite (beyond rounding): with a squared loss
    (``loss``, its name for the sentence; ``boxed``, the loss with a box)
    nothing then bounds the multipliers and the dual has no maximum. Call it
    for kernels outside :data:`svmlab.kernels.PSD_KERNELS` only: a Mercer
    kernel always passes."""
    K = np.asarray(K, dtype=np.float64)
    w = np.ones(K.shape[0]) if weights is None else np.asarray(weights, float)
    slack = K.shape[0] * np.finfo(np.float64).eps * float(np.abs(K).max(initial=0.0))
    if smallest_eigenvalue(K + np.diag(1.0 / (float(C) * w))) >= -slack:
        return
    lam = smallest_eigenvalue(K)
    # C max(w) < -1/lam makes every diagonal entry lift lam: sufficient.
    below = -1.0 / (lam * float(w.max()))
    raise ParameterError(
        f"With the {loss} nothing bounds the multipliers, and this kernel's Gram "
        f"matrix has a negative eigenvalue ({lam:.3g}) that the 1/C on its "
        f"diagonal does not lift: the dual has no maximum. Use a C below "
        f"{below:.3g}, the {boxed} (its box bounds them), or a positive "
        "semidefinite kernel (Gaussian, polynomial, linear)."
    )

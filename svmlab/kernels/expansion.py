"""Decision values of many points at once, on every core when the work is large.

A fitted kernel machine's ``f(x) = sum_j c_j k(z_j, x)`` over its support
vectors ``z_j`` is the Gram matrix ``gram(X, Z)`` times the coefficients. For a
few thousand points that is what :func:`kernel_expansion` computes, as before
(the pages' grids get the same numbers to the bit). From
:data:`EXPANSION_PARALLEL_WORK` on (points times support vectors times
``d + 4``) the points are split into blocks computed in parallel by a compiled
loop (numba's ``prange``; LIBSVM 3.37's ``svm_predict`` runs an OpenMP loop
over the support vectors), each point's kernel row by the training rows' own
code (:func:`svmlab.kernels.rows.kernel_row_into`'s serial path), with no
``n x n_SV`` matrix in memory. The sums then differ from the matrix product's
by rounding only (about 1e-16 of their size).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from svmlab.array_types import Array
from svmlab.compiled.threads import parallel_threshold
from svmlab.kernels.functions import gram
from svmlab.kernels.rows import _ROW_KIND, ROW_EXP_WORK, KernelRows, _row_serial

__all__ = ["EXPANSION_PARALLEL_WORK", "kernel_expansion"]

#: From this much work (points x support vectors x (d + 4)) the decision
#: values are computed in parallel. Measured on this two-core machine (omp,
#: Gaussian kernel, d = 2): TODO
EXPANSION_PARALLEL_WORK = 20_000_000
#: Points per block of the parallel loop.
EXPANSION_BLOCK = 64


@njit(cache=True, nogil=True, parallel=True)
def _expansion_into(ZX, nz, kind, params, coef, out):  # pragma: no cover - compiled
    """``out[q] = sum_j coef[j] k(ZX[j], ZX[nz + q])``: the support vectors are
    the first ``nz`` rows of ``ZX``, the points the rest."""
    nq = ZX.shape[0] - nz
    perm = np.arange(ZX.shape[0])
    dummy = np.empty((1, 1))
    blocks = (nq + EXPANSION_BLOCK - 1) // EXPANSION_BLOCK
    for b in prange(blocks):
        row = np.empty(nz)
        for q in range(b * EXPANSION_BLOCK, min(nq, (b + 1) * EXPANSION_BLOCK)):
            _row_serial(dummy, ZX, perm, kind, params, nz + q, 0, nz, row)
            s = 0.0
            for j in range(nz):
                s += row[j] * coef[j]
            out[q] = s


def kernel_expansion(X: Array, Z: Array, coef: Array, **settings: object) -> Array:
    """``gram(X, Z, **settings) @ coef``, shape (n,): on every core from
    :data:`EXPANSION_PARALLEL_WORK` on, else as the product itself (and
    always for a kernel the rows do not compute, or where the parallel sums
    are not finite: ``gram`` then says why in its own sentence)."""
    X = np.asarray(X, dtype=np.float64)
    Z = np.asarray(Z, dtype=np.float64)
    # A writable copy: one compiled version whatever the caller's flags.
    coef = np.array(coef, dtype=np.float64)
    work = X.shape[0] * Z.shape[0] * (X.shape[1] + ROW_EXP_WORK)
    kernel = settings.get("kernel", "gaussian")
    if (
        kernel not in _ROW_KIND
        or coef.ndim != 1
        or work < parallel_threshold(EXPANSION_PARALLEL_WORK)
    ):
        return gram(X, Z, **settings) @ coef
    params = KernelRows(Z, **settings).params
    ZX = np.ascontiguousarray(np.vstack([Z, X]))
    out = np.empty(X.shape[0])
    _expansion_into(ZX, Z.shape[0], np.int64(_ROW_KIND[kernel]), params, coef, out)
    if not np.all(np.isfinite(out)):
        return gram(X, Z, **settings) @ coef
    return out

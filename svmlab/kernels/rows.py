"""Kernel rows on demand: a Gram matrix that is never formed (issue 16).

:class:`KernelRows` gives a solver the rows ``k(x_i, X) + shift`` it asks for,
computed by the compiled :func:`kernel_row_into`, equal to
:func:`svmlab.kernels.functions.gram`'s entries to rounding (the Gaussian to the
last bit of ``exp``); it refuses what ``gram`` refuses, with the same sentence.
"""

from __future__ import annotations

import copy
import math

import numba
import numpy as np
from numba import njit
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.compiled.arguments import read_only
from svmlab.compiled.threads import parallel_threshold
from svmlab.kernels.functions import (
    _check_shapes,
    check_kernel_params,
    gram,
    kernel_settings,
)
from svmlab.kernels.vector_exp import exp_into

__all__ = [
    "ROW_DENSE",
    "ROW_GAUSSIAN",
    "ROW_LINEAR",
    "ROW_PARALLEL",
    "ROW_PARALLEL_WORK",
    "ROW_PARAMS",
    "ROW_POLYNOMIAL",
    "ROW_SIGMOID",
    "KernelRows",
    "fortran_copy",
    "kernel_row_into",
]

#: Kernel codes of the compiled row function :func:`kernel_row_into`; 0 is a
#: dense Gram matrix handed in (rows are gathered from it).
ROW_DENSE, ROW_GAUSSIAN, ROW_POLYNOMIAL, ROW_LINEAR, ROW_SIGMOID = 0, 1, 2, 3, 4
_ROW_KIND = {
    "gaussian": ROW_GAUSSIAN,
    "polynomial": ROW_POLYNOMIAL,
    "linear": ROW_LINEAR,
    "sigmoid": ROW_SIGMOID,
}
#: Length of ``KernelRows.params``: ``(1/sigma, sigma, use 1/sigma, degree,
#: coef0, shift, scale, parallel threshold)``.
ROW_PARAMS = 8
#: Index in ``params`` of the work from which a row is computed on every core.
ROW_PARALLEL = 7
#: The work of one entry's ``exp`` (or power, or tanh) in units of one
#: coordinate's difference-and-square: a row's work is ``length (d + this)``.
ROW_EXP_WORK = 4
#: A row is computed on every core from this much work (``length (d + 4)``).
#: Measured on this two-core machine (omp layer, Gaussian rows, d = 2, quiet):
#: a parallel loop costs about 5-10 us to start and join, a serial entry about
#: 2.3 ns; at 12,000 entries (72,000 work) the two halves took 14 us against
#: 28 us on one core, at 2,000 entries (12,000 work) the parallel row was no
#: faster. Below the threshold a fit stays on one core, so a server's small fits
#: (the pages' n <= 5,000 at d = 2: work <= 30,000) never hold both.
ROW_PARALLEL_WORK = 60_000
#: Most blocks of a parallel row, and the fewest entries in a block.
ROW_MAX_BLOCKS = 16
ROW_MIN_BLOCK = 1024


@njit(cache=True, nogil=True)
def kernel_row_into(K, X, perm, kind, params, pos, start, end, out):  # pragma: no cover
    """``out[t] = k(x_pos, x_t) + shift`` for ``start <= t < end`` (compiled),
    on every core when the row is large (:func:`_row_parallel`), else on one
    (:func:`_row_serial`, whose docstring says how each entry is computed).

    A computed row (not one gathered from ``K``) whose work, ``(end - start)
    (d + ROW_EXP_WORK)``, reaches ``params[ROW_PARALLEL]`` is split into
    blocks computed in parallel; each entry is computed exactly as on one
    core (same sums in the same order, the same ``exp``), so the row is the
    same to the bit whichever path ran."""
    if (
        kind != ROW_DENSE
        and (end - start) * (X.shape[1] + ROW_EXP_WORK) >= params[ROW_PARALLEL]
    ):
        _row_parallel(K, X, perm, kind, params, pos, start, end, out)
        return True
    _row_serial(K, X, perm, kind, params, pos, start, end, out)
    return False


@njit(cache=True, nogil=True, parallel=True)
def _row_parallel(K, X, perm, kind, params, pos, start, end, out):  # pragma: no cover
    """:func:`_row_serial` over blocks of ``start .. end`` (at most
    :data:`ROW_MAX_BLOCKS`, each at least :data:`ROW_MIN_BLOCK` entries), the
    blocks in parallel (numba's ``prange``; LIBSVM 3.37 computes its kernel
    columns the same way, an OpenMP loop with a guided schedule). Several
    blocks per thread let a thread that started late take fewer of them."""
    length = end - start
    # numba.get_num_threads() here would make the function uncacheable (a
    # ctypes pointer): a fixed number of blocks, enough for a few threads.
    count = max(1, min(ROW_MAX_BLOCKS, length // ROW_MIN_BLOCK))
    size = length // count
    # The last block takes the remainder: no block is shorter than
    # ROW_MIN_BLOCK, so each uses the same vectorised exp as the whole row.
    for b in numba.prange(count):
        lo = start + b * size
        hi = end if b == count - 1 else lo + size
        _row_serial(K, X, perm, kind, params, pos, lo, hi, out)


@njit(cache=True, nogil=True)
def _row_serial(K, X, perm, kind, params, pos, start, end, out):  # pragma: no cover
    """``out[t] = k(x_pos, x_t) + shift`` for ``start <= t < end`` on one core.

    The points are in an order of the caller's choosing: ``X[t]`` is position
    ``t`` and ``perm[t]`` its original index (a solver that swaps points, as
    LIBSVM's shrinking does, keeps ``X`` swapped along). With ``kind ==
    ROW_DENSE`` the row is gathered from the Gram matrix ``K`` (original order)
    through ``perm`` and ``X`` is unused. ``params`` is ``(1/sigma, sigma,
    use 1/sigma, degree, coef0, shift)``. The Gaussian is computed exactly as
    :func:`gaussian`'s direct loop does (scaled differences, no cancellation),
    its ``exp`` by :func:`svmlab.kernels.vector_exp.exp_into` (within 2 units in the
    last place of the C library's), so a row equals the Gram matrix's to a few
    units in the last place. Into a float32 row (LIBSVM's cache) each Gaussian
    entry is computed in double with the C library's ``exp`` and rounded once.
    """
    if kind == 0:
        m = K.shape[0]
        r = perm[pos]
        Krow = K[r - m if r >= m else r]
        for t in range(start, end):
            c = perm[t]
            out[t] = Krow[c - m if c >= m else c]
        return
    d = X.shape[1]
    inv, sigma, use_inv = params[0], params[1], params[2] != 0.0
    degree, coef0, shift, scale = int(params[3]), params[4], params[5], params[6]
    if out.itemsize != 8:
        # LIBSVM's float32 cache: each entry in double, rounded once, as
        # LIBSVM computes it. The vectorised loops below run in the row's
        # own precision: float32 sums and exp, and ν-SVC's decision values
        # no longer matched LIBSVM's to 1e-5 (tests/test_nu_svm.py). Two
        # loops, not one with a test of the kind per coordinate: that one
        # measured 5-8 % slower.
        for t in range(start, end):
            s = 0.0
            if kind == 1:
                for k in range(d):
                    if use_inv:
                        u = (X[pos, k] - X[t, k]) * inv
                    else:
                        u = (X[pos, k] - X[t, k]) / sigma
                    s += u * u
                out[t] = math.exp(-0.5 * s) + shift
                continue
            for k in range(d):
                s += X[pos, k] * X[t, k]
            if kind == 2:
                s = (s + coef0) ** degree
            elif kind == 4:
                s = math.tanh(scale * s + coef0)
            out[t] = s + shift
        return
    # Coordinate by coordinate over the row: the Gaussian's scaled squared
    # differences or the inner products, the same sums in the same order as
    # point by point (the same bits), but loops over t that vectorise.
    row = out[start:end]
    row[:] = 0.0
    for k in range(d):
        xk = X[pos, k]
        col = X[start:end, k]
        if kind == 1 and use_inv:
            for t in range(end - start):
                u = (xk - col[t]) * inv
                row[t] += u * u
        elif kind == 1:
            for t in range(end - start):
                u = (xk - col[t]) / sigma
                row[t] += u * u
        else:
            for t in range(end - start):
                row[t] += xk * col[t]
    if kind == 1:
        for t in range(end - start):
            row[t] *= -0.5
        # exp in vectorised loops (svmlab.kernels.vector_exp: 4x the C library's
        # scalar exp, within 2 ulp of it).
        exp_into(out, start, end)
        if shift != 0.0:
            for t in range(start, end):
                out[t] += shift
        return
    for t in range(end - start):
        s = row[t]
        if kind == 2:
            s = (s + coef0) ** degree
        elif kind == 4:
            s = math.tanh(scale * s + coef0)
        row[t] = s + shift


def fortran_copy(X: Array) -> Array:
    """A column-major copy of the points for a solver's own use (it swaps
    them along with its variables).

    :func:`_row_serial` sums a Gaussian row coordinate by coordinate over the
    points (loops over ``t`` that vectorise); in column-major order each
    coordinate's column ``X[start:end, k]`` is contiguous, where row-major
    strides it by ``d`` values. The same sums in the same order, so the same
    bits; measured (issue 48): 100 rows of 357 digits (d = 64) 0.84 ms against
    16.4 ms, 100 rows of 2,000 circles (d = 2) 0.81 ms against 1.46 ms."""
    return np.array(X, dtype=np.float64, order="F")


class KernelRows:
    """A Gram matrix that is never formed: rows ``k(x_i, X) + shift`` on demand.

    What a solver gets instead of ``K`` when ``n x n`` is more than the problem
    needs (LIBSVM computes kernel columns lazily and caches them, Chang & Lin
    2011, section 4.1; Rifkin: "combined with schemes for caching kernel
    products"). ``shift = 1`` is the regularized bias's ``K + 1``. Entries equal
    :func:`gram`'s to rounding (the Gaussian to the last bit of ``exp``).

    Parameters
    ----------
    X
        Training points, shape (n, d).
    kernel, sigma, degree, coef0, scale
        As for :func:`gram`.
    shift
        Constant added to every entry.
    """

    def __init__(
        self,
        X: Array,
        *,
        kernel: str = "gaussian",
        sigma: float = 1.0,
        degree: int = 3,
        coef0: float = 1.0,
        shift: float = 0.0,
        scale: float = 1.0,
    ) -> None:
        check_kernel_params(
            kernel, sigma=sigma, degree=degree, coef0=coef0, scale=scale
        )
        X = np.ascontiguousarray(X, dtype=np.float64)
        _check_shapes(X, X)
        if kernel != "gaussian":
            # Same errors as gram(X): max |x'z + a| over all pairs is reached on
            # the diagonal at the longest x (Cauchy-Schwarz; a >= 0), so the
            # column of that point meets every overflow the full matrix would.
            with np.errstate(over="ignore"):
                longest = int(np.argmax(np.einsum("ij,ij->i", X, X)))
            gram(
                X,
                X[longest : longest + 1],
                kernel=kernel,
                sigma=sigma,
                degree=degree,
                coef0=coef0,
                scale=scale,
            )
        self.X, self.kernel, self.shift = X, kernel, float(shift)
        self.scale = float(scale)
        self.sigma, self.degree, self.coef0 = float(sigma), int(degree), float(coef0)
        self.kind = _ROW_KIND[kernel]
        inv = 1.0 / self.sigma
        self.params = np.array(
            [
                inv if math.isfinite(inv) else 0.0,
                self.sigma,
                float(math.isfinite(inv)),
                float(self.degree),
                self.coef0,
                self.shift,
                self.scale,
                parallel_threshold(ROW_PARALLEL_WORK),
            ]
        )

    @property
    def n(self) -> int:
        return self.X.shape[0]

    def take(self, index: NDArray[np.intp]) -> KernelRows:
        """The same kernel on the points ``X[index]``, without checking the
        parameters again: a one-vs-one fit takes one per pair of classes, and
        the checks and the test for a free core cost 70-120 us a time (issue
        48: 5 ms of a 45-pair fit on digits). A subset's kernel cannot overflow
        where the whole set's did not."""
        out = copy.copy(self)
        out.X = self.X[index]
        out._diagonal = None
        return out

    def rows(self, index: NDArray[np.int64]) -> Array:
        """Rows ``K[index]``, shape (len(index), n)."""
        index = np.asarray(index, dtype=np.int64).ravel()
        out = np.empty((index.shape[0], self.n))
        _rows_into(read_only(self.X), self.kind, self.params, index, out)
        return out

    def diagonal(self) -> Array:
        """``K_ii``, shape (n,) (computed once, then a copy of it)."""
        if getattr(self, "_diagonal", None) is None:
            self._diagonal = np.empty(self.n)
            _diagonal_into(read_only(self.X), self.kind, self.params, self._diagonal)
        return self._diagonal.copy()

    def matvec(self, v: Array, *, absolute: bool = False) -> Array:
        """``K @ v`` from the rows of the nonzero entries of ``v`` only, shape (n,);
        ``|K| @ v`` with ``absolute`` (a rounding-error bound needs it)."""
        v = np.asarray(v, dtype=np.float64)
        nz = np.flatnonzero(v)
        out = np.zeros(self.n)
        for lo in range(0, nz.shape[0], 256):  # blocks bound the memory
            idx = nz[lo : lo + 256]
            rows = self.rows(idx)
            out += v[idx] @ (np.abs(rows) if absolute else rows)
        return out

    def full(self) -> Array:
        """The whole Gram matrix (plus ``shift``), as :func:`gram` computes it."""
        K = gram(self.X, **kernel_settings(self))
        return K + self.shift if self.shift else K


@njit(cache=True, nogil=True)
def _rows_into(X, kind, params, index, out):  # pragma: no cover - compiled
    n = X.shape[0]
    perm = np.arange(n)
    dummy = np.empty((1, 1))
    for r in range(index.shape[0]):
        kernel_row_into(dummy, X, perm, kind, params, index[r], 0, n, out[r])


@njit(cache=True, nogil=True)
def _diagonal_into(X, kind, params, out):  # pragma: no cover - compiled
    n = X.shape[0]
    if kind == ROW_GAUSSIAN:
        # k(x, x) = exp(0) = 1 exactly: no n one-entry rows (0.3 ms at n = 2000).
        out[:] = 1.0 + params[5]
        return
    perm = np.arange(n)
    dummy = np.empty((1, 1))
    for i in range(n):
        kernel_row_into(dummy, X, perm, kind, params, i, i, i + 1, out)

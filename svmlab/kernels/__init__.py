"""Kernels: the Gram matrix of every kernel, its rows on demand, and its checks.

- :mod:`~svmlab.kernels.functions`: the kernels as pure functions returning Gram
  matrices (:func:`gram`, :data:`KERNELS`), their parameter checks, and the
  Gaussian's conventions (``gamma_from_sigma``, Lee's ``sigma_L``, ...);
- :mod:`~svmlab.kernels.rows`: :class:`KernelRows`, the same matrix as rows on
  demand, for solvers that never form ``n x n``;
- :mod:`~svmlab.kernels.psd`: whether a Gram matrix is positive semidefinite,
  and what it means for the dual if not (the sigmoid);
- :mod:`~svmlab.kernels.vector_exp`: ``exp`` in loops the compiler vectorises.

The public names are re-exported here (``svmlab.kernels.gram``).
"""

from __future__ import annotations

from svmlab.kernels import functions, rows
from svmlab.kernels.functions import *  # noqa: F403 (re-exported: the package's face)
from svmlab.kernels.rows import *  # noqa: F403

__all__ = [*functions.__all__, *rows.__all__]

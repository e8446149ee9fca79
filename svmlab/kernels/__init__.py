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

from svmlab.kernels.functions import (
    DIRECT_MAX_DIM,
    KERNEL_PARAMETERS,
    KERNELS,
    PSD_KERNELS,
    TITLES,
    check_kernel_params,
    gamma_from_sigma,
    gaussian,
    gram,
    kernel_settings,
    lee_sigma2_from_sigma,
    linear,
    polynomial,
    sigma_from_gamma,
    sigma_from_lee_sigma2,
    sigmoid,
)
from svmlab.kernels.rows import ROW_DENSE, ROW_PARAMS, KernelRows, kernel_row_into

__all__ = [
    "DIRECT_MAX_DIM",
    "KERNELS",
    "KERNEL_PARAMETERS",
    "PSD_KERNELS",
    "ROW_DENSE",
    "ROW_PARAMS",
    "TITLES",
    "KernelRows",
    "check_kernel_params",
    "gamma_from_sigma",
    "gaussian",
    "gram",
    "kernel_row_into",
    "kernel_settings",
    "lee_sigma2_from_sigma",
    "linear",
    "polynomial",
    "sigma_from_gamma",
    "sigma_from_lee_sigma2",
    "sigmoid",
]

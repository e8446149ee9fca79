"""svmlab: an interactive lab for seeing support vector machines work.

The engine is pure: importing ``svmlab`` never imports streamlit (only the
``svmlab.ui`` subpackage does) nor plotly (only ``svmlab.figures`` does).
"""

from __future__ import annotations

# First: numba's cache directory must be set before any compiled module loads
# (svmlab/compiled_cache.py: a directory named by the compiled sources' hash).
from svmlab import (
    compiled_cache,
    crammer_singer,
    csv_data,
    datasets,
    kernels,
    losses,
    multiclass,
    probability,
    regression_data,
    selection,
    solvers,
)
from svmlab.errors import (
    DataError,
    FitCancelled,
    IncompatibleLossError,
    InfeasibleNuError,
    ParameterError,
    ProblemError,
    SvmlabError,
    UnknownNameError,
)
from svmlab.estimator import BIASES, SV_STATES, SVC
from svmlab.multiclass import CrammerSingerSVC, OneVsOneSVC, OneVsRestSVC
from svmlab.nu_svm import NuSVC, OneClassSVM
from svmlab.probability import PlattSVC
from svmlab.regression import EpsilonSVR, NuSVR
from svmlab.solvers.base import cancel_when

__all__ = [
    "BIASES",
    "SVC",
    "SV_STATES",
    "CrammerSingerSVC",
    "DataError",
    "EpsilonSVR",
    "FitCancelled",
    "IncompatibleLossError",
    "InfeasibleNuError",
    "NuSVC",
    "NuSVR",
    "OneClassSVM",
    "OneVsOneSVC",
    "OneVsRestSVC",
    "ParameterError",
    "PlattSVC",
    "ProblemError",
    "SvmlabError",
    "UnknownNameError",
    "cancel_when",
    "compiled_cache",
    "crammer_singer",
    "csv_data",
    "datasets",
    "kernels",
    "losses",
    "multiclass",
    "probability",
    "regression_data",
    "selection",
    "solvers",
]

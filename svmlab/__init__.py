"""svmlab: an interactive lab for seeing support vector machines work.

The engine is pure: importing ``svmlab`` never imports streamlit (only the
``svmlab.ui`` subpackage does) nor plotly (only ``svmlab.figures`` does).
"""

from __future__ import annotations

from svmlab import csv_data, datasets, kernels, losses, selection, solvers
from svmlab.errors import (
    DataError,
    FitCancelled,
    IncompatibleLossError,
    ParameterError,
    ProblemError,
    SvmlabError,
    UnknownNameError,
)
from svmlab.estimator import BIASES, SV_STATES, SVC
from svmlab.solvers.base import cancel_when

__all__ = [
    "BIASES",
    "SVC",
    "SV_STATES",
    "DataError",
    "FitCancelled",
    "IncompatibleLossError",
    "ParameterError",
    "ProblemError",
    "SvmlabError",
    "UnknownNameError",
    "cancel_when",
    "csv_data",
    "datasets",
    "kernels",
    "losses",
    "selection",
    "solvers",
]

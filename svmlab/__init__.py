"""svmlab: an interactive lab for seeing support vector machines work.

The public face: the estimators (``svmlab.SVC``, ``NuSVC``, ``OneClassSVM``,
``EpsilonSVR``, ``NuSVR``, ``PlattSVC``, the multiclass ones), the errors they
raise, and the subpackages by layer, in the order data flows:

- :mod:`svmlab.datasets`: generated data sets and a student's CSV files;
- :mod:`svmlab.kernels`: Gram matrices, their rows on demand, PSD checks;
- :mod:`svmlab.losses`: the margin losses every solver and figure scores with;
- :mod:`svmlab.solvers`: one signature, one result type, every algorithm;
- :mod:`svmlab.svm`: the estimators and what they share;
- :mod:`svmlab.experiments`: the computations the pages run (imported on use);
- :mod:`svmlab.figures`: Plotly figure builders and the slides (imported on use);
- :mod:`svmlab.compiled`: numba's cache directory and the warm-up;
- :mod:`svmlab.ui`: the Streamlit pages' code (the only part that imports it).

The engine is pure: importing ``svmlab`` never imports streamlit (only the
``svmlab.ui`` subpackage does) nor plotly (only ``svmlab.figures`` does).
"""

from __future__ import annotations

# First: numba's cache directory must be set before any compiled module loads
# (svmlab/compiled/cache.py: a directory named by the compiled sources' hash).
from svmlab.compiled import cache as _compiled_cache  # noqa: F401  (isort: skip)

# Then numba's threading layer, before any parallel loop starts its threads.
from svmlab.compiled import threads as _compiled_threads  # noqa: F401  (isort: skip)
from svmlab import datasets, errors, kernels, losses, solvers, svm

# The error classes are named once, in errors.__all__, the estimators once, in
# svm.__all__: both re-exported here.
from svmlab.errors import *  # noqa: F403 (re-exported: the package's face)
from svmlab.solvers.base import cancel_when
from svmlab.svm import *  # noqa: F403 (re-exported: the package's face)

__all__ = [
    *svm.__all__,
    # The classes only: errors' sentence helpers stay in svmlab.errors.
    *(name for name in errors.__all__ if name[0].isupper()),
    "cancel_when",
    "datasets",
    "kernels",
    "losses",
    "solvers",
    "svm",
]

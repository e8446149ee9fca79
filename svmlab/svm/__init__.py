"""The estimators and what they share, behind scikit-learn's estimator contract.

- :mod:`~svmlab.svm.classifier`: :class:`SVC`, kernel + loss + solver;
- :mod:`~svmlab.svm.nu_svm`: :class:`NuSVC` and :class:`OneClassSVM`;
- :mod:`~svmlab.svm.regression`: :class:`EpsilonSVR` (also as :class:`SVR`) and
  :class:`NuSVR`;
- :mod:`~svmlab.svm.probability`: :class:`PlattSVC` (Platt's probabilities);
- :mod:`~svmlab.svm.multiclass`: one-vs-rest, one-vs-one, Crammer-Singer;
- what they share: :mod:`~svmlab.svm.parameters` (parameters declared once),
  :mod:`~svmlab.svm.kernel_machine` (LIBSVM's other machines' fitted model),
  :mod:`~svmlab.svm.validation` (the data a fit is given),
  :mod:`~svmlab.svm.fit_checks` (what a fit checks around its solve),
  :mod:`~svmlab.svm.class_weights` (a C per class).
"""

from __future__ import annotations

from svmlab.svm.classifier import BIASES, SV_STATES, SVC
from svmlab.svm.multiclass import CrammerSingerSVC, OneVsOneSVC, OneVsRestSVC
from svmlab.svm.nu_svm import NuSVC, OneClassSVM
from svmlab.svm.probability import PlattSVC
from svmlab.svm.regression import SVR, EpsilonSVR, NuSVR

__all__ = [
    "BIASES",
    "SVC",
    "SVR",
    "SV_STATES",
    "CrammerSingerSVC",
    "EpsilonSVR",
    "NuSVC",
    "NuSVR",
    "OneClassSVM",
    "OneVsOneSVC",
    "OneVsRestSVC",
    "PlattSVC",
]

"""A pytest plugin: scikit-learn's SVM estimators replaced by svmlab's.

Loaded with ``-p svmlab_in_sklearn`` into a run of the installed
scikit-learn's own ``sklearn/svm/tests`` (:mod:`tests.test_sklearn_svm_suite`):
before the test modules are imported, ``sklearn.svm.SVC``, ``NuSVC``,
``OneClassSVM``, ``SVR`` and ``NuSVR`` become :class:`svmlab.SVC`,
:class:`svmlab.NuSVC`, :class:`svmlab.OneClassSVM`, :class:`svmlab.SVR` and
:class:`svmlab.NuSVR`, so every ``svm.SVC(...)`` and ``from sklearn.svm import
SVR`` in them builds svmlab's. Only attributes of the imported module change;
the installed files are read, never written. scikit-learn's other estimators
(``LinearSVC``, ``LinearSVR``, ``l1_min_c``) stay its own.

Each test's outcome is written as JSON to the file named by the environment
variable ``SVMLAB_SKLEARN_RESULTS``: ``{"test_svm.py::test_x[...]": {"outcome":
"passed" | "failed" | "skipped", "error": the exception's class name, "message":
its first line}}``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import sklearn.svm

import svmlab

#: scikit-learn's name -> the svmlab estimator put in its place.
REPLACED = {
    "SVC": svmlab.SVC,
    "NuSVC": svmlab.NuSVC,
    "OneClassSVM": svmlab.OneClassSVM,
    "SVR": svmlab.SVR,
    "NuSVR": svmlab.NuSVR,
}


def pytest_configure(config) -> None:
    for name, estimator in REPLACED.items():
        setattr(sklearn.svm, name, estimator)


_RESULTS: dict[str, dict[str, str]] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    key = f"{item.path.name}::{item.name}"
    if report.when == "call" or report.outcome != "passed":
        entry = {"outcome": report.outcome, "error": "", "message": ""}
        if report.outcome == "failed" and call.excinfo is not None:
            entry["error"] = call.excinfo.typename
            text = str(call.excinfo.value).strip()
            entry["message"] = text.splitlines()[0][:300] if text else ""
        if key not in _RESULTS or _RESULTS[key]["outcome"] == "passed":
            _RESULTS[key] = entry


def pytest_sessionfinish(session, exitstatus) -> None:
    path = os.environ.get("SVMLAB_SKLEARN_RESULTS")
    if path:
        Path(path).write_text(json.dumps(_RESULTS, indent=1, sort_keys=True))

"""``import svmlab`` offers the estimators and every error class by name (the
package re-exports them from ``svmlab.svm`` and ``svmlab.errors``)."""

from __future__ import annotations

import inspect

import svmlab
import svmlab.errors

#: The estimators the README names, written out here (not read from svmlab.svm).
ESTIMATORS = {
    "SVC",
    "SVR",
    "NuSVC",
    "NuSVR",
    "EpsilonSVR",
    "OneClassSVM",
    "PlattSVC",
    "OneVsOneSVC",
    "OneVsRestSVC",
    "CrammerSingerSVC",
}


def test_face_names_every_estimator_and_error_class() -> None:
    # The error classes found by looking at the module, not at its __all__.
    error_classes = {
        name
        for name, obj in vars(svmlab.errors).items()
        if inspect.isclass(obj)
        and issubclass(obj, Exception)
        and obj.__module__ == "svmlab.errors"
    }
    assert "ParameterError" in error_classes
    names = set(svmlab.__all__)
    assert ESTIMATORS | error_classes | {"BIASES", "SV_STATES"} <= names
    assert len(svmlab.__all__) == len(names), "a name is listed twice"
    for name in svmlab.__all__:
        assert getattr(svmlab, name) is not None
    assert svmlab.SVC is svmlab.svm.SVC
    assert svmlab.ParameterError is svmlab.errors.ParameterError


def test_face_leaves_the_sentence_helpers_in_errors() -> None:
    # counted, plain_value and short_reason word messages; they are not the face.
    assert not {"counted", "plain_value", "short_reason"} & set(svmlab.__all__)

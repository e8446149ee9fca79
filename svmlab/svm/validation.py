"""Checks of the data a fit is given, shared by every entry point of the engine.

``SVC.fit``, the multiclass estimators and the model-selection criteria
(:mod:`svmlab.experiments.selection`, :mod:`svmlab.experiments.criterion_grid`) take the
same points and labels, so they check them here, in one way, and a bad input gets the
same
:class:`svmlab.errors.DataError` sentence whichever door it came in by (issue 27,
item 13: the criteria used to let ``np.unique`` raise a raw ``TypeError`` on labels
that mix text and numbers). scikit-learn's own validation does the work; its
messages, which dump arrays and run over lines, become plain sentences.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.multiclass import check_classification_targets, unique_labels
from sklearn.utils.validation import check_X_y, validate_data

from svmlab.array_types import Array
from svmlab.errors import (
    DataError,
    DataTypeError,
    ParameterError,
    plain_value,
    short_reason,
)

__all__ = [
    "DENSE_COPY_BYTES",
    "check_binary_labels",
    "check_init",
    "check_labels",
    "check_points",
    "dense_points",
    "fit_input",
    "floats_per_point",
    "plain_data_error",
    "plain_label_error",
    "predict_input",
    "sparse_layout",
    "validate",
]


def plain_data_error(error: Exception) -> DataError:
    """scikit-learn's validation message as one plain sentence (issue 14, item 9).

    The library's texts dump arrays ("array=[...]") and run over several lines;
    the phrases scikit-learn's own estimator checks look for ("NaN"/"inf",
    "Reshape your data", "Complex data not supported", "0 feature(s) ...") are
    kept inside the plain sentences.
    """
    text = str(error)
    if "sparse" in text.lower():
        return DataTypeError(
            "Sparse data is not supported: svmlab needs a dense table of numbers "
            "(convert it with X.toarray())."
        )
    if isinstance(error, TypeError):
        return DataTypeError(
            "The features must be numbers: every argument must be a string or a "
            "real number, and some values are neither (a list or a dict, say)."
        )
    which = "labels" if re.search(r"\bInput (y|Y)\b", text) else "data"
    if "NaN" in text or "infinity" in text:
        return DataError(
            f"The {which} contain NaN or infinite values; remove or fix those rows "
            "before fitting."
        )
    if "could not convert" in text:
        return DataError(
            "The features must be numbers; some values are text that does not "
            "read as a number."
        )
    if "Complex data not supported" in text:
        return DataError("Complex data not supported: the features must be real.")
    if "Expected 2D array" in text:
        return DataError(
            "X must be a table with one row per point and one column per feature, "
            "not a flat list. Reshape your data: X.reshape(-1, 1) if it has one "
            "feature, X.reshape(1, -1) if it is one point."
        )
    dims = re.search(r"Found array with dim (\d+)", text)
    if dims:
        return DataError(
            "X must be a table with one row per point and one column per feature; "
            f"got an array with {dims.group(1)} dimensions."
        )
    sizes = re.search(r"inconsistent numbers of samples: \[(\d+), (\d+)\]", text)
    if sizes:
        return DataError(
            f"X has {sizes.group(1)} rows but y has {sizes.group(2)} labels; "
            "there must be one label per row."
        )
    reason = short_reason(error, limit=160)
    return DataError(f"The data cannot be used: {reason}." if reason else text)


def plain_label_error(error: ValueError) -> DataError:
    """Label type problems as plain sentences; keeps the words scikit-learn's
    checks match ("continuous", "Unknown label type")."""
    text = str(error)
    kind = re.search(r"Unknown label type: '?([\w-]+)", text)
    if kind is not None and kind.group(1).startswith("continuous"):
        return DataError(
            "The labels must be class names such as -1/1, 0/1 or text, not "
            "continuous numbers like 0.5 or 2.5."
        )
    if "Mix of label input types" in text or "Mix type" in text:
        return DataError("The labels mix text and numbers; use one kind for all.")
    return DataError(
        "Unknown label type: the labels must be class names such as -1/1, 0/1, or text."
    )


def _mixes_text_and_numbers(y: NDArray) -> bool:
    """Whether an object array of labels holds both text and other values
    (scikit-learn calls its type "unknown", which says nothing to a student)."""
    if y.dtype != object:
        return False
    text = [isinstance(v, str) for v in y.ravel()]
    return any(text) and not all(text)


def check_labels(y: ArrayLike) -> NDArray:
    """The sorted distinct labels of ``y`` (scikit-learn's ``unique_labels``), or a
    :class:`DataError` in a plain sentence.

    Labels are class names: numbers that are whole (-1/1, 0/1, 0..k) or text, not
    continuous values, and not text mixed with numbers (scikit-learn's
    ``check_classification_targets`` is the rule).
    """
    y = np.asarray(y)
    if y.ndim == 1 and y.dtype.kind in "biuf" and y.size:
        # Whole finite numbers in one column: scikit-learn's rule accepts them
        # as they are ("binary" or "multiclass") and its labels are the sorted
        # distinct values; found here directly (its type_of_target was half
        # of a warm refit's time outside the solver, 1 ms at n = 2000).
        labels = np.unique(y)
        if y.dtype.kind != "f" or (
            np.all(np.isfinite(labels)) and np.all(labels == np.floor(labels))
        ):
            return labels
    if _mixes_text_and_numbers(y):
        raise DataError("The labels mix text and numbers; use one kind for all.")
    try:
        check_classification_targets(y)
        return unique_labels(y)
    except (TypeError, ValueError) as error:
        raise plain_label_error(error) from error


def validate(estimator: Any, X: ArrayLike, y: Any = "no_validation", **kwargs: Any):
    """scikit-learn's ``validate_data`` as float64 (``y`` as it takes it: its
    default ``"no_validation"`` for X alone), its errors as plain sentences."""
    try:
        out = validate_data(estimator, X, y, dtype=np.float64, **kwargs)
    except (TypeError, ValueError) as error:
        raise plain_data_error(error) from error
    if kwargs.get("y_numeric") and out[1].dtype.kind not in "biuf":
        # scikit-learn converts object targets only; text ones pass through
        # and failed later in float() (issue 44, item 5).
        raise DataError(
            "A regression needs numbers as targets y; got "
            f"{plain_value(out[1].flat[0])} among them."
        )
    return out


def check_binary_labels(y: ArrayLike, *, one: str, more: str) -> NDArray:
    """The two sorted labels of ``y`` (:func:`check_labels`), or a
    :class:`DataError`: ``"Only one class (a) is present; <one>"`` or ``"Only
    binary classification is supported. y has k classes; <more>"``, ``one`` and
    ``more`` naming what the estimator needs and where to turn."""
    classes = check_labels(y)
    if classes.shape[0] < 2:
        only = classes[0].item() if isinstance(classes[0], np.generic) else classes[0]
        raise DataError(f"Only one class ({only}) is present; {one}")
    if classes.shape[0] > 2:
        raise DataError(
            "Only binary classification is supported. "
            f"y has {classes.shape[0]} classes; {more}"
        )
    return classes


def check_points(X: ArrayLike, y: ArrayLike) -> tuple[Array, NDArray, NDArray]:
    """``(X, y, classes)`` checked as ``SVC.fit`` checks them: X a finite float
    table (n, d), y one label per row (scikit-learn's ``check_X_y``), the labels
    by :func:`check_labels`. Raises :class:`DataError` with a plain sentence.
    """
    try:
        X, y = check_X_y(X, y, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise plain_data_error(error) from error
    return X, y, check_labels(y)


def floats_per_point(value: Any, n: int, unreadable: str) -> tuple[Array | None, str]:
    """``value`` (one number per training point) as float64, and what it holds
    instead when it is not ``n`` numbers in a row ("3 numbers", "shape (2, 2)"),
    else "": the start of a warm start's and a weight's checks, which then say
    their own sentences. None stays None; what NumPy cannot read as numbers is
    a :class:`DataError` saying ``unreadable``."""
    if value is None:
        return None, ""
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise DataError(unreadable) from error
    if a.ndim == 1 and a.shape[0] == n:
        return a, ""
    return a, f"{a.shape[0]} numbers" if a.ndim == 1 else f"shape {a.shape}"


def check_init(init: ArrayLike | None, n: int) -> Array | None:
    """A warm start ``init`` as ``n`` finite floats, or None for none.

    ``init`` is a previous ``alpha_`` of the same training points: one finite
    number per point. It used to be dropped silently when it was not (the
    solvers' :func:`svmlab.solvers.base.repair_init` returns None for it), so a
    caller believed it warm-started when it did not; now it is refused. Text is
    a :class:`DataError` (as before), a wrong length, NaN or infinity a
    :class:`ParameterError`. Values outside the solver's box are still allowed:
    each solver clips and repairs them into its feasible set.
    """
    a, got = floats_per_point(
        init, n, "init must be a previous alpha_: one number per training point."
    )
    if a is None:
        return None
    if got:
        raise ParameterError(
            f"init must be a previous alpha_ of these {n} training points, one "
            f"number per point; got {got}. Leave init out for a cold start."
        )
    if not np.all(np.isfinite(a)):
        raise ParameterError(
            "init contains NaN or infinite values; a warm start must be a finite "
            "previous alpha_. Leave init out for a cold start."
        )
    return a


#: The largest dense copy of a sparse X the kernels may make, in bytes: the
#: engine's kernels are dense loops (:mod:`svmlab.kernels`), so sparse points are
#: made dense for them (scikit-learn's LIBSVM has sparse kernel loops instead).
DENSE_COPY_BYTES = 2 * 1024**3


def dense_points(X: Any) -> Array:
    """X as a dense float64 table: a sparse matrix made dense (up to
    :data:`DENSE_COPY_BYTES`, else a DataError), an array as it is."""
    if not sp.issparse(X):
        return X
    need = 8 * X.shape[0] * X.shape[1]
    if need > DENSE_COPY_BYTES:
        raise DataError(
            f"This sparse X ({X.shape[0]:,} x {X.shape[1]:,}) would take "
            f"{need / 1024**3:.1f} GB as the dense table svmlab's kernels compute "
            f"on (at most {DENSE_COPY_BYTES / 1024**3:.0f} GB); reduce the features "
            "first (TruncatedSVD, say)."
        )
    return np.asarray(X.toarray(), dtype=np.float64)


def sparse_layout(X: Any, rows: Any) -> Any:
    """Rows of a sparse X as a CSR matrix of X's own kind (``csr_array`` for a
    sparse array, ``csr_matrix`` for a sparse matrix), as scikit-learn returns
    ``support_vectors_``."""
    out = sp.csr_array(X)[rows] if isinstance(X, sp.sparray) else sp.csr_matrix(X)[rows]
    out.sort_indices()
    return out


def fit_input(estimator: Any, X: Any, y: Any = "no_validation", **kwargs: Any):
    """``(X, y)`` of a kernel machine's ``fit``, checked for its kernel.

    A callable kernel takes X as it is (scikit-learn's rule: text, say), so only
    the lengths and y are checked; ``"precomputed"`` takes a dense square Gram
    matrix (a sparse one is a :class:`DataTypeError`, as scikit-learn's
    ``TypeError``); every other kernel takes a dense table or a sparse matrix
    (CSR kept, other formats converted). ``estimator._sparse`` records which.
    """
    kernel = estimator.kernel
    estimator._sparse = False
    if callable(kernel):
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        if isinstance(y, str) and y == "no_validation":
            return X, y
        try:
            y = validate_data(estimator, "no_validation", y, **kwargs)
        except (TypeError, ValueError) as error:
            raise plain_data_error(error) from error
        if np.shape(y)[0] != n:
            raise DataError(
                f"X has {n} rows but y has {np.shape(y)[0]} labels; there must be "
                "one label per row."
            )
        return X, y
    if kernel == "precomputed":
        if sp.issparse(X):
            raise DataTypeError(
                "Sparse precomputed kernels are not supported: give the Gram matrix "
                "as a dense array (K.toarray())."
            )
        out = validate(estimator, X, y, **kwargs)
        K = out[0] if isinstance(out, tuple) else out
        if K.shape[0] != K.shape[1]:
            raise DataError(
                "With kernel='precomputed', X must be the square Gram matrix of the "
                f"training points, k(x_i, x_j); got a {K.shape[0]}x{K.shape[1]} "
                "matrix."
            )
        return out
    out = validate(estimator, X, y, accept_sparse="csr", **kwargs)
    estimator._sparse = sp.issparse(out[0] if isinstance(out, tuple) else out)
    return out


def predict_input(estimator: Any, X: Any) -> Any:
    """X of a fitted kernel machine's prediction, checked as ``fit`` checked
    its training X: the same features; a sparse X only where the fit's was (a
    model fitted on dense points refuses it, as scikit-learn's)."""
    if callable(estimator.kernel):
        return X
    if sp.issparse(X) and not getattr(estimator, "_sparse", False):
        raise DataTypeError(
            f"cannot use sparse input in {type(estimator).__name__!r} trained on "
            "dense data: pass a dense X (X.toarray()), or fit on sparse data."
        )
    X = validate(estimator, X, reset=False, accept_sparse="csr")
    if estimator.kernel == "precomputed" and X.shape[1] != estimator.shape_fit_[0]:
        raise DataError(
            f"X.shape[1] = {X.shape[1]} should be equal to {estimator.shape_fit_[0]}, "
            "the number of samples at training time: with kernel='precomputed', "
            "X holds k(x, x_i) for every training point x_i."
        )
    return X

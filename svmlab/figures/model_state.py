"""A fitted model read for drawing: class labels, and alpha, margins and
support-vector states now or at a recorded iteration (``snapshot``, for playback).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmlab.array_types import Array
from svmlab.errors import ParameterError
from svmlab.solvers.base import sv_states

if TYPE_CHECKING:
    from svmlab.svm.classifier import SVC


def _label_text(label: object, classes: Sequence[object]) -> str:
    if isinstance(label, bool | np.bool_):
        return str(label)
    if isinstance(label, int | float | np.number):
        value = float(label)
        if value.is_integer():
            numeric = [float(c) for c in classes]
            if sorted(numeric) == [-1.0, 1.0]:
                return "+1" if value > 0 else "−1"
            return str(int(value))
        return f"{value:g}"
    return str(label)


def _signed_labels(model: SVC, y: ArrayLike) -> Array:
    """+1 for ``model.classes_[1]``, -1 otherwise."""
    return np.where(np.asarray(y) == model.classes_[1], 1.0, -1.0)


def _snapshot_index(model: SVC, snapshot: int) -> int:
    history = getattr(model, "history_", None)
    count = 0 if history is None else len(history.alpha)
    if count == 0:
        raise ParameterError(
            "This model has no recorded iterations to replay; fit it with "
            "record_history=True and an iterative solver."
        )
    k = int(snapshot)
    if not -count <= k < count:
        raise ParameterError(
            f"snapshot {snapshot} is out of range: the history holds {count} "
            f"snapshots (0 to {count - 1})."
        )
    return k % count


def _loss_name(model: SVC) -> str:
    return str(getattr(model, "loss", "hinge"))


def _has_box(model: SVC) -> bool:
    """Whether alpha has the upper bound C (no bound for the squared hinge, C = inf)."""
    return math.isfinite(float(model.C)) and _loss_name(model) != "squared_hinge"


def _state(
    model: SVC, X: Array, y_pm: Array, snapshot: int | None
) -> tuple[Array, Array, NDArray[np.integer]]:
    """alpha, margins and SV states now or at a history snapshot."""
    if snapshot is None:
        return (
            np.asarray(model.alpha_, dtype=np.float64),
            np.asarray(model.margins_, dtype=np.float64),
            np.asarray(model.sv_state_),
        )
    k = _snapshot_index(model, snapshot)
    alpha = np.asarray(model.history_.alpha[k], dtype=np.float64)
    margins = y_pm * model.history_decision_function(X, k)
    return alpha, margins, sv_states(alpha, float(model.C), _loss_name(model), rel=1e-6)

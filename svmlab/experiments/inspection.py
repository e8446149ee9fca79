"""One training point, read off a fitted model: f(x), y f(x), its loss, α, its
KKT state and why it is in that state.

The state follows from the loss: at a solution αᵢ = −C ℓ′(mᵢ) (a subgradient at
a kink), so the shape of ℓ around mᵢ says whether the point pulls on the boundary
and how hard. Pure: no streamlit, no plotly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from svmlab.losses import Loss
from svmlab.svm.classifier import SVC

__all__ = ["PointReport", "inspect_point"]

_STATES = {0: "not a support vector (α = 0)", 1: "free", 2: "bound (α = C)"}
#: Losses whose multipliers lie in [0, C] (the squared ones have no upper bound).
_BOXED = {"Hinge", "Ramp", "ModifiedHinge"}


@dataclass(frozen=True)
class PointReport:
    """What the inspector shows for one training point."""

    index: int
    x: tuple[float, float]
    label: float
    f: float
    margin: float
    loss: float
    alpha: float
    C: float
    state: str
    why: str


def inspect_point(
    model: SVC, X: ArrayLike, y: ArrayLike, index: int, loss: Loss
) -> PointReport:
    """The report on training point ``index`` of the data ``model`` was fitted on.

    Parameters
    ----------
    model
        A fitted :class:`svmlab.SVC`.
    X, y
        Its training points (n, 2) and labels (n,).
    index
        Which point.
    loss
        The loss the model was fitted with (its value ℓ(m) is reported).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    sign = 1.0 if y[index] == model.classes_[1] else -1.0
    f = float(model.decision_function(X[index : index + 1])[0])
    m = sign * f
    alpha = float(model.alpha_[index])
    C = float(model.C)
    code = int(model.sv_state_[index])
    state = _STATES[code]
    boxed = math.isfinite(C) and type(loss).__name__ in _BOXED
    if code == 1:
        state = "free (0 < α < C)" if boxed else "support vector (α > 0)"
    return PointReport(
        index=int(index),
        x=(float(X[index, 0]), float(X[index, 1])),
        label=sign,
        f=f,
        margin=m,
        loss=float(np.asarray(loss.value(np.array([m])))[0]),
        alpha=alpha,
        C=C,
        state=state,
        why=_why(loss, code, m, alpha, C),
    )


def _why(loss: Loss, code: int, m: float, alpha: float, C: float) -> str:
    name = type(loss).__name__
    where = (
        "outside the margin (m > 1)"
        if m > 1 + 1e-3
        else "on the margin (m ≈ 1)"
        if m >= 1 - 1e-3
        else "inside the margin (0 < m < 1)"
        if m > 0
        else "on the wrong side (m < 0)"
    )
    if name == "Hinge":
        if code == 0:
            return (
                f"It lies {where}, where the hinge is flat (ℓ′ = 0), so α = 0: "
                "it could move anywhere beyond the margin and the boundary would "
                "not change."
            )
        if code == 1:
            return (
                f"It lies {where}: the hinge's kink, where any 0 ≤ α ≤ C is a "
                "subgradient, so α is free and this point holds the margin in place."
            )
        return (
            f"It lies {where}, where the hinge has slope −1, so α = C: it pulls on "
            "the boundary with the full weight C and pays ξ = 1 − m."
        )
    if name == "Ramp":
        if code == 0 and m < 0:
            return (
                f"It lies on the wrong side (m = {m:.2f} < 0), where the ramp is "
                "flat at its cap of 1: α = 0, an outlier the ramp ignores."
            )
    if code == 0:
        return f"It lies {where}, where ℓ′(m) = 0, so α = −C ℓ′(m) = 0."
    return f"It lies {where}; at a solution α = −C ℓ′(m) = {alpha:.3g}" + (
        f" (C = {C:g})." if math.isfinite(C) else "."
    )

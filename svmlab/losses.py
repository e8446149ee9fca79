"""Margin-based losses: small frozen dataclasses, vectorised over ``m = y f(x)``.

Every loss has ``value(m)`` and ``derivative(m)`` (a subgradient at a kink: the
value used there is stated in each docstring) and flags that let solvers refuse
what they cannot handle (STYLE rule 4). The primal objective of every solver is
``0.5 ||f||_H^2 + C sum_i loss(m_i)`` (docs/corrections.md), so the same loss object
scores every solver's answer.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike

from svmlab.array_types import Array
from svmlab.errors import ParameterError, UnknownNameError

__all__ = [
    "LOSSES",
    "Hinge",
    "Loss",
    "ModifiedHinge",
    "Ramp",
    "SquaredHinge",
    "SquaredRamp",
    "make_loss",
]


def _as_array(m: ArrayLike) -> Array:
    return np.asarray(m, dtype=np.float64)


@dataclass(frozen=True)
class Loss:
    """Base class: a loss of the margin ``m = y f(x)``."""

    name: ClassVar[str] = "loss"
    title: ClassVar[str] = "loss"
    latex: ClassVar[str] = ""
    source: ClassVar[str] = ""
    convex: ClassVar[bool] = True
    differentiable: ClassVar[bool] = False
    bounded: ClassVar[bool] = False
    #: Its slope is never 0, so every point's multiplier is positive and a
    #: solver's small ones depend on how it stopped: the KKT states come from
    #: the margins (:func:`svmlab.solvers.base.state_multipliers`).
    slope_never_zero: ClassVar[bool] = False

    def value(self, m: ArrayLike) -> Array:
        raise NotImplementedError

    def derivative(self, m: ArrayLike) -> Array:
        raise NotImplementedError

    def __call__(self, m: ArrayLike) -> Array:
        return self.value(m)


@dataclass(frozen=True)
class Hinge(Loss):
    """Hinge loss ``max(0, 1 - m)`` (Sugiyama 27.6.1; Lee eq. 1).

    ``derivative`` returns -1 for m < 1 and 0 for m >= 1 (the right derivative at
    the kink m = 1, where the subdifferential is [-1, 0]).
    """

    name: ClassVar[str] = "hinge"
    title: ClassVar[str] = "Hinge"
    latex: ClassVar[str] = r"\ell(m) = \max(0,\ 1 - m)"
    source: ClassVar[str] = "Sugiyama §27.6.1; Zhu; Lee eq. (1)"

    def value(self, m: ArrayLike) -> Array:
        return np.maximum(0.0, 1.0 - _as_array(m))

    def derivative(self, m: ArrayLike) -> Array:
        return np.where(_as_array(m) < 1.0, -1.0, 0.0)


@dataclass(frozen=True)
class SquaredHinge(Loss):
    """Squared hinge ``1/2 max(0, 1 - m)^2`` (Sugiyama 27.6.2); C^1 everywhere."""

    name: ClassVar[str] = "squared_hinge"
    title: ClassVar[str] = "Squared hinge"
    latex: ClassVar[str] = r"\ell(m) = \tfrac12 \max(0,\ 1 - m)^2"
    source: ClassVar[str] = "Sugiyama §27.6.2"
    differentiable: ClassVar[bool] = True

    def value(self, m: ArrayLike) -> Array:
        return 0.5 * np.maximum(0.0, 1.0 - _as_array(m)) ** 2

    def derivative(self, m: ArrayLike) -> Array:
        return -np.maximum(0.0, 1.0 - _as_array(m))


class _Clipped(Loss):
    """The two ramps: the hinge clipped at 1 (bounded, not convex)."""

    convex: ClassVar[bool] = False
    bounded: ClassVar[bool] = True

    @staticmethod
    def _clipped(m: ArrayLike) -> Array:
        """``min(1, max(0, 1 - m))``."""
        return np.minimum(1.0, np.maximum(0.0, 1.0 - _as_array(m)))


@dataclass(frozen=True)
class Ramp(_Clipped):
    """Ramp loss ``min(1, max(0, 1 - m))`` (Sugiyama 27.6.3), bounded, not convex.

    Its DC split (Collobert, Sinz, Weston, Bottou 2006) is
    ``ramp(m) = hinge(m) - max(0, -m)``: :attr:`convex_part` minus
    :meth:`concave_part`, which CCCP linearises. ``derivative`` is -1 on
    0 <= m < 1 and 0 elsewhere (right derivatives at the kinks m = 0 and m = 1).
    """

    name: ClassVar[str] = "ramp"
    title: ClassVar[str] = "Ramp"
    latex: ClassVar[str] = r"\ell(m) = \min\bigl(1,\ \max(0,\ 1 - m)\bigr)"
    source: ClassVar[str] = "Sugiyama §27.6.3; Collobert et al. (2006)"

    @property
    def convex_part(self) -> Hinge:
        """The hinge, the convex part of the DC split."""
        return Hinge()

    def concave_part(self, m: ArrayLike) -> Array:
        """``max(0, -m)``: the shifted hinge subtracted in the DC split."""
        return np.maximum(0.0, -_as_array(m))

    def value(self, m: ArrayLike) -> Array:
        return self._clipped(m)

    def derivative(self, m: ArrayLike) -> Array:
        m = _as_array(m)
        return np.where((m >= 0.0) & (m < 1.0), -1.0, 0.0)


@dataclass(frozen=True)
class SquaredRamp(_Clipped):
    """Squared ramp ``1/2 min(1, max(0, 1 - m))^2`` (Sugiyama 27.6.3), not convex.

    ``derivative`` is ``-(1 - m)`` on 0 <= m < 1 and 0 elsewhere; it jumps from 0
    to -1 at m = 0 (the right derivative is returned there).
    """

    name: ClassVar[str] = "squared_ramp"
    title: ClassVar[str] = "Squared ramp"
    latex: ClassVar[str] = r"\ell(m) = \tfrac12 \min\bigl(1,\ \max(0,\ 1 - m)\bigr)^2"
    source: ClassVar[str] = "Sugiyama §27.6.3"

    def value(self, m: ArrayLike) -> Array:
        return 0.5 * self._clipped(m) ** 2

    def derivative(self, m: ArrayLike) -> Array:
        m = _as_array(m)
        return np.where((m >= 0.0) & (m < 1.0), -(1.0 - m), 0.0)


@dataclass(frozen=True)
class ModifiedHinge(Loss):
    """Lee's modified hinge ``h_delta`` (Lee 2006 eq. 6), in its C^1 form by default.

    ``form="c1"`` (docs/corrections.md, "Lee (2006)" item 1)::

        h(m) = delta * exp((1 - m - delta) / delta)   for m >= 1 - delta
        h(m) = 1 - m                                   otherwise

    has value delta and slope -1 at the joint m = 1 - delta, so it is continuously
    differentiable and within delta of the hinge everywhere. ``form="printed"`` is
    eq. (6) as printed, ``delta * exp(1 - m - delta)`` on the right: continuous and
    convex, but its slope jumps from -1 to -delta at the joint, so it is not
    differentiable there and IRWLS oscillates with it at large C. The printed form
    is kept for the loss panel, which shows both curves.
    """

    delta: float = 0.1
    form: str = "c1"

    name: ClassVar[str] = "modified_hinge"
    title: ClassVar[str] = "Modified hinge (Lee)"
    slope_never_zero: ClassVar[bool] = True
    latex: ClassVar[str] = (
        r"h_\delta(m) = \begin{cases} \delta\, e^{(1 - m - \delta)/\delta}"
        r" & m \ge 1 - \delta \\ 1 - m & m < 1 - \delta \end{cases}"
    )
    source: ClassVar[str] = "Lee (2006) eq. (6), C¹ form (Notes on the sources)"
    differentiable: ClassVar[bool] = True

    def __post_init__(self) -> None:
        # Checked as a plain number first: np.isfinite on text raises a raw
        # TypeError, and a numpy scalar's repr ("np.float64(1.0)") is no sentence.
        delta = self.delta
        if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
            shown = (
                repr(delta)
                if isinstance(delta, str | bool | None)
                else "a " + type(delta).__name__
            )
            raise ParameterError(
                f"delta must be a number between 0 and 1 (exclusive); got {shown}."
            )
        if not (math.isfinite(delta) and 0.0 < delta < 1.0):
            raise ParameterError(
                f"delta must be a number between 0 and 1 (exclusive); "
                f"got {float(delta):g}."
            )
        if self.form not in ("c1", "printed"):
            raise ParameterError(f"form must be 'c1' or 'printed'; got {self.form!r}.")

    def _tail_exponent(self, m: Array) -> Array:
        # Clipped at 0 so the branch not taken never overflows.
        excess = np.minimum(1.0 - m - self.delta, 0.0)
        return excess / self.delta if self.form == "c1" else excess

    def value(self, m: ArrayLike) -> Array:
        m = _as_array(m)
        tail = self.delta * np.exp(self._tail_exponent(m))
        return np.where(m >= 1.0 - self.delta, tail, 1.0 - m)

    def derivative(self, m: ArrayLike) -> Array:
        m = _as_array(m)
        e = np.exp(self._tail_exponent(m))
        tail = -e if self.form == "c1" else -self.delta * e
        return np.where(m >= 1.0 - self.delta, tail, -1.0)

    def second_derivative(self, m: ArrayLike) -> Array:
        """``h''(m)``: ``exp(...)/delta`` on the tail (C^1 form), 0 on the line."""
        m = _as_array(m)
        e = np.exp(self._tail_exponent(m))
        tail = e / self.delta if self.form == "c1" else self.delta * e
        return np.where(m >= 1.0 - self.delta, tail, 0.0)


LOSSES: dict[str, type[Loss]] = {
    "hinge": Hinge,
    "squared_hinge": SquaredHinge,
    "ramp": Ramp,
    "squared_ramp": SquaredRamp,
    "modified_hinge": ModifiedHinge,
}


def make_loss(name: str, *, delta: float = 0.1) -> Loss:
    """The loss object for ``name`` (a key of :data:`LOSSES`); ``delta`` is used
    only by the modified hinge."""
    if name not in LOSSES:
        raise UnknownNameError("loss", name, LOSSES)
    if name == "modified_hinge":
        return ModifiedHinge(delta=delta)
    return LOSSES[name]()

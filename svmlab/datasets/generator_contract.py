"""What every generator of :mod:`svmlab.datasets` shares (STYLE rule 11).

The two-class, multiclass and regression generators keep one contract: checked
keyword parameters with a plain sentence for a bad value (:func:`check_n`,
:func:`check_real`), one ``numpy.random.default_rng(random_state)`` per call
(:func:`random_generator`), a :class:`Param` per slider, and a call by name
that names the valid choices (:func:`make_from`). It lives here, not in one of the three
modules, because all three use it.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from svmlab.errors import ParameterError, UnknownNameError

__all__ = [
    "Param",
    "Seed",
    "check_n",
    "check_real",
    "make_from",
    "noise_param",
    "random_generator",
    "sample_count_param",
]

Seed: TypeAlias = int | np.random.Generator | None


def check_n(value: object, name: str = "n_samples", low: int = 2) -> int:
    """``value`` as a whole number of at least ``low``, or ParameterError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterError(f"{name} must be a whole number; got {value!r}.")
    if value < low:
        raise ParameterError(f"{name} must be at least {low}; got {value}.")
    return int(value)


def check_real(
    name: str, value: object, *, low: float = 0.0, high: float = math.inf
) -> float:
    """``value`` as a float in the closed interval [low, high], or ParameterError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterError(f"{name} must be a number; got {value!r}.")
    x = float(value)
    if not math.isfinite(x):
        raise ParameterError(f"{name} must be a finite number; got {x}.")
    if high == math.inf and x < low:
        raise ParameterError(f"{name} must be at least {low:g}; got {x:g}.")
    if not low <= x <= high:
        raise ParameterError(f"{name} must be between {low:g} and {high:g}; got {x:g}.")
    return x


def random_generator(random_state: Seed) -> np.random.Generator:
    """The one generator a call draws from (the same seed, the same arrays)."""
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as error:
        raise ParameterError(
            "random_state must be None, a non-negative whole number or a numpy "
            f"Generator; got {random_state!r}."
        ) from error


@dataclass(frozen=True)
class Param:
    """One tunable keyword parameter of a generator, described for a widget.

    ``low``/``high``/``step`` give a slider range (every combination of the lows,
    or of the highs, is valid); ``log`` asks for a log-scaled slider and
    ``integer`` for whole numbers; ``help`` is the tooltip.
    """

    name: str
    label: str
    default: float | int
    low: float
    high: float
    step: float
    log: bool = False
    integer: bool = False
    help: str = ""


def sample_count_param(default: int, low: int, high: int, step: int) -> Param:
    """The ``n_samples`` slider (each catalogue has its own range)."""
    return Param(
        "n_samples", "Number of points", default, low, high, step, integer=True
    )


def noise_param(default: float, high: float, help: str, low: float = 0.0) -> Param:
    """The ``noise`` slider, in steps of 0.01 (its meaning is in ``help``)."""
    return Param("noise", "Noise", default, low, high, 0.01, help=help)


def make_from(
    generators: dict[str, Callable[..., Any]], name: str, **params: Any
) -> Any:
    """``generators[name](**params)``, with a plain error for an unknown name or
    parameter (shared by the binary, multiclass and regression tables)."""
    if name not in generators:
        raise UnknownNameError("data set", name, generators)
    generator = generators[name]
    accepted = list(inspect.signature(generator).parameters)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ParameterError(
            f"The data set {name!r} has no parameter {unknown[0]!r}. "
            f"Its parameters are: {', '.join(accepted)}."
        )
    return generator(**params)

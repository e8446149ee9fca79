"""The model fields several pages declare alike, one function each.

Kernel, C, σ, ν, the degree, δ, the loss, the bias and classroom mode mean the
same on every page that has them: the same query name, the same widget key under
the page's prefix (``<prefix>_C``), the same grid and the same sentence. A page
(:mod:`svmlab.ui.frame.page_state`, :mod:`svmlab.ui.explore.fields`) gives its prefix
and, where pages differ, its default or its kernels, so a link's ``C=…`` is read
and said the same way on each. No streamlit.
"""

from __future__ import annotations

from typing import Any

from svmlab.losses import LOSSES
from svmlab.svm.classifier import BIASES
from svmlab.ui.frame.link_values import C_GRID, DELTA_GRID, SIGMA_GRID
from svmlab.ui.frame.page_fields import Choice, Flag, Grid, Number

__all__ = [
    "NU_FINE_GRID",
    "NU_GRID",
    "PAGE_C_GRID",
    "bias",
    "c_slider",
    "classroom",
    "degree",
    "delta",
    "kernel",
    "loss",
    "nu_slider",
    "sigma_slider",
]

#: C's slider on the pages other than Explore stops at 10^4 (the last twelve
#: stops of Explore's cut).
PAGE_C_GRID = C_GRID[:-12]
#: ν stops of every ν slider.
NU_GRID: tuple[float, ...] = (
    0.02,
    0.05,
    0.1,
    0.2,
    0.3,
    0.4,
    0.5,
    0.6,
    0.7,
    0.8,
    0.9,
    1.0,
)


#: ν in steps of 0.01 (Explore's ν slider's steps): a slider that ends at the
#: data's largest feasible ν (ν-SVC's 2 min(n₊, n₋)/n, to two decimals) has it
#: as a stop, and a link to it reads back exactly.
NU_FINE_GRID: tuple[float, ...] = tuple(round(0.01 * k, 2) for k in range(1, 101))


def kernel(prefix: str, options: tuple[str, ...], default: str) -> Choice:
    """The kernel's radio: the page's kernels, in the order it offers them."""
    return Choice("kernel", f"{prefix}_kernel", options, default, "Kernel")


def c_slider(prefix: str, default: float) -> Grid:
    """C's log slider, up to 10^4."""
    return Grid("C", f"{prefix}_C", PAGE_C_GRID, default, "C")


def sigma_slider(prefix: str, default: float) -> Grid:
    """σ's log slider."""
    return Grid("sigma", f"{prefix}_sigma", SIGMA_GRID, default, "σ")


def nu_slider(prefix: str, default: float, grid: tuple[float, ...] = NU_GRID) -> Grid:
    """ν's slider on :data:`NU_GRID` (or ``grid``: :data:`NU_FINE_GRID` where
    the slider ends at the data's feasible ν)."""
    return Grid("nu", f"{prefix}_nu", grid, default, "ν")


def degree(prefix: str) -> Number:
    """The polynomial kernel's degree, 1 to 6 (3 by default)."""
    return Number("degree", f"{prefix}_degree", 3, 1, 6, "The degree", True)


def delta(prefix: str) -> Grid:
    """The modified hinge's δ, 0.1 by default."""
    return Grid("delta", f"{prefix}_delta", DELTA_GRID, 0.1, "δ")


def loss(prefix: str, options: tuple[Any, ...] = tuple(LOSSES)) -> Choice:
    """The loss: every registered loss by default, hinge first."""
    return Choice("loss", f"{prefix}_loss", options, options[0], "Loss")


def bias(prefix: str) -> Choice:
    """The bias model: every one of :data:`svmlab.svm.classifier.BIASES`, the
    unregularized bias (scikit-learn's) by default."""
    return Choice("bias", f"{prefix}_bias", tuple(BIASES), "unregularized", "Bias")


def classroom(prefix: str) -> Flag:
    """Classroom mode's toggle (every page has it, off by default)."""
    return Flag("classroom", f"{prefix}_classroom", False, "Classroom mode")

"""One colour, dash and marker per solver, for every Solvers-page figure.

Okabe-Ito colours (colour-blind safe); the dash and the marker symbol repeat the
distinction for print and for readers who tell colours apart poorly. The same
solver has the same style in the traces, the race and the scaling plot.
"""

from __future__ import annotations

from svmlab.figures.style import PALETTE

__all__ = ["SOLVER_STYLE", "solver_style"]

#: name -> (colour, dash, marker symbol).
SOLVER_STYLE: dict[str, tuple[str, str, str]] = {
    "smo": ("#0072B2", "solid", "circle"),
    "qp": ("#000000", "solid", "square"),
    "coordinate": ("#D55E00", "dash", "diamond"),
    "irwls": ("#009E73", "solid", "triangle-up"),
    "entropy_dual": ("#009E73", "dash", "triangle-right"),
    "retargeted_ls": ("#CC79A7", "dashdot", "x"),
    "cccp": ("#E69F00", "dash", "star"),
    "libsvm": ("#56B4E9", "dot", "cross"),
    "liblinear": ("#777777", "dot", "triangle-down"),
}


def solver_style(name: str) -> tuple[str, str, str]:
    """The solver's (colour, dash, symbol); unknown names in the text colour."""
    return SOLVER_STYLE.get(name, (PALETTE["text"], "solid", "circle"))

"""What the Model selection figures share: each criterion's colour and dash, the
value titles, number format and title wrapping.

Those figures take numbers the engine computed
(:class:`svmlab.experiments.criterion_grid.SweepResult`, the
:mod:`svmlab.experiments.lee2006` result dict) and return a ``go.Figure``
(pure: no streamlit, no fits).

Kernel widths: ``sigma`` is svmlab's, ``k = exp(-||x - z||^2 / (2 sigma^2))``; Lee's
``sigma_L^2 = 2 sigma^2`` (``k = exp(-||x - z||^2 / sigma_L^2)``) is shown beside it
in hovers and titles wherever it helps to compare with the paper.
"""

from __future__ import annotations

from typing import Any

from svmlab.figures.style import FONT_SIZE, PALETTE

__all__ = ["CRITERION_STYLE", "VALUE_TITLES", "title_on_plot"]


#: Colour (Okabe-Ito, colour-blind safe) and dash of each criterion's line; the
#: dash tells them apart in grey print too. Exact LOO is the black reference.
CRITERION_STYLE: dict[str, tuple[str, str]] = {
    "loo": (PALETTE["free"], "solid"),
    "lee": (PALETTE["negative"], "dash"),
    "plugin": (PALETTE["positive"], "dot"),
    "alo": (PALETTE["accent"], "dashdot"),
    "span": (PALETTE["orange"], "longdashdot"),
    "kfold": (PALETTE["bound"], "longdash"),
}
_FALLBACK = (PALETTE["sky"], "solid")


#: What each surface holds, as an axis or colour-bar title.
VALUE_TITLES: dict[str, str] = {
    # Short enough for the y axis of a 400 px figure; the page's caption says
    # what the value is (the mean loss at the held-out margins).
    "scores": "criterion value",
    "errors": "held-out misclassification",
}


def _fmt(v: float) -> str:
    """Three significant digits, written out below a million (1000, not 1e+03)."""
    return f"{float(f'{v:.3g}'):g}"


#: Longest title line of a heatmap: two sit side by side, about 400 px each on a
#: 1280 px projector page, where 40 characters at FONT_SIZE clipped.
TITLE_LINE = 32
#: Heatmap title font size and the height of one of its lines, in pixels.
TITLE_SIZE = FONT_SIZE + 3
TITLE_LINE_HEIGHT = 26


def _wrap_title(text: str, width: int = TITLE_LINE) -> str:
    """``text`` on at most two lines (joined by ``<br>``): broken before its
    parenthesis if it has one ("Plug-in ACV" / "(h at the predicted LOO
    output)"), else at the last space that keeps the first line short."""
    if len(text) <= width:
        return text
    head, paren, tail = text.partition(" (")
    if paren and len(head) <= width and len(tail) + 1 <= width:
        return f"{head}<br>({tail}"
    cut = text.rfind(" ", 0, width + 1)
    if cut <= 0:
        return text
    return f"{text[:cut]}<br>{text[cut + 1 :]}"


def title_on_plot(
    text: str, *, xshift: int = 0, width: int = TITLE_LINE
) -> dict[str, Any]:
    """A title of up to two lines of ``width`` characters (``_wrap_title``) as
    an annotation standing
    on the plot area, left-aligned, ``xshift`` px from its left edge. Plotly
    anchors a layout title by its first line: a second line ran off the top
    (yanchor "top") or into the plot (yanchor "bottom"), and as a subtitle it
    stood 70 px below the first in classroom mode."""
    return {
        "name": "title",
        "text": _wrap_title(text, width),
        "xref": "paper",
        "x": 0.0,
        "xanchor": "left",
        "xshift": xshift,
        "yref": "paper",
        "y": 1.0,
        "yanchor": "bottom",
        "yshift": 8,
        "align": "left",
        "showarrow": False,
        "font": {"size": TITLE_SIZE},
    }


def _style(name: str) -> tuple[str, str]:
    return CRITERION_STYLE.get(name, _FALLBACK)

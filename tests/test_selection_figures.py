"""The Model selection page's figure builders (svmlab.figures: slices, heatmap,
margin_gap, lee2006).

The sweeps here are built by hand (random surfaces with a NaN cell), so every
expected position is computed from the arrays, never typed in. Each figure is
also rebuilt with plotly's validation on, which checks every property name.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svmlab import figures
from svmlab.errors import DataError
from svmlab.experiments.criterion_grid import SweepResult
from svmlab.figures.selection_style import _fmt
from svmlab.figures.slices import NARROW_GAP, NARROW_HEIGHT, NARROW_PANEL
from svmlab.kernels import lee_sigma2_from_sigma

N = 12


def _sweep(seed: int = 0, n_sigma: int = 4, n_C: int = 5) -> SweepResult:
    rng = np.random.default_rng(seed)
    Cs = np.logspace(-1, 3, n_C)
    sigmas = np.logspace(-1, 0.5, n_sigma)
    criteria = ("lee", "plugin", "loo")
    shape = (n_sigma, n_C)
    scores = {c: rng.uniform(0.1, 1.0, shape) for c in criteria}
    scores["lee"][0, 0] = math.nan  # a failed cell
    errors = {c: rng.uniform(0.0, 0.5, shape) for c in criteria}
    return SweepResult(
        Cs=Cs,
        sigmas=sigmas,
        criteria=criteria,
        scores=scores,
        errors=errors,
        seconds={c: rng.uniform(0.01, 0.1, shape) for c in criteria},
        converged={c: np.ones(shape, dtype=bool) for c in criteria},
        margins={c: rng.normal(size=(*shape, N)) for c in criteria},
    )


def _validated(fig: go.Figure) -> go.Figure:
    return go.Figure(fig.to_dict())


def _trace(fig: go.Figure, name: str):
    found = [t for t in fig.data if t.name == name]
    assert len(found) == 1, [t.name for t in fig.data]
    return found[0]


def _argmin(z: np.ndarray) -> tuple[int, int]:
    i, j = np.unravel_index(int(np.nanargmin(z)), z.shape)
    return int(i), int(j)


# -- heatmaps ----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["scores", "errors"])
@pytest.mark.parametrize("name", ["lee", "plugin", "loo"])
def test_heatmap_argmins_cells_and_axes(name: str, value: str) -> None:
    sweep = _sweep(seed=3)
    chosen = (2, 1)
    fig = _validated(
        figures.heatmap_figure(
            sweep, name, value=value, chosen=chosen, zrange=(0.0, 1.0)
        )
    )
    z = getattr(sweep, value)[name]
    surface = _trace(fig, "surface")
    assert surface.type == "heatmap"
    got = np.array([[np.nan if v is None else v for v in row] for row in surface.z])
    assert np.allclose(got, z, rtol=1e-3, equal_nan=True)
    assert (surface.zmin, surface.zmax) == (0.0, 1.0)
    # The star sits on the surface's own argmin (NaN ignored) ...
    i, j = _argmin(z)
    star = _trace(fig, f"argmin: {name}")
    assert star.marker.symbol == "star"
    assert star.x[0] == pytest.approx(np.log10(sweep.Cs[j]))
    assert star.y[0] == pytest.approx(np.log10(sweep.sigmas[i]))
    # ... and the cross on exact LOO's, on every other surface.
    names = [t.name for t in fig.data]
    if name == "loo":
        assert "argmin: loo" not in names[3:]
    else:
        iref, jref = _argmin(getattr(sweep, value)["loo"])
        cross = _trace(fig, "argmin: loo")
        assert cross.x[0] == pytest.approx(np.log10(sweep.Cs[jref]))
        assert cross.y[0] == pytest.approx(np.log10(sweep.sigmas[iref]))
    # One click target per cell, carrying its (sigma, C) indices.
    cells = _trace(fig, "cells")
    assert sorted(map(tuple, cells.customdata)) == [
        (a, b) for a in range(len(sweep.sigmas)) for b in range(len(sweep.Cs))
    ]
    for (a, b), x, y in zip(cells.customdata, cells.x, cells.y, strict=True):
        assert x == pytest.approx(np.log10(sweep.Cs[b]), abs=1e-3)
        assert y == pytest.approx(np.log10(sweep.sigmas[a]), abs=1e-3)
    # The chosen cell's rectangle contains that cell centre and no other.
    (rect,) = [s for s in fig.layout.shapes if s.name == "chosen cell"]
    inside = [
        (a, b)
        for (a, b), x, y in zip(cells.customdata, cells.x, cells.y, strict=True)
        if rect.x0 < x < rect.x1 and rect.y0 < y < rect.y1
    ]
    assert inside == [chosen]
    assert fig.layout.xaxis.title.text == "C (log scale)"
    assert fig.layout.yaxis.title.text == "σ (log scale)"
    # The axis range is the whole grid: first and last cell edges.
    assert fig.layout.xaxis.range[0] < np.log10(sweep.Cs[0])
    assert fig.layout.xaxis.range[1] > np.log10(sweep.Cs[-1])


LONG_TITLES = [
    "Lee's ACV (eq. 11, corrected)",
    "Plug-in ACV (h at the predicted LOO output)",
    "Span rule (support-vector sets held fixed)",
    "ALO (one Newton step)",
    "Exact leave-one-out",
]


@pytest.mark.parametrize("title", LONG_TITLES)
@pytest.mark.parametrize("n_grid", [3, 7, 15])
def test_heatmap_reads_at_a_projector_in_half_a_1280_pixel_page(
    title: str, n_grid: int
) -> None:
    """Two heatmaps side by side at 1280 x 720 leave each about 400 px: the
    title clipped at about 36 characters ("Plug-in ACV (h at the predicted LOO
    outp") and seven C labels turned vertical and ran into the x-axis title.
    The title now breaks before its parenthesis, the top margin holds its
    lines, at most four C ticks stay horizontal, and the x-axis title stands
    off below them inside a bottom margin that holds both."""
    sweep = _sweep(n_sigma=n_grid, n_C=n_grid)
    fig = _validated(figures.heatmap_figure(sweep, "loo", title=title))
    (heading,) = [a for a in fig.layout.annotations if a.name == "title"]
    # It stands on the plot area (a layout title is anchored by its first line).
    assert (heading.yref, heading.y, heading.yanchor) == ("paper", 1.0, "bottom")
    lines = heading.text.split("<br>")
    assert len(lines) <= 2 and all(len(line) <= 32 for line in lines), lines
    assert " ".join(lines).replace("  ", " ") == title
    layout = fig.layout
    line_height = 1.3 * heading.font.size
    assert heading.font.size >= figures.FONT_SIZE
    # Two lines' room whatever the title, so side-by-side plot areas are level.
    assert layout.margin.t >= 2 * line_height + 24
    xaxis = layout.xaxis
    assert len(xaxis.tickvals) <= 4 and xaxis.tickangle == 0
    assert xaxis.automargin is True and xaxis.title.standoff >= 8
    # tick labels + standoff + the title's own line, below the plot
    assert layout.margin.b >= line_height + xaxis.title.standoff + line_height
    assert len(layout.yaxis.tickvals) <= 7


def test_heatmap_hover_names_both_sigma_conventions() -> None:
    sweep = _sweep()
    cells = _trace(figures.heatmap_figure(sweep, "loo"), "cells")
    i, j = cells.customdata[5]
    text = cells.text[5]
    assert f"σ = {_fmt(sweep.sigmas[i])}" in text
    assert f"Lee σ² = {_fmt(lee_sigma2_from_sigma(sweep.sigmas[i]))}" in text
    assert f"C = {_fmt(sweep.Cs[j])}" in text


def test_log_ticks_are_the_grid_values() -> None:
    values = np.logspace(-2, 3, 11)
    ticks, labels = figures.log_ticks(values, max_ticks=6)
    assert len(ticks) <= 6
    assert ticks[0] == pytest.approx(-2.0)
    assert all(
        float(label) == pytest.approx(10**t, rel=1e-2)
        for t, label in zip(ticks, labels, strict=True)
    )
    assert _fmt(1000.0) == "1000"


# -- slices ------------------------------------------------------------------------


@pytest.mark.parametrize("log_y", [False, True])
def test_slices_lines_stars_and_shared_axis(log_y: bool) -> None:
    sweep = _sweep(seed=5)
    i, j = 1, 3
    titles = {"lee": "Lee", "plugin": "Plug-in", "loo": "Exact"}
    fig = _validated(figures.slices_figure(sweep, i, j, titles=titles, log_y=log_y))
    for name, title in titles.items():
        z = sweep.scores[name]
        left, right = _trace(fig, title), _trace(fig, f"{title} (vs σ)")
        assert np.allclose(np.array(left.x, float), sweep.Cs, rtol=1e-3)
        assert np.allclose(
            np.array([np.nan if v is None else v for v in left.y]),
            z[i, :],
            rtol=1e-3,
            equal_nan=True,
        )
        assert np.allclose(np.array(right.x, float), sweep.sigmas, rtol=1e-3)
        assert np.allclose(
            np.array([np.nan if v is None else v for v in right.y]),
            z[:, j],
            rtol=1e-3,
            equal_nan=True,
        )
        assert right.xaxis == "x2" and right.yaxis == "y2" and left.yaxis == "y"
        # Stars at each line's minimum.
        stars = [t for t in fig.data if t.name == f"min: {title}"]
        assert len(stars) == 2
        k_left = int(np.nanargmin(z[i, :]))
        k_right = int(np.nanargmin(z[:, j]))
        assert {(s.x[0], s.y[0]) for s in stars} == {
            (sweep.Cs[k_left], z[i, k_left]),
            (sweep.sigmas[k_right], z[k_right, j]),
        }
    assert fig.layout.xaxis.title.text == "C (log scale)"
    assert fig.layout.xaxis2.title.text == "σ (log scale)"
    assert fig.layout.yaxis.type == ("log" if log_y else "linear")
    # The right panel's y axis is the left's scale (matched), without labels.
    assert fig.layout.xaxis2.anchor == "y2" and fig.layout.yaxis2.matches == "y"
    assert fig.layout.yaxis2.type == fig.layout.yaxis.type
    assert fig.layout.yaxis2.showticklabels is False
    # The annotations name the fixed values, with Lee's sigma^2 for sigma.
    texts = " ".join(a.text for a in fig.layout.annotations)
    assert _fmt(lee_sigma2_from_sigma(sweep.sigmas[i])) in texts
    assert f"C = {_fmt(sweep.Cs[j])}" in texts


def test_slices_narrow_layout_stacks_the_panels() -> None:
    """A phone's layout (issue 46): the same traces, the C panel above the σ
    panel across the full width, on one y scale, each dotted line and title
    on its own panel."""
    sweep = _sweep(seed=5)
    wide = figures.slices_figure(sweep, 1, 3)
    fig = _validated(figures.slices_figure(sweep, 1, 3, narrow=True))
    assert fig.to_dict()["data"] == wide.to_dict()["data"]
    layout = fig.layout
    assert layout.height == NARROW_HEIGHT
    assert tuple(layout.xaxis.domain) == tuple(layout.xaxis2.domain) == (0.0, 1.0)
    upper, lower = layout.yaxis.domain, layout.yaxis2.domain
    assert lower[0] == 0.0 and upper[1] == 1.0
    # The gap between the panels, in pixels, as the layout's numbers say.
    plot = layout.height - layout.margin.t - layout.margin.b
    assert (upper[0] - lower[1]) * plot == pytest.approx(NARROW_GAP)
    assert (upper[1] - upper[0]) * plot == pytest.approx(NARROW_PANEL)
    assert layout.yaxis2.matches == "y" and layout.yaxis2.showticklabels is not False
    assert [a.yref for a in layout.annotations] == ["y domain", "y2 domain"]
    assert [(s.xref, s.yref) for s in layout.shapes] == [
        ("x", "y domain"),
        ("x2", "y2 domain"),
    ]


def test_slices_errors_value_uses_error_surfaces() -> None:
    sweep = _sweep(seed=8)
    fig = figures.slices_figure(sweep, 0, 0, value="errors")
    left = _trace(fig, "loo")
    assert np.allclose(np.array(left.y, float), sweep.errors["loo"][0], rtol=1e-3)
    assert fig.layout.yaxis.title.text == figures.VALUE_TITLES["errors"]


# -- where an approximation fails ---------------------------------------------------


def test_margin_gap_colours_and_flipped_ring() -> None:
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
    exact = rng.normal(size=30)
    approx = exact + rng.normal(scale=0.7, size=30)
    fig = _validated(
        figures.margin_gap_figure(
            X, y, approx, exact, bounds=(-3.0, 3.0, -3.0, 3.0), title="gap"
        )
    )
    for label, name in ((1.0, "class +1"), (-1.0, "class −1")):
        trace = _trace(fig, name)
        m = y == label
        assert np.allclose(
            np.array(trace.marker.color, float), np.abs(approx - exact)[m], rtol=1e-3
        )
    ring = _trace(fig, "held-out sign differs")
    flipped = np.sign(approx) != np.sign(exact)
    assert 0 < flipped.sum() < 30  # this draw has some of both
    assert np.allclose(np.array(ring.x, float), X[flipped, 0], rtol=1e-3)
    assert fig.layout.xaxis.title.text == "x₁"
    assert fig.layout.yaxis.title.text == "x₂"


# -- Lee 2006 --------------------------------------------------------------------------


def test_lee_boxplot_boxes_paper_and_bayes() -> None:
    rng = np.random.default_rng(4)
    errors = {"a": rng.uniform(0.1, 0.2, 50), "b": rng.uniform(0.1, 0.3, 40)}
    fig = _validated(
        figures.lee_boxplot(
            errors,
            titles={"a": "A", "b": "B"},
            paper={"b": 0.13},
            bayes_error=0.12,
        )
    )
    boxes = [t for t in fig.data if t.type == "box"]
    assert [b.name for b in boxes] == ["A", "B"]
    assert np.allclose(np.array(boxes[1].y, float), errors["b"], rtol=1e-3)
    paper = _trace(fig, "paper's mean")
    assert list(paper.x) == ["B"] and paper.y[0] == 0.13
    bayes = [t for t in fig.data if t.name.startswith("Bayes error")]
    assert len(bayes) == 1 and set(bayes[0].y) == {0.12}
    assert fig.layout.yaxis.title.text == "test misclassification"


# -- data_bounds on extreme values (the Model selection page draws uploaded data) --


def _check_bounds(X: np.ndarray) -> tuple[float, float, float, float] | None:
    """data_bounds(X), or None if it refused with a DataError; any other error
    (OverflowError from an infinite span, say) fails the test. Bounds that come
    back must be finite, non-empty, equal-span and contain every point."""
    try:
        bounds = figures.data_bounds(X)
    except DataError as error:
        message = str(error)
        assert message[0].isupper() and message.endswith("."), message
        assert "np." not in message and "inf" not in message.split(), message
        return None
    xmin, xmax, ymin, ymax = bounds
    assert all(math.isfinite(v) for v in bounds), bounds
    assert xmin < xmax and ymin < ymax, bounds
    assert xmax - xmin == pytest.approx(ymax - ymin, rel=1e-9), bounds
    assert xmin <= X[:, 0].min() and X[:, 0].max() <= xmax, bounds
    assert ymin <= X[:, 1].min() and X[:, 1].max() <= ymax, bounds
    return bounds


BIG = 1.7976931348623157e308


@pytest.mark.parametrize(
    ("points", "drawn"),
    [
        ([[1e308, 1e308], [-1e308, -1e308]], False),  # the span overflows
        ([[BIG, 0.0], [-BIG, 1.0]], False),
        ([[1e308, 1e308], [1e308, 1e308]], None),  # identical, at the edge
        ([[1e308, -1e308], [1e308, -1e308], [1e308, -1e308]], None),
        ([[0.0, 0.0], [1e-308, 1e-308]], None),  # a span of 1e-308
        ([[0.0, 1e300], [1e-308, 1e300]], False),  # 1e-308 apart at 1e300
        ([[0.0, 0.0], [1e-12, 2e-12]], True),  # rounded to nothing before
        ([[1e12, 1e12], [1e12 + 1e-3, 1e12]], True),
        ([[3.0, -2.0]], True),  # a single point
        ([[5.0, 5.0]] * 4, True),  # identical points
        ([[0.0, 0.0]] * 3, True),
        ([[-1e-300, 0.0], [1e-300, 0.0]], True),
        ([[1e200, 3.0], [-1e200, 4.0]], True),
    ],
)
def test_data_bounds_on_extreme_values_are_finite_or_a_data_error(points, drawn):
    X = np.array(points, dtype=np.float64)
    bounds = _check_bounds(X)
    if drawn is not None:
        assert (bounds is not None) is drawn, bounds


def test_data_bounds_refuse_a_span_that_cannot_stay_square():
    # Near 1e308 the floats are too far apart to widen the shorter side exactly:
    # this returned spans 2.75e300 and 2.75e300 + 6 % (found by hypothesis).
    X = np.array(
        [
            [8.21770123928726e299, 1.7976930959026477e308],
            [-1.3812797174167783e300, 1.7976930983472365e308],
        ]
    )
    assert _check_bounds(X) is None


def test_data_bounds_keep_small_spans_and_tidy_round_steps():
    # Rounding to 10 decimals collapsed a span of 1e-12 to (0, 0); a unit
    # square still gets tidy edges.
    xmin, xmax, _, _ = figures.data_bounds(np.array([[0.0, 0.0], [1e-12, 1e-12]]))
    assert 0.0 < xmax - xmin < 1e-11
    assert figures.data_bounds(np.array([[0.0, 0.0], [1.0, 1.0]])) == (
        -0.1,
        1.1,
        -0.1,
        1.1,
    )
    assert figures.data_bounds(np.array([[0.0, 0.0], [0.3, 0.1]])) == (
        -0.025,
        0.325,
        -0.125,
        0.225,
    )


_extreme = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1e308, -1e308, BIG, -BIG, 1e-308, -1e-308, 5e-324, 1.0]),
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.tuples(_extreme, _extreme), min_size=1, max_size=6))
def test_data_bounds_never_raise_anything_but_a_data_error(points):
    _check_bounds(np.array(points, dtype=np.float64))

"""Figure builders: trace structure, geometry checked against the model, payloads."""

from __future__ import annotations

import base64
import io
import json
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from PIL import Image

import svmlab
from svmlab import datasets, figures
from svmlab.datasets import make_two_circles
from svmlab.errors import DataError, ParameterError
from svmlab.figures import style
from svmlab.losses import LOSSES, ModifiedHinge, make_loss
from svmlab.solvers import SOLVERS
from svmlab.solvers.base import History

BOUNDS = (-1.25, 1.25, -1.25, 1.25)


def _is_swatch(trace) -> bool:
    """A legend-only trace (one empty point) for points painted into the image."""
    return tuple(trace.x or ()) == (None,)


def _by_name(fig: go.Figure) -> dict[str, go.Scatter]:
    """The traces by name; legend swatches left out (see :func:`_swatches`)."""
    return {trace.name: trace for trace in fig.data if not _is_swatch(trace)}


def _swatches(fig: go.Figure) -> dict[str, go.Scatter]:
    return {trace.name: trace for trace in fig.data if _is_swatch(trace)}


def _png(uri: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))


def _pixels(image, bounds, points: np.ndarray, offset=(0.0, 0.0)) -> np.ndarray:
    """RGBA of the points layer at data ``points`` shifted by ``offset`` pixels."""
    rgba = np.asarray(_png(image.source).convert("RGBA")).astype(int)
    side = rgba.shape[0]
    xmin, xmax, ymin, ymax = bounds
    col = (points[:, 0] - xmin) / (xmax - xmin) * side + offset[0]
    row = (ymax - points[:, 1]) / (ymax - ymin) * side + offset[1]
    col = np.clip(col.astype(int), 0, side - 1)
    row = np.clip(row.astype(int), 0, side - 1)
    return rgba[row, col]


def _hex(colour: str) -> list[int]:
    return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]


def _points(trace) -> np.ndarray:
    """The (x, y) vertices of a line trace, None separators dropped."""
    pts = [(x, y) for x, y in zip(trace.x, trace.y, strict=True) if x is not None]
    return np.array(pts, dtype=float)


def _validate(fig: go.Figure) -> None:
    """The builders skip plotly's validation for speed: check every property here."""
    go.Figure(fig.to_dict())


@pytest.fixture(scope="module")
def data():
    return make_two_circles(80, random_state=0)


@pytest.fixture(scope="module")
def model(data):
    X, y = data
    return svmlab.SVC(solver="qp", C=10.0, sigma=0.3).fit(X, y)


@pytest.fixture(scope="module")
def fig(model, data):
    X, y = data
    return figures.decision_figure(model, X, y, bounds=BOUNDS, resolution=80)


@pytest.fixture(scope="module")
def replay_model(data):
    """A model with recorded iterations: from an iterative solver when one is
    registered, otherwise a QP fit with a History built by hand."""
    X, y = data
    iterative = [
        name
        for name, spec in SOLVERS.items()
        if spec.iterative and "hinge" in spec.losses and spec.with_intercept
    ]
    if iterative:
        model = svmlab.SVC(
            solver=iterative[0], C=10.0, sigma=0.3, record_history=True
        ).fit(X, y)
        if len(model.history_) >= 3:
            return model
    model = svmlab.SVC(solver="qp", C=10.0, sigma=0.3).fit(X, y)
    history = History()
    b = float(model.intercept_[0])
    for k in range(6):
        t = (k + 1) / 6
        history.record(
            10 * k,
            objective=50.0 * (1 - t) + 1.0,
            kkt_violation=10.0 ** (-3 * t),
            time=0.01 * k,
            alpha=model.alpha_ * t,
            intercept=b * t,
        )
    model.history_ = history
    return model


# -- grid and bounds ---------------------------------------------------------------


def test_grid_points_order():
    xs, ys, XY = figures.grid_points((0.0, 1.0, -2.0, 2.0), 5)
    assert xs.shape == ys.shape == (5,)
    assert XY.shape == (25, 2)
    assert xs[0] == 0.0 and xs[-1] == 1.0 and ys[0] == -2.0 and ys[-1] == 2.0
    grid = XY.reshape(5, 5, 2)
    assert np.allclose(grid[2, 3], [xs[3], ys[2]])  # [j, i] is (xs[i], ys[j])


def test_grid_points_rejects_bad_input():
    with pytest.raises(ParameterError):
        figures.grid_points((1.0, 0.0, 0.0, 1.0), 10)
    with pytest.raises(ParameterError):
        figures.grid_points((0.0, 1.0, 0.0, 1.0), 1)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_data_bounds_equal_spans_and_cover_data(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 2)) * [3.0, 0.5] + [10.0, -2.0]
    xmin, xmax, ymin, ymax = figures.data_bounds(X)
    assert math.isclose(xmax - xmin, ymax - ymin)
    assert xmin < X[:, 0].min() and xmax > X[:, 0].max()
    assert ymin < X[:, 1].min() and ymax > X[:, 1].max()


def test_data_bounds_are_stable_under_small_edits(data):
    X, _ = data
    bounds = figures.data_bounds(X)
    assert bounds == BOUNDS
    moved = X.copy()
    moved[:5] += 0.01
    assert figures.data_bounds(moved) == bounds


def test_data_bounds_degenerate_and_invalid():
    xmin, xmax, ymin, ymax = figures.data_bounds(np.zeros((3, 2)))
    assert xmax - xmin == ymax - ymin > 0
    with pytest.raises(DataError):
        figures.data_bounds(np.array([[0.0, np.nan]]))
    with pytest.raises(DataError):
        figures.data_bounds(np.zeros((3, 3)))


# -- decision figure --------------------------------------------------------------


def test_decision_figure_traces(fig, model):
    names = [t.name for t in fig.data]
    for name in (
        "f = 0 (boundary)",
        "f = +1 margin",
        "f = −1 margin",
        "class +1",
        "class −1",
        "free SV (0 < α < C)",
        "bound SV (α = C)",
    ):
        assert name in names
    assert all(t.type == "scatter" for t in fig.data)
    traces = _by_name(fig)
    assert traces["f = 0 (boundary)"].mode == "lines"
    assert traces["f = +1 margin"].line.dash == "dash"
    # Training points: painted into the image; hover from marker-less traces,
    # the legend from swatches of the painted markers.
    for name in ("class +1", "class −1"):
        assert traces[name].mode == "none" and traces[name].hoveron == "points"
        assert traces[name].showlegend is False
    swatches = _swatches(fig)
    assert swatches["class +1"].marker.symbol != swatches["class −1"].marker.symbol
    assert swatches["class +1"].marker.color == figures.PALETTE["positive"]
    assert swatches["class −1"].marker.color == figures.PALETTE["negative"]
    _validate(fig)


def test_points_layer_paints_every_class_in_its_colour(fig, data):
    X, y = data
    points = fig.layout.images[1]
    assert (points.xref, points.yref, points.layer) == ("x", "y", "below")
    assert (points.x, points.y) == (BOUNDS[0], BOUNDS[3])
    assert (points.sizex, points.sizey) == (
        BOUNDS[1] - BOUNDS[0],
        BOUNDS[3] - BOUNDS[2],
    )
    for sign, colour in ((1, "positive"), (-1, "negative")):
        rgba = _pixels(points, BOUNDS, X[y == sign])
        hit = (rgba[:, 3] == 255) & np.all(
            rgba[:, :3] == _hex(figures.PALETTE[colour]), axis=1
        )
        # Overlapping markers may hide a few centres; nearly all show their colour.
        assert hit.mean() > 0.9
    # Far from every point the layer is clear.
    corner = _pixels(points, BOUNDS, np.array([[BOUNDS[0], BOUNDS[2]]]), (1, -2))
    assert corner[0, 3] == 0


def test_points_png_shapes_outlines_and_hollow_markers():
    bounds = (0.0, 10.0, 0.0, 10.0)
    blue, black = figures.PALETTE["positive"], "#000000"
    layers = [
        (np.array([[2.0, 2.0]]), "circle", blue, 20, "#FFFFFF", 2.0, False),
        (np.array([[5.0, 5.0]]), "square", blue, 20, black, 4.0, False),
        (np.array([[8.0, 8.0]]), "circle", blue, 20, blue, 4.0, True),
    ]
    image = go.layout.Image(source=figures.points_png(bounds, 200, layers))
    centres = np.array([[2.0, 2.0], [5.0, 5.0], [8.0, 8.0]])
    inside = _pixels(image, bounds, centres)
    assert inside[0].tolist() == [*_hex(blue), 255]
    assert inside[1].tolist() == [*_hex(blue), 255]
    assert inside[2][3] == 0  # hollow: clear in the middle
    edge = _pixels(image, bounds, centres, (11.0, 0.0))  # size / 2 + 1 pixel out
    assert edge[0].tolist() == [255, 255, 255, 255]  # white outline
    assert edge[1].tolist() == [0, 0, 0, 255]  # black outline
    assert edge[2].tolist() == [*_hex(blue), 255]  # the hollow ring
    corner = _pixels(image, bounds, centres, (9.0, 9.0))  # square corner, not circle
    assert corner[1][3] == 255 and corner[0][3] == 0


def test_points_png_keeps_a_layer_by_its_inputs():
    """Moving C repaints nothing: the same inputs give the same layer back, and
    any change of points, outlines or bounds paints a new one."""
    bounds = (0.0, 10.0, 0.0, 10.0)
    blue = figures.PALETTE["positive"]
    X = np.array([[2.0, 2.0], [5.0, 5.0]])
    outline = np.array(["#FFFFFF", "#000000"])

    def layer(X=X, outline=outline, widths=(1.0, 2.0)):
        return [(X, "circle", blue, 20, outline, np.array(widths), False)]

    first = figures.points_png(bounds, 100, layer())
    assert figures.points_png(bounds, 100, layer(X.copy(), outline.copy())) is first
    changed = [
        figures.points_png(bounds, 100, layer(X + 1.0)),
        figures.points_png(bounds, 100, layer(outline=outline[::-1].copy())),
        figures.points_png(bounds, 100, layer(widths=(1.0, 1.0))),
        figures.points_png((0.0, 9.0, 0.0, 10.0), 100, layer()),
        figures.points_png(bounds, 120, layer()),
    ]
    assert all(uri != first for uri in changed)
    assert first == figures.points._paint_points(bounds, 100, layer())


def test_decision_spec_is_the_figure_as_plain_dicts(model, data):
    """The page serialises decision_spec itself: it must be exactly the figure
    decision_figure wraps, and plain JSON."""
    X, y = data
    kwargs = dict(bounds=BOUNDS, resolution=60, test=(X[:5], y[:5]), legend="top")
    spec = figures.decision_spec(model, X, y, **kwargs)
    fig = figures.decision_figure(model, X, y, **kwargs)
    assert json.loads(json.dumps(spec)) == json.loads(fig.to_json())
    _validate(go.Figure(spec))


def test_class_traces_hold_every_point(fig, data):
    _, y = data
    traces = _by_name(fig)
    assert len(traces["class +1"].x) == int((y > 0).sum())
    assert len(traces["class −1"].x) == int((y < 0).sum())


def test_support_vector_rings_match_kkt_states(fig, model, data):
    X, _ = data
    traces = _by_name(fig)
    free, bound = traces["free SV (0 < α < C)"], traces["bound SV (α = C)"]
    assert len(free.x) == int((model.sv_state_ == 1).sum()) > 0
    assert len(bound.x) == int((model.sv_state_ == 2).sum()) > 0
    # Each ring sits on its point (coordinates rounded to 4 significant digits).
    for trace, state in ((free, 1), (bound, 2)):
        ringed = np.column_stack([trace.x, trace.y])
        assert ringed == pytest.approx(X[model.sv_state_ == state], rel=1e-3)
    assert free.marker.symbol == bound.marker.symbol == "circle-open"
    assert free.marker.color != bound.marker.color
    assert bound.marker.color not in (
        figures.PALETTE["positive"],
        figures.PALETTE["negative"],
    )


@pytest.mark.parametrize(
    ("name", "level"),
    [("f = 0 (boundary)", 0.0), ("f = +1 margin", 1.0), ("f = −1 margin", -1.0)],
)
def test_level_lines_lie_on_their_level(fig, model, name, level):
    _, _, XY = figures.grid_points(BOUNDS, 80)
    scale = np.abs(model.decision_function(XY)).max()
    pts = _points(_by_name(fig)[name])
    assert len(pts) > 20
    sample = pts[:: max(1, len(pts) // 60)]
    f = model.decision_function(sample)
    assert np.all(np.abs(f - level) < 0.05 * scale)


def test_hover_data_is_alpha_margin_slack(fig, model, data):
    _, y = data
    trace = _by_name(fig)["class +1"]
    rows = np.array(trace.customdata, dtype=float)
    i = rows[:, 0].astype(int)
    assert np.all(y[i] > 0)
    assert np.allclose(rows[:, 1], model.alpha_[i], rtol=5e-3, atol=1e-6)
    assert np.allclose(rows[:, 2], model.margins_[i], rtol=5e-3, atol=1e-6)
    slack = np.maximum(0.0, 1.0 - model.margins_[i])
    assert np.allclose(rows[:, 3], slack, rtol=5e-3, atol=1e-6)
    assert "customdata[1]" in trace.hovertemplate


def test_layout_image_is_a_png_over_the_bounds(fig):
    image, points = fig.layout.images
    assert image.source.startswith("data:image/png;base64,")
    assert points.source.startswith("data:image/png;base64,")
    png = _png(image.source)
    assert png.size == (80, 80)
    assert (image.xref, image.yref, image.sizing, image.layer) == (
        "x",
        "y",
        "stretch",
        "below",
    )
    # The image covers the bounds (pixel centres on the grid, half a pixel over).
    assert image.x <= BOUNDS[0] and image.x + image.sizex >= BOUNDS[1]
    assert image.y >= BOUNDS[3] and image.y - image.sizey <= BOUNDS[2]


def test_surface_colours_follow_the_sign_of_f(model):
    _, _, XY = figures.grid_points(BOUNDS, 40)
    Z = model.decision_function(XY).reshape(40, 40)
    uri = figures.surface_png(Z)
    png = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB")
    rgb = np.asarray(png)[::-1].astype(int)  # row 0 back to ymin
    blue_side = rgb[..., 2] > rgb[..., 0]
    strong = np.abs(Z) > 0.2
    assert np.array_equal(blue_side[strong], Z[strong] > 0)
    assert rgb.min() > 120  # light tints only


def test_layout_axes_and_style(fig):
    layout = fig.layout
    assert tuple(layout.xaxis.range) == BOUNDS[:2]
    assert tuple(layout.yaxis.range) == BOUNDS[2:]
    assert layout.xaxis.autorange is False and layout.yaxis.autorange is False
    assert layout.yaxis.scaleanchor == "x" and layout.yaxis.scaleratio == 1
    assert layout.xaxis.title.text == "x₁" and layout.yaxis.title.text == "x₂"
    assert layout.font.size >= 16
    assert layout.uirevision is not None
    assert layout.datarevision is None
    assert layout.dragmode == "zoom"
    assert fig.to_dict()["layout"]["template"] == {}


def test_payload_is_small_and_plain(model, data):
    X, y = data
    figure = figures.decision_figure(model, X, y, bounds=BOUNDS)
    text = figure.to_json()
    assert len(text) < 60_000
    assert "bdata" not in text  # plain lists, no typed arrays


def test_payload_at_n_200():
    X, y = make_two_circles(200, random_state=1)
    model = svmlab.SVC(solver="qp", C=10.0, sigma=0.3).fit(X, y)
    figure = figures.decision_figure(model, X, y, bounds=figures.data_bounds(X))
    assert len(figure.to_json()) < 100_000


def test_test_points_and_new_points(model, data):
    X, y = data
    X_test, y_test = make_two_circles(30, random_state=5)
    added = np.zeros(len(y), dtype=bool)
    added[[0, 1]] = True
    figure = figures.decision_figure(
        model,
        X,
        y,
        bounds=BOUNDS,
        resolution=40,
        test=(X_test, y_test),
        new_points=added,
        dragmode="select",
        legend="top",
    )
    traces = _by_name(figure)
    pos, neg = traces["test: +1"], traces["test: −1"]
    assert len(pos.x) + len(neg.x) == 30
    assert pos.mode == neg.mode == "none" and "customdata" in pos.hovertemplate
    swatches = _swatches(figure)
    assert swatches["test: +1"].marker.symbol.endswith("-open")
    assert swatches["test: −1"].marker.symbol.endswith("-open")
    # Test points: hollow in the image (clear centres, unless a point lies below).
    points = figure.layout.images[1]
    centres = _pixels(points, BOUNDS, np.asarray(X_test))
    assert (centres[:, 3] == 0).mean() > 0.5
    # Added points: a black outline just outside the marker (size 10 at scale 2).
    black = np.all(_pixels(points, BOUNDS, X[:2], (11.0, 0.0))[:, :3] == 0, axis=1)
    assert black.all()
    plain = figures.decision_figure(model, X, y, bounds=BOUNDS, resolution=40)
    other = np.all(
        _pixels(plain.layout.images[1], BOUNDS, X[:2], (11.0, 0.0))[:, :3] == 0, axis=1
    )
    assert not other.any()
    assert figure.layout.dragmode == "select"
    assert figure.layout.legend.orientation == "h"
    _validate(figure)


def test_string_labels_name_the_classes(data):
    X, y = data
    labels = np.where(y > 0, "inner", "outer")
    model = svmlab.SVC(solver="qp", C=10.0, sigma=0.3).fit(X, labels)
    figure = figures.decision_figure(model, X, labels, bounds=BOUNDS, resolution=30)
    names = {t.name for t in figure.data}
    assert {"class inner", "class outer"} <= names
    # classes_[1] ("outer") is the +1 class: blue circles.
    assert _swatches(figure)["class outer"].marker.color == figures.PALETTE["positive"]
    assert (
        _by_name(figure)["class outer"].hoverlabel.bgcolor
        == figures.PALETTE["positive"]
    )


def test_squared_hinge_has_no_bound_svs(data):
    X, y = data
    model = svmlab.SVC(solver="qp", loss="squared_hinge", C=10.0, sigma=0.3)
    model.fit(X, y)
    figure = figures.decision_figure(model, X, y, bounds=BOUNDS, resolution=30)
    traces = _by_name(figure)
    assert len(traces["SV (α > 0)"].x) == int((model.sv_state_ == 1).sum()) > 0
    assert len(traces["bound SV (α = C)"].x) == 0
    hist = figures.alpha_histogram(model)
    assert not hist.layout.shapes
    assert sum(sum(t.y) for t in hist.data) == len(y)


def test_decision_figure_rejects_foreign_data(model, data):
    X, y = data
    with pytest.raises(DataError):
        figures.decision_figure(model, X[:10], y[:10], bounds=BOUNDS)
    with pytest.raises(ParameterError):
        figures.decision_figure(model, X, y, bounds=BOUNDS, legend="left")


# -- snapshots -----------------------------------------------------------------------


def test_snapshot_draws_the_recorded_state(replay_model, data):
    X, y = data
    model = replay_model
    k = 1
    figure = figures.decision_figure(
        model, X, y, bounds=BOUNDS, resolution=60, snapshot=k
    )
    _, _, XY = figures.grid_points(BOUNDS, 60)
    scale = np.abs(model.history_decision_function(XY, k)).max()
    pts = _points(_by_name(figure)["f = 0 (boundary)"])
    f = model.history_decision_function(pts[::5], k)
    assert np.all(np.abs(f) < 0.05 * scale)
    alpha = np.asarray(model.history_.alpha[k], dtype=float)
    traces = _by_name(figure)
    n_bound = len(traces["bound SV (α = C)"].x)
    n_free = len(traces["free SV (0 < α < C)"].x)
    eps = 1e-6 * model.C
    assert n_bound == int((alpha >= model.C - eps).sum())
    assert n_free == int(((alpha > eps) & (alpha < model.C - eps)).sum())
    rows = np.array(traces["class +1"].customdata, dtype=float)
    i = rows[:, 0].astype(int)
    margins = np.where(y > 0, 1.0, -1.0) * model.history_decision_function(X, k)
    assert np.allclose(rows[:, 2], margins[i], rtol=5e-3, atol=1e-6)
    assert np.allclose(rows[:, 1], alpha[i], rtol=5e-3, atol=1e-6)


def test_last_snapshot_matches_the_fit_states(replay_model, data):
    """float32 snapshots of alpha = C still count as bound."""
    X, y = data
    model = replay_model
    figure = figures.decision_figure(
        model, X, y, bounds=BOUNDS, resolution=30, snapshot=-1
    )
    final = np.asarray(model.history_.alpha[-1], dtype=float)
    if np.allclose(final, model.alpha_, rtol=1e-5, atol=1e-6):
        traces = _by_name(figure)
        assert len(traces["bound SV (α = C)"].x) == int((model.sv_state_ == 2).sum())


def test_float32_snapshot_at_c_stays_bound(data):
    """alpha = C = 0.7 rounds to 0.69999999 in float32: still a bound SV."""
    X, y = data
    model = svmlab.SVC(solver="qp", C=0.7, sigma=0.3).fit(X, y)
    assert (model.sv_state_ == 2).any()
    history = History()
    history.record(
        0,
        objective=1.0,
        kkt_violation=0.0,
        time=0.0,
        alpha=model.alpha_,
        intercept=float(model.intercept_[0]),
    )
    model.history_ = history
    figure = figures.decision_figure(
        model, X, y, bounds=BOUNDS, resolution=30, snapshot=0
    )
    traces = _by_name(figure)
    assert len(traces["bound SV (α = C)"].x) == int((model.sv_state_ == 2).sum())
    assert len(traces["free SV (0 < α < C)"].x) == int((model.sv_state_ == 1).sum())


def test_snapshot_errors(replay_model, model, data):
    X, y = data
    with pytest.raises(ParameterError, match="out of range"):
        figures.decision_figure(
            replay_model, X, y, bounds=BOUNDS, snapshot=len(replay_model.history_)
        )
    with pytest.raises(ParameterError, match="record_history"):
        figures.decision_figure(model, X, y, bounds=BOUNDS, snapshot=0)


def test_ramp_like_negative_alpha_counts_by_size(model, data):
    """A snapshot with negative coefficients (the ramp's CCCP) rings by |alpha|."""
    X, y = data
    history = History()
    alpha = np.zeros(len(y))
    alpha[:3] = [-model.C, -0.5, 0.5]
    history.record(0, objective=1.0, kkt_violation=1.0, time=0.0, alpha=alpha)
    clone = svmlab.SVC(solver="qp", C=10.0, sigma=0.3).fit(X, y)
    clone.history_ = history
    figure = figures.decision_figure(
        clone, X, y, bounds=BOUNDS, resolution=30, snapshot=0
    )
    traces = _by_name(figure)
    assert len(traces["bound SV (α = C)"].x) == 1
    assert len(traces["free SV (0 < α < C)"].x) == 2
    hist = figures.alpha_histogram(clone, snapshot=0)
    assert hist.layout.xaxis.title.text == "|αᵢ|"


# -- alpha histogram ---------------------------------------------------------------


def test_alpha_histogram(model, data):
    _, y = data
    hist = figures.alpha_histogram(model)
    assert all(t.type == "bar" for t in hist.data)
    assert sum(sum(t.y) for t in hist.data) == len(y)
    counts = [int((model.sv_state_ == s).sum()) for s in (0, 1, 2)]
    names = [t.name for t in hist.data]
    assert names == [
        f"non-SV: {counts[0]}",
        f"free SV: {counts[1]}",
        f"bound SV: {counts[2]}",
    ]
    for trace, count in zip(hist.data, counts, strict=True):
        assert sum(trace.y) == count
    (line,) = hist.layout.shapes
    assert line.name == "C" and line.x0 == line.x1 == model.C
    assert any(a.text == "C" for a in hist.layout.annotations)
    assert hist.layout.xaxis.title.text == "αᵢ"
    assert hist.layout.yaxis.title.text == "count"
    assert hist.layout.barmode == "stack"
    assert hist.data[2].marker.color == figures.PALETTE["bound"]
    _validate(hist)


def test_alpha_histogram_log_and_snapshot(replay_model, data):
    _, y = data
    hist = figures.alpha_histogram(replay_model, log_count=True, snapshot=0)
    assert hist.layout.yaxis.type == "log"
    assert sum(sum(t.y) for t in hist.data) == len(y)
    assert "iteration" in hist.layout.title.text
    _validate(hist)


def test_alpha_histogram_hard_margin_has_no_c_line():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(20, 2)) + 3, rng.normal(size=(20, 2)) - 3]
    y = np.r_[np.ones(20), -np.ones(20)]
    model = svmlab.SVC(solver="qp", C=math.inf, kernel="linear").fit(X, y)
    hist = figures.alpha_histogram(model)
    assert not hist.layout.shapes
    assert sum(sum(t.y) for t in hist.data) == 40


# -- loss figure ---------------------------------------------------------------------


@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_curve_equals_loss_value(name):
    loss = make_loss(name, delta=0.2)
    figure = figures.loss_figure(loss)
    curve = next(t for t in figure.data if t.name.startswith(loss.title))
    x = np.asarray(curve.x, dtype=float)
    assert x.min() == -2.0 and x.max() == 3.0
    expected = loss.value(x)
    assert np.allclose(np.asarray(curve.y, dtype=float), expected, rtol=1e-4, atol=1e-5)
    names = [t.name for t in figure.data]
    assert ("hinge (reference)" in names) == (name != "hinge")
    assert ("Lee's printed form (not C¹)" in names) == (name == "modified_hinge")
    assert figure.layout.xaxis.title.text == "margin m = y f(x)"
    assert figure.layout.yaxis.title.text == "loss ℓ(m)"
    _validate(figure)


def test_loss_printed_form_and_switch():
    loss = ModifiedHinge(delta=0.3)
    figure = figures.loss_figure(loss)
    printed = _by_name(figure)["Lee's printed form (not C¹)"]
    expected = ModifiedHinge(delta=0.3, form="printed").value(np.asarray(printed.x))
    assert np.allclose(printed.y, expected, rtol=1e-4, atol=1e-5)
    assert printed.line.dash == "dot"
    off = figures.loss_figure(loss, show_printed=False)
    assert "Lee's printed form (not C¹)" not in {t.name for t in off.data}


def test_loss_rug_splits_paying_points(model):
    loss = make_loss("hinge")
    figure = figures.loss_figure(loss, model.margins_, C=model.C)
    rug = [t for t in _by_name(figure).values() if t.name.startswith("ℓ(mᵢ)")]
    assert len(rug) == 2 and all(t.mode == "none" for t in rug)
    assert sum(len(t.x) for t in rug) == len(model.margins_)
    pays = loss.value(model.margins_) > figures.PAYS
    assert len(rug[0].x) == int(pays.sum())
    paying = np.sort(np.clip(model.margins_[pays], -2.0, 3.0))
    assert np.allclose(np.sort(rug[0].x), paying, rtol=1e-3, atol=1e-3)
    assert all(v < 0 for t in rug for v in t.y)  # below the curve's axis
    assert set(_swatches(figure)) == {t.name for t in rug}
    # The ticks are painted in the strip image, paying ticks in their colour.
    (strip,) = figure.layout.images
    assert strip.x == -2.0 and strip.x + strip.sizex == 3.0
    assert strip.y - strip.sizey < rug[0].y[0] < strip.y <= 0.0
    rgb = np.asarray(_png(strip.source).convert("RGBA")).astype(int)
    width = rgb.shape[1]
    red = figures.tint(figures.PALETTE["negative"], figures.RUG_OPACITY)
    cols = np.rint((paying + 2.0) / 5.0 * (width - 1)).astype(int)
    assert np.all(rgb[rgb.shape[0] // 2, cols, :3] == _hex(red))
    empty = np.setdiff1d(
        np.arange(width),
        np.rint((np.clip(model.margins_, -2, 3) + 2.0) / 5.0 * (width - 1)).astype(int)
        + np.arange(-2, 3)[:, None],
    )
    assert np.all(rgb[:, empty, 3] == 0)
    total = model.C * loss.value(model.margins_).sum()
    assert f"{total:.4g}" in figure.layout.title.subtitle.text
    _validate(figure)


def test_a_hard_margin_s_loss_line_is_a_number_not_nan():
    """Issue 44 item 9: the hard-margin preset's chart said "C Σ ℓ(mᵢ) = nan"
    (∞ · 0). Margins at or beyond 1 pay no hinge: the sum is 0 by hand."""
    margins = np.array([1.0, 1.0, 1.0 + 1e-12, 2.5, 4.0])
    figure = figures.loss_figure(make_loss("hinge"), margins, C=np.inf)
    line = figure.layout.title.subtitle.text
    assert "nan" not in line.lower() and "inf" not in line
    assert line.endswith("Σ ℓ(mᵢ) = 0") and "C = ∞" in line


def test_retitled_names_the_plane_s_axes_on_a_copy():
    from svmlab.figures.plane import PLANE_TITLES, plane_axes, retitled

    spec = {"data": [], "layout": {**plane_axes((0, 1, 0, 1)), "title": "t"}}
    fig = go.Figure(spec["data"], spec["layout"])
    for given in (spec, fig):
        out = retitled(given, ("a<b>", "c"))
        layout = out["layout"] if isinstance(out, dict) else out.layout.to_plotly_json()
        assert layout["xaxis"]["title"]["text"] == "a&lt;b&gt;"
        assert layout["yaxis"]["title"]["text"] == "c"
    # The figures given are unchanged (a cached figure is every visitor's).
    assert spec["layout"]["xaxis"]["title"]["text"] == PLANE_TITLES[0]
    assert fig.layout.xaxis.title.text == PLANE_TITLES[0]
    assert retitled(spec, None) is spec


# -- convergence ---------------------------------------------------------------------


def test_convergence_figure(replay_model):
    history = replay_model.history_
    figure = figures.convergence_figure(history, current=2)
    traces = _by_name(figure)
    assert len(traces["objective"].x) == len(history)
    assert len(traces["KKT violation"].y) == len(history)
    assert figure.layout.yaxis2.type == "log"
    (line,) = figure.layout.shapes
    assert line.name == "current" and line.x0 == history.iteration[2]
    timed = figures.convergence_figure(history, x="time")
    assert timed.layout.xaxis2.title.text == "time (s)"
    _validate(figure)


def test_convergence_figure_empty_history():
    figure = figures.convergence_figure(History(), current=0)
    assert not figure.layout.shapes
    assert "No iterations" in figure.layout.annotations[0].text
    json.loads(figure.to_json())


def test_unresolved_width_note_compares_sigma_with_one_cell() -> None:
    """The plane is f on a 120 x 120 grid: islands 6 sigma wide smaller than one
    cell are not drawn (the note says so); a width a few cells wide is drawn."""
    X, y = datasets.make("spiral", n_samples=60, random_state=0)
    bounds = figures.data_bounds(X)
    cell = max(bounds[1] - bounds[0], bounds[3] - bounds[2]) / 119
    small = svmlab.SVC(C=10.0, sigma=cell / 10).fit(X, y)
    note = figures.unresolved_width_note(small, bounds)
    assert note is not None and "too small to draw" in note
    wide = svmlab.SVC(C=10.0, sigma=cell).fit(X, y)
    assert figures.unresolved_width_note(wide, bounds) is None
    linear = svmlab.SVC(kernel="linear").fit(X, y)
    assert figures.unresolved_width_note(linear, bounds) is None


def test_legend_entries_list_what_the_plotly_legend_would() -> None:
    X, y = datasets.make("spiral", n_samples=60, random_state=0)
    model = svmlab.SVC(C=10.0, sigma=3.3).fit(X, y)
    kwargs = dict(bounds=figures.data_bounds(X), test=(X[:5], y[:5]))
    top = figures.decision_spec(model, X, y, legend="top", **kwargs)
    none = figures.decision_spec(model, X, y, legend="none", **kwargs)
    assert none["layout"]["showlegend"] is False
    shown = sorted(
        (t.get("legendrank", 1000), t["name"])
        for t in top["data"]
        if t.get("showlegend", True) and t.get("name")
    )
    entries = figures.legend_entries(none)
    assert [e["name"] for e in entries] == [name for _, name in shown]
    kinds = {e["name"]: e["kind"] for e in entries}
    assert kinds["class +1"] == "marker" and kinds["f = 0 (boundary)"] == "line"


@pytest.mark.parametrize("digits", [3, 4, 6])
def test_short_numbers_are_the_shortest_decimal_of_their_rounding(digits):
    """The vectorised rounding writes, value for value, what formatting each
    number to ``digits`` significant digits writes (the reference), with None
    for NaN and infinities; magnitudes from 1e-12 to 1e12, ties and zeros."""
    rng = np.random.default_rng(digits)
    values = rng.normal(size=5000) * np.exp(rng.normal(size=5000) * 6)
    values[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 0.12345]
    values[6:9] = [9.9996, 99999.5, 1e-12]
    expected = [float(f"{v:.{digits}g}") if np.isfinite(v) else None for v in values]
    got = style._short(values, digits)
    assert got == expected
    assert json.dumps(got) == json.dumps(expected)


def test_chart_places_a_text_title_and_a_legend_below():
    """``chart``: the shared layout with its overrides, a text title at the top
    left of the container and ``legend="below"`` on the figure's bottom edge
    (the numbers of the layout the figures were drawn with before chart)."""
    fig = style.chart(
        [{"type": "scatter", "x": [0, 1], "y": [1, 0]}],
        height=300,
        title="a title",
        margin={"t": 10},
        legend="below",
    )
    go.Figure(fig.to_dict())  # validated
    layout = fig.layout
    assert layout.height == 300 and layout.title.text == "a title"
    assert (layout.title.x, layout.title.xanchor, layout.title.yref) == (
        0.01,
        "left",
        "container",
    )
    margin = layout.margin
    assert (margin.l, margin.r, margin.t, margin.b) == (72, 24, 10, 64)
    legend = layout.legend
    assert (legend.orientation, legend.x, legend.y) == ("h", 0.0, 0.0)
    assert (legend.yref, legend.yanchor) == ("container", "bottom")
    assert legend.xanchor == "left"
    assert legend.font.size == 16  # the base layout's, merged
    assert layout.uirevision == "svmlab" and layout.paper_bgcolor == "white"
    # A legend of the figure's own, and a title dict, are kept as given.
    own = style.chart([], legend={"x": 0.9}, title={"text": "t", "x": 0.5}).layout
    assert own.legend.x == 0.9 and own.legend.orientation is None
    assert own.title.x == 0.5


def test_scaled_text_grows_every_font_and_margin_and_nothing_else() -> None:
    """Classroom mode's chart text (issue 46): each font size and margin times
    the scale, rounded; colours, positions and line widths untouched."""
    from svmlab.figures.style import scaled_text

    layout = {
        "font": {"size": 16, "color": "#222222"},
        "legend": {"font": {"size": 16}, "x": 0.5},
        "xaxis": {"title": {"text": "C", "font": {"size": 17}}, "linewidth": 2},
        "annotations": [{"text": "a", "font": {"size": 19}, "y": 1.02}],
        "margin": {"t": 70, "b": 160, "l": 72, "r": 24},
    }
    grown = scaled_text(layout, 1.25)
    assert grown["font"] == {"size": 20, "color": "#222222"}
    assert grown["legend"] == {"font": {"size": 20}, "x": 0.5}
    assert grown["xaxis"] == {
        "title": {"text": "C", "font": {"size": 21}},
        "linewidth": 2,
    }
    assert grown["annotations"] == [{"text": "a", "font": {"size": 24}, "y": 1.02}]
    assert grown["margin"] == {"t": 88, "b": 200, "l": 90, "r": 30}
    # A layout without a base font gets the scaled default one (the ticks').
    assert scaled_text({}, 1.25)["font"] == {"size": 20}
    assert scaled_text(layout, 1.0) == layout

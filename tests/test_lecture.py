"""Explore's lecture tools under AppTest: classroom mode, the path scrubber, the
point inspector, the kernel views and compare mode."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame.chart import COMPONENT
from svmlab.ui.frame.presets import query
from tests.pages import EXPLORE, numbers, open_page, problems


def _app(query: dict[str, str] | None = None) -> AppTest:
    return open_page(EXPLORE, query)


def _charts(at: AppTest) -> dict[str, dict]:
    """Chart key -> payload (``{"data", "layout", ...}``)."""
    return {
        e.key: json.loads(e.proto.bytes)
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    }


def test_path_scrub_draws_stored_models_and_fits_nothing(monkeypatch) -> None:
    at = _app({"data": "two_circles"})
    at.radio(key="explore_tool").set_value("path").run()
    at.button(key="explore_path_run").click().run()
    assert not problems(at)
    held = at.session_state["explore_path"][1]
    assert held.complete and held.values.size == 30
    assert _path_chart(at)["data"]

    from svmlab.svm.classifier import SVC

    def no_fit(*args, **kwargs):
        raise AssertionError("a scrub must not fit")

    monkeypatch.setattr(SVC, "fit", no_fit)
    i = int(np.flatnonzero(held.values == 1.0)[0])
    at.select_slider(key="explore_path_scrub").set_value(1.0).run()
    assert not problems(at)
    assert at.session_state["explore_settings"].C == 1.0
    shown = numbers(at)
    n_sv = int(held.n_free[i] + held.n_bound[i])
    assert shown["support vectors"].startswith(f"{n_sv} / ")
    assert shown["free SVs"] == str(int(held.n_free[i]))
    # The cursor on the curves sits at the scrubbed value.
    assert _path_chart(at)["layout"]["shapes"][0]["x0"] == 1.0
    # A click on the curves (still no fit): the point's x, mapped to the
    # nearest path value, becomes C, the slider's value and the cursor.
    _click_path(at, 0.31)
    assert not problems(at)
    assert at.session_state["explore_settings"].C == 0.33
    assert at.session_state["explore_path_scrub"] == 0.33
    assert _path_chart(at)["layout"]["shapes"][0]["x0"] == 0.33


def _click_path(at: AppTest, x: float) -> None:
    """Run the page as the browser does after a click on a point of the path's
    curves: the chart's selection state is that point. AppTest has no setter for
    a Plotly chart's selection, so the run gets the widget states by hand (its
    private ``_tree`` and ``_run``: the run ``AppTest.run`` makes)."""
    (chart,) = [c for c in at.get("plotly_chart") if "path" in c.proto.id]
    states = at._tree.get_widget_states()
    state = states.widgets.add()
    state.id = chart.proto.id
    point = {"x": x, "y": 1.0, "curve_number": 1, "point_number": 0}
    state.string_value = json.dumps(
        {"selection": {"points": [point], "point_indices": [0], "box": [], "lasso": []}}
    )
    at._run(states)


def _path_chart(at: AppTest) -> dict:
    """The path figure (an st.plotly_chart: it reports the point clicked)."""
    (chart,) = [c for c in at.get("plotly_chart") if "path" in c.proto.id]
    return json.loads(chart.proto.spec)


def test_inspector_reads_one_point_and_moves_and_deletes_it() -> None:
    from svmlab import SVC
    from svmlab.ui.explore.cache import load_data, model_items

    at = _app({"preset": "hard_margin", "data": "linear", "n": "40", "test": "0"})
    at.radio(key="explore_tool").set_value("inspect").run()
    s = at.session_state["explore_settings"]
    data = load_data((s.dataset, tuple(s.data_kwargs().items()), s.test_fraction))
    X, y = data.X_train, data.y_train
    # An independent fit: the hard margin by scikit-learn, its support vectors.
    from sklearn.svm import SVC as SkSVC

    sk = SkSVC(kernel="linear", C=1e10, tol=1e-10).fit(X, y)
    sv = int(sk.support_[0])
    at.number_input(key="explore_inspect_point").set_value(sv).run()
    assert not problems(at)
    table = "".join(h.proto.body for h in at.get("html") if "inspector" in h.proto.body)
    f = sk.decision_function(X[sv : sv + 1])[0]
    assert f"{f:.3f}".replace("-0.000", "0.000") in table or f"{f:.2f}" in table
    assert "1.000" in table  # m = y f(x) = 1 on the margin
    assert "free (0 &lt; α &lt; C)" in table or "support vector" in table
    text = " ".join(m.value for m in at.markdown)
    assert "on the margin" in text
    # The main figure rings the inspected point.
    main = next(v for k, v in _charts(at).items() if k.startswith("explore_chart"))
    ring = next(t for t in main["data"] if t.get("name") == "inspected point")
    assert (ring["x"][0], ring["y"][0]) == pytest.approx(tuple(X[sv]))
    # Move the support vector 0.3 away from the other class: the boundary follows.
    w = sk.coef_[0] / np.linalg.norm(sk.coef_[0])
    target = X[sv] + 0.3 * y[sv] * w
    at.slider(key="explore_inspect_x1").set_value(float(target[0])).run()
    assert not problems(at)
    edits = at.session_state["explore_edits"]
    # Moved in place (issue 27, item 12): the point keeps its number #sv.
    assert edits["removed"] == () and edits["added"] == ()
    assert [i for i, _, _ in edits["moved"]] == [sv]
    Xm = X.copy()
    Xm[sv] = edits["moved"][0][1:]
    assert Xm[sv][0] == pytest.approx(float(target[0]))
    model = SVC(**dict(model_items(s))).fit(Xm, y)
    sk2 = SkSVC(kernel="linear", C=1e10, tol=1e-10).fit(Xm, y)
    assert abs(sk2.intercept_[0] - sk.intercept_[0]) > 1e-3  # it did move
    np.testing.assert_allclose(model.intercept_, sk2.intercept_, atol=1e-3)
    assert at.session_state["explore_inspect_point"] == sv
    assert f"#{sv} at" in "".join(
        h.proto.body for h in at.get("html") if "inspector" in h.proto.body
    )
    at.button(key="explore_inspect_delete").click().run()
    assert not problems(at)
    assert sv in at.session_state["explore_edits"]["removed"]
    shown = numbers(at)
    assert shown["support vectors"].endswith(f" / {len(y) - 1}")


@pytest.mark.parametrize("view", ["gram", "bump", "lift"])
def test_kernel_views_draw(view: str) -> None:
    at = _app(query("bias_regularized"))
    at.radio(key="explore_tool").set_value("kernel").run()
    at.radio(key="explore_kernel_view").set_value(view).run()
    assert not problems(at)
    fig = _charts(at)[f"explore_kernel_{view}"]
    kinds = {t["type"] for t in fig["data"]}
    assert kinds & {"heatmap", "scatter3d"}
    if view == "lift":
        s = at.session_state["explore_settings"]
        n = int(numbers(at)["support vectors"].split(" / ")[1])
        wrong = round(float(numbers(at)["training error"].split()[0]) * n / 100)
        caption = " ".join(c.value for c in at.caption)
        assert f"classifies {n - wrong} correctly" in caption
        assert f"puts {n - wrong} of {n}" in caption
        assert s.kernel == "polynomial"


def test_compare_mode_fits_b_and_shares_the_axes() -> None:
    from sklearn.svm import SVC as SkSVC

    from svmlab import kernels
    from svmlab.ui.explore.cache import load_data

    at = _app({"data": "two_circles"})
    at.radio(key="explore_tool").set_value("compare").run()
    assert at.query_params["compare"] == "loss:squared_hinge"  # B's first value
    at.radio(key="explore_compare_field").set_value("C").run()
    at.select_slider(key="explore_compare_C").set_value(0.01).run()
    assert not problems(at)
    charts = _charts(at)
    a, b = charts["explore_compare_A"], charts["explore_compare_B"]
    for axis in ("xaxis", "yaxis"):
        assert a["layout"][axis]["range"] == b["layout"][axis]["range"]
    s = at.session_state["explore_settings"]
    data = load_data((s.dataset, tuple(s.data_kwargs().items()), s.test_fraction))
    sk = SkSVC(kernel="rbf", gamma=kernels.gamma_from_sigma(s.sigma), C=0.01)
    sk.fit(data.X_train, data.y_train)
    error = np.mean(sk.predict(data.X_test) != data.y_test)
    body = "".join(h.proto.body for h in at.get("html"))
    shown = re.findall(r'data-svmlab-compare="test error">([^<]*)<', body)
    assert shown[1] == f"{100 * error:.1f} %"
    assert at.session_state["explore_settings"].C == s.C  # A is untouched
    # B is in the URL: the link opens compare mode with the same B, and the
    # page writes the same link back.
    link = dict(at.query_params)
    assert link == {"data": "two_circles", "compare": "C:0.01"}
    again = _app(link)
    assert not problems(again)
    assert again.radio(key="explore_tool").value == "compare"
    assert again.select_slider(key="explore_compare_C").value == 0.01
    assert dict(again.query_params) == link
    body = "".join(h.proto.body for h in again.get("html"))
    assert re.findall(r'data-svmlab-compare="test error">([^<]*)<', body) == shown
    # B from the loss box goes in too; closing the tool takes it out.
    again.radio(key="explore_compare_field").set_value("loss").run()
    again.selectbox(key="explore_compare_loss").set_value("ramp").run()
    assert again.query_params["compare"] == "loss:ramp"
    again.radio(key="explore_tool").set_value("none").run()
    assert "compare" not in again.query_params


def test_a_compare_link_off_the_slider_is_said_and_moved_to_it() -> None:
    notes: list[str] = []
    s = ExploreSettings.from_query({"compare": "C:0.011"}, notes)
    assert s.compare == "C:0.012" and "not on its slider" in notes[-1]
    s = ExploreSettings.from_query({"compare": "kernel:linear"}, notes)
    assert (
        s.compare == "" and "The link's compare = 'kernel:linear' is not" in notes[-1]
    )


def test_classroom_mode_hides_advanced_controls_and_enlarges() -> None:
    at = _app(query("c_too_small"))
    assert at.selectbox(key="explore_solver") is not None
    main = next(v for k, v in _charts(at).items() if k.startswith("explore_chart"))
    at.toggle(key="explore_classroom").set_value(True).run()
    assert not problems(at)
    s = at.session_state["explore_settings"]
    assert s.classroom and s.preset == "c_too_small"
    assert at.query_params["classroom"] in ("1", ["1"])
    keys = {w.key for w in at.sidebar.selectbox} | {w.key for w in at.sidebar.slider}
    assert "explore_solver" not in keys and "explore_bias" not in keys
    assert "explore_n" not in keys and "explore_dataset" in keys
    shown = numbers(at)
    assert set(shown) == {
        "support vectors",
        "training error",
        "test error",
        "bias b",
        "bound SVs",  # the preset's number stays
    }
    big = next(v for k, v in _charts(at).items() if k.startswith("explore_chart"))
    assert big["layout"]["font"]["size"] > main["layout"]["font"]["size"]
    width = {t["name"]: t["line"]["width"] for t in big["data"] if "line" in t}
    before = {t["name"]: t["line"]["width"] for t in main["data"] if "line" in t}
    assert width["f = 0 (boundary)"] == 1.5 * before["f = 0 (boundary)"]
    # Hidden controls kept their values: the fit is the same.
    assert s.solver == "auto" and s.C == 0.01


def _html_order(at: AppTest) -> list[str]:
    """Which of the chart's key and the numbers panel come first on the page."""
    found = []
    for h in at.get("html"):
        for mark in ("svmlab-key", "svmlab-numbers"):
            if mark in h.proto.body:
                found.append(mark)
    return found


def _key_html(at: AppTest) -> str:
    return next(h.proto.body for h in at.get("html") if "svmlab-key" in h.proto.body)


def test_classroom_key_sits_beside_the_plot_not_under_the_numbers() -> None:
    """At 1280 x 720 the numbers and the preset's paragraph fill the right column,
    so a key below them is off the screen: in classroom mode it is drawn in the
    chart's column, one entry a row, before the numbers."""
    at = _app(query("c_too_large"))
    assert _html_order(at) == ["svmlab-numbers", "svmlab-key"]
    assert "repeat(2," in _key_html(at)
    at.toggle(key="explore_classroom").set_value(True).run()
    assert not problems(at)
    assert _html_order(at) == ["svmlab-key", "svmlab-numbers"]
    key = _key_html(at)
    assert "repeat(1," in key
    # A parenthesis never breaks inside: "(0 < α < C)" stays on one line.
    assert 'white-space:nowrap">(0 &lt; α &lt; C)</span>' in key


def test_path_legend_tells_every_series_apart() -> None:
    """One legend for four panels: no two series share colour and dash (the
    margin width and the free SVs were both solid black)."""
    from svmlab.datasets import make
    from svmlab.experiments.path import regularization_path
    from svmlab.figures import path_figure

    X, y = make("two_circles", n_samples=30, random_state=0)
    params = {"kernel": "gaussian", "sigma": 0.39}
    result = regularization_path(X, y, param="C", values=(0.1, 1.0), params=params)
    looks = [
        (t.line.color.lower(), t.line.dash)
        for t in path_figure(result).data
        if t.showlegend is not False
    ]
    assert len(looks) == 6 and len(set(looks)) == len(looks), looks
    assert len({colour for colour, _ in looks}) == len(looks)

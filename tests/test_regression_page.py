"""The Regression page (AppTest), its CSV reader, its figures and the ε path.

References that do not share svmlab's code: scikit-learn's ``SVR`` (LIBSVM) on
the same points, and hand-written CSV files with known contents.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.svm import SVR
from streamlit.testing.v1 import AppTest

from svmlab.datasets import regression
from svmlab.datasets.csv_data import read_table
from svmlab.datasets.regression_csv import REGRESSION_LINE, to_regression_dataset
from svmlab.errors import DataError
from svmlab.experiments.path import tube_path
from svmlab.figures.regression import (
    epsilon_path_figure,
    residual_loss_figure,
    stem_figure,
    tube_figure,
)
from svmlab.svm.regression import EpsilonSVR
from svmlab.ui.regression.requests import CHART_KEY, N_TEST, path_epsilons
from tests.pages import bad_link_test, notes, page_test, problems

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "7_Regression.py")
PENDING = f"{CHART_KEY}_pending_click"


def _numbers(at: AppTest) -> dict[str, str]:
    """The numbers beside the chart, by label."""
    text = next(m.value for m in at.markdown if "support vectors:" in m.value)
    return dict(re.findall(r"([^\n:]+): \*\*([^*]+)\*\*", text))


def _run(query: dict[str, str] | None = None) -> AppTest:
    at = page_test(PAGE, default_timeout=120)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def _ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def _sklearn(X, t, **params) -> SVR:
    sigma = params.pop("sigma", 0.5)
    return SVR(kernel="rbf", gamma=1.0 / (2.0 * sigma**2), tol=1e-6, **params).fit(X, t)


def test_default_page_matches_libsvm_on_the_same_points() -> None:
    at = _run()
    _ok(at)
    numbers = _numbers(at)
    X, t = regression.make_sinc(n_samples=100, random_state=0)
    ref = _sklearn(X, t, C=10.0, epsilon=0.1)
    assert numbers["support vectors"] == f"{ref.support_.size} / 100"
    Xt, tt = regression.make_sinc(n_samples=N_TEST, random_state=10_000)
    rmse = float(np.sqrt(np.mean((ref.predict(Xt) - tt) ** 2)))
    assert float(numbers["test RMSE"]) == pytest.approx(rmse, rel=2e-3)
    # The story is written from the same fit: inside + support = 100 %.
    story = next(m.value for m in at.markdown if "Points inside the tube" in m.value)
    inside = float(re.search(r"α = α\* = 0: ([\d.]+) %", story).group(1))
    assert inside == pytest.approx(100.0 - ref.support_.size, abs=0.05)
    # The dual is typeset, not printed as escaped text.
    assert any(r"\alpha_i^*" in latex.value for latex in at.get("latex"))


def test_nu_svr_reports_the_epsilon_it_found_and_nu_bounds_both_fractions() -> None:
    at = _run({"machine": "nu", "nu": "0.3"})
    _ok(at)
    numbers = _numbers(at)
    eps = float(numbers["ε found by ν"])
    n_sv = int(numbers["support vectors"].split(" / ")[0])
    outside = float(numbers["outside the tube"].rstrip(" %")) / 100
    assert outside <= 0.3 + 1e-9 <= n_sv / 100 + 2e-9
    # ε-SVR (LIBSVM) at the ε ν found gives the same function (Schölkopf 2000).
    X, t = regression.make_sinc(n_samples=100, random_state=0)
    ref = _sklearn(X, t, C=10.0, epsilon=eps)
    assert float(numbers["training RMSE"]) == pytest.approx(
        float(np.sqrt(np.mean((ref.predict(X) - t) ** 2))), rel=5e-3
    )


def test_a_click_adds_a_point_and_the_button_removes_it_keeping_settings() -> None:
    at = _run({"C": "3.3", "epsilon": "0.22"})
    _ok(at)
    assert _numbers(at)["support vectors"].endswith("/ 100")
    at.session_state[PENDING] = (0.0, 3.0)  # far above the curve: outside
    at.run()
    _ok(at)
    numbers = _numbers(at)
    assert numbers["support vectors"].endswith("/ 101")
    X, t = regression.make_sinc(n_samples=100, random_state=0)
    ref = _sklearn(np.vstack([X, [[0.0]]]), np.r_[t, 3.0], C=3.3, epsilon=0.22)
    assert numbers["support vectors"] == f"{ref.support_.size} / 101"
    assert 100 in ref.support_  # the clicked point pulls on f
    clear = next(b for b in at.button if b.label.startswith("Remove clicked"))
    clear.click().run()
    _ok(at)
    assert _numbers(at)["support vectors"].endswith("/ 100")
    assert at.select_slider(key="regression_C").value == 3.3
    assert at.select_slider(key="regression_epsilon").value == 0.22


def test_a_new_data_set_starts_without_the_clicked_points() -> None:
    at = _run()
    at.session_state[PENDING] = (1.0, 2.0)
    at.run()
    assert _numbers(at)["support vectors"].endswith("/ 101")
    at.number_input(key="regression_seed").set_value(4).run()
    _ok(at)
    assert _numbers(at)["support vectors"].endswith("/ 100")


def test_the_epsilon_path_button_and_its_numbers() -> None:
    at = _run()
    at.button(key="regression_run_path").click().run()
    _ok(at)
    caption = next(c.value for c in at.caption if "fits in" in c.value)
    assert caption.startswith("15 fits in")
    best = float(re.search(r"at ε = ([\d.e-]+)", caption).group(1))
    assert best in path_epsilons(0.1)
    # The path stays drawn while nothing changes, and goes with a change.
    at.run()
    assert any("fits in" in c.value for c in at.caption)
    at.select_slider(key="regression_C").set_value(1.0).run()
    assert not any("fits in" in c.value for c in at.caption)


def _sigma_and_fit_kept(at: AppTest) -> None:
    assert at.select_slider(key="regression_sigma").value == 1.0
    assert "support vectors" in _numbers(at)


test_a_bad_link_says_so_and_keeps_the_rest = bad_link_test(
    PAGE,
    [
        ({"C": "banana"}, "C"),
        ({"epsilon": "-1"}, "epsilon"),
        ({"machine": "huber"}, "machine"),
    ],
    {"sigma": "1"},
    _sigma_and_fit_kept,
    said_in=lambda at: problems(at) + notes(at),
)


def test_squared_loss_and_the_other_kernels_fit() -> None:
    at = _run({"loss": "squared_epsilon_insensitive"})
    _ok(at)
    assert any("squared loss" in m.value for m in at.markdown)
    for kernel in ("linear", "polynomial", "sigmoid"):
        at.selectbox(key="regression_kernel").set_value(kernel).run()
        assert not at.exception
        said = [e.value for e in at.error]
        # A sigmoid Gram matrix may be indefinite: refused or fitted, never a crash.
        assert not said or kernel == "sigmoid", said


# -- the CSV upload ------------------------------------------------------------------


def _upload(at: AppTest, text: str) -> AppTest:
    at.radio(key="regression_source").set_value("Upload CSV").run()
    at.file_uploader(key="regression_file").set_value(
        ("points.csv", text.encode(), "text/csv")
    )
    return at.run()


def test_an_uploaded_csv_is_fitted_sorted_by_x() -> None:
    rows = "\n".join(f"{x},{np.sin(x):.6f}" for x in np.linspace(3, -3, 40))
    at = _upload(_run({"C": "3.3"}), "x,t\n" + rows)
    _ok(at)
    assert _numbers(at)["support vectors"].endswith("/ 40")
    assert "test RMSE" not in _numbers(at)  # an upload has no fresh points
    assert any("40 points" in c.value for c in at.caption)


def test_a_malformed_csv_gets_a_sentence_and_keeps_the_settings() -> None:
    at = _run({"C": "3.3"})
    at = _upload(at, "x,t\n1,2\n2,oops\n3,4\n")
    assert not at.exception
    assert any("oops" in e.value or "number" in e.value for e in at.error)
    assert at.select_slider(key="regression_C").value == 3.3


def test_regression_csv_reader() -> None:
    table = read_table(b"a;b;c\n3;1,5;0\n1;2,5;0\n2;3,5;1\n")
    with pytest.raises(DataError, match="choose the input column"):
        to_regression_dataset(table)
    X, t, names = to_regression_dataset(table, x_column="a", t_column="b")
    assert names == ("a", "b")
    assert X.ravel().tolist() == [1.0, 2.0, 3.0]
    assert t.tolist() == [2.5, 3.5, 1.5]
    with pytest.raises(DataError, match="two different columns"):
        to_regression_dataset(table, x_column="a", t_column="a")
    with pytest.raises(DataError, match="no column"):
        to_regression_dataset(table, x_column="z", t_column="a")
    gaps = read_table(b"x,t\n1,2\n2,\n3,nan\n4,5\n")
    with pytest.raises(DataError, match="2 rows with missing"):
        to_regression_dataset(gaps)
    X, t, _ = to_regression_dataset(gaps, drop_nonfinite=True)
    assert X.ravel().tolist() == [1.0, 4.0] and t.tolist() == [2.0, 5.0]
    with pytest.raises(DataError, match="needs an input value x and a target"):
        read_table(b"x\n1\n2\n3\n", needs=REGRESSION_LINE)


# -- the ε path and the figures ------------------------------------------------------


def test_tube_path_matches_libsvm_at_every_epsilon() -> None:
    X, t = regression.make_sinc(n_samples=80, random_state=1)
    Xt, tt = regression.make_sinc(n_samples=200, random_state=2)
    eps = (0.0, 0.02, 0.1, 0.3)
    path = tube_path(X, t, eps, params={"C": 5.0, "sigma": 0.5}, X_test=Xt, t_test=tt)
    assert path.complete
    for i, e in enumerate(eps):
        ref = _sklearn(X, t, C=5.0, epsilon=e)
        assert path.support_fraction[i] == pytest.approx(ref.support_.size / 80)
        rmse = float(np.sqrt(np.mean((ref.predict(Xt) - tt) ** 2)))
        assert path.test_rmse[i] == pytest.approx(rmse, rel=2e-3)
    # A zero budget stops before the first fit and says it is incomplete.
    cut = tube_path(X, t, eps, params={"C": 5.0}, max_seconds=-1.0)
    assert not cut.complete and len(cut.models) == 0


def test_path_epsilons_hold_the_current_value() -> None:
    for eps in (0.001, 0.1, 0.37, 10.0):
        values = path_epsilons(eps)
        assert eps in values and len(values) == 15
        assert list(values) == sorted(set(values)) and values[0] > 0
        assert values[-1] / values[0] > 100  # two decades at least
    mid = path_epsilons(0.1)
    assert mid[0] < 0.01 and mid[-1] > 1.0  # centred where the grid allows
    assert path_epsilons(0.0)[0] == 0.001  # the log axis starts at the grid's


def test_figures_draw_every_point_once_by_its_state() -> None:
    X, t = regression.make_sinc(n_samples=60, random_state=3)
    model = EpsilonSVR(C=2.0, epsilon=0.1, sigma=0.5).fit(X, t)
    added = np.zeros(60, dtype=bool)
    added[-2:] = True
    fig = tube_figure(model, X, t, epsilon=0.1, added=added)
    counts = {
        trace.name: len(trace.x)
        for trace in fig.data
        if trace.mode == "markers" and "clicked" not in trace.name
    }
    assert sum(counts.values()) == 60
    for state in (0, 1, 2):
        n = int(np.sum(model.sv_state_ == state))
        assert any(k.endswith(f": {n}") for k in counts) or n == 0
    clicked = next(trace for trace in fig.data if "clicked" in trace.name)
    assert len(clicked.x) == 2
    stems = stem_figure(model, X, C=2.0)
    assert stems.layout.xaxis.title.text
    loss = residual_loss_figure(model.residuals_, epsilon=0.1)
    assert loss.layout.xaxis.title.text.startswith("residual")
    path = epsilon_path_figure([0.0, 0.1], [0.9, 0.3], [0.5, 0.1], [0.2, 0.1])
    assert len(path.data) >= 3


def test_the_squared_loss_legend_says_what_its_multipliers_are() -> None:
    """No box under the squared ε-insensitive loss: a point outside the tube has
    |α − α*| = C (|r| − ε) (the stationarity of ½ C (|r| − ε)², a closed form),
    not C, and the legend and the panels say so."""
    X, t = regression.make_sine_outliers(random_state=0)
    C, eps = 10.0, 0.1
    model = EpsilonSVR(
        C=C, epsilon=eps, sigma=0.5, tol=1e-8, loss="squared_epsilon_insensitive"
    ).fit(X, t)
    outside = model.sv_state_ == 2
    assert outside.sum() > 10
    excess = np.abs(model.residuals_[outside]) - eps
    assert np.allclose(np.abs(model.alpha_[outside]), C * excess, rtol=1e-4, atol=1e-6)
    assert np.abs(model.alpha_[outside]).max() > 2 * C  # far past where a box sits
    names = [trace.name for trace in tube_figure(model, X, t, epsilon=eps).data]
    assert any(n.startswith("outside (|α − α*| = C (|r| − ε))") for n in names)
    assert not any("= C)" in n for n in names)
    stems = stem_figure(model, X, C=None)
    assert "no box" in stems.layout.title.subtitle.text
    loss = residual_loss_figure(model.residuals_, epsilon=eps, squared=True)
    assert "squared ε-insensitive" in loss.layout.title.text


def test_the_loss_chart_counts_the_points_as_the_tube_chart_does() -> None:
    """Issue 44 item 9: the tube chart said 67 inside / 17 on the edge / 16
    outside while the loss chart said 22 pay / 78 in the tube (a point on the
    edge has |r| = ε only up to tol). One definition, the multipliers', in both,
    against LIBSVM's multipliers (scikit-learn's SVR) within one point."""
    X, t = regression.make_sine_outliers(random_state=0)
    C, eps, sigma = 10.0, 0.1, 0.5
    model = EpsilonSVR(C=C, epsilon=eps, sigma=sigma, tol=1e-8).fit(X, t)
    loss = residual_loss_figure(
        model.residuals_, epsilon=eps, C=C, states=model.sv_state_
    )
    counts = {
        name.split(": ")[0]: int(name.split(": ")[1])
        for name in (trace.name for trace in loss.data[1:])
    }
    assert set(counts) == {"inside", "on the edge", "outside"}
    sk = SVR(kernel="rbf", gamma=1.0 / (2.0 * sigma**2), C=C, epsilon=eps, tol=1e-8)
    sk.fit(X, t)
    coef = np.zeros(t.size)
    coef[sk.support_] = np.abs(sk.dual_coef_[0])
    bound = coef >= C * (1 - 1e-6)
    reference = {
        "inside": int(np.sum(coef == 0)),
        "on the edge": int(np.sum((coef > 0) & ~bound)),
        "outside": int(np.sum(bound)),
    }
    assert sum(counts.values()) == t.size
    for name, n in reference.items():
        assert abs(counts[name] - n) <= 1, (counts, reference)
    # The tube chart's states are the same points.
    assert counts["outside"] == int(np.sum(model.sv_state_ == 2))

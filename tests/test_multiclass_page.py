"""The Multiclass page (AppTest), its generators, its CSV reader and its figures."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmlab import datasets
from svmlab.datasets import csv_data, multiclass
from svmlab.errors import DataError, ParameterError, UnknownNameError
from svmlab.figures import data_bounds
from svmlab.figures.multiclass import key_figure, multiclass_panel, region_map
from svmlab.svm.multiclass import METHODS, CrammerSingerSVC, OneVsOneSVC, OneVsRestSVC
from tests.pages import PAGES, charts, page_test, problems

PAGE = str(PAGES / "6_Multiclass.py")


# -- generators --------------------------------------------------------------------


@pytest.mark.parametrize("name", list(multiclass.GENERATORS))
def test_generators_are_deterministic_with_labels_0_to_k(name):
    X, y = multiclass.make(name, n_samples=101, random_state=4)
    X2, y2 = multiclass.make(name, n_samples=101, random_state=4)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert X.shape == (101, 2) and y.dtype == np.int64
    k = int(y.max()) + 1
    assert k == 3 and set(y) == set(range(k))
    assert np.bincount(y).max() - np.bincount(y).min() <= 1
    assert not np.array_equal(X, multiclass.make(name, n_samples=101)[0])
    # Every parameter the page offers, at its ends, gives data.
    for p in multiclass.PARAMS[name]:
        for v in (p.low, p.high):
            multiclass.make(name, **{p.name: int(v) if p.integer else v})


def test_two_arm_spiral_is_sugiyamas():
    X, y = multiclass.make_spiral(200, n_classes=2, noise=1.0, random_state=7)
    X_book, y_book = datasets.make_spiral(200, noise=1.0, random_state=7)
    np.testing.assert_array_equal(X, X_book)
    np.testing.assert_array_equal(y == 0, y_book > 0)


def test_spiral_arms_are_evenly_spaced_and_blobs_sit_on_their_circle():
    X, y = multiclass.make_spiral(600, n_classes=3, noise=0.0, random_state=0)
    a = np.linspace(0, 4 * np.pi, 200)
    for c in range(3):
        r = np.hypot(*X[y == c].T)
        np.testing.assert_allclose(r, a + 2 * np.pi * c / 3, atol=1e-12)
    X, y = multiclass.make_blobs(6000, n_classes=4, noise=0.5, separation=6.0)
    means = np.array([X[y == c].mean(axis=0) for c in range(4)])
    np.testing.assert_allclose(np.hypot(*means.T), 3.0, atol=0.05)
    X, y = multiclass.make_ring_and_blobs(600, n_blobs=2, noise=0.1, radius=3.0)
    assert abs(np.hypot(*X[y == 0].T).mean() - 3.0) < 0.05
    assert np.hypot(*X[y > 0].T).max() < 2.0


@pytest.mark.parametrize(
    ("name", "params", "error", "words"),
    [
        ("blobs", {"n_classes": 7}, ParameterError, "at most 6"),
        ("blobs", {"n_classes": 1}, ParameterError, "at least 2"),
        ("spiral", {"n_samples": 2}, ParameterError, "at least the number"),
        ("ring_and_blobs", {"n_blobs": 6}, ParameterError, "at most 5"),
        ("ring_and_blobs", {"radius": 0.0}, ParameterError, "positive"),
        ("blobs", {"sigma": 1.0}, ParameterError, "no parameter 'sigma'"),
        ("moons", {}, UnknownNameError, "data set"),
    ],
)
def test_generator_bad_parameters_are_sentences(name, params, error, words):
    with pytest.raises(error, match=words):
        multiclass.make(name, **params)


# -- CSV ---------------------------------------------------------------------------

THREE = b"x1,x2,label\n0,0,cat\n1,0,dog\n0,1,emu\n1,1,cat\n2,2,dog\n3,1,emu\n"


def test_csv_multiclass_reader_keeps_every_label_and_binary_points_here():
    table = csv_data.read_table(THREE)
    X, y, labels = csv_data.to_multiclass_dataset(table)
    assert labels == ("cat", "dog", "emu")
    np.testing.assert_array_equal(y, [0, 1, 2, 0, 1, 2])
    assert X.shape == (6, 2)
    with pytest.raises(DataError, match="Multiclass page takes several"):
        csv_data.to_dataset(table)
    with pytest.raises(DataError, match="at most 2"):
        csv_data.to_multiclass_dataset(table, max_classes=2)
    one = csv_data.read_table(b"x1,x2,label\n0,0,a\n1,1,a\n")
    with pytest.raises(DataError, match="Only one class"):
        csv_data.to_multiclass_dataset(one)


# -- figures -----------------------------------------------------------------------


def test_panels_draw_regions_lines_points_and_support_vectors():
    X, y = multiclass.make_blobs(90, random_state=1)
    bounds = data_bounds(X)
    for model, lines in (
        (OneVsRestSVC(), 3),
        (OneVsOneSVC(), 3),
        (CrammerSingerSVC(), 0),
    ):
        model.fit(X, y)
        fig = multiclass_panel(model, X, y, bounds=bounds, resolution=60)
        dashed = [t for t in fig.data if t.mode == "lines" and t.line.dash != "solid"]
        assert len(dashed) == lines
        markers = [t for t in fig.data if t.mode == "markers"]
        assert len(markers) == 4  # three classes and the SV rings
        assert len(markers[-1].x) == len(model.support_)
        assert fig.layout.images[0].source.startswith("data:image/png;base64,")
        assert fig.layout.yaxis.scaleanchor == "x"
        assert fig.layout.xaxis.title.text and fig.layout.yaxis.title.text
    assert len(key_figure(["a", "b", "c"]).data) == 3 + 5


def test_region_map_marks_what_each_reduction_leaves_open():
    X, y = multiclass.make_blobs(90, noise=0.4, separation=6.0, random_state=2)
    g = np.linspace(-8, 8, 41)
    grid = np.column_stack([a.ravel() for a in np.meshgrid(g, g)])
    ovr = region_map(OneVsRestSVC(kernel="linear").fit(X, y), grid)
    assert ovr["undecided"].any() and not ovr["undecided"].all()
    cs = region_map(CrammerSingerSVC(kernel="linear").fit(X, y), grid)
    assert not cs["undecided"].any() and cs["lines"] == []
    assert set(cs["codes"]) == {0, 1, 2}


# -- the page ----------------------------------------------------------------------


def _app() -> AppTest:
    return page_test(PAGE, default_timeout=120).run()


def test_page_draws_the_three_methods_and_the_dual() -> None:
    at = _app()
    assert not problems(at)
    assert len(charts(at)) == len(METHODS) + 1  # and the key
    text = "\n".join(m.value for m in at.markdown)
    for title in METHODS.values():
        assert f"**{title}**" in text
    assert "test error" in text and "Lowest test error" in text
    assert len(at.latex) == 2


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("multiclass_dataset", "spiral"),
        ("multiclass_dataset", "ring_and_blobs"),
        ("multiclass_kernel", "polynomial"),
        ("multiclass_kernel", "linear"),
        ("multiclass_loss", "ramp"),
        ("multiclass_bias", "none"),
    ],
)
def test_page_runs_across_data_kernels_and_binary_settings(key, value) -> None:
    at = _app()
    # Three choices or fewer are a radio (svmlab.ui.frame.model_block), more a box.
    radios = ("multiclass_kernel", "multiclass_bias")
    widget = at.radio(key=key) if key in radios else at.selectbox(key=key)
    widget.set_value(value).run()
    assert not problems(at), (key, value, problems(at))
    assert len(charts(at)) == len(METHODS) + 1


def _upload(at: AppTest, data: bytes) -> AppTest:
    at.radio(key="multiclass_source").set_value("Upload CSV").run()
    at.file_uploader(key="multiclass_file").set_value(("d.csv", data, "text/csv"))
    return at.run()


def test_upload_takes_several_labels_and_names_them() -> None:
    X, y = multiclass.make_blobs(60, random_state=3)
    names = np.array(["ant", "bee", "cat"])[y]
    rows = [f"{a:.4f},{b:.4f},{c}" for (a, b), c in zip(X, names, strict=True)]
    at = _upload(_app(), ("x1,x2,label\n" + "\n".join(rows)).encode())
    assert not problems(at), problems(at)
    assert any("3 classes" in c.value and "bee" in c.value for c in at.caption)
    assert len(charts(at)) == len(METHODS) + 1


def test_a_bad_upload_is_a_sentence_and_keeps_the_settings() -> None:
    at = _app()
    at.radio(key="multiclass_kernel").set_value("linear").run()
    at.select_slider(key="multiclass_C").set_value(10.0).run()
    at = _upload(at, b"x1,x2,label\n0,0,a\n1,1,a\n2,0,a\n")
    assert not at.exception
    assert len(at.sidebar.error) == 1 and "Only one class" in at.error[0].value
    assert "was not used" in at.main.error[0].value  # said in the main pane too
    assert at.radio(key="multiclass_kernel").value == "linear"
    assert at.select_slider(key="multiclass_C").value == 10.0
    # Back to a generator: the page draws again with the same model settings.
    at.radio(key="multiclass_source").set_value("Generator").run()
    assert not problems(at)
    assert at.radio(key="multiclass_kernel").value == "linear"


def test_nu_svc_in_the_binary_fits_matches_libsvm_and_an_infeasible_nu_is_said():
    """ν-SVC as the reductions' binary machine: one-vs-one's support vectors are
    scikit-learn's NuSVC's (LIBSVM's -s 1 is one-vs-one) on the page's data;
    a ν too large for one-vs-rest's unbalanced splits is one sentence in its
    panel, and the other methods and every setting stay."""
    from sklearn.svm import NuSVC as LibNuSVC

    from svmlab.kernels import gamma_from_sigma

    at = _app()
    at.radio(key="multiclass_machine").set_value("nu").run()
    at.select_slider(key="multiclass_nu").set_value(0.5).run()
    assert not problems(at), problems(at)
    assert dict(at.query_params) == {"machine": "nu", "nu": "0.5"}
    text = "\n".join(m.value for m in at.markdown)
    X, y = multiclass.make("blobs", random_state=0)
    sigma = at.select_slider(key="multiclass_sigma").value
    reference = LibNuSVC(nu=0.5, gamma=gamma_from_sigma(sigma), tol=1e-8).fit(X, y)
    ovo = text.split("**One-vs-one**")[1]
    assert f"{reference.n_support_.sum()} SVs" in ovo
    # 2 min(n+, n-)/n is 2/3 for one-vs-rest on three equal classes, 1 per pair.
    at.select_slider(key="multiclass_nu").set_value(0.9).run()
    assert not at.exception
    errors = [e.value for e in at.main.error]
    assert len(errors) == 1 and "infeasible" in errors[0], errors
    assert at.radio(key="multiclass_machine").value == "nu"
    assert len(charts(at)) >= len(METHODS)


@pytest.mark.parametrize("nu", [0.3, 0.5])
def test_reductions_with_nu_agree_with_scikit_learn(nu):
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.svm import NuSVC as LibNuSVC

    from svmlab.kernels import gamma_from_sigma

    X, y = multiclass.make("blobs", n_samples=300, noise=1.5, random_state=0)
    X_test, _ = multiclass.make("blobs", n_samples=500, random_state=10_000)
    library = LibNuSVC(nu=nu, gamma=gamma_from_sigma(1.0), tol=1e-10)
    ovo = OneVsOneSVC(nu=nu, tol=1e-8, decision_function_shape="ovo").fit(X, y)
    np.testing.assert_allclose(
        ovo.decision_function(X_test),
        library.set_params(decision_function_shape="ovo")
        .fit(X, y)
        .decision_function(X_test),
        atol=1e-5,
    )
    ovr = OneVsRestSVC(nu=nu, tol=1e-8).fit(X, y)
    reference = OneVsRestClassifier(LibNuSVC(nu=nu, gamma=gamma_from_sigma(1.0)))
    reference.estimator.set_params(tol=1e-10)
    np.testing.assert_allclose(
        ovr.decision_function(X_test),
        reference.fit(X, y).decision_function(X_test),
        atol=1e-5,
    )


# -- the panels, built once per server (issue 28) -------------------------------------


def _request(C: float):
    from svmlab.ui.multiclass.requests import MulticlassRequest

    items = (("n_samples", 90), ("noise", 1.0), ("random_state", 2))
    return MulticlassRequest(
        source="blobs",
        data_items=items,
        kernel="gaussian",
        C=C,
        sigma=1.0,
        degree=3,
        loss="hinge",
        bias="unregularized",
    )


def _fresh_panels(request, height: int, names: tuple[str, ...]) -> dict[str, dict]:
    """The panels drawn the way the page drew them before they were cached:
    a new fit of the three methods (no cache), each panel built from it."""
    from svmlab.experiments.multiclass_compare import compare

    X, y, X_test, y_test = request.data()
    results = compare(X, y, X_test, y_test, request.settings)
    return {
        m: multiclass_panel(
            r.model, X, y, bounds=data_bounds(X), height=height, class_names=names
        ).to_plotly_json()
        for m, r in results.items()
    }


def test_cached_panels_are_the_panels_of_their_own_settings() -> None:
    """Served from the cache (a second call: a pickled copy), a panel is the
    one a fresh fit draws; other settings (C) are never served the first's."""
    from svmlab.figures.multiclass import panel_figure
    from svmlab.ui.multiclass.requests import panel_specs

    names = ("0", "1", "2")
    drawn = {}
    for C in (1.0, 0.01):
        request = _request(C)
        fresh = _fresh_panels(request, 350, names)
        for _ in range(2):  # built, then served
            specs = panel_specs(request, 350, names)
            assert set(specs) == set(METHODS)
            for method, spec in specs.items():
                assert panel_figure(spec).to_plotly_json() == fresh[method], method
        drawn[C] = specs
    for method in METHODS:
        assert drawn[1.0][method]["data"] != drawn[0.01][method]["data"], method
    # The height and the class names are part of the key too.
    assert panel_specs(_request(1.0), 260, names)["ovr"]["layout"]["height"] == 260
    renamed = panel_specs(_request(1.0), 350, ("a", "b", "c"))["ovr"]["data"]
    assert any(t.get("name") == "b" for t in renamed)


def test_a_second_session_draws_the_same_panels() -> None:
    first, second = _app(), _app()
    assert not problems(first) and not problems(second)
    figures = [charts(at) for at in (first, second)]
    assert len(figures[0]) == len(METHODS) + 1
    assert figures[0] == figures[1]

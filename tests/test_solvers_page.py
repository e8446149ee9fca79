"""The Solvers page under AppTest, driven by widget key: the table against the
engine called directly, loss x bias x kernel, the hard margin's error with every
other setting kept, a bad upload, a race scrub that fits nothing, and the
scaling button (with small sizes)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from svmlab import datasets
from svmlab.experiments.solver_comparison import ModelSpec, compare_solvers
from svmlab.ui.solvers import requests as sp
from tests.pages import PAGES, charts, click_after_promise, page_test, problems

PAGE = str(PAGES / "5_Solvers.py")
pytestmark = pytest.mark.usefixtures("fresh_caches")


@pytest.fixture
def fits(monkeypatch) -> list[int]:
    """How often the page's comparison ran the engine."""
    log: list[int] = []
    real = sp.compare_solvers

    def counted(*args, **kwargs):
        log.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(sp, "compare_solvers", counted)
    return log


def _app() -> AppTest:
    return page_test(PAGE, default_timeout=120).run()


def test_default_table_is_the_engines() -> None:
    at = _app()
    assert not problems(at)
    table = at.dataframe[0].value
    assert list(table["solver"]) == ["SMO", "QP", "LIBSVM (SVC) · library"]
    defaults = {p.name: p.default for p in datasets.PARAMS["two_circles"]}
    X, y = datasets.make("two_circles", **defaults, random_state=0)
    sigma = at.select_slider(key="solvers_sigma").value
    C = at.select_slider(key="solvers_C").value
    direct = compare_solvers(X, y, ModelSpec(sigma=sigma, C=C), traces=False)
    for name, title in (("smo", "SMO"), ("qp", "QP")):
        shown = table[table["solver"] == title]
        assert shown["objective"].iloc[0] == f"{direct.row(name).objective:.9g}"
        assert shown["iter."].iloc[0] == str(direct.row(name).n_iter)
        row = direct.row(name)
        assert shown["SVs free/bound"].iloc[0] == f"{row.n_free} / {row.n_bound}"
    assert charts(at), "no charts"


COMBOS = [
    ("hinge", "none", "linear"),
    ("squared_hinge", "regularized", "linear"),
    ("modified_hinge", "unregularized", "gaussian"),
    ("ramp", "none", "polynomial"),
    ("squared_ramp", "regularized", "gaussian"),
    ("hinge", "unregularized", "polynomial"),
]


def test_every_loss_bias_and_kernel_renders() -> None:
    at = _app()
    for loss, bias, kernel in COMBOS:
        at.selectbox(key="solvers_loss").set_value(loss)
        at.radio(key="solvers_bias").set_value(bias)
        at.radio(key="solvers_kernel").set_value(kernel).run()
        assert not problems(at), (loss, bias, kernel)
        table = at.dataframe[0].value
        assert len(table) >= 1
        if (loss, kernel) == ("squared_hinge", "linear"):
            assert "LIBLINEAR · library" in list(table["solver"])
        text = "\n".join(m.value for m in at.markdown)
        assert "cannot handle" in text  # the invalid ones, with their reasons


def test_hard_margin_error_keeps_every_other_setting() -> None:
    at = _app()
    at.radio(key="solvers_kernel").set_value("linear").run()
    at.select_slider(key="solvers_C").set_value(2.2).run()
    at.checkbox(key="solvers_hard").check().run()
    assert not at.exception
    assert len(at.error) == 1
    assert "hard-margin SVM has no solution" in at.error[0].value.replace("\\", "")
    assert at.radio(key="solvers_kernel").value == "linear"
    assert at.select_slider(key="solvers_C").value == 2.2
    assert at.selectbox(key="solvers_loss").value == "hinge"
    at.checkbox(key="solvers_hard").uncheck().run()
    assert not problems(at)
    assert at.select_slider(key="solvers_C").value == 2.2


def test_a_bad_upload_is_a_sentence() -> None:
    at = _app()
    at.radio(key="solvers_source").set_value("Upload CSV").run()
    at.file_uploader(key="solvers_file").set_value(("d.csv", b"a,b\n1,2\n", "text/csv"))
    at.run()
    assert not at.exception
    assert at.error and "column" in at.error[0].value.lower()


def test_scrubbing_the_race_fits_nothing(fits) -> None:
    at = _app()
    at.radio(key="solvers_bias").set_value("none").run()
    assert not problems(at)
    before = len(fits)
    keys = {c["key"] for c in charts(at) if c["key"]}
    assert {"solvers_race_smo", "solvers_race_coordinate"} <= keys
    for percent in (0, 10, 50, 100):
        at.slider(key="solvers_race").set_value(percent).run()
        assert not problems(at)
    at.radio(key="solvers_clock").set_value("wall").run()
    assert not problems(at)
    assert len(fits) == before
    captions = [m.value for m in at.markdown if m.value.startswith("**SMO**")]
    assert captions and "finished" in captions[0]


def test_scaling_button_draws_the_plot_and_lees_table(monkeypatch) -> None:
    monkeypatch.setattr(sp, "SIZES", (40, 80))
    real = sp.lee_table
    monkeypatch.setattr(sp, "lee_table", lambda repeats: real((100,), repeats))
    at = click_after_promise(
        _app(),
        "solvers_run_scaling",
        "Run it to time every solver and the library at n = 40, 80",
    )
    assert not problems(at)
    _, result, lee = at.session_state[sp.SCALING_KEY]
    assert result.sizes == [40, 80] and set(result.times) == {"smo", "qp", "libsvm"}
    assert lee[0].n == 100
    keys = {c["key"] for c in charts(at) if c["key"]}
    assert "solvers_scaling" in keys
    assert any("Lee found IRWLS" in m.value for m in at.markdown)

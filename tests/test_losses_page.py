"""The Losses page under AppTest, driven by widget key: every loss's panel, both
kernels, uploads, zero outliers, more outliers than points, the sweep, display
controls that recompute nothing, the Fig. 27.17 setting, the starts table.

The panels' numbers are checked against the engine called directly
(svmlab.experiments.robustness), which the page must only display.
"""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmlab import datasets
from svmlab.experiments import robustness
from svmlab.losses import LOSSES
from svmlab.ui.losses import requests as lp
from tests.pages import PAGES, click_after_promise, figure_texts, page_test, problems

PAGE = str(PAGES / "4_Losses.py")
pytestmark = pytest.mark.usefixtures("fresh_caches")


@pytest.fixture
def calls(monkeypatch) -> dict[str, int]:
    """How often the engine's comparison, sweep and starts ran."""
    log = {"compare": 0, "sweep": 0, "starts": 0}
    for name, key in (
        ("compare_losses", "compare"),
        ("sweep_outliers", "sweep"),
        ("multistart", "starts"),
    ):
        real = getattr(robustness, name)

        def counted(*args, _real=real, _key=key, **kwargs):
            log[_key] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(robustness, name, counted)
    return log


def _app() -> AppTest:
    return page_test(PAGE, default_timeout=180).run()


def _text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_default_page_has_every_loss_and_the_engines_numbers() -> None:
    at = _app()
    assert not problems(at)
    text = _text(at)
    for name in robustness.LOSS_ORDER:
        assert f"**{LOSSES[name].title}**" in text
    # The hinge panel's angle is the engine's, for the page's own data.
    X, y = datasets.make_outlier_blobs(100, noise=0.5, n_outliers=0, random_state=0)
    X_test, y_test = datasets.make_outlier_blobs(
        lp.N_TEST, noise=0.5, n_outliers=0, random_state=10_000
    )
    direct = robustness.compare_losses(
        X,
        y,
        robustness.Outliers(5, 6.0),
        lp.LossesRequest(
            "outlier_blobs", (), 5, 6.0, 1, "other", "linear", 1.0, 1.0, 0.1
        ).settings,
        X_test,
        y_test,
        random_state=0,
    )
    assert f"| w turned by | {direct.results['hinge'].angle:.1f}°" in text.replace(
        "\\.", "."
    )
    assert "bounded losses moved less than every unbounded one" in text


def test_gaussian_kernel_tells_both_shifts() -> None:
    at = _app()
    at.radio(key="losses_kernel").set_value("gaussian").run()
    assert not problems(at)
    text = _text(at)
    assert "Labels changed where the clean data are" in text
    assert "Over the whole plane" in text
    assert "w turned by" not in text


def test_zero_outliers_say_so() -> None:
    at = _app()
    at.slider(key="losses_count").set_value(0).run()
    assert not problems(at)
    assert "No outliers" in _text(at)


def test_more_outliers_than_points_is_a_sentence_and_keeps_the_rest() -> None:
    at = _app()
    at.select_slider(key="losses_C").set_value(10.0).run()
    at.slider(key="losses_outlier_blobs_n_samples").set_value(20).run()
    at.slider(key="losses_count").set_value(40).run()
    assert not at.exception
    assert len(at.error) == 1 and "outnumber" in at.error[0].value
    assert at.select_slider(key="losses_C").value == 10.0
    assert at.slider(key="losses_count").value == 40
    # The last comparison stays drawn under the sentence (issue 44, item 7).
    assert any("last one that could be drawn" in c.value for c in at.caption)
    assert len(figure_texts(at)) >= 5, "the refused comparison blanked the panels"
    at.slider(key="losses_count").set_value(10).run()
    assert not problems(at)
    assert at.select_slider(key="losses_C").value == 10.0


def test_every_generator_renders() -> None:
    at = _app()
    for name in datasets.GENERATORS:
        at.selectbox(key="losses_dataset").set_value(name).run()
        assert not problems(at), name


def _upload(at: AppTest, data: bytes) -> AppTest:
    at.radio(key="losses_source").set_value("Upload CSV").run()
    at.file_uploader(key="losses_file").set_value(("d.csv", data, "text/csv"))
    return at.run()


def _csv(seed: int = 0) -> bytes:
    X, y = datasets.make_blobs(60, random_state=seed)
    rows = [
        f"{a:.4f},{b:.4f},{'spam' if c > 0 else 'ham'}"
        for (a, b), c in zip(X, y, strict=True)
    ]
    return ("x1,x2,label\n" + "\n".join(rows)).encode()


def test_upload_gets_outliers_and_names_its_classes() -> None:
    at = _app()
    at = _upload(at, _csv())
    assert not problems(at)
    options = [at.radio(key="losses_label").format_func(v) for v in (1, -1)]
    assert options == ["+1 (spam)", "−1 (ham)"]
    assert any("no fresh points" in c.value for c in at.caption)
    assert "Angle by which w turned" in _text(at)


def test_a_bad_upload_is_a_sentence() -> None:
    at = _app()
    at = _upload(at, b"a,b\n1,2\n")
    assert not at.exception
    assert at.error and "column" in at.error[0].value.lower()


def test_sweep_then_display_controls_recompute_nothing(calls) -> None:
    at = click_after_promise(
        _app(),
        "losses_run_sweep",
        "Run the sweep to see each loss's error and boundary shift",
    )
    assert not problems(at)
    assert calls["sweep"] == 1
    _, sweep = at.session_state[lp.SWEEP_KEY]
    assert sweep.test_error.shape == (len(lp.DISTANCES), lp.N_SEEDS, 5)
    before = dict(calls)
    at.selectbox(key="losses_rug").set_value("squared_hinge").run()
    at.selectbox(key="losses_sweep_measure").set_value("shift_data").run()
    at.radio(key="losses_starts_loss").set_value("squared_ramp").run()
    assert not problems(at)
    assert calls["compare"] == before["compare"] and calls["sweep"] == 1
    # The starts of a loss not yet shown are computed once, then cached.
    assert calls["starts"] == before["starts"] + 1
    at.radio(key="losses_starts_loss").set_value("ramp").run()
    at.radio(key="losses_starts_loss").set_value("squared_ramp").run()
    assert calls["starts"] == before["starts"] + 1


def test_count_sweep_stops_at_the_clean_points() -> None:
    at = _app()
    at.slider(key="losses_outlier_blobs_n_samples").set_value(10).run()
    at.radio(key="losses_sweep_axis").set_value("count").run()
    at.button(key="losses_run_sweep").click().run()
    assert not problems(at)
    _, sweep = at.session_state[lp.SWEEP_KEY]
    assert max(sweep.values) <= 10 and sweep.axis == "count"


def test_fig_27_17_setting_is_one_click() -> None:
    at = _app()
    at.radio(key="losses_kernel").set_value("gaussian").run()
    at.slider(key="losses_count").set_value(30).run()
    at.button(key="losses_fig_27_17").click().run()
    assert not problems(at)
    assert at.radio(key="losses_kernel").value == "linear"
    assert at.slider(key="losses_count").value == 3
    assert any("Sugiyama, Fig. 27.17" in i.value for i in at.info)


def test_starts_table_best_is_at_most_the_default() -> None:
    at = _app()
    at.slider(key="losses_count").set_value(20).run()
    at.slider(key="losses_distance").set_value(8.0).run()
    assert not problems(at)
    frame = at.dataframe[0].value
    default = frame[frame["start"].str.startswith("default")]["objective"].iloc[0]
    assert frame["objective"].min() <= default
    assert "default start is stuck" in _text(at)
    assert np.isfinite(frame["objective"]).all()


def test_a_wide_csv_chooses_its_columns_beside_the_outliers_class() -> None:
    """Issue 27, item 10: a CSV with more than three columns drew its label
    box with the key of the page's "Their class" radio (a traceback)."""
    X, y = datasets.make_blobs(40, random_state=1)
    rows = [
        f"{i},{a:.4f},{b:.4f},{'spam' if c > 0 else 'ham'}"
        for i, ((a, b), c) in enumerate(zip(X, y, strict=True))
    ]
    at = _app()
    at = _upload(at, ("id,x1,x2,label\n" + "\n".join(rows)).encode())
    assert not problems(at), problems(at)
    assert at.selectbox(key="losses_csv_label").value == "label"
    at.selectbox(key="losses_csv_x1").set_value("x1").run()
    at.selectbox(key="losses_csv_x2").set_value("x2").run()
    assert not problems(at), problems(at)
    at.radio(key="losses_label").set_value(-1).run()
    assert not problems(at), problems(at)


def test_a_page_field_cannot_take_a_data_source_key() -> None:
    from svmlab.ui.frame.page_fields import Choice
    from svmlab.ui.frame.page_state import LOSSES_STATE, PageState

    def state(*fields) -> PageState:
        return PageState(
            page="x",
            prefix="losses",
            catalogue=datasets,
            dataset="outlier_blobs",
            max_n=400,
            fields=fields,
        )

    with pytest.raises(ValueError, match="losses_csv_label"):
        state(Choice("c", "losses_csv_label", (1, -1), 1, "Class"))
    with pytest.raises(ValueError, match="losses_C"):
        state(LOSSES_STATE.fields[5], LOSSES_STATE.fields[5])


def test_a_large_upload_is_cut_to_the_page_s_cap_and_said() -> None:
    """5,000 identical rows (issue 44 item 10) held the page 35-50 s: five losses
    fitted twice on 5,000 points. The page keeps at most its cap, both classes
    in their proportions (here 200 and 200), and says so."""
    rows = "\n".join(f"1.0,2.0,{'a' if i % 2 else 'b'}" for i in range(5000))
    at = _upload(_app(), ("x1,x2,label\n" + rows).encode())
    assert not problems(at)
    X, y = list(at.session_state["losses_uploads"].values())[-1]
    assert X.shape == (lp.MAX_N, 2) and np.all(X == [1.0, 2.0])
    assert np.sum(y == 1) == np.sum(y == -1) == lp.MAX_N // 2
    said = [c.value for c in at.caption if "5,000 points" in c.value]
    assert said and f"takes {lp.MAX_N:,} of them" in said[0]


def test_a_cut_upload_keeps_every_class_and_the_file_s_rows() -> None:
    from svmlab.ui.frame.data_source import sample_rows

    # 5 of 5,000 rows in a class: 400 × 5 / 5,000 rounds to 0; one is kept.
    y = np.r_[np.full(4995, 1.0), np.full(5, -1.0)]
    rows = sample_rows(y, 400)
    assert rows.size == np.unique(rows).size == 400
    assert np.all(np.diff(rows) > 0)  # file order
    assert (np.sum(y[rows] == -1), np.sum(y[rows] == 1)) == (1, 399)
    # Seven classes of 5000 // 7 or so: 400 × 714 / 5,000 = 57.1 each, and the
    # one row left over goes to a largest class.
    y = np.arange(5000) % 7
    counts = np.bincount(y[sample_rows(y, 400)])
    assert sorted(counts) == [57] * 6 + [58]


def test_an_upload_s_axes_are_its_column_names() -> None:
    """Issue 44 item 9: an upload's plane kept the axes x₁ and x₂; they are the
    file's header names (visitor text, escaped for Plotly)."""
    from tests.pages import charts

    X, y = datasets.make_blobs(60, random_state=0)
    rows = [f"{a:.4f},{b:.4f},{int(c)}" for (a, b), c in zip(X, y, strict=True)]
    data = ("height <cm>,weight,label\n" + "\n".join(rows)).encode()
    at = _upload(_app(), data)
    assert not problems(at)
    panel = next(c for c in charts(at) if c["key"].endswith("losses_panel_hinge"))
    layout = panel["layout"]
    assert layout["xaxis"]["title"]["text"] == "height &lt;cm&gt;"
    assert layout["yaxis"]["title"]["text"] == "weight"


def test_a_zero_w_is_said_not_nan() -> None:
    """5,000 identical rows of both classes: every linear fit has w = 0 (f is
    constant, by symmetry), so the angle between two w's is undefined; the
    panel said "nan°"."""
    X = np.tile([1.0, 2.0], (40, 1))
    y = np.where(np.arange(40) % 2, 1.0, -1.0)
    settings = robustness.FitSettings(kernel="linear", C=1.0)
    result = robustness.compare_losses(
        X,
        y,
        robustness.Outliers(0, 6.0, 1, "other"),
        settings,
        X,
        y,
        losses=("hinge",),
    )
    hinge = result.results["hinge"]
    assert np.allclose(hinge.model.dual_coef_ @ hinge.model.support_vectors_, 0)
    rows = dict(lp.panel_numbers(hinge, "linear"))
    assert "nan" not in rows["w turned by"].lower()
    assert rows["w turned by"].startswith("– (w = 0")

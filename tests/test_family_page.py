"""The SVM family page (AppTest) and its pieces: every new control, the threshold
that never refits (fits counted), bad values said in one sentence with the other
settings kept, and the numbers against scikit-learn's LIBSVM and metrics.

References that do not share svmlab's code: scikit-learn's ``SVC``
(``class_weight``), ``NuSVC``, ``OneClassSVM``, ``roc_auc_score``,
``roc_curve``, ``confusion_matrix`` and ``sigmoid_kernel``.
"""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go
import pytest
from sklearn.metrics import confusion_matrix, roc_auc_score, roc_curve
from sklearn.metrics.pairwise import sigmoid_kernel
from sklearn.svm import SVC as SkSVC
from sklearn.svm import NuSVC as SkNuSVC
from streamlit.testing.v1 import AppTest

from svmlab import datasets, kernels
from svmlab.figures.family import family_figure, roc_figure
from svmlab.svm.classifier import SVC
from svmlab.ui.family import requests as fp
from svmlab.ui.frame.page_state import FAMILY_STATE
from tests.pages import bad_link_test, figure_texts, notes, page_test, problems

PAGE = FAMILY_STATE.page


def _run(query: dict[str, str] | None = None) -> AppTest:
    at = page_test(PAGE, default_timeout=120)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def _numbers(at: AppTest) -> dict[str, str]:
    text = next(m.value for m in at.markdown if "smallest eigenvalue of K" in m.value)
    return dict(re.findall(r"([^\n:]+): \*\*([^*]+)\*\*", text))


def _ok(at: AppTest) -> None:
    assert not problems(at), problems(at)


def _figures(at: AppTest) -> str:
    """Every figure's JSON on the page (Plotly charts and the kept-alive one)."""
    return "\n".join(figure_texts(at))


def _data(ratio: float = 5.0):
    X, y = datasets.make("imbalanced", n_samples=200, ratio=ratio, random_state=0)
    X_test, y_test = datasets.make(
        "imbalanced", n_samples=400, ratio=ratio, random_state=10_000
    )
    return X, y, X_test, y_test


# -- the page -----------------------------------------------------------------------


def test_default_page_per_class_errors_match_libsvm() -> None:
    at = _run()
    _ok(at)
    numbers = _numbers(at)
    X, y, X_test, y_test = _data()
    ref = SkSVC(kernel="linear", C=1.0, tol=1e-8).fit(X, y)
    for label, sign in ((1, "+1"), (-1, "−1")):
        wrong = int(np.sum(ref.predict(X[y == label]) != label))
        assert numbers[f"training errors, class {sign}"].startswith(
            f"{wrong} / {int(np.sum(y == label))}"
        )
        wrong = int(np.sum(ref.predict(X_test[y_test == label]) != label))
        assert numbers[f"test errors, class {sign}"].startswith(f"{wrong} / ")
    assert numbers["C₊ / C₋"] == "1 / 1"
    # The confusion matrix at t = 0, scikit-learn's, and the AUC.
    table = next(m.value for m in at.markdown if "called +1" in m.value)
    f = ref.decision_function(X_test)
    tn, fp_, fn, tp = confusion_matrix(y_test > 0, f >= 0).ravel()
    assert f"| truly +1 | {tp} | {fn} |" in table
    assert f"| truly −1 | {fp_} | {tn} |" in table
    caption = next(c.value for c in at.caption if "AUC" in c.value)
    auc = float(re.search(r"AUC = (\d\.\d+)", caption).group(1))
    assert auc == pytest.approx(roc_auc_score(y_test > 0, f), abs=1e-3)


def test_balanced_classes_are_not_called_a_smaller_class() -> None:
    """Issue 44 item 9: "the smaller class is +1 (100 of 200)" on balanced blobs."""
    at = _run({"data": "blobs"})
    _ok(at)
    _, y = datasets.make("blobs", n_samples=200, random_state=0)
    assert np.sum(y == 1) == np.sum(y == -1) == 100  # the reference: the data
    text = "\n".join(m.value for m in at.markdown)
    assert "smaller class is" not in text
    assert "same size (100 points each)" in text


def _record_fits(monkeypatch, cls: type, param: str) -> list[float]:
    """The ``param`` of every ``cls.fit`` call from now on (the fit still runs)."""
    calls: list[float] = []
    original = cls.fit

    def counted(self, *args, **kwargs):
        calls.append(getattr(self, param))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, "fit", counted)
    return calls


def test_moving_the_threshold_or_the_shading_never_refits(monkeypatch) -> None:
    """The fit is cached without the threshold and the shading: moving them
    calls ``SVC.fit`` zero times (the first run fits once, and five times for
    Platt's folds); moving C fits again."""
    calls = _record_fits(monkeypatch, SVC, "C")
    fp.fit.clear()
    at = _run({"C": "0.47"})  # a C no other test fits
    _ok(at)
    assert len(calls) == 1 + fp.PLATT_FOLDS
    at.slider(key="family_threshold").set_value(-0.5).run()
    _ok(at)
    at.radio(key="family_shade").set_value("p").run()
    _ok(at)
    assert len(calls) == 1 + fp.PLATT_FOLDS
    assert at.query_params["t"] == "-0.5" and at.query_params["shade"] == "p"
    table = next(m.value for m in at.markdown if "called +1" in m.value)
    X, y, X_test, y_test = _data()
    f = SkSVC(kernel="linear", C=0.47, tol=1e-8).fit(X, y).decision_function(X_test)
    tn, fp_, fn, tp = confusion_matrix(y_test > 0, f >= -0.5).ravel()
    assert f"| truly +1 | {tp} | {fn} |" in table
    assert f"| truly −1 | {fp_} | {tn} |" in table
    at.select_slider(key="family_C").set_value(1.0).run()
    assert len(calls) == 2 * (1 + fp.PLATT_FOLDS)


def test_nu_svc_shows_the_bound_live_against_libsvm() -> None:
    # n = 199: ν n / 2 is not a whole number. (At ν n / 2 whole, ν-SVC's ρ and
    # b may be non-unique: LIBSVM and svmlab then reach the same optimum with
    # different margins, f differing by a few per cent.)
    at = _run({"machine": "nu", "nu": "0.2", "n": "199"})
    _ok(at)
    numbers = _numbers(at)
    X, y = datasets.make("imbalanced", n_samples=199, random_state=0)
    ref = SkNuSVC(nu=0.2, kernel="linear", tol=1e-8).fit(X, y)
    errors = 100 * np.mean(y * ref.decision_function(X) < 1 - 1e-6)
    support = 100 * ref.support_.size / y.size
    shown = [float(numbers[k].split()[0]) for k in ("margin errors", "ν")]
    shown.append(float(numbers["support vectors"].split()[0]))
    assert shown[0] == pytest.approx(errors, abs=0.51)
    assert shown[1] == 20.0
    assert shown[2] == pytest.approx(support, abs=0.51)
    assert shown[0] <= shown[1] <= shown[2]
    assert float(numbers["equivalent C"]) > 0 and float(numbers["ρ"]) > 0
    # The equivalent C is the C-SVC with the same f (Chang & Lin 2001).
    C = float(numbers["equivalent C"])
    same = SkSVC(kernel="linear", C=C, tol=1e-8).fit(X, y)
    assert np.allclose(same.decision_function(X), ref.decision_function(X), atol=5e-3)


def test_the_nu_slider_ends_at_the_feasible_nu_and_a_link_above_it_is_moved() -> None:
    # Imbalanced 5 : 1: 33 of 200 points are +1, so ν-SVC's largest feasible
    # ν is 2 · 33 / 200 = 0.33 (counted here, not by the page's function).
    X, y = datasets.make("imbalanced", n_samples=200, ratio=5, random_state=0)
    top = 2 * min(np.sum(y > 0), np.sum(y < 0)) / y.size
    assert top == pytest.approx(0.33)
    at = _run({"machine": "nu", "nu": "0.5", "kernel": "gaussian", "ratio": "5"})
    _ok(at)  # moved onto the feasible range, not refused
    slider = at.select_slider(key="family_nu")
    assert max(slider.options, key=float) == "0.33" and slider.value == 0.33
    said = " ".join(notes(at))
    assert "ν = 0.5 is more than these data allow" in said and "0.33" in said
    assert at.radio(key="family_machine").value == "nu"
    assert at.selectbox(key="family_kernel").value == "gaussian"
    assert at.query_params["nu"] == "0.33"
    assert "the slider ends at 0.33" in " ".join(c.value for c in at.sidebar.caption)
    # LIBSVM fits ν-SVC at the top and refuses just above it.
    SkNuSVC(nu=top, kernel="rbf").fit(X, y)
    with pytest.raises(ValueError, match="infeasible"):
        SkNuSVC(nu=top + 0.01, kernel="rbf").fit(X, y)
    # Below the top: the value set, every setting as it was.
    at.select_slider(key="family_nu").set_value(0.3).run()
    _ok(at)
    assert at.selectbox(key="family_kernel").value == "gaussian"
    assert at.query_params["nu"] == "0.3"


def test_a_refused_fit_keeps_the_last_picture_and_every_control() -> None:
    at = _run({"machine": "nu", "nu": "0.2", "kernel": "gaussian"})
    _ok(at)
    drawn = _figures(at)
    assert drawn
    # The sigmoid kernel finds no margin at ν = 0.05 on these data: refused.
    # (So does the Gaussian there since issue 44, item 3: |w|² = 6.7e-14, a
    # zero margin it used to fit with C = 6e7, hence the start at ν = 0.2.)
    at.select_slider(key="family_nu").set_value(0.05)
    at.selectbox(key="family_kernel").set_value("sigmoid").run()
    assert not at.exception
    assert len(at.error) == 1 and "no margin" in problems(at)[0]
    assert any("last one that could be drawn" in c.value for c in at.caption)
    assert _figures(at), "the refused fit blanked the picture"
    assert at.selectbox(key="family_kernel").value == "sigmoid"
    assert at.select_slider(key="family_nu").value == 0.05
    assert at.query_params["kernel"] == "sigmoid"
    assert any("ν-SVC" in m.value for m in at.markdown)  # the story stays too
    # A setting that works draws the new picture.
    at.select_slider(key="family_nu").set_value(0.2)
    at.selectbox(key="family_kernel").set_value("linear").run()
    _ok(at)
    assert not any("last one that could be drawn" in c.value for c in at.caption)


def _kernel_and_C_kept(at: AppTest) -> None:
    assert at.selectbox(key="family_kernel").value == "gaussian"
    assert at.select_slider(key="family_C").value == 10.0


test_a_bad_link_value_is_one_sentence_and_the_rest_kept = bad_link_test(
    PAGE,
    [
        ({"nu": "-1"}, "is not a positive number"),
        ({"nu": "abc"}, "is not a positive number"),
        ({"machine": "svr"}, "is not one of C, nu, one_class"),
        ({"weights": "heavy"}, "is not one of none, balanced, manual"),
        ({"t": "x"}, "is not a number"),
    ],
    {"kernel": "gaussian", "C": "10"},
    _kernel_and_C_kept,
)


def test_nu_above_one_is_clamped_with_a_note() -> None:
    at = _run({"machine": "one_class", "nu": "3"})
    _ok(at)
    assert any("using 1" in i for i in notes(at))
    assert at.select_slider(key="family_nu").value == 1.0


def test_one_class_on_one_class_flags_the_other() -> None:
    # 99 points of class +1: ν n is not a whole number, so ρ is unique.
    link = {"data": "blobs", "machine": "one_class", "train": "pos", "nu": "0.2"}
    link["kernel"] = "gaussian"
    at = _run({**link, "n": "198"})
    _ok(at)
    numbers = _numbers(at)
    from sklearn.svm import OneClassSVM

    X, y = datasets.make("blobs", n_samples=198, random_state=0)
    ref = OneClassSVM(nu=0.2, gamma=0.5, tol=1e-8).fit(X[y > 0])
    outside = 100 * np.mean(ref.decision_function(X[y > 0]) < -1e-6)
    flagged = 100 * np.mean(ref.decision_function(X[y < 0]) < 0)
    assert float(numbers["outside (f < 0)"].split()[0]) == pytest.approx(
        outside, abs=1.01
    )
    assert float(numbers["other class flagged"].split()[0]) == pytest.approx(
        flagged, abs=1.01
    )
    assert float(numbers["outside (f < 0)"].split()[0]) <= 20.0
    # No threshold section for a machine without classes.
    assert not any("Probabilities and a threshold" in m.value for m in at.markdown)
    assert at.radio(key="family_train").value == "pos"


def test_one_class_ignores_the_labels_on_every_generator() -> None:
    for name in datasets.GENERATORS:
        at = _run({"data": name, "machine": "one_class", "kernel": "gaussian"})
        _ok(at)
        assert "outside (f < 0)" in _numbers(at)


def test_class_weights_balanced_and_manual_match_libsvm() -> None:
    X, y, _, _ = _data(10.0)
    for link, weight in (
        ({"weights": "balanced"}, "balanced"),
        ({"weights": "manual", "wpos": "5", "wneg": "0.5"}, {1: 5.0, -1: 0.5}),
    ):
        at = _run({"ratio": "10", **link})
        _ok(at)
        numbers = _numbers(at)
        ref = SkSVC(kernel="linear", C=1.0, class_weight=weight, tol=1e-8).fit(X, y)
        wrong = int(np.sum(ref.predict(X[y > 0]) != 1))
        assert numbers["training errors, class +1"].startswith(f"{wrong} / 18")
    assert numbers["C₊ / C₋"] == "5 / 0.5"
    # w₊ and w₋ are greyed out unless the weights are set by hand.
    at = _run({"wpos": "5"})
    assert at.select_slider(key="family_wpos").disabled


def test_sigmoid_kernel_shows_its_smallest_eigenvalue_and_says_not_psd() -> None:
    at = _run({"data": "blobs", "kernel": "sigmoid", "a": "1", "r": "0"})
    assert not at.exception and not at.error
    numbers = _numbers(at)
    X, _ = datasets.make("blobs", n_samples=200, random_state=0)
    lam = np.linalg.eigvalsh(sigmoid_kernel(X, gamma=1.0, coef0=0.0))[0]
    assert float(numbers["smallest eigenvalue of K"]) == pytest.approx(lam, rel=1e-3)
    assert any("not positive semidefinite" in i.value for i in at.info)
    # A positive semidefinite kernel: no sentence, and the rounding said as such.
    at = _run({"kernel": "gaussian"})
    assert not any("not positive semidefinite" in i.value for i in at.info)


def test_every_new_control_survives_the_link() -> None:
    link = {
        "weights": "manual",
        "wpos": "2",
        "wneg": "0.5",
        "kernel": "sigmoid",
        "a": "0.47",
        "r": "-1",
        "shade": "p",
        "t": "0.25",
        "C": "10",
    }
    at = _run(link)
    assert not at.exception and not at.error
    assert dict(at.query_params) == link
    figures = _figures(at)
    assert '"p = 0.5"' in figures and '"f = t = 0.25"' in figures


# -- the pieces ---------------------------------------------------------------------


def test_threshold_view_is_sklearns_roc_and_confusion_matrix() -> None:
    X, y, X_test, y_test = _data()
    request = fp.FamilyRequest(
        "imbalanced",
        tuple(
            {
                "n_samples": 200,
                "noise": 1.0,
                "ratio": 5.0,
                "separation": 2.5,
                "random_state": 0,
            }.items()
        ),
        "C",
        "linear",
        1.0,
        0.2,
        1.0,
        3,
        0.1,
        0.0,
        "none",
        1.0,
        1.0,
        "all",
    )
    fitted = fp.fit(request)
    f = SkSVC(kernel="linear", C=1.0, tol=1e-8).fit(X, y).decision_function(X_test)
    assert np.allclose(fitted.f_test, f, atol=1e-3)
    for t in (-1.0, -0.3, 0.0, 0.7):
        view = fp.threshold_view(fitted, t)
        tn, fp_, fn, tp = confusion_matrix(y_test > 0, fitted.f_test >= t).ravel()
        r = view.report
        assert (r.tp, r.fp, r.tn, r.fn) == (tp, fp_, tn, fn)
        # The threshold's point is on the ROC curve.
        fpr, tpr, _ = roc_curve(y_test > 0, fitted.f_test, drop_intermediate=False)
        assert np.any(np.isclose(fpr, r.fpr) & np.isclose(tpr, r.tpr))
    assert view.auc == pytest.approx(roc_auc_score(y_test > 0, fitted.f_test))
    # Platt's p at the threshold is the sigmoid at f = t.
    p = fp.probability_at(fitted, 0.7)
    assert p == pytest.approx(1 / (1 + np.exp(fitted.A * 0.7 + fitted.B)))


def test_figures_are_valid_plotly() -> None:
    X, y, _, _ = _data()
    bounds = (-5.0, 5.0, -5.0, 5.0)
    for machine, model in (
        ("C", SVC(kernel="linear").fit(X, y)),
        ("one_class", None),
    ):
        if model is None:
            from svmlab import OneClassSVM

            model = OneClassSVM(nu=0.2).fit(X)
        state = fp.sv_states(model)
        for shade in ("f", "p"):
            fig = family_figure(
                model,
                X,
                y,
                bounds,
                machine=machine,
                state=state,
                shade=shade,
                platt=(-1.5, 0.1),
                threshold=0.5,
                others=X[:5],
            )
            go.Figure(fig.to_dict())  # validated
    fig = roc_figure(np.array([0, 0.5, 1]), np.array([0, 0.8, 1]), 0.9, (0.5, 0.8))
    go.Figure(fig.to_dict())
    assert kernels.gamma_from_sigma(1.0) == 0.5  # the references' gamma


# -- along ν ------------------------------------------------------------------------


@pytest.mark.parametrize("machine", ["nu", "one_class"])
def test_the_nu_path_brackets_nu_as_libsvm_does(machine, monkeypatch) -> None:
    """At every stop of the ν slider: the lower fraction ≤ ν ≤ the fraction of
    support vectors, each as scikit-learn's NuSVC / OneClassSVM measure it; the
    path is computed once, not again when ν moves."""
    from sklearn.svm import OneClassSVM as SkOneClass

    from svmlab.svm.nu_svm import NuSVC, OneClassSVM

    cls = NuSVC if machine == "nu" else OneClassSVM
    calls = _record_fits(monkeypatch, cls, "nu")
    fp.nu_path.clear()
    fp.fit.clear()
    link = {"data": "blobs", "machine": machine, "kernel": "gaussian", "n": "199"}
    at = _run({**link, "nu": "0.3"})
    _ok(at)
    X, y = datasets.make("blobs", n_samples=199, random_state=0)
    path = fp.nu_path(fp.path_key(_request_of(at)))
    assert set(path.nus) | set(path.skipped) == set(
        fp.NU_GRID[: len(path.nus) + len(path.skipped)]
    )
    one = 1 / y.size + 1e-9
    for nu, low, high in zip(path.nus, path.low, path.high, strict=True):
        assert low <= nu + 1e-9 <= high + 2e-9  # the ν-property at every stop
        if machine == "nu":
            if nu < 0.2:
                # Near the least fraction of margin errors the margin r nears 0
                # and f = raw / r is accurate to tol / r only (svmlab says so
                # in a note): the two solvers' counts differ there.
                continue
            ref = SkNuSVC(nu=nu, gamma=0.5, tol=1e-8).fit(X, y)
            ref_low = np.mean(y * ref.decision_function(X) < 1 - 1e-6)
        elif nu == 1.0:
            # Every point at its bound α = 1 (scikit-learn's LIBSVM gives no
            # finite ρ there): every point a support vector.
            assert high == 1.0
            continue
        else:
            ref = SkOneClass(nu=nu, gamma=0.5, tol=1e-8).fit(X)
            ref_low = np.mean(ref.decision_function(X) < -1e-6)
        assert low == pytest.approx(ref_low, abs=one)
        assert high == pytest.approx(ref.support_.size / y.size, abs=one)
    before = len(calls)
    at.select_slider(key="family_nu").set_value(0.4).run()
    _ok(at)
    extra = 1 + (fp.PLATT_FOLDS if machine == "nu" else 0)  # the fit, no path
    assert len(calls) == before + extra
    assert '"x0":40' in _figures(at).replace(" ", "") or "40.0" in _figures(at)


def _request_of(at: AppTest) -> fp.FamilyRequest:
    """The family page's request as its widgets describe it."""
    state = at.session_state
    data = dict(
        n_samples=int(state["family_blobs_n_samples"]),
        noise=float(state["family_blobs_noise"]),
        separation=float(state["family_blobs_separation"]),
        random_state=int(state["family_seed"]),
    )
    return fp.FamilyRequest(
        "blobs",
        tuple(data.items()),
        state["family_machine"],
        state["family_kernel"],
        float(state["family_C"]),
        float(state["family_nu"]),
        float(state["family_sigma"]),
        int(state["family_degree"]),
        float(state["family_a"]),
        float(state["family_r"]),
        state["family_weights"],
        float(state["family_wpos"]),
        float(state["family_wneg"]),
        state["family_train"],
    )


# -- points clicked in ----------------------------------------------------------------

PENDING = f"{fp.CHART_KEY}_pending_click"


def test_a_click_adds_a_point_of_the_chosen_class_and_refits() -> None:
    link = {"data": "blobs", "machine": "one_class", "kernel": "gaussian"}
    at = _run({**link, "train": "pos", "nu": "0.1"})
    _ok(at)
    before = _numbers(at)["other class flagged"]
    # A point of class −1 far away: the one-class SVM fitted on +1 never sees
    # it; it is one more point of the other class, and outside.
    at.radio(key=fp.CLICK_LABEL_KEY).set_value(-1.0).run()
    at.session_state[PENDING] = (-9.0, 9.0)
    at.run()
    _ok(at)
    assert len(at.session_state[fp.ADDED_KEY][1]) == 1
    _, y = datasets.make("blobs", n_samples=200, random_state=0)
    n_other = int(np.sum(y < 0))
    flagged = float(before.split()[0]) / 100 * n_other
    after = float(_numbers(at)["other class flagged"].split()[0])
    assert after == pytest.approx(100 * (flagged + 1) / (n_other + 1), abs=0.06)
    # A point of class +1 joins the training points: every one-class number
    # is of 101 points now, and the button takes it away again.
    at.radio(key=fp.CLICK_LABEL_KEY).set_value(1.0).run()
    at.session_state[PENDING] = (9.0, 9.0)
    at.run()
    _ok(at)
    assert len(at.session_state[fp.ADDED_KEY][1]) == 2
    at.button(key="family_clear_points").click().run()
    _ok(at)
    assert _numbers(at)["other class flagged"] == before


# -- unlabelled uploads (the one-class SVM) -------------------------------------------


def _points_csv(header: str = "x1,x2", label: str | None = None) -> bytes:
    X, _ = datasets.make("blobs", n_samples=60, random_state=3)
    rows = [f"{a:.4f},{b:.4f}" + ("" if label is None else f",{label}") for a, b in X]
    return (header + "\n" + "\n".join(rows)).encode()


def test_to_points_reads_two_columns_with_to_datasets_checks() -> None:
    from svmlab.datasets.csv_data import read_table, to_dataset, to_points
    from svmlab.errors import DataError

    X, _ = datasets.make("blobs", n_samples=60, random_state=3)
    got = to_points(read_table(_points_csv()))
    assert got.shape == (60, 2) and np.allclose(got, np.round(X, 4))
    wide = read_table(_points_csv("x1,x2,c", label="a"))
    with pytest.raises(DataError, match="points without labels need two feature"):
        to_points(wide)
    assert to_points(wide, x_columns=("x2", "x1")).shape == (60, 2)
    broken = _points_csv().replace(b"\n", b"\nnan,1.0\n", 1)
    with pytest.raises(DataError, match="Tick 'drop those rows'"):
        to_points(read_table(broken))
    assert to_points(read_table(broken), drop_nonfinite=True).shape == (60, 2)
    with pytest.raises(DataError, match="only one numeric column"):
        to_points(read_table(b"x1,x2\n1,a\n2,b\n3,c\n"))
    # One class: refused, unless the caller takes one class.
    with pytest.raises(DataError, match="Only one class"):
        to_dataset(wide)
    X1, y1, labels = to_dataset(wide, one_class=True)
    assert np.all(y1 == 1.0) and labels == ("a", "a") and X1.shape == (60, 2)


def test_an_unlabelled_upload_is_the_one_class_svms_data() -> None:
    from sklearn.svm import OneClassSVM as SkOneClass

    at = _run({"machine": "one_class", "kernel": "gaussian", "nu": "0.2"})
    at.radio(key="family_source").set_value("Upload CSV").run()
    at.file_uploader(key="family_file").set_value(
        ("points.csv", _points_csv(), "text/csv")
    )
    at.run()
    _ok(at)
    assert any("60 points, no labels" in c.value for c in at.caption)
    X, _ = datasets.make("blobs", n_samples=60, random_state=3)
    ref = SkOneClass(nu=0.2, gamma=0.5, tol=1e-8).fit(np.round(X, 4))
    outside = 100 * np.mean(ref.decision_function(np.round(X, 4)) < -1e-6)
    shown = float(_numbers(at)["outside (f < 0)"].split()[0])
    assert shown == pytest.approx(outside, abs=100 / 60 + 1e-9)
    # C-SVC needs two classes: one sentence, every setting kept.
    at.radio(key="family_machine").set_value("C").run()
    assert not at.exception and len(at.error) == 1
    assert "two classes" in at.error[0].value.replace("\\", "")
    assert at.selectbox(key="family_kernel").value == "gaussian"


def test_family_figures_margins_grow_with_the_scale() -> None:
    """The ROC and ν-path figures at a projector's scale: left, bottom (and the
    top, under a title or a key above) grow with it, the right stays 16 px."""
    from types import SimpleNamespace

    from svmlab.figures.family import nu_path_figure

    roc = roc_figure(
        np.array([0, 0.5, 1]), np.array([0, 0.8, 1]), 0.9, (0.5, 0.8), scale=2.0
    )
    m = roc.layout.margin
    # The bottom holds the axis title (60 px) and the key's three rows (66 px).
    assert (m.l, m.r, m.t, m.b) == (128, 16, 96, 2 * (60 + 66))
    assert roc.layout.font.size == 32
    path = SimpleNamespace(nus=(0.1, 0.2), low=(0.05, 0.15), high=(0.3, 0.4), top=None)
    nu = nu_path_figure(path, current=0.1, low_name="outside", scale=1.5)
    m = nu.layout.margin
    assert (m.l, m.r, m.t, m.b) == (96, 16, 96, 90)


def test_nu_path_figure_draws_both_fractions_of_the_path() -> None:
    """The ν path in percent: the diagonal, the support vectors (≥ ν) and the
    lower fraction (≤ ν) at the path's ν, the slider's ν as a cursor and, for
    ν-SVC, its largest feasible ν dotted."""
    from types import SimpleNamespace

    from svmlab.figures.family import nu_path_figure

    path = SimpleNamespace(
        nus=(0.1, 0.2, 0.3), low=(0.05, 0.15, 0.25), high=(0.3, 0.4, 0.5), top=0.35
    )
    fig = nu_path_figure(path, current=0.2, low_name="margin errors")
    go.Figure(fig.to_dict())  # validated
    by_name = {t.name: t for t in fig.data}
    assert list(by_name) == ["ν", "support vectors (≥ ν)", "margin errors (≤ ν)"]
    assert list(by_name["ν"].x) == [0, 100] and list(by_name["ν"].y) == [0, 100]
    for name, values in (
        ("support vectors (≥ ν)", [30, 40, 50]),
        ("margin errors (≤ ν)", [5, 15, 25]),
    ):
        assert list(by_name[name].x) == pytest.approx([10, 20, 30])
        assert list(by_name[name].y) == pytest.approx(values)
    assert "SVs" in by_name["support vectors (≥ ν)"].hovertemplate
    assert "SVs" not in by_name["margin errors (≤ ν)"].hovertemplate
    assert [s.x0 for s in fig.layout.shapes] == pytest.approx([20, 35])
    # The axes end 6 points past the largest value drawn (50 %).
    assert fig.layout.xaxis.range == pytest.approx((0, 56))

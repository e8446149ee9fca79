"""The presets of the Losses, Solvers and Multiclass pages, and those pages' links.

Each preset is loaded through AppTest from its link: the page must show no error,
measure the number the paragraph promises, and write the same link back to the
URL (load URL -> widgets -> URL). The number is then computed again without
svmlab's solvers: scikit-learn's ``SVC`` / ``LinearSVC`` (LIBSVM, LIBLINEAR),
the squared hinge as the hard margin on ``K + I / C``, and SciPy's L-BFGS on the
written-out primal or dual where no library solves the problem.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC, SVR, LinearSVC, NuSVR
from streamlit.testing.v1 import AppTest

from svmlab import datasets, kernels
from svmlab.datasets import multiclass, regression
from svmlab.experiments.robustness import Outliers, add_outliers
from svmlab.ui.frame.page_state import (
    LOSSES_STATE,
    PAGE_STATES,
    SOLVERS_STATE,
    PageState,
)
from svmlab.ui.frame.presets import EXPLORE, PRESETS, query
from tests.pages import notes, open_page, problems

ROOT = Path(__file__).resolve().parents[1]
ON_PAGES = [name for name, p in PRESETS.items() if p.page != EXPLORE]


def _open(page: str, params: dict[str, str]) -> AppTest:
    return open_page(str(ROOT / page), params, default_timeout=120)


def _measured(at: AppTest) -> str:
    """The number the preset box says it measured now."""
    text = "\n".join(m.value for m in at.markdown)
    found = re.search(r"measured now: \*\*([^*]+)\*\*", text)
    assert found, text[:500]
    return found.group(1)


def _values(text: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", text)]


# -- the references ---------------------------------------------------------------


def _angle(w: np.ndarray, v: np.ndarray) -> float:
    cos = w @ v / np.linalg.norm(w) / np.linalg.norm(v)
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))


def _losses_data(params: dict[str, str]):
    """The Losses page's data at its defaults (outlier blobs, n = 100, noise 0.5,
    seed 0) with the link's outliers, and its 2000 clean test points."""
    blobs = {"n_samples": 100, "noise": 0.5, "n_outliers": 0, "outlier_distance": 0}
    X, y = datasets.make("outlier_blobs", **blobs, random_state=0)
    outliers = Outliers(int(params["count"]), float(params.get("distance", 6)))
    X_all, y_all, far = add_outliers(X, y, outliers, random_state=0)
    blobs["n_samples"] = 2000
    X_test, y_test = datasets.make("outlier_blobs", **blobs, random_state=10_000)
    return X, y, X_all, y_all, far, X_test, y_test


def _modified_hinge(m: np.ndarray, delta: float):
    """Lee's modified hinge in its C¹ form (docs/corrections.md) and its slope."""
    tail = np.exp(np.minimum(1.0 - m - delta, 0.0) / delta)
    right = m >= 1.0 - delta
    return np.where(right, delta * tail, 1.0 - m), np.where(right, -tail, -1.0)


def _primal_minimum(
    F: np.ndarray, y: np.ndarray, C: float, delta: float
) -> tuple[float, np.ndarray]:
    """min ½‖u‖² + C Σ h(yᵢ (F u + b))ᵢ by L-BFGS: f = F u + b spans the RKHS's
    f plus a free b when F Fᵀ = K, and ‖u‖ is then ‖f‖. Returns the minimum and
    the minimiser u."""

    def objective(v):
        u, b = v[:-1], v[-1]
        value, slope = _modified_hinge(y * (F @ u + b), delta)
        g = C * slope * y
        return 0.5 * u @ u + C * value.sum(), np.concatenate([u + F.T @ g, [g.sum()]])

    start = np.zeros(F.shape[1] + 1)
    options = {"maxiter": 100_000, "maxfun": 100_000, "gtol": 1e-10, "ftol": 1e-16}
    fit = minimize(objective, start, jac=True, method="L-BFGS-B", options=options)
    return float(fit.fun), fit.x[:-1]


def _regression_reference(name: str, params: dict[str, str], shown: list[float]):
    """The Regression page's presets by LIBSVM's SVR / NuSVR at the page's
    defaults (C = 10, σ = 0.47 (0.5 on its slider's grid), ε = 0.1, the
    generator's defaults, seed 0; 400 fresh test points, seed 10 000)."""
    data = params.get("data", "sinc")
    X, t = regression.make(data, random_state=0)
    X_test, t_test = regression.make(data, n_samples=400, random_state=10_000)
    C, epsilon = float(params.get("C", 10)), float(params.get("epsilon", 0.1))
    sigma = 0.47
    gamma = kernels.gamma_from_sigma(sigma)
    if name == "regression_nu_finds_epsilon":
        model = NuSVR(nu=float(params["nu"]), C=C, gamma=gamma, tol=1e-10).fit(X, t)
        # ε is the tube's half-width: |t − f| at the free support vectors.
        free = np.abs(model.dual_coef_[0]) < C * (1 - 1e-8)
        residuals = np.abs(t - model.predict(X))[model.support_[free]]
        assert shown[0] == pytest.approx(residuals.mean(), rel=2e-3)
    elif name == "regression_squared_outliers":
        # The squared ε-insensitive loss is ε-SVR with no box on K + I / C.
        K = kernels.gram(X, X, kernel="gaussian", sigma=sigma)
        model = SVR(kernel="precomputed", C=1e10, epsilon=epsilon, tol=1e-10)
        model.fit(K + np.eye(t.size) / C, t)
        K_test = kernels.gram(X_test, X, kernel="gaussian", sigma=sigma)
        rmse = np.sqrt(np.mean((model.predict(K_test) - t_test) ** 2))
        assert shown[0] == pytest.approx(rmse, rel=2e-3)
    else:
        model = SVR(C=C, epsilon=epsilon, gamma=gamma, tol=1e-10).fit(X, t)
        assert shown == [model.support_.size, t.size]


def _family_reference(name: str, params: dict[str, str], shown: list[float]) -> None:
    """The SVM family page's presets by scikit-learn's LIBSVM (OneClassSVM, SVC
    with class_weight) and its confusion_matrix, on the page's data: the
    generator's defaults (n = 200, seed 0) with the link's values, and 400
    fresh test points (seed 10,000)."""
    from sklearn.metrics import confusion_matrix
    from sklearn.svm import OneClassSVM

    data = params.get("data", "imbalanced")
    extra = {"ratio": float(params["ratio"])} if "ratio" in params else {}
    X, y = datasets.make(data, n_samples=200, **extra, random_state=0)
    gamma = kernels.gamma_from_sigma(float(params.get("sigma", 1.0)))
    one = 100 / 200 + 1e-9  # one training point on the margin within tol
    if name == "family_novelty":
        nu = float(params["nu"])
        ref = OneClassSVM(nu=nu, gamma=gamma, tol=1e-8).fit(X[y > 0])
        # Outside is ξ > 0: f below 0 by more than the solver's rounding (the
        # free support vectors sit on f = 0 to about 1e-9).
        outside = np.mean(ref.decision_function(X[y > 0]) < -1e-6)
        flagged = np.mean(ref.decision_function(X[y < 0]) < 0)
        assert shown[0] == pytest.approx(100 * outside, abs=2 * one)
        assert shown[1] == pytest.approx(100 * flagged, abs=2 * one)
        assert shown[0] <= 100 * nu
    elif name in ("family_imbalanced", "family_balanced"):
        weight = "balanced" if name == "family_balanced" else None
        ref = SVC(kernel="linear", C=1.0, class_weight=weight, tol=1e-8).fit(X, y)
        wrong = int(np.sum(ref.decision_function(X[y > 0]) < 0))
        assert shown == [wrong, int(np.sum(y > 0))]
    elif name == "family_threshold":
        X_test, y_test = datasets.make("imbalanced", n_samples=400, random_state=10_000)
        ref = SVC(kernel="linear", C=1.0, tol=1e-8).fit(X, y)
        called = ref.decision_function(X_test) >= float(params["t"])
        tn, fp, fn, tp = confusion_matrix(y_test > 0, called).ravel()
        positives = 1 / (tp + fn) + 1e-9  # one test point near the threshold
        assert shown[0] == pytest.approx(100 * tp / (tp + fn), abs=100 * positives)
        assert shown[1] == pytest.approx(100 * fp / (fp + tn), abs=100 / (fp + tn))


def _reference(name: str, params: dict[str, str], shown: list[float]) -> None:
    """The preset's number again, computed without svmlab's solvers."""
    if name.startswith("family_"):
        _family_reference(name, params, shown)
        return
    if name.startswith("losses_"):
        X, y, X_all, y_all, far, X_test, y_test = _losses_data(params)
        clean = SVC(kernel="linear", C=1.0, tol=1e-8).fit(X, y)
        pulled = SVC(kernel="linear", C=1.0, tol=1e-8).fit(X_all, y_all)
        hinge_angle = _angle(clean.coef_[0], pulled.coef_[0])
    if name == "losses_fig_27_17":
        assert shown[0] == round(hinge_angle, 1)
        # The clean fit is a stationary point of the ramp on all the data: every
        # outlier has m < 0 (the ramp is flat there: α = 0) and every clean point
        # m > 0 (the ramp is the hinge there). So the ramp need not turn w.
        m = y_all * clean.decision_function(X_all)
        assert m[far].max() < 0 < m[~far].min()
        assert shown[1] == 0.0
    elif name == "losses_squared_hinge_far":
        # The squared hinge ½ max(0, 1 − m)² is the hard margin on K + I / C.
        K = X_all @ X_all.T
        squared = SVC(kernel="precomputed", C=1e10, tol=1e-8)
        squared.fit(K + np.eye(y_all.size), y_all)
        errors = [
            np.mean(squared.predict(X_test @ X_all.T) != y_test),
            np.mean(pulled.predict(X_test) != y_test),
        ]
        # One test point of 2000 lies on the boundary within the solvers' tol.
        assert np.allclose(shown, 100 * np.array(errors), atol=100 / 2000 + 1e-9)
    elif name == "losses_modified_hinge_delta":
        delta = float(params["delta"])
        # The linear kernel: f = w·x + b, so F = X and u = w.
        _, w = _primal_minimum(X_all, y_all, 1.0, delta)
        assert shown == [round(_angle(clean.coef_[0], w), 1), round(hinge_angle, 1)]
    elif name.startswith("solvers_"):
        X, y = datasets.make("two_circles", n_samples=100, noise=0.0, random_state=0)
        sigma, C = 0.47, 10.0  # the page's defaults (σ on its slider)
        K = kernels.gram(X, X, kernel="gaussian", sigma=sigma)
        if name == "solvers_smo_qp_agree":
            sk = SVC(kernel="rbf", gamma=kernels.gamma_from_sigma(sigma), C=C)
            sk.set_params(tol=1e-10).fit(X, y)
            a = np.zeros(y.size)
            a[sk.support_] = sk.dual_coef_[0]
            dual = np.abs(a).sum() - 0.5 * a @ K @ a
            assert shown == [float(f"{dual:.7g}")] * 2
        elif name == "solvers_coordinate_no_bias":
            # No bias: the dual is a box QP with no equality.
            Q = K * np.outer(y, y)
            fit = minimize(
                lambda a: (0.5 * a @ Q @ a - a.sum(), Q @ a - 1.0),
                np.zeros(y.size),
                jac=True,
                method="L-BFGS-B",
                bounds=[(0.0, C)] * y.size,
                options={"maxiter": 100_000, "gtol": 1e-12, "ftol": 1e-16},
            )
            assert shown == [float(f"{-fit.fun:.7g}")] * 2
        else:  # IRWLS: the iterations are the page's; the optimum is checked
            lam, V = np.linalg.eigh(K)
            keep = lam > 1e-12 * lam.max()
            F = V[:, keep] * np.sqrt(lam[keep])  # F Fᵀ = K
            optimum, _ = _primal_minimum(F, y, C, float(params.get("delta", 0.1)))
            assert shown[1] == float(f"{optimum:.7g}")
            assert shown[0] <= 30  # "a few steps"
    elif name.startswith("regression_"):
        _regression_reference(name, params, shown)
    else:
        k = int(params.get("n_classes", 3))
        blobs = {"n_classes": k, "noise": 1.5, "separation": 4.0}
        X, y = multiclass.make("blobs", n_samples=300, **blobs, random_state=0)
        X_test, y_test = multiclass.make(
            "blobs", n_samples=1000, **blobs, random_state=10_000
        )
        linear = SVC(kernel="linear", C=1.0, tol=1e-8)
        ovr = OneVsRestClassifier(linear).fit(X, y)
        one_point = 100 / 1000 + 1e-9  # a test point on a boundary within tol
        if name == "multiclass_three_methods":
            cs = LinearSVC(
                multi_class="crammer_singer",
                fit_intercept=False,
                C=1.0,
                tol=1e-8,
                max_iter=100_000,
            ).fit(X, y)
            errors = [
                np.mean(m.predict(X_test) != y_test)
                for m in (ovr, linear.fit(X, y), cs)
            ]
            assert np.allclose(shown, 100 * np.array(errors), atol=one_point)
        else:
            scores = ovr.decision_function(X_test)
            open_share = np.mean((scores > 0).sum(axis=1) != 1)
            assert shown[0] == pytest.approx(100 * open_share, abs=one_point)


# -- the tests ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ON_PAGES)
def test_page_preset_measures_its_number_and_its_link_round_trips(name: str) -> None:
    preset = PRESETS[name]
    at = _open(preset.page, query(name))
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert _measured(at) == preset.promise
    assert dict(at.query_params) == query(name)  # URL -> widgets -> URL
    # The paragraph says the number it points at.
    assert _values(preset.promise)[0] in _values(preset.look + preset.title)
    _reference(name, dict(preset.settings), _values(preset.promise))


@pytest.mark.parametrize("state", list(PAGE_STATES.values()), ids=list(PAGE_STATES))
def test_page_links_round_trip_and_defaults_write_nothing(state: PageState) -> None:
    assert state.query(state.values({})) == {}
    for name in ON_PAGES:
        if PRESETS[name].page == state.page:
            link = dict(PRESETS[name].settings)
            errors: list[str] = []
            notes: list[str] = []
            assert state.query(state.values(link, errors, notes)) == link
            assert errors == notes == []


def test_a_bad_link_is_said_plainly_and_every_other_value_kept() -> None:
    errors: list[str] = []
    notes: list[str] = []
    link = {"count": "abc", "C": "1e9", "distance": "-3", "sigma": "0.5"}
    values = LOSSES_STATE.values({**link, "kernel": "gaussian"}, errors, notes)
    assert values["losses_count"] == 5 and values["losses_kernel"] == "gaussian"
    assert values["losses_C"] == 1e4 and values["losses_distance"] == 0.0
    assert values["losses_sigma"] == 0.47  # the σ slider's nearest stop
    assert len(errors) == 1 and "count = 'abc' is not a whole number" in errors[0]
    assert len(notes) == 3 and all("using" in n for n in notes)


def test_a_page_link_from_the_browser_and_the_way_back_to_a_preset() -> None:
    # A malformed and an out-of-range value: one st.error, one st.info, the
    # rest of the link kept, and the URL rewritten with what the page shows.
    at = _open(SOLVERS_STATE.page, {"tol": "abc", "C": "1e9", "bias": "none"})
    assert not at.exception
    assert problems(at) == [
        "The link's tol = 'abc' is not a positive number; using 0.001."
    ]
    assert "C = 1e+09 is outside" in notes(at)[0]
    assert at.selectbox(key="solvers_loss").value == "hinge"
    assert at.radio(key="solvers_bias").value == "none"
    assert dict(at.query_params) == {"C": "10000", "bias": "none"}
    # A preset's link followed in the same session wins over the session.
    at.query_params.clear()
    for key, value in query("solvers_coordinate_no_bias").items():
        at.query_params[key] = value
    at.run()
    assert dict(at.query_params) == query("solvers_coordinate_no_bias")
    assert not at.error and at.select_slider(key="solvers_C").value == 10.0
    at.select_slider(key="solvers_tol").set_value(1e-3).run()
    captions = " ".join(c.value for c in at.caption)
    # Both values, the default's too (issue 44 item 9: "tol 1e-06 → default").
    assert "Changed since: tol 1e-06 → 0.001." in captions
    assert at.query_params["preset"] == "solvers_coordinate_no_bias"
    at.button(key="solvers_preset_back").click().run()
    assert at.select_slider(key="solvers_tol").value == 1e-6
    assert dict(at.query_params) == query("solvers_coordinate_no_bias")
    at.button(key="solvers_preset_leave").click().run()
    assert dict(at.query_params) == {"bias": "none", "tol": "1e-06"}

"""Explore's "C or ν" choice and its sigmoid kernel (AppTest).

ν-SVC's three numbers (margin errors ≤ ν ≤ support vectors), ρ and the
equivalent C against scikit-learn's NuSVC and SVC on the page's own training
points; the picture is the C-SVC with that C, which has ν-SVC's f; an
infeasible ν is one sentence and keeps every other setting; the link carries
the machine and ν. The sigmoid kernel's smallest eigenvalue against NumPy's on
scikit-learn's sigmoid_kernel, and its sentences.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import sigmoid_kernel
from sklearn.svm import SVC as SkSVC
from sklearn.svm import NuSVC as SkNuSVC
from streamlit.testing.v1 import AppTest

from svmlab import SVC, datasets, kernels
from svmlab.errors import ProblemError
from svmlab.ui.explore import cache, controls
from svmlab.ui.explore.settings import ExploreSettings
from tests.pages import EXPLORE, numbers, open_page, problems


def _training(name: str, **params):
    X, y = datasets.make(name, **params, random_state=0)
    train, test = cache.split_indices(y, 0.2, 0)
    return X[train], y[train], X[test], y[test]


def _last_model(at: AppTest):
    return at.session_state[cache.LAST_GOOD_KEY][4]


def test_nu_svc_numbers_and_picture_match_libsvm() -> None:
    # 160 training points, ν n / 2 = 26.4: ρ and b are unique.
    at = open_page(EXPLORE, {"data": "moons", "machine": "nu", "nu": "0.33"})
    assert not problems(at), problems(at)
    shown = numbers(at)
    X, y, X_test, _ = _training("moons", n_samples=200, noise=0.1)
    gamma = kernels.gamma_from_sigma(0.39)  # the moons' σ
    ref = SkNuSVC(nu=0.33, gamma=gamma, tol=1e-8).fit(X, y)
    f = ref.decision_function(X)
    one = 100 / y.size + 1e-9
    assert float(shown["margin errors"][:-2]) == pytest.approx(
        100 * np.mean(y * f < 1 - 1e-6), abs=one
    )
    assert shown["ν"] == "33.0 %"
    assert float(shown["SV fraction"][:-2]) == pytest.approx(
        100 * ref.support_.size / y.size, abs=one
    )
    # The drawn model is the C-SVC with the equivalent C: ν-SVC's f, and
    # scikit-learn's C-SVC with that C agrees.
    record = _last_model(at)
    C = record.nu_model.C_
    assert float(shown["equivalent C"]) == pytest.approx(C, rel=1e-3)
    assert record.model.C == C
    assert np.allclose(
        record.model.decision_function(X_test), ref.decision_function(X_test), atol=2e-3
    )
    same = SkSVC(C=C, gamma=gamma, tol=1e-8).fit(X, y)
    assert np.allclose(
        same.decision_function(X_test), ref.decision_function(X_test), atol=2e-3
    )
    assert shown["iterations (smo)"] == "0"  # started at its optimum
    assert at.query_params["machine"] == "nu" and at.query_params["nu"] == "0.33"


def test_the_machine_radio_and_the_nu_slider() -> None:
    at = open_page(EXPLORE, {"data": "blobs"})
    assert "ν" not in numbers(at)
    at.radio(key=controls.KEYS["machine"]).set_value("nu").run()
    assert not problems(at), problems(at)
    assert numbers(at)["ν"] == "50.0 %"
    at.slider(key=controls.KEYS["nu"]).set_value(0.2).run()
    shown = numbers(at)
    assert shown["ν"] == "20.0 %"
    low, high = (float(shown[k][:-2]) for k in ("margin errors", "SV fraction"))
    assert low <= 20.0 <= high
    assert at.query_params["nu"] == "0.2"
    # The loss, bias and solver wait for C-SVC, greyed out, their values kept.
    assert at.selectbox(key=controls.KEYS["loss"]).disabled
    at.radio(key=controls.KEYS["machine"]).set_value("C").run()
    assert "ν" not in numbers(at) and not problems(at)


def test_infeasible_nu_is_one_sentence_and_keeps_the_rest() -> None:
    link = {"data": "imbalanced", "machine": "nu", "nu": "0.3", "kernel": "gaussian"}
    at = open_page(EXPLORE, link)
    assert not problems(at), problems(at)
    at.slider(key=controls.KEYS["nu"]).set_value(0.6).run()
    assert not at.exception
    assert len(at.error) == 1
    assert "specified nu is infeasible" in at.error[0].value
    # The last picture stays, every setting as set.
    assert any("last one that could be drawn" in c.value for c in at.caption)
    assert at.selectbox(key=controls.KEYS["kernel"]).value == "gaussian"
    assert at.query_params["nu"] == "0.6" and at.query_params["data"] == "imbalanced"


@pytest.mark.parametrize(
    ("link", "said", "nu"),
    [
        ({"nu": "-1"}, "The link's nu = '-1' is not a positive number; using 0.5", 0.5),
        ({"nu": "0.537"}, "ν = 0.537 is not on its slider", 0.54),
        ({"nu": "7"}, "outside the range", 1.0),
    ],
)
def test_a_bad_nu_in_a_link_is_said_once(link, said, nu) -> None:
    notes: list[str] = []
    s = ExploreSettings.from_query({**link, "machine": "nu", "C": "3.3"}, notes)
    assert s.nu == nu and s.machine == "nu" and s.C == 3.3
    assert len(notes) == 1 and said in notes[0]


def test_the_link_round_trips() -> None:
    s = ExploreSettings(dataset="moons", machine="nu", nu=0.25)
    assert s.to_query() == {"data": "moons", "machine": "nu", "nu": "0.25"}
    assert ExploreSettings.from_query(s.to_query()) == s
    assert ExploreSettings().to_query() == {}


# -- the sigmoid kernel -------------------------------------------------------------


def test_sigmoid_kernel_shows_its_smallest_eigenvalue() -> None:
    link = {"data": "blobs", "kernel": "sigmoid", "a": "0.5", "r": "-1"}
    at = open_page(EXPLORE, link)
    assert not problems(at), problems(at)
    X, _, _, _ = _training("blobs", n_samples=200)
    lam = np.linalg.eigvalsh(sigmoid_kernel(X, gamma=0.5, coef0=-1.0))[0]
    shown = numbers(at)
    assert float(shown["smallest eigenvalue of K"]) == pytest.approx(lam, rel=1e-3)
    assert any("not positive semidefinite" in i.value for i in at.info)
    assert dict(at.query_params) == link
    # The squared hinge has no box: refused in one sentence, the rest kept.
    at.selectbox(key=controls.KEYS["loss"]).set_value("squared_hinge").run()
    assert len(at.error) == 1 and "the dual has no maximum" in at.error[0].value
    assert at.selectbox(key=controls.KEYS["kernel"]).value == "sigmoid"
    # A Mercer kernel: no eigenvalue cell, no sentence.
    at = open_page(EXPLORE, {"data": "blobs"})
    assert "smallest eigenvalue of K" not in numbers(at)


def test_the_exact_qp_refuses_a_non_convex_dual_in_one_sentence() -> None:
    X, y = datasets.make("blobs", n_samples=100, random_state=0)
    with pytest.raises(ProblemError, match="not positive semidefinite"):
        SVC(kernel="sigmoid", scale=1.0, solver="qp").fit(X, y)
    # SMO climbs the same dual to a KKT point.
    model = SVC(kernel="sigmoid", scale=1.0, solver="smo").fit(X, y)
    assert model.converged_


def test_the_c_svc_tools_say_so_under_nu_and_the_others_work() -> None:
    at = open_page(EXPLORE, {"data": "two_circles", "machine": "nu", "nu": "0.3"})
    for tool in ("path", "compare"):
        at.radio(key="explore_tool").set_value(tool).run()
        assert not problems(at), problems(at)
        assert any('switch "C or ν"' in i.value for i in at.info), tool
    for tool in ("inspect", "kernel"):
        at.radio(key="explore_tool").set_value(tool).run()
        assert not problems(at), problems(at)


def test_the_c_keys_step_nu_under_nu_svc_and_undo_names_it() -> None:
    at = open_page(EXPLORE, {"data": "moons", "machine": "nu", "nu": "0.3"})
    at.button(key="explore_key_c_up").click().run()
    assert not problems(at), problems(at)
    s = at.session_state["explore_settings"]
    assert s.nu == 0.31 and s.C == ExploreSettings(dataset="moons").C
    assert numbers(at)["ν"] == "31.0 %"
    assert any(c.value.startswith("undo: ν 0.3 → 0.31") for c in at.caption)
    at.button(key="explore_key_c_down").click().run()
    at.button(key="explore_key_c_down").click().run()
    assert at.session_state["explore_settings"].nu == 0.29


def test_slides_under_nu_name_nu_and_offer_no_c_path() -> None:
    from svmlab.ui.explore import slides_panel

    at = open_page(EXPLORE, {"data": "moons", "machine": "nu", "nu": "0.3"})
    assert not problems(at), problems(at)
    settings, _identity, _data, _edits, record = at.session_state[cache.LAST_GOOD_KEY]
    text = slides_panel.caption(settings, record)
    assert f"ν-SVC, ν = 0.3, hinge loss · C = {record.model.C:.4g}" in text
    labels = [b.label for b in at.get("download_button")]
    assert "PNG" in labels and not any(lab.startswith("GIF") for lab in labels)


def test_the_theory_under_nu_is_nu_svcs() -> None:
    at = open_page(EXPLORE, {"machine": "nu", "nu": "0.3"})
    at.toggle(key="explore_theory").set_value(True).run()
    assert not problems(at), problems(at)
    formulas = " ".join(latex.value for latex in at.get("latex"))
    assert r"\nu\rho" in formulas and r"\mathbf 1^\top a = \nu n" in formulas
    assert any("Solver_NU" in m.value for m in at.markdown)

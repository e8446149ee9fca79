"""The code for the SVM family page's view (issue 47), run as a student runs it.

The states: every SVM family preset opened on the page (AppTest, from its
link: the request the page built is recorded, and the popover must hold the
very code the generator writes for it, its threshold and shading included),
and a few made by hand (ν-SVC with the Gaussian kernel and points clicked in;
C-SVC with manual class weights and the sigmoid kernel at a threshold; the
one-class SVM on an upload). Both flavours of each run in one fresh Python
process:

- the svmlab flavour must print the numbers beside the plane and under the
  threshold exactly as the page does (but the fit time), from the page's own
  cached fit (``svmlab.ui.family.requests.fit``, ``numbers``,
  ``threshold_view``);
- the scikit-learn flavour fits ``sklearn.svm``'s SVC, NuSVC or OneClassSVM
  (LIBSVM, the independent reference): decision values at the fit's tol,
  counts off by at most the points the tol leaves open.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from svmlab.snippets import family_code
from svmlab.snippets.writer import LINE
from svmlab.ui.family import page as family_page
from svmlab.ui.family import requests as fp
from svmlab.ui.frame import data_source
from svmlab.ui.frame.presets import FAMILY, PRESETS
from tests.snippet_runs import (
    Tolerance,
    assert_shown,
    floats,
    page_fit_numbers,
    preset_names,
    presets_opened,
    printed,
    run_states,
)

PRESET_NAMES = preset_names(FAMILY)
#: Two points clicked in: (x1, x2, class).
CLICKED = ((0.5, 0.5, 1.0), (-1.0, 2.0, -1.0))


def _view(name: str) -> tuple[float, str]:
    """A preset's threshold and shading (the page's view fields)."""
    settings = dict(PRESETS[name].settings)
    return float(settings.get("t", 0.0)), settings.get("shade", "f")


@pytest.fixture(scope="module")
def opened() -> dict[str, tuple]:
    """Each preset's page: the request it built and the code blocks it shows."""
    return presets_opened(FAMILY, family_page, "family_code")


def _uploaded() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(50, 2)) * [1.0, 0.6] + [0.5, -0.5], 3)
    return X, np.ones(50)


def _hand_made(base: fp.FamilyRequest) -> list[tuple]:
    return [
        (
            "nu_gaussian_clicked",
            replace(base, machine="nu", kernel="gaussian", sigma=1.0, nu=0.3),
            CLICKED,
            0.0,
            None,
        ),
        (
            "manual_weights_sigmoid",
            replace(
                base,
                machine="C",
                kernel="sigmoid",
                a=0.1,
                r=-0.5,
                C=2.0,
                weights="manual",
                w_pos=4.0,
                w_neg=1.0,
            ),
            (),
            -0.25,
            None,
        ),
        (
            "one_class_upload",
            replace(
                base,
                source=data_source.UPLOAD,
                data_items=(),
                machine="one_class",
                kernel="gaussian",
                sigma=1.0,
                nu=0.15,
                train="all",
            ),
            (),
            0.0,
            _uploaded(),
        ),
    ]


def _page_numbers(request, added, threshold, upload) -> tuple[dict[str, str], object]:
    """The page's numbers: its cached fit, the rows beside the plane and the
    threshold's confusion matrix and rates (on the upload where there is one)."""
    rows, fitted = page_fit_numbers(fp, request, added, upload)
    if request.classifier:
        view = fp.threshold_view(fitted, threshold)
        r = view.report
        rows.update(
            {
                "points": view.where,
                "truly +1, called +1 / −1": f"{r.tp} / {r.fn}",
                "truly −1, called +1 / −1": f"{r.fp} / {r.tn}",
                "true positive rate": fp._pct(r.tpr),
                "false positive rate": fp._pct(r.fpr),
                "error": fp._pct(r.error),
                "AUC": f"{view.auc:.3f}",
            }
        )
        p = fp.probability_at(fitted, threshold)
        if p is not None:
            rows["Platt's p at t"] = f"{p:.3f}"
    return rows, fitted


def _family_code(request, added, threshold, upload):
    return family_code(request, added, threshold, "f", upload)


@pytest.fixture(scope="module")
def ran(opened, tmp_path_factory) -> dict[str, tuple]:
    states = [
        (name, (request, (), _view(name)[0], None))
        for name, (request, _) in opened.items()
    ]
    states += [
        (name, tuple(args)) for name, *args in _hand_made(opened[PRESET_NAMES[0]][0])
    ]
    runs = run_states(
        states, _family_code, _page_numbers, tmp_path_factory.mktemp("family_code")
    )
    return {
        name: (s.args[0], s.snippet, *s.page, s.args[2], s.own, s.theirs)
        for name, s in runs.items()
    }


NAMES = [
    *PRESET_NAMES,
    "nu_gaussian_clicked",
    "manual_weights_sigmoid",
    "one_class_upload",
]


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_the_page_shows_the_generators_code_for_its_state(opened, name) -> None:
    request, codes = opened[name]
    t, shade = _view(name)
    assert_shown(codes, family_code(request, (), t, shade))


@pytest.mark.parametrize("name", NAMES)
def test_the_svmlab_code_prints_the_pages_numbers(ran, name) -> None:
    _, _, numbers, fitted, _, own, _ = ran[name]
    shown = printed(own.output())
    for label, value in numbers.items():
        assert shown[label] == value, (label, shown[label], value)
    f = floats(shown["f on the first 5 points"])
    np.testing.assert_allclose(f, fitted.f[:5], atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
def test_the_scikit_learn_code_agrees_at_the_fits_tol(ran, name) -> None:
    """LIBSVM against the page: f within the tol's reach, the counts off by at
    most the points the tol leaves open (f within it of the count's edge)."""
    request, _, numbers, fitted, t, _, theirs = ran[name]
    shown = printed(theirs.output())
    tol = Tolerance(fp.TOL)
    # Both stop at tol in the dual; f moves by up to C times that per point.
    scale = float(request.C) if request.machine == "C" else 1.0
    reach = max(1.0, scale) * 10 * fp.TOL * max(1.0, float(np.abs(fitted.f).max()))
    f = floats(shown["f on the first 5 points"])
    assert np.all(np.abs(f - fitted.f[:5]) <= reach + 1e-6), (f, fitted.f[:5])
    n = len(fitted.y)
    edge = 0.0 if request.machine != "nu" else 1.0
    open_points = tol.open_points(fitted.y * fitted.f, edge) + tol.open_points(
        fitted.f, 0.0
    )
    if request.machine == "C":
        a = int(shown["support vectors"].split("/")[0])
        b = int(numbers["support vectors"].split("/")[0])
        assert abs(a - b) <= open_points + tol.open_points(fitted.y * fitted.f, 1.0)
        if "C₊ / C₋" in numbers:
            assert shown["C₊ / C₋"] == numbers["C₊ / C₋"]
    else:
        label = "outside (f < 0)" if request.machine == "one_class" else "margin errors"
        for key in (label, "support vectors"):
            a = round(float(shown[key].split()[0]) * n / 100)
            b = round(float(numbers[key].split()[0]) * n / 100)
            assert abs(a - b) <= open_points, (key, a, b, open_points)
    if request.machine == "one_class":
        assert abs(float(shown["ρ"]) - float(numbers["ρ"])) <= reach + 1e-3
    if request.classifier:
        f_at = fitted.f_test if fitted.test is not None else fitted.f
        near = tol.open_points(f_at, t)
        for key in ("truly +1, called +1 / −1", "truly −1, called +1 / −1"):
            a = [int(v) for v in shown[key].split(" / ")]
            b = [int(v) for v in numbers[key].split(" / ")]
            assert abs(a[0] - b[0]) <= near, (key, a, b)
        assert abs(float(shown["AUC"]) - float(numbers["AUC"])) <= 0.01
        # Platt's A and B: LIBSVM's folds are its own, so only the sign of A
        # (p rises with f) is the page's.
        assert float(shown["Platt's A, B"].split(",")[0]) < 0
    for errors in ("training errors, class +1", "training errors, class −1"):
        if errors in numbers:
            a = int(shown[errors].split("/")[0])
            b = int(numbers[errors].split("/")[0])
            assert abs(a - b) <= open_points, (errors, a, b)


def test_every_line_fits_and_compiles(opened) -> None:
    request = opened[PRESET_NAMES[0]][0]
    for name, state, added, t, upload in [
        ("preset", request, (), 0.0, None),
        *_hand_made(request),
    ]:
        for code in family_code(state, added, t, "p", upload).flavours().values():
            long = [line for line in code.splitlines() if len(line) > LINE]
            assert not long, (name, long)
            compile(code, name, "exec")

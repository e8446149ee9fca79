"""The code for the Multiclass page's view (issue 47), run as a student runs it.

The states: every Multiclass preset opened on the page (AppTest, from its
link: the request the page built is recorded, and the popover must hold the
very code the generator writes for it), and a few made by hand (the Gaussian
kernel with ν-SVC binary fits; the polynomial kernel with the squared hinge,
which scikit-learn's SVC does not fit; an upload of three classes, split as
the page splits it). Both flavours of each run in one fresh Python process:

- the svmlab flavour must print the numbers under every panel exactly as the
  page does (but the fit times), from the page's own cached comparison
  (``svmlab.ui.multiclass.requests.comparison`` and ``numbers_markdown``);
- the scikit-learn flavour fits ``OneVsRestClassifier(SVC)``, SVC's
  one-vs-one and, for the linear kernel, ``LinearSVC``'s Crammer-Singer
  (LIBSVM and LIBLINEAR, the independent references): the test errors equal
  the page's up to the test points the fits' tol leaves open (a decision
  value within its reach of a boundary).
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from svmlab.snippets import multiclass_code
from svmlab.snippets.sklearn_code import NO_EQUIVALENT
from svmlab.ui.frame import data_source
from svmlab.ui.frame.presets import MULTICLASS
from svmlab.ui.multiclass import page as multiclass_page
from svmlab.ui.multiclass import requests as mp
from tests.snippet_runs import (
    Tolerance,
    lines_fit_test,
    page_code_suite,
    panels_printed_test,
    preset_names,
    rows_printed,
)

PRESET_NAMES = preset_names(MULTICLASS)
#: The binary fits' and Crammer-Singer's tol (svmlab's and LIBSVM's default).
TOL = 1e-3


def _uploaded() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    centres = np.array([[0.0, 0.0], [3.0, 0.5], [1.0, 3.0]])
    y = np.repeat([0, 1, 2], 20)
    X = np.round(centres[y] + rng.normal(size=(60, 2)), 3)
    return X, y


def _hand_made(base: mp.MulticlassRequest) -> list[tuple]:
    return [
        (
            "nu_gaussian",
            replace(base, kernel="gaussian", sigma=0.7, machine="nu", nu=0.2),
            None,
        ),
        (
            "polynomial_squared_hinge",
            replace(base, kernel="polynomial", degree=2, loss="squared_hinge"),
            None,
        ),
        (
            "upload",
            replace(
                base,
                source=data_source.UPLOAD,
                data_items=(("labels", ("a", "b", "c")),),
                kernel="linear",
                C=2.0,
            ),
            _uploaded(),
        ),
    ]


def _panel_numbers(text: str) -> dict[str, str]:
    """The numbers of one panel's ``numbers_markdown`` (the page's text)."""
    test, training, svs = re.search(
        r"test error ([^*]+)\*\* · training ([^·]+) · (\d+) SVs", text
    ).groups()
    out = {"test error": test, "training error": training.strip(), "SVs": svs}
    share = re.search(r"(?:f_c > 0|tied vote|undecided): ([^ ,\n]+ %|none)", text)
    out["undecided"] = "0.0 %" if share.group(1) == "none" else share.group(1)
    wrong = re.search(r", ([^,]+ %) of them wrong", text)
    if wrong:
        out["undecided wrong"] = wrong.group(1)
    return out


def _page_numbers(request, upload) -> tuple[dict[str, dict[str, str]], dict]:
    with pytest.MonkeyPatch.context() as patch:
        if upload is not None:
            patch.setattr(mp.MulticlassRequest, "points", lambda self: upload)
        results = mp.comparison(request)
        data = request.data()
    numbers = {
        method: _panel_numbers(mp.numbers_markdown(result))
        for method, result in results.items()
        if not result.error
    }
    return numbers, (results, data)


opened, ran, test_the_page_shows_the_generators_code_for_its_state = page_code_suite(
    MULTICLASS, multiclass_page, multiclass_code, _page_numbers, _hand_made
)
NAMES = [*PRESET_NAMES, "nu_gaussian", "polynomial_squared_hinge", "upload"]
test_the_svmlab_code_prints_every_panels_numbers = panels_printed_test(
    NAMES, rows_printed, mp.METHODS
)


def _open_points(model, method: str, X_test: np.ndarray, reach: float) -> int:
    """The test points whose label a fit within ``reach`` of the page's could
    change: a binary decision value (one-vs-rest's, one-vs-one's) within reach
    of 0, or Crammer-Singer's two best scores within reach of each other."""
    if method == "ovr":
        values = model.binary_decisions(X_test)
        near = np.any(np.abs(values) <= reach, axis=1)
        top = np.sort(values, axis=1)
        near |= top[:, -1] - top[:, -2] <= 2 * reach
    elif method == "ovo":
        near = np.any(np.abs(model.pairwise_decision_function(X_test)) <= reach, axis=1)
    else:
        top = np.sort(model.decision_function(X_test), axis=1)
        near = top[:, -1] - top[:, -2] <= 2 * reach
    return int(np.sum(near))


@pytest.mark.parametrize("name", NAMES)
def test_the_scikit_learn_code_agrees_at_the_fits_tol(ran, name) -> None:
    request, snippet, numbers, (results, data), _, theirs = ran[name]
    shown = rows_printed(theirs.output())
    _, _, X_test, _ = data
    linear = request.kernel == "linear"
    assert (NO_EQUIVALENT in snippet.sklearn) == (
        not linear
        or (request.machine != "nu" and request.loss != "hinge")
        or (request.machine != "nu" and request.bias != "unregularized")
    )
    assert ("crammer_singer" in shown) == linear
    same_problem = request.machine == "nu" or (
        request.loss == "hinge" and request.bias == "unregularized"
    )
    m = X_test.shape[0]
    reach = 10 * Tolerance(TOL).tol * max(1.0, float(request.C))
    for method in shown:
        if method in ("ovr", "ovo") and not same_problem:
            continue
        model = results[method].model
        open_points = _open_points(model, method, X_test, reach)
        a = round(float(shown[method]["test error"].split()[0]) * m / 100)
        b = round(float(numbers[method]["test error"].split()[0]) * m / 100)
        assert abs(a - b) <= open_points, (method, a, b, open_points)
        if method != "crammer_singer":
            a = round(float(shown[method]["undecided"].split()[0]) * m / 100)
            b = round(float(numbers[method]["undecided"].split()[0]) * m / 100)
            assert abs(a - b) <= open_points, (method, a, b, open_points)


test_every_line_fits_and_compiles = lines_fit_test(
    multiclass_code, lambda request: [("preset", request, None), *_hand_made(request)]
)

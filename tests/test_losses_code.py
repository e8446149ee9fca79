"""The code for the Losses page's view (issue 47), run as a student runs it.

The states: every Losses preset opened on the page (AppTest, from its link: the
request the page built is recorded, and the popover must hold the very code
the generator writes for it), and a few made by hand (the Gaussian kernel with
outliers of class -1 beyond their own class, no outliers, an upload). Both
flavours of each run in one fresh Python process:

- the svmlab flavour must print every number under every panel exactly as the
  page does (the engine the page calls, with the page's request);
- the scikit-learn flavour fits the hinge and the squared hinge with
  ``sklearn.svm.SVC`` (LIBSVM, the independent reference) and must agree with
  the page at the fit's tol, and say that the other three losses have no
  counterpart.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from svmlab.experiments import robustness
from svmlab.experiments.robustness import FitSettings
from svmlab.snippets import losses_code
from svmlab.snippets.sklearn_code import NO_EQUIVALENT
from svmlab.ui.frame import data_source
from svmlab.ui.frame.presets import LOSSES
from svmlab.ui.losses import page as losses_page
from svmlab.ui.losses import requests as lp
from tests.snippet_runs import (
    Tolerance,
    lines_fit_test,
    page_code_suite,
    panels_printed_test,
    percent_count,
    preset_names,
    rows_printed,
)

PRESET_NAMES = preset_names(LOSSES)


def _uploaded() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    X = np.round(rng.normal(size=(50, 2)) * 1.5 + [[1.0, 0.0]], 3)
    y = np.where(X[:, 0] - 0.3 * X[:, 1] + rng.normal(0, 0.7, 50) > 1.0, 1.0, -1.0)
    return X, y


def _hand_made(base: lp.LossesRequest) -> list[tuple[str, lp.LossesRequest, tuple]]:
    return [
        (
            "gaussian_own_side",
            replace(
                base,
                kernel="gaussian",
                sigma=1.5,
                C=2.0,
                count=6,
                distance=4.0,
                label=-1,
                side="own",
            ),
            None,
        ),
        ("no_outliers", replace(base, count=0), None),
        (
            "upload",
            replace(base, source=data_source.UPLOAD, data_items=()),
            _uploaded(),
        ),
    ]


def _page_numbers(request, upload) -> dict[str, dict[str, str]]:
    """The numbers under each panel, by the engine the page calls with its
    request (tests/test_losses_page.py checks the page shows these)."""
    if upload is None:
        X, y, X_test, y_test = request.clean_data()
    else:
        X, y = upload
        X_test, y_test = X, y
    settings = request.model_as(FitSettings, max_seconds=None)
    result = robustness.compare_losses(
        X, y, request.outliers, settings, X_test, y_test, random_state=request.seed
    )
    return {
        loss: dict(lp.panel_numbers(item, request.kernel))
        for loss, item in result.results.items()
    }, result


def _printed(stdout: str) -> dict[str, dict[str, str]]:
    # "labels changed: data" and "...: plane" are labels with a colon in them.
    return rows_printed(stdout, label=r"[^:\n]+(?:: data|: plane)?")


opened, ran, test_the_page_shows_the_generators_code_for_its_state = page_code_suite(
    LOSSES, losses_page, losses_code, _page_numbers, _hand_made
)
NAMES = [*PRESET_NAMES, "gaussian_own_side", "no_outliers", "upload"]
test_the_svmlab_code_prints_every_panels_numbers = panels_printed_test(
    NAMES, _printed, robustness.LOSS_ORDER
)


@pytest.mark.parametrize("name", NAMES)
def test_the_scikit_learn_code_agrees_at_the_fits_tol(ran, name) -> None:
    """The hinge and the squared hinge against LIBSVM: counts off by at most
    the points whose side the tol leaves open, w's angle and the outliers' α
    within the tol's reach."""
    request, snippet, numbers, result, _, theirs = ran[name]
    assert theirs.error is None, theirs.error
    assert NO_EQUIVALENT in snippet.sklearn
    for loss in ("ramp", "squared_ramp", "modified_hinge"):
        assert loss.replace("_", " ") in snippet.sklearn
    shown = _printed(theirs.stdout)
    assert set(shown) == {"hinge", "squared_hinge"}
    tol = Tolerance(1e-3)
    upload = request.source == data_source.UPLOAD
    X_test = result.X[~result.is_outlier] if upload else request.clean_data()[2]
    for loss in ("hinge", "squared_hinge"):
        item = result.results[loss]
        mine, page = shown[loss], numbers[loss]
        m = X_test.shape[0]
        open_test = tol.open_points(item.model.decision_function(X_test), 0.0)
        a = percent_count(mine["test error"], m)
        b = percent_count(page["test error"], m)
        assert abs(a - b) <= open_test, (loss, a, b, open_test)
        open_sv = tol.open_points(item.model.margins_, 1.0)
        a, b = int(mine["support vectors"]), int(page["support vectors"])
        assert abs(a - b) <= open_sv, (loss, a, b, open_sv)
        if request.kernel == "linear":
            # w is known to about tol: its direction to about tol / |w| radians
            # (a w near 0, a nearly constant f, has no direction to compare).
            w = min(
                np.linalg.norm(robustness._weights(m))
                for m in (item.model, item.clean_model)
            )
            reach = np.degrees(10 * tol.tol / w) + 0.1  # 0.1: the printed rounding
            a, b = (float(v["w turned by"].rstrip("°")) for v in (mine, page))
            assert abs(a - b) <= reach, (loss, a, b, reach)
        a, b = (float(v["outliers' Σα"].split()[0]) for v in (mine, page))
        assert abs(a - b) <= 10 * tol.tol * max(1.0, b) * max(1, request.count)


test_every_line_fits_and_compiles = lines_fit_test(
    losses_code, lambda request: [("preset", request, None), *_hand_made(request)]
)

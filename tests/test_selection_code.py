"""The code for the Model selection page's view (issue 47), run as a student
runs it.

The page has no hub presets. Its state opened from its link (AppTest) must show
the very code the generator writes for the request it built; and a few sweeps
made by hand (small grids: the code runs the whole sweep) run both flavours in
one fresh Python process:

- the svmlab flavour must print the page's table "How close, how fast, and
  which model each picks" (but the times) exactly as the page formats it, and
  every criterion's surface, from the page's own engine call and table
  (``criterion_grid.grid_sweep``, ``requests.summary_frame``,
  ``requests.fresh_test_errors``); and the summary of Lee (2006) the package
  ships, as the page loads it (``requests.load_lee``);
- the scikit-learn flavour says that the modified hinge and its
  approximations have no counterpart and computes exact leave-one-out of
  ``SVC`` (the hinge) instead: its held-out errors must equal svmlab's own
  exact leave-one-out of the hinge (SMO, another solver) at every cell, up to
  the points whose held-out margin the tol leaves open.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import svmlab
from svmlab.experiments import criterion_grid
from svmlab.snippets import selection_code
from svmlab.snippets.sklearn_code import NO_EQUIVALENT
from svmlab.snippets.writer import LINE
from svmlab.ui.frame import data_source
from svmlab.ui.selection import page as selection_page
from svmlab.ui.selection import requests as sp
from tests.pages import open_page
from tests.snippet_runs import (
    Tolerance,
    assert_shown,
    floats,
    rows_printed,
    states_ran,
)

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "pages/2_Model_selection.py"


@pytest.fixture(scope="module")
def opened() -> tuple:
    """The page from its link: the request it handed the generator and the
    code blocks it shows."""
    seen: list = []
    real = selection_page.selection_code

    def recorded(request, *args):
        seen.append(request)
        return real(request, *args)

    query = {"n": "60", "nC": "3", "nsigma": "3", "delta": "0.01"}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(selection_page, "selection_code", recorded)
        at = open_page(PAGE, query, default_timeout=300)
    assert not at.exception, at.exception
    return seen[-1], [c.value for c in at.code]


def _uploaded() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(4)
    X = np.round(rng.uniform(-1, 1, size=(40, 2)), 3)
    y = np.where(np.hypot(*X.T) < 0.6, 1.0, -1.0)
    y[rng.choice(40, 4, replace=False)] *= -1
    return X, y


def _hand_made(base: sp.SweepRequest) -> list[tuple]:
    small = replace(
        base,
        source="two_circles",
        data_items=(("n_samples", 50), ("random_state", 3)),
        Cs=(0.1, 10.0, 1000.0),
        sigmas=(0.2, 0.6),
        delta=0.01,
    )
    return [
        ("every_criterion", replace(small, criteria=sp.DEFAULT_CRITERIA), None),
        (
            "lee_rule_regularized",
            replace(small, criteria=("lee", "loo"), stop="lee", bias="regularized"),
            None,
        ),
        (
            "upload",
            replace(
                small,
                source=data_source.UPLOAD,
                data_items=(),
                criteria=("plugin", "loo"),
            ),
            _uploaded(),
        ),
    ]


def _page_table(request, upload) -> tuple[dict[str, dict[str, str]], object]:
    """The page's table, formatted as the page formats it (its number_table
    formats), and the sweep, by the page's own calls."""
    X, y = sp.request_data(request) if upload is None else upload
    result = criterion_grid.grid_sweep(
        request.estimator(), X, y, request.Cs, request.sigmas, request.criteria
    )
    stored = sp.StoredSweep(request, result, X, y)
    tests = {
        name: sp.fresh_test_errors(request, *result.best(name), X, y)
        for name in result.criteria
    }
    frame = sp.summary_frame(stored, tests)
    titles = {c.short_title: name for name, c in sp.selection.CRITERIA.items()}
    rows = {}
    for row in frame.to_dict("records"):
        rows[titles[row["criterion"]]] = {
            # The page's short headers, the snippet's longer words.
            "ρ vs LOO": f"{row['ρ']:.3f}",
            "C": f"{row['C']:.4g}",
            "σ": f"{row['σ']:.4g}",
            "Lee σ²": f"{row['Lee σ²']:.4g}",
            "steps from LOO": str(row["steps"]),
            "not converged": str(row["unconverged"]),
            **(
                {"test error": f"{row['test error']:.4f}"}
                if row["test error"] is not None
                else {}
            ),
        }
    return rows, (result, X, y)


def _printed(stdout: str) -> dict[str, dict[str, str]]:
    # The criteria's rows, and the Lee (2006) section's.
    return rows_printed(stdout, name=r"\w+|Lee 2006")


@pytest.fixture(scope="module")
def ran(opened, tmp_path_factory) -> dict[str, tuple]:
    workdir = tmp_path_factory.mktemp("selection_code")
    return states_ran(_hand_made(opened[0]), selection_code, _page_table, workdir)


NAMES = ["every_criterion", "lee_rule_regularized", "upload"]


def test_the_page_shows_the_generators_code_for_its_state(opened) -> None:
    request, codes = opened
    assert len(request.Cs) == 3 and request.delta == 0.01
    assert_shown(codes, selection_code(request))


@pytest.mark.parametrize("name", NAMES)
def test_the_svmlab_code_prints_the_pages_table(ran, name) -> None:
    _, _, rows, (result, _, _), own, _ = ran[name]
    shown = _printed(own.output())
    for criterion, row in rows.items():
        scores = floats(shown[criterion].pop("scores"))
        np.testing.assert_allclose(
            scores, result.scores[criterion].ravel(), rtol=1e-9, atol=1e-12
        )
        assert shown[criterion] == row, criterion
    lee = sp.load_lee()
    for key, row in lee["summary"].items():
        if "mean_test_error" in row:
            mean = float(shown["Lee 2006"][key].split(" ± ")[0])
            assert abs(mean - row["mean_test_error"]) < 5e-5, key


@pytest.mark.parametrize("name", NAMES)
def test_the_scikit_learn_code_agrees_with_svmlabs_hinge_loo(ran, name) -> None:
    request, snippet, _, (_, X, y), _, theirs = ran[name]
    assert theirs.error is None, theirs.error
    assert NO_EQUIVALENT in snippet.sklearn and "instead" in snippet.sklearn
    shown = _printed(theirs.stdout)["svc_loo"]
    errors = floats(shown["errors"]).reshape(len(request.sigmas), len(request.Cs))
    hinge = svmlab.SVC(kernel="gaussian", loss="hinge", tol=1e-3)
    reference = criterion_grid.grid_sweep(
        hinge, X, y, request.Cs, request.sigmas, ("loo",)
    )
    tol = Tolerance(1e-3)
    n = len(y)
    for i in range(len(request.sigmas)):
        for j in range(len(request.Cs)):
            margins = reference.margins["loo"][i, j]
            reach = tol.open_points(margins, 0.0)
            a = round(errors[i, j] * n)
            b = round(reference.errors["loo"][i, j] * n)
            assert abs(a - b) <= reach, (i, j, a, b, reach)


def test_every_line_fits_and_compiles(opened) -> None:
    request = opened[0]
    for name, state, upload in [("page", request, None), *_hand_made(request)]:
        for code in selection_code(state, upload).flavours().values():
            long = [line for line in code.splitlines() if len(line) > LINE]
            assert not long, (name, long)
            compile(code, name, "exec")

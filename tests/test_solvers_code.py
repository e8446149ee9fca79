"""The code for the Solvers page's view (issue 47), run as a student runs it.

The states: every Solvers preset opened on the page (AppTest, from its link:
the request the page built is recorded, and the popover must hold the very
code the generator writes for it), and a few made by hand (the linear kernel
with the squared hinge and the regularized bias, where LinearSVC joins; the
ramp loss, which no library solves; an upload with the polynomial kernel). Both
flavours of each run in one fresh Python process:

- the svmlab flavour must print the page's table exactly (but the times),
  row by row, as the page formats it (``svmlab.ui.solvers.requests.table``);
- the scikit-learn flavour fits ``sklearn.svm.SVC`` (and ``LinearSVC`` where
  it applies): its objective must equal the exact QP's (the page's reference,
  an interior-point method, not LIBSVM) at the fit's tol, its SV counts the
  QP's up to the points the tol leaves open; where SVC does not solve the
  page's problem it must say so.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from svmlab import figures
from svmlab.experiments.solver_comparison import (
    ModelSpec,
    compare_solvers,
    reference_solution,
)
from svmlab.snippets import solvers_code
from svmlab.snippets.sklearn_code import NO_EQUIVALENT
from svmlab.ui.frame import data_source
from svmlab.ui.frame.presets import SOLVERS
from svmlab.ui.solvers import page as solvers_page
from svmlab.ui.solvers import requests as sp
from svmlab.ui.solvers.text import titles
from tests.snippet_runs import (
    Tolerance,
    lines_fit_test,
    page_code_suite,
    preset_names,
)

PRESET_NAMES = preset_names(SOLVERS)
#: The page's budget of one fit (``svmlab.ui.frame.room.fit_seconds``).
FIT_SECONDS = 5.0


def _uploaded() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(60, 2)), 3)
    y = np.where(X[:, 0] * X[:, 1] + rng.normal(0, 0.3, 60) > 0, 1.0, -1.0)
    return X, y


def _hand_made(base: sp.SolversRequest) -> list[tuple]:
    return [
        (
            "linear_squared_regularized",
            replace(
                base,
                source="blobs",
                data_items=(("n_samples", 80), ("noise", 1.5), ("random_state", 3)),
                kernel="linear",
                loss="squared_hinge",
                bias="regularized",
                C=0.5,
            ),
            None,
        ),
        ("ramp", replace(base, loss="ramp", C=1.0), None),
        (
            "upload_polynomial",
            replace(
                base,
                source=data_source.UPLOAD,
                data_items=(),
                kernel="polynomial",
                degree=2,
                C=1.0,
            ),
            _uploaded(),
        ),
    ]


def _page_table(request, upload):
    """The page's table, by the engine call the page makes
    (``sp.comparison``) and the page's own formatting (``sp.table``)."""
    X, y = request.data() if upload is None else upload
    model = request.model_as(ModelSpec, max_seconds=FIT_SECONDS)
    result = compare_solvers(
        X, y, model, bounds=figures.data_bounds(X), resolution=sp.RESOLUTION
    )
    frame, _ = sp.table(result)
    by_title = {t: n for n, t in titles().items()}
    rows = {}
    for row in frame.to_dict("records"):
        name = by_title[row.pop("solver").removesuffix(" · library")]
        row.pop("ms")
        rows[name] = row
    return rows, result


def _printed(stdout: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for line in stdout.splitlines():
        name, sep, rest = line.partition(" | ")
        if sep and name.isidentifier():
            label, _, value = rest.partition(": ")
            out.setdefault(name, {})[label] = value
    return out


opened, ran, test_the_page_shows_the_generators_code_for_its_state = page_code_suite(
    SOLVERS, solvers_page, solvers_code, _page_table, _hand_made
)
NAMES = [*PRESET_NAMES, "linear_squared_regularized", "ramp", "upload_polynomial"]


@pytest.mark.parametrize("name", NAMES)
def test_the_svmlab_code_prints_the_pages_table(ran, name) -> None:
    _, _, rows, result, own, _ = ran[name]
    shown = _printed(own.output())
    fitted = {n: r for n, r in shown.items() if "not valid" not in r}
    invalid = {n for n, r in shown.items() if "not valid" in r}
    assert invalid == {r.name for r in result.rows if not r.valid}
    for name, row in rows.items():
        assert fitted[name] == row, name
    assert set(fitted) == set(rows)


@pytest.mark.parametrize("name", NAMES)
def test_the_scikit_learn_code_agrees_with_the_qp_at_the_fits_tol(ran, name) -> None:
    request, snippet, _, result, _, theirs = ran[name]
    shown = _printed(theirs.output())
    assert NO_EQUIVALENT in snippet.sklearn  # svmlab's other solvers
    for solver in ("CCCP", "IRWLS", "coordinate ascent", "entropy dual"):
        assert solver in snippet.sklearn
    libsvm_problem = (
        request.loss == "hinge"
        and request.bias == "unregularized"
        and math.isfinite(request.C)
    )
    # The second sentence (this problem is not SVC's) is there exactly when
    # SVC's numbers cannot be the page's.
    assert ("for this problem either" in snippet.sklearn) != libsvm_problem
    assert "libsvm" in shown
    if libsvm_problem:
        tol = Tolerance(request.tol)
        qp = result.row("qp")
        # SVC's answer met LIBSVM's tol: its objective the exact QP's at it.
        assert tol.close(float(shown["libsvm"]["objective"]), qp.objective)
        a = [int(v) for v in shown["libsvm"]["SVs free/bound"].split(" / ")]
        model = request.model_as(ModelSpec)
        X, y = result.X, result.y
        _, ref = reference_solution(model.problem(model.gram(X), y))
        f = model.gram(X) @ (ref.alpha * y) + ref.b
        m = y * f
        open_points = tol.open_points(m, 1.0)
        assert abs(a[0] - qp.n_free) <= open_points, (a, qp.n_free, open_points)
        assert abs(a[1] - qp.n_bound) <= open_points, (a, qp.n_bound, open_points)
    if (
        request.kernel == "linear"
        and request.loss in ("hinge", "squared_hinge")
        and (request.bias != "unregularized")
    ):
        tol = Tolerance(request.tol)
        objective = float(shown["liblinear"]["objective"])
        assert tol.close(objective, result.row("qp").objective), objective
    else:
        assert "liblinear" not in shown


test_every_line_fits_and_compiles = lines_fit_test(
    solvers_code,
    lambda request: [
        ("preset", request, None),
        ("hard", replace(request, C=math.inf), None),
        *_hand_made(request),
    ],
)

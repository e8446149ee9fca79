"""The notebook in docs/notebooks/ (issue 47), executed as a student runs it.

nbclient runs every cell in a fresh IPython kernel (this checkout's svmlab on
the path, nothing written back to the tracked file); then what the cells print
is checked against references that do not share svmlab's code:

- the fit and the loop over C against scikit-learn's SVC (LIBSVM) with the
  same kernel, at the fit's tol;
- the hinge on the outlier data against scikit-learn, and the ramp by its own
  optimality (an outlier with a negative margin has α = 0) and by CCCP's
  descent (its objective is at most the ramp objective of the hinge solution,
  computed from scikit-learn's fit);
- the exact leave-one-out against n refits from scratch on n - 1 points (the
  library's is warm-started from the full fit), and Lee's ACV against its
  lower bound, the training loss mean.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient
from sklearn.svm import SVC as SklearnSVC

import svmlab
from svmlab import datasets
from svmlab.losses import make_loss
from tests.snippet_runs import Tolerance, floats

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "docs" / "notebooks" / "after_the_lecture.ipynb"
#: svmlab's SVC's default tol (the notebook sets none).
TOL = Tolerance(svmlab.SVC().tol)


@pytest.fixture(scope="module")
def executed() -> nbformat.NotebookNode:
    book = nbformat.read(NOTEBOOK, as_version=4)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(ROOT))  # the kernel imports this checkout
        client = NotebookClient(
            book,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOK.parent)}},
        )
        client.execute()
    return book


def _text(book: nbformat.NotebookNode) -> str:
    return "".join(
        out["text"]
        for cell in book.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if out["output_type"] == "stream" and out["name"] == "stdout"
    )


def _circles() -> tuple[np.ndarray, np.ndarray]:
    return datasets.make("two_circles", n_samples=80, noise=0.05, random_state=0)


def _sklearn(X, y, C: float, **kernel) -> tuple[SklearnSVC, np.ndarray]:
    model = SklearnSVC(C=C, tol=TOL.tol, **kernel).fit(X, y)
    return model, model.decision_function(X)


def test_every_cell_runs_and_the_figures_draw(executed) -> None:
    code = [c for c in executed.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    kinds = [o["output_type"] for c in code for o in c.outputs]
    assert "error" not in kinds
    figures = [
        o["data"]["application/vnd.plotly.v1+json"]
        for c in code
        for o in c.outputs
        if "application/vnd.plotly.v1+json" in o.get("data", {})
    ]
    assert len(figures) == 2
    for figure in figures:
        names = {trace.get("name") for trace in figure["data"]}
        assert {"f = 0 (boundary)", "f = +1 margin", "f = −1 margin"} <= names


def test_the_fit_and_the_loop_over_C_agree_with_scikit_learn(executed) -> None:
    """Gaussian sigma = 0.5 is scikit-learn's rbf with gamma = 1 / (2 sigma^2)."""
    text = _text(executed)
    X, y = _circles()
    rows = re.findall(
        r"^C = (\S+): support vectors (\d+), training error (\S+), b = (\S+)$",
        text,
        re.MULTILINE,
    )
    assert [float(r[0]) for r in rows] == [0.1, 1.0, 10.0, 100.0]
    for C, n_sv, error, b in rows:
        model, f = _sklearn(X, y, float(C), kernel="rbf", gamma=2.0)
        margins = y * f
        assert abs(int(n_sv) - model.support_.size) <= TOL.open_points(margins, 1.0)
        wrong = round(float(error) * y.size)
        theirs = int(np.sum(np.where(f > 0, 1.0, -1.0) != y))
        assert abs(wrong - theirs) <= TOL.open_points(f, 0.0), C
        assert TOL.close(float(b), model.intercept_[0]), (C, b, model.intercept_)
    # The first fit (C = 1) prints what the loop prints for C = 1.
    first = re.search(r"^bias b: (\S+)$", text, re.MULTILINE)
    assert first is not None and first.group(1) == rows[1][3]
    n_first = re.search(
        r"^support vectors: (\d+) \((\d+) free, (\d+) bound\)", text, re.MULTILINE
    )
    assert n_first is not None and n_first.group(1) == rows[1][1]
    assert int(n_first.group(2)) + int(n_first.group(3)) == int(n_first.group(1))


def _loss_block(text: str, loss: str) -> dict[str, str]:
    block = re.search(
        rf"^{loss}: support vectors (\d+), objective (\S+), b = (\S+)\n"
        r"  outliers' alpha: (\[.*?\])\n  outliers' f: (\[.*?\])",
        text,
        re.MULTILINE | re.DOTALL,
    )
    assert block is not None, loss
    return dict(
        zip(("n_sv", "objective", "b", "alpha", "f"), block.groups(), strict=True)
    )


def test_the_hinge_pays_for_the_outliers_and_the_ramp_gives_them_up(executed) -> None:
    text = _text(executed)
    X, y = datasets.make("outlier_blobs", n_samples=60, n_outliers=4, random_state=0)
    C = 1.0
    model, f = _sklearn(X, y, C, kernel="linear")
    hinge = _loss_block(text, "hinge")
    assert abs(int(hinge["n_sv"]) - model.support_.size) <= TOL.open_points(y * f, 1.0)
    assert TOL.close(float(hinge["b"]), model.intercept_[0])
    alpha = np.zeros(y.size)
    alpha[model.support_] = np.abs(model.dual_coef_[0])
    np.testing.assert_allclose(floats(hinge["alpha"]), alpha[-4:], atol=1e-6)
    np.testing.assert_allclose(floats(hinge["f"]), f[-4:], atol=10 * TOL.tol)

    ramp = _loss_block(text, "ramp")
    f_ramp = floats(ramp["f"])
    # An outlier (label +1) with f < 0 sits where the ramp is flat: α = 0.
    assert np.all(f_ramp < 0)
    assert np.all(floats(ramp["alpha"]) == 0)
    # CCCP descends from the hinge solution: the ramp objective there bounds it.
    norm2 = model.dual_coef_[0] @ (f[model.support_] - model.intercept_[0])
    ramp_loss = np.minimum(1.0, np.maximum(0.0, 1.0 - y * f))
    assert float(ramp["objective"]) <= 0.5 * norm2 + C * ramp_loss.sum()
    assert float(ramp["objective"]) < float(hinge["objective"])


def test_the_exact_leave_one_out_matches_refits_from_scratch(executed) -> None:
    text = _text(executed)
    X, y = _circles()
    rows = re.findall(
        r"^C = (\S+): ACV (\S+), exact leave-one-out (\S+)$", text, re.MULTILINE
    )
    assert [float(r[0]) for r in rows] == [0.1, 1.0, 10.0]
    for C, acv, loo in rows:
        settings = dict(
            C=float(C),
            kernel="gaussian",
            sigma=0.5,
            loss="modified_hinge",
            bias="none",
        )
        full = svmlab.SVC(**settings).fit(X, y)
        h = make_loss("modified_hinge", delta=full.delta)
        held_out = np.empty(y.size)
        for i in range(y.size):
            keep = np.arange(y.size) != i
            model = svmlab.SVC(**settings).fit(X[keep], y[keep])
            held_out[i] = y[i] * model.decision_function(X[i : i + 1])[0]
        assert abs(float(loo) - np.mean(h.value(held_out))) <= 1e-3, C
        # Lee's ACV adds a non-negative term per point to the training loss mean.
        assert float(acv) >= np.mean(h.value(full.margins_)) - 1e-6

"""The code for a Model selection view: the criteria over a (C, σ) grid, and
Lee (2006)'s experiment as the package ships it.

:func:`selection_code` reads the page's sweep request (an object with the
fields of ``svmlab.ui.selection.requests.SweepRequest``, read by name: the data
source and its generator's settings, the grid's C and σ values, the criteria,
δ, the bias and how the fits stop, with ``model_items()`` the estimator's
keywords) and, for uploaded data, the points themselves. The svmlab flavour
runs the page's sweep (:func:`svmlab.experiments.criterion_grid.grid_sweep`)
and prints the page's table "How close, how fast, and which model each picks"
(but the times, the run's own), each criterion's surface, and the summary of
Lee (2006) reproduced that the package ships. The scikit-learn flavour says
that the modified hinge and the approximations have no counterpart, and runs
exact leave-one-out of ``SVC`` (the hinge) over the same grid instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from svmlab.array_types import Array
from svmlab.snippets import sklearn_code, writer
from svmlab.snippets.sklearn_code import NO_EQUIVALENT
from svmlab.snippets.writer import (
    Snippet,
    call,
    comment,
    literal,
    section,
)

__all__ = ["N_TEST_SETS", "selection_code"]

#: Fresh test sets of the chosen models (``requests.N_TEST_SETS``) and the
#: largest of them (``requests.MAX_TEST_SIZE``).
N_TEST_SETS, MAX_TEST_SIZE = 20, 200


def _data_section(r: Any, upload: tuple[Array, Array] | None, imports: str) -> str:
    if upload is not None:  # the page's labels: +1 and -1
        upload = (upload[0], np.where(np.asarray(upload[1]) > 0, 1.0, -1.0))
    return writer.generator_section(r.source, dict(r.data_items), upload, imports)


def _grid_lines(r: Any) -> list[str]:
    return [
        f"Cs = {literal([float(c) for c in r.Cs])}",
        f"sigmas = {literal([float(s) for s in r.sigmas])}",
    ]


def _test_error_lines(r: Any, upload: Any) -> list[str]:
    """The mean misclassification of a chosen model on the page's fresh test
    sets (``requests.fresh_test_errors``); none for an upload."""
    if upload is not None:
        return ["# Fresh test sets need a generator: none for uploaded data."]
    items = dict(r.data_items)
    seed = int(items.pop("random_state", 0))
    items["n_samples"] = min(int(items.get("n_samples", 100)), MAX_TEST_SIZE)
    return [
        f"# The chosen model on {N_TEST_SETS} fresh test sets of the same generator",
        "# (seeds [seed, 1, k]: never the training draw).",
        "def test_error(C, sigma):",
        "    chosen = sklearn.base.clone(model).set_params(C=C, sigma=sigma).fit(X, y)",
        "    errors = []",
        f"    for k in range({N_TEST_SETS}):",
        call(
            "datasets.make",
            {**items, "random_state": f"=np.random.default_rng([{seed}, 1, k])"},
            indent="        ",
            prefix="X_new, y_new = ",
            args=(r.source,),
        ),
        "        margins = y_new * chosen.decision_function(X_new)",
        "        errors.append(selection.misclassification(margins))",
        "    return np.mean(errors)",
        "",
        "",
    ]


def _svmlab_sweep(r: Any, upload: Any) -> str:
    generated = upload is None
    return section(
        "The sweep and the page's table: how close, and which model each picks",
        "# The estimator every cell clones: Lee's modified hinge, fitted to its",
        "# optimality conditions (the entropy dual) or stopped by Lee's rule (IRWLS).",
        call("svmlab.SVC", dict(r.model_items()), prefix="model = "),
        *_grid_lines(r),
        "result = criterion_grid.grid_sweep(",
        f"    model, X, y, Cs, sigmas, criteria={literal(tuple(r.criteria))}",
        ")",
        "",
        *_test_error_lines(r, upload),
        "# Per criterion: its argmin (C, σ; Lee's σ² = 2σ²), the rank correlation",
        "# of its surface with exact leave-one-out's, the grid steps between their",
        "# choices and the cells whose fits did not converge. The times are this",
        "# run's own, so they are left out.",
        "for name in result.criteria:",
        "    C, sigma = result.best(name)",
        '    rho = 1.0 if name == "loo" else result.spearman(name)',
        '    print(f"{name} | ρ vs LOO: {rho:.3f}")',
        '    print(f"{name} | C: {C:.4g}")',
        '    print(f"{name} | σ: {sigma:.4g}")',
        '    print(f"{name} | Lee σ²: {2 * sigma**2:.4g}")',
        '    print(f"{name} | steps from LOO: {result.argmin_distance(name)}")',
        '    print(f"{name} | not converged: {np.sum(~result.converged[name])}")',
        *(
            ['    print(f"{name} | test error: {test_error(C, sigma):.4f}")']
            if generated
            else []
        ),
        "    # The surface, rows σ and columns C (the page's heatmap).",
        '    scores = [float(f"{s:.10g}") for s in result.scores[name].ravel()]',
        '    print(f"{name} | scores: {scores}")',
    )


def _svmlab_figure() -> str:
    return section(
        "The surfaces (a notebook draws them; a script opens browser tabs)",
        "for name in result.criteria:",
        "    figures.heatmap_figure(result, name).show()",
    )


def _lee_section() -> str:
    return section(
        "Lee (2006) reproduced: the results the package ships (as the page shows)",
        "from svmlab.experiments import lee2006",
        "",
        "lee = lee2006.load()  # svmlab/experiments/results/lee2006.json",
        'for name, row in lee["summary"].items():',
        '    if "mean_test_error" in row:',
        '        mean, sd = row["mean_test_error"], row["sd_test_error"]',
        '        error = f"{mean:.4f} ± {sd:.4f}"',
        '        print(f"Lee 2006 | {name}: {error}")',
        'print("Lee 2006 | the paper:", lee["paper"])',
    )


# -- scikit-learn ------------------------------------------------------------------


def _sklearn_sweep(r: Any) -> str:
    why = comment(
        f"{NO_EQUIVALENT}: the page fits Lee's modified hinge (a smooth "
        "hinge, δ = "
        f"{r.delta:g}) by svmlab's entropy dual or IRWLS, and its "
        "approximations of leave-one-out (Lee's ACV, plug-in, ALO, the span "
        "rule) have no scikit-learn counterpart. This script computes exact "
        "leave-one-out of scikit-learn's SVC, the hinge (the modified hinge's "
        "limit as δ -> 0) with an unregularized b, over the same grid instead "
        "(GridSearchCV with LeaveOneOut), so its numbers differ from the "
        "page's: the misclassification rate of the held-out points, not the "
        "loss of their margins."
    )
    return section(
        "Exact leave-one-out of SVC over the same grid",
        "from sklearn.model_selection import GridSearchCV, LeaveOneOut",
        "from sklearn.svm import SVC",
        "",
        *why,
        *_grid_lines(r),
        "# svmlab's σ: k = exp(-|x - z|^2 / (2 σ^2)); scikit-learn's gamma is",
        "# 1 / (2 σ^2).",
        "gammas = [1.0 / (2.0 * s**2) for s in sigmas]",
        "search = GridSearchCV(",
        '    SVC(kernel="rbf"),',
        '    {"C": Cs, "gamma": gammas},',
        "    cv=LeaveOneOut(),",
        ")",
        "search.fit(X, y)",
        "# Rows σ, columns C, as the page's heatmaps: the held-out error rate.",
        'error = 1.0 - search.cv_results_["mean_test_score"]',
        "error = error.reshape(len(Cs), len(sigmas)).T",
        "i, j = np.unravel_index(np.argmin(error), error.shape)",
        'print("svc_loo | C:", f"{Cs[j]:.4g}")',
        'print("svc_loo | σ:", f"{sigmas[i]:.4g}")',
        'print("svc_loo | held-out error:", f"{error[i, j]:.4f}")',
        'print("svc_loo | errors:", np.round(error.ravel(), 8).tolist())',
    )


#: The held-out error over the grid by matplotlib, the best cell starred.
FIGURE_LINES = (
    "fig, ax = plt.subplots(figsize=(6, 5))",
    "image = ax.pcolormesh(np.log10(Cs), np.log10(sigmas), error, shading='auto')",
    'fig.colorbar(image, label="leave-one-out error")',
    'ax.plot(np.log10(Cs[j]), np.log10(sigmas[i]), "w*", markersize=14)',
    'ax.set_xlabel("log10 C")',
    'ax.set_ylabel("log10 σ")',
)


# -- the snippet -------------------------------------------------------------------


def _describe(r: Any) -> str:
    """The view's title after "Model selection: " and the data's name."""
    fits = "Lee's rule" if r.stop == "lee" else "converged fits"
    return f", {len(r.Cs)} C × {len(r.sigmas)} σ, δ = {r.delta:g}, {fits}"


def selection_code(request: Any, upload: tuple[Array, Array] | None = None) -> Snippet:
    """The code for the Model selection page's sweep of ``request`` (on
    ``upload``'s points when the data were uploaded) and its Lee (2006)
    section."""
    r = request
    title = writer.view_title("Model selection", r.source, upload, _describe(r))
    return writer.page_snippet(
        title,
        "Model selection",
        "it runs the sweep the page's Run sweep button runs and prints the page's "
        "table (but the times).",
        [
            _data_section(
                r,
                upload,
                "import sklearn.base\n\nimport svmlab\n"
                "from svmlab import datasets, figures\n"
                "from svmlab.experiments import criterion_grid, selection",
            ),
            _svmlab_sweep(r, upload),
            _svmlab_figure(),
            _lee_section(),
        ],
        [
            _data_section(r, upload, "from svmlab import datasets"),
            _sklearn_sweep(r),
            sklearn_code.figure_section(
                "The surface, drawn by matplotlib",
                FIGURE_LINES,
                "SVC (hinge): leave-one-out error",
            ),
        ],
        stem="svmlab_selection",
    )

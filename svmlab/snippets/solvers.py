"""The code for a Solvers view: every solver on the same problem, side by side.

:func:`solvers_code` reads the page's request (an object with the fields of
``svmlab.ui.solvers.requests.SolversRequest``, read by name: the data source
and its generator's settings, the kernel, loss, C, sigma, degree, bias, delta
and tol) and, for uploaded data, the points themselves. The svmlab flavour
makes the call the page makes
(:func:`svmlab.experiments.solver_comparison.compare_solvers`) and prints the
table the way the page prints it, but the times (the run's own); the
scikit-learn flavour fits ``sklearn.svm.SVC`` (LIBSVM's SMO, the one solver
scikit-learn has for this problem) and ``LinearSVC`` where it solves the same
problem, scores them by the page's formulas and says that svmlab's other
solvers have no counterpart.
"""

from __future__ import annotations

import math
from typing import Any

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

__all__ = ["RESOLUTION", "solvers_code"]

#: Grid points per side of the plane where the page takes max |f - f_ref|
#: (``svmlab.ui.solvers.requests.RESOLUTION``).
RESOLUTION = 60
#: What the C = ∞ of a hard margin becomes in scikit-learn (it needs a finite C).
HARD_C = 1e10
#: The labels of the page's table, in its order (the times left out).
COLUMNS = (
    "iter.",
    "objective",
    "KKT viol.",
    "gap",
    "SVs free/bound",
    "max |f − f_ref|",
    "met tol",
)


def _data_section(r: Any, upload: tuple[Array, Array] | None, imports: str) -> str:
    return writer.generator_section(r.source, dict(r.data_items), upload, imports)


def _model_kwargs(r: Any) -> dict[str, Any]:
    return {
        "kernel": r.kernel,
        "loss": r.loss,
        "C": float(r.C),
        "sigma": float(r.sigma),
        "degree": int(r.degree),
        "bias": r.bias,
        "delta": float(r.delta),
        "tol": float(r.tol),
    }


#: How the page writes a number and "met tol" (``svmlab.ui.solvers.requests``).
FORMAT_LINES = (
    "def num(value, digits=4):",
    "    if value is None or not math.isfinite(value):",
    '        return "—"',
    '    return f"{value:.{digits}g}"',
    "",
    "",
    "def met(row):",
    "    if row.met_tol is None:",
    '        return "—"',
    "    if row.met_tol:",
    '        return "yes"',
    '    if row.library and row.stop_reason == "rule":',
    '        return "its own test"',
    "    return f\"no ({row.stop_reason.replace('_', ' ')})\"",
)


def _svmlab_table(r: Any) -> str:
    return section(
        "Every solver on the same problem: the page's table",
        "# Each fit's time budget is 5 s, as on the page. The times are this",
        "# run's own, so they are left out.",
        call("solver_comparison.ModelSpec", _model_kwargs(r), prefix="model = "),
        "result = solver_comparison.compare_solvers(",
        f"    X, y, model, bounds=figures.data_bounds(X), resolution={RESOLUTION}",
        ")",
        "",
        *FORMAT_LINES,
        "",
        "",
        'print("reference:", result.reference or "none (non-convex loss)")',
        "for row in result.rows:",
        "    if not row.valid:",
        '        print(f"{row.name} | not valid: {row.reason}")',
        "    elif row.error:",
        '        print(f"{row.name} | failed: {row.error}")',
        "    else:",
        '        svs = "—" if row.n_free is None else f"{row.n_free} / {row.n_bound}"',
        '        n_iter = "—" if row.n_iter is None else row.n_iter',
        '        print(f"{row.name} | iter.: {n_iter}")',
        '        print(f"{row.name} | objective: {num(row.objective, 9)}")',
        '        print(f"{row.name} | KKT viol.: {num(row.kkt, 2)}")',
        '        print(f"{row.name} | gap: {num(row.gap, 2)}")',
        '        print(f"{row.name} | SVs free/bound: {svs}")',
        '        print(f"{row.name} | max |f − f_ref|: {num(row.max_f_diff, 2)}")',
        '        print(f"{row.name} | met tol: {met(row)}")',
    )


def _svmlab_figure() -> str:
    return section(
        "The convergence traces (a notebook draws them; a script opens a tab)",
        "if result.traces and result.best_objective is not None:",
        "    titles = {row.name: row.title for row in result.rows}",
        "    fig = solver_traces.traces_figure(",
        "        result.traces,",
        "        titles,",
        "        best_objective=result.best_objective,",
        "        tol=model.tol,",
        "    )",
        "    fig.show()",
    )


# -- scikit-learn ------------------------------------------------------------------


def _libsvm_problem(r: Any) -> bool:
    """Whether LIBSVM's SVC solves the page's problem (the hinge, an
    unregularized b, a finite C)."""
    return r.loss == "hinge" and r.bias == "unregularized" and math.isfinite(r.C)


def _liblinear_problem(r: Any) -> bool:
    """Whether LinearSVC solves it (the linear kernel, the hinge or the squared
    hinge, a regularized b or none, a finite C;
    ``solver_comparison.library_reason``)."""
    return (
        r.kernel == "linear"
        and r.loss in ("hinge", "squared_hinge")
        and r.bias != "unregularized"
        and math.isfinite(r.C)
    )


def _why(r: Any) -> list[str]:
    others = comment(
        f"{NO_EQUIVALENT} for svmlab's other solvers: its exact QP, its own SMO, "
        "coordinate ascent, IRWLS, the entropy dual, retargeted least squares "
        "and CCCP. scikit-learn has one solver for a kernel SVM, LIBSVM's SMO "
        "(SVC), and LIBLINEAR's dual coordinate descent (LinearSVC) for the "
        "linear kernel."
    )
    if _libsvm_problem(r):
        return others
    what = []
    if r.loss != "hinge":
        what.append(f"the {r.loss.replace('_', ' ')} loss")
    if r.bias != "unregularized":
        what.append(
            "no bias" if r.bias == "none" else "a regularized bias (the kernel K + 1)"
        )
    if not math.isfinite(r.C):
        what.append("the hard margin C = ∞")
    return [
        *others,
        *comment(
            f"{NO_EQUIVALENT} for this problem either: SVC minimises the hinge "
            "with an unregularized b (Σ αᵢyᵢ = 0) and a finite C, not "
            f"{' and '.join(what)}. This fits SVC's problem with the same kernel "
            "instead"
            + (f" and C = {HARD_C:g}" if not math.isfinite(r.C) else "")
            + ", so its numbers differ from the page's."
        ),
    ]


def _liblinear_lines(r: Any) -> list[str]:
    if not _liblinear_problem(r):
        return []
    squared = r.loss == "squared_hinge"
    regularized = r.bias == "regularized"
    return [
        "",
        "# LinearSVC (LIBLINEAR) solves this problem too: the regularized bias is",
        "# its intercept_scaling = 1 (x extended by a constant 1, so ||w||^2",
        "# includes b^2); its squared hinge is sum max(0, 1 - m)^2, svmlab's half",
        "# that, so C / 2. It visits the coordinates in a random order: seeded.",
        "from sklearn.svm import LinearSVC",
        "",
        call(
            "LinearSVC",
            {
                "loss": r.loss,
                "C": "=C / 2" if squared else "=C",
                "dual": True,
                "tol": float(r.tol),
                "fit_intercept": regularized,
                "intercept_scaling": 1.0,
                "max_iter": 100_000,
                "random_state": 0,
            },
            prefix="linear = ",
        ),
        "linear.fit(X, y)",
        "w, b = linear.coef_.ravel(), float(np.ravel(linear.intercept_)[0])",
        "m = y * (X @ w + b)",
        "norm2 = w @ w" + (" + b * b" if regularized else ""),
        "loss = np.maximum(0.0, 1.0 - m)" + ("**2 / 2" if squared else ""),
        "objective = 0.5 * norm2 + C * loss.sum()",
        'print("liblinear | iter.:", linear.n_iter_)',
        'print("liblinear | objective:", num(objective, 9))',
    ]


def _sklearn_table(r: Any) -> str:
    kernel = sklearn_code.kernel_lines(r.kernel, r.sigma, r.degree, 1.0, 1.0)
    kw = sklearn_code.kernel_kwargs(r.kernel, r.degree, 1.0, 1.0)
    functions = sklearn_code.kernel_function_lines(r.kernel, r.degree, 1.0, 1.0)
    C = float(r.C) if math.isfinite(r.C) else HARD_C
    return section(
        "scikit-learn's SVC (LIBSVM's SMO), scored by the page's formulas",
        "from sklearn.svm import SVC",
        "",
        *_why(r),
        *kernel,
        *functions,
        "",
        "",
        "def num(value, digits=4):",
        '    return "—" if not np.isfinite(value) else f"{value:.{digits}g}"',
        "",
        "",
        f"C = {literal(C)}",
        call("SVC", {"C": "=C", **kw, "tol": float(r.tol)}, prefix="model = "),
        "model.fit(X, y)",
        "# y in {-1, +1} as svmlab reads it (LIBSVM's +1: the larger label).",
        "labels = np.where(y == model.classes_[1], 1.0, -1.0)",
        "alpha = np.zeros(len(y))",
        "alpha[model.support_] = np.abs(model.dual_coef_[0])",
        "# The primal objective 0.5 ||f||^2 + C sum max(0, 1 - y f(x)),",
        "# ||f||^2 = (alpha y)' K (alpha y), as the page scores every solver.",
        "ay = alpha * labels",
        "f = model.decision_function(X)",
        "hinge = np.maximum(0.0, 1.0 - labels * f)",
        "objective = 0.5 * ay @ kernel(X, X) @ ay + C * hinge.sum()",
        "# Support vectors: free 0 < α < C, bound α = C (to round-off).",
        "bound = alpha >= C * (1 - 1e-8)",
        "free = (alpha > 1e-8 * min(C, alpha.max())) & ~bound",
        'print("libsvm | iter.:", model.n_iter_[0])',
        'print("libsvm | objective:", num(objective, 9))',
        'print("libsvm | SVs free/bound:", f"{free.sum()} / {bound.sum()}")',
        "# LIBSVM's own stopping test (m - M <= tol) met, or its iteration cap.",
        'print("libsvm | met tol:", "yes" if model.fit_status_ == 0 else "no")',
        *_liblinear_lines(r),
    )


def _sklearn_figure(title: str) -> str:
    return section(
        "SVC's decision function, drawn by matplotlib",
        *sklearn_code.figure_lines(
            "X", "X", "y", "model.decision_function(grid)", "model.support_", title
        ),
    )


# -- the snippet -------------------------------------------------------------------


def _describe(r: Any) -> str:
    """The view's title after "Solvers: " and the data's name."""
    kernel = writer.kernel_name(r.kernel)
    C = "∞ (hard margin)" if not math.isfinite(r.C) else f"{r.C:g}"
    bias = {"unregularized": "unregularized", "regularized": "regularized"}.get(
        r.bias, "no"
    )
    return (
        f", {r.loss.replace('_', ' ')} loss, {kernel} kernel, "
        f"C = {C}, {bias} bias, tol = {r.tol:g}"
    )


def solvers_code(request: Any, upload: tuple[Array, Array] | None = None) -> Snippet:
    """The code for the Solvers page's table and traces for ``request`` (on
    ``upload``'s points when the data were uploaded)."""
    r = request
    title = writer.view_title("Solvers", r.source, upload, _describe(r))
    C_sklearn = float(r.C) if math.isfinite(r.C) else HARD_C
    return writer.page_snippet(
        title,
        "Solvers",
        "it runs every solver and prints the page's table (the times are the "
        "run's own, left out).",
        [
            _data_section(
                r,
                upload,
                "import math\n\nfrom svmlab import datasets, figures\n"
                "from svmlab.experiments import solver_comparison\n"
                "from svmlab.figures import solver_traces",
            ),
            _svmlab_table(r),
            _svmlab_figure(),
        ],
        [
            _data_section(r, upload, "from svmlab import datasets"),
            _sklearn_table(r),
            _sklearn_figure(f"SVC (LIBSVM), C = {literal(C_sklearn)}"),
        ],
        stem="svmlab_solvers",
        sklearn_tools="scikit-learn's SVC and matplotlib",
    )

"""The code for a Regression view: ε-SVR or ν-SVR on one input, the tube.

:func:`regression_code` reads the page's request (an object with the fields of
``svmlab.ui.regression.requests.RegressionRequest``, read by name) with the
points clicked in and, for uploaded data, the points themselves. The svmlab
flavour fits what the page fits and prints the numbers beside its figure the
way the page prints them (but the fit time, the run's own); the scikit-learn
flavour fits ``sklearn.svm.SVR`` or ``NuSVR`` (LIBSVM's machines, as
svmlab's), saying where the squared ε-insensitive loss has no counterpart.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from svmlab.array_types import Array
from svmlab.snippets import sklearn_code, writer
from svmlab.snippets.sklearn_code import NO_EQUIVALENT
from svmlab.snippets.writer import (
    Snippet,
    array_literal,
    call,
    comment,
    generated_lines,
    section,
)

__all__ = ["regression_code"]

#: The page's fresh test points (``svmlab.ui.regression.requests.N_TEST``).
N_TEST = 400
#: The page's solver tolerance (``svmlab.ui.regression.requests.TOL``).
TOL = 1e-5
#: svmlab's kernel defaults the page leaves alone (coef0; the sigmoid's a, r).
COEF0, SCALE = 1.0, 1.0


def _data_section(r: Any, added: tuple, upload: Any, imports: list[str]) -> str:
    items = dict(r.data_items)
    if upload is None:
        lines = generated_lines(
            "regression_data.make",
            r.source,
            items,
            ("X", "t"),
            N_TEST,
            "For the test RMSE",
        )
    else:
        X, t = upload
        lines = [
            "# The uploaded points (an upload has no test points).",
            f"X = {array_literal(np.asarray(X, dtype=float).reshape(-1, 1))}",
            f"t = {array_literal(t)}",
            "X_test = t_test = None",
        ]
    if added:
        lines += writer.clicked_lines(added, "(x, t)", "t")
    return writer.data_section("The data", "\n".join(imports), lines)


def _printed_lines(
    outside: str, epsilon: str, found: str, residuals: str, before: tuple = ()
) -> list[str]:
    """The numbers the page prints beside its figure, in both flavours (one
    list, so the two print the same lines): each flavour names where its model
    keeps the share ``outside`` the tube, ε (``found`` by ν or set) and the
    training ``residuals``; ``before`` are its lines that compute them."""
    return [
        "def rmse(residuals):",
        '    return f"{np.sqrt(np.mean(residuals**2)):.4g}"',
        "",
        "",
        *before,
        'print("support vectors:", f"{model.support_.size} / {len(t)}")',
        f'print("outside the tube:", f"{{100 * {outside}:.1f}} %")',
        f'print("ε{found}:", f"{{{epsilon}:.4g}}")',
        f'print("training RMSE:", rmse({residuals}))',
        "if X_test is not None:",
        '    print("test RMSE:", rmse(model.predict(X_test) - t_test))',
        'print("b:", f"{model.intercept_[0]:.4g}")',
        "f = model.predict(X[:5])",
        'print("f on the first 5 points:", f.round(6))',
    ]


def _svmlab_model(r: Any) -> str:
    if r.machine == "nu":
        name, kw = "svmlab.NuSVR", {"nu": float(r.nu)}
    else:
        name, kw = "svmlab.EpsilonSVR", {"epsilon": float(r.epsilon), "loss": r.loss}
    kw.update(
        C=float(r.C), **writer.kernel_keywords(r.kernel, r.sigma, r.degree), tol=TOL
    )
    found = " found by ν" if r.machine == "nu" else ""
    epsilon = "model.epsilon_" if r.machine == "nu" else "model.epsilon"
    return section(
        "The model and the numbers the page prints",
        call(name, kw, prefix="model = "),
        "model.fit(X, t)",
        *_printed_lines("model.outside_fraction_", epsilon, found, "model.residuals_"),
    )


def _svmlab_figure(r: Any) -> str:
    epsilon = "model.epsilon_" if r.machine == "nu" else "model.epsilon"
    return section(
        "The figure (in a notebook it draws below; a script opens a browser tab)",
        "test = None if X_test is None else (X_test, t_test)",
        call(
            "regression_figures.tube_figure",
            {"epsilon": "=" + epsilon, "test": "=test"},
            prefix="fig = ",
            args=("=model", "=X", "=t"),
        ),
        "fig.show()",
    )


def _sklearn_model(r: Any) -> str:
    kernel = sklearn_code.kernel_lines(r.kernel, r.sigma, r.degree, COEF0, SCALE)
    kw = sklearn_code.kernel_kwargs(r.kernel, r.degree, COEF0, SCALE)
    found = " found by ν" if r.machine == "nu" else ""
    if r.machine == "nu":
        name, model_kw, why = "NuSVR", {"nu": float(r.nu)}, []
        epsilon = [
            "# LIBSVM's ν-SVR does not report its ε: it is the half-width of the",
            "# tube on which the free support vectors (0 < |α - α*| < C) lie.",
            "coef = np.abs(model.dual_coef_[0])",
            "free = model.support_[coef < C * (1 - 1e-8)]",
            "r = t - model.predict(X)",
            "epsilon = float(np.median(np.abs(r[free])))",
        ]
    else:
        name, model_kw = "SVR", {"epsilon": float(r.epsilon)}
        why = (
            comment(
                f"{NO_EQUIVALENT}: svmlab's squared ε-insensitive loss "
                "(C/2) max(0, |t - f| - ε)^2 has no kernel counterpart in "
                "scikit-learn. This fits SVR's ε-insensitive loss with the same "
                "C, ε and kernel instead, so its numbers differ from the page's."
            )
            if r.loss != "epsilon_insensitive"
            else []
        )
        epsilon = ["epsilon = model.epsilon"]
    return section(
        f"The model: scikit-learn's {name} (LIBSVM)",
        f"from sklearn.svm import {name}",
        "",
        *why,
        *kernel,
        f"C = {float(r.C)!r}",
        call(name, {**model_kw, "C": "=C", **kw, "tol": TOL}, prefix="model = "),
        "model.fit(X, t)",
        *epsilon,
        *_printed_lines(
            "outside.sum() / len(t)",
            "epsilon",
            found,
            "residuals",
            before=(
                "residuals = t - model.predict(X)",
                "# Outside the tube: the multipliers at the bound, |α - α*| = C (a",
                "# point's residual says the same only to the solver's tol).",
                "outside = np.abs(model.dual_coef_[0]) >= C * (1 - 1e-8)",
            ),
        ),
    )


#: The figure by matplotlib: the tube, f, the points, the support vectors
#: ringed.
FIGURE_LINES = (
    "xs = np.linspace(X.min(), X.max(), 300).reshape(-1, 1)",
    "f = model.predict(xs)",
    "fig, ax = plt.subplots(figsize=(8, 4.5))",
    'ax.fill_between(xs[:, 0], f - epsilon, f + epsilon, alpha=0.25, label="tube")',
    'ax.plot(xs[:, 0], f, "k-", label="f")',
    'ax.scatter(X[:, 0], t, s=18, c="grey", label="points")',
    "ax.scatter(",
    "    X[model.support_, 0], t[model.support_], s=60, facecolors='none',",
    '    edgecolors="k", label="support vectors",',
    ")",
    "ax.legend()",
)


def _describe(r: Any) -> str:
    """The view's title after "Regression: " and the data's name."""
    kernel = writer.kernel_name(r.kernel)
    machine = (
        f"ν-SVR with ν = {r.nu:g}"
        if r.machine == "nu"
        else (f"ε-SVR with ε = {r.epsilon:g}")
    )
    return f", {machine}, C = {r.C:g}, {kernel} kernel"


def regression_code(
    request: Any, added: tuple = (), upload: tuple[Array, Array] | None = None
) -> Snippet:
    """The code for the Regression page's view of ``request`` with the points
    ``added`` ((x, t) pairs clicked in), on ``upload``'s points if uploaded."""
    r = request
    title = writer.view_title("Regression", r.source, upload, _describe(r))
    return writer.page_snippet(
        title,
        "Regression",
        "it fits and prints what the page shows.",
        [
            _data_section(
                r,
                added,
                upload,
                [
                    "import svmlab",
                    "from svmlab.datasets import regression as regression_data",
                    "from svmlab.figures import regression as regression_figures",
                ],
            ),
            _svmlab_model(r),
            _svmlab_figure(r),
        ],
        [
            _data_section(
                r,
                added,
                upload,
                ["from svmlab.datasets import regression as regression_data"],
            ),
            _sklearn_model(r),
            sklearn_code.figure_section(
                "The figure, drawn by matplotlib",
                FIGURE_LINES,
                title.removeprefix("Regression: "),
            ),
        ],
        stem="svmlab_regression",
    )

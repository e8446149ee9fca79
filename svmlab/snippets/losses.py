"""The code for a Losses view: every loss on the same data with outliers.

:func:`losses_code` reads the page's request (an object with the fields of
``svmlab.ui.losses.requests.LossesRequest``, read by name: the data source and
its generator's settings, the outliers, the kernel, C, sigma and delta) and,
for uploaded data, the points themselves. The svmlab flavour adds the outliers
as the page does (``svmlab.experiments.robustness.add_outliers``), fits every
loss on the data with and without them, and prints the numbers under each
panel the way the panel prints them; the scikit-learn flavour fits the two
losses ``sklearn.svm.SVC`` solves (the hinge; the squared hinge as the hinge's
hard margin on ``K + I/C``) and says that the other three have no counterpart.
"""

from __future__ import annotations

from typing import Any

from svmlab.array_types import Array
from svmlab.snippets import sklearn_code, writer
from svmlab.snippets.sklearn_code import NO_EQUIVALENT
from svmlab.snippets.writer import (
    Snippet,
    array_literal,
    call,
    comment,
    generated_lines,
    labels_literal,
    literal,
    section,
)

__all__ = ["N_TEST", "losses_code"]

#: The page's clean test set: fresh points of the generator (another seed).
N_TEST = 2000
#: The page's panels, in its order.
LOSS_ORDER = ("hinge", "squared_hinge", "ramp", "squared_ramp", "modified_hinge")
#: The settings every panel shares that the page does not offer (FitSettings').
TOL = 1e-3


def _kernel(r: Any) -> dict[str, Any]:
    if r.kernel == "gaussian":
        return {"kernel": "gaussian", "sigma": float(r.sigma)}
    return {"kernel": r.kernel}


def _data_section(r: Any, upload: tuple[Array, Array] | None, imports: str) -> str:
    items = dict(r.data_items)
    seed = int(items.get("random_state", 0))
    if upload is None:
        lines = generated_lines(
            "datasets.make", r.source, items, ("X", "y"), N_TEST, "A clean test set"
        )
    else:
        X, y = upload
        y_text = labels_literal(y)
        lines = [
            "# The uploaded points; an upload has no fresh points, so the page",
            "# measures the test error on the clean points themselves.",
            f"X = {array_literal(X)}",
            f"y = {y_text}",
            "X_test, y_test = X, y",
        ]
    return writer.data_section(
        "The data and the outliers",
        imports,
        [
            *lines,
            "# The outliers, added as the page adds them (the last rows).",
            call(
                "robustness.Outliers",
                {
                    "count": int(r.count),
                    "distance": float(r.distance),
                    "label": int(r.label),
                    "side": r.side,
                },
                prefix="outliers = ",
            ),
            call(
                "robustness.add_outliers",
                {"random_state": seed},
                prefix="X_train, y_train, is_outlier = ",
                args=("=X", "=y", "=outliers"),
            ),
        ],
    )


def _pct_lines() -> list[str]:
    return [
        "def pct(value):",
        '    return "–" if not np.isfinite(value) else f"{100 * value:.1f} %"',
    ]


def _plane_lines() -> list[str]:
    return [
        "# The plane drawn (the training points' box, outliers included), where",
        "# the page counts the labels that changed.",
        "x0, x1, y0, y1 = robustness.plane_window(X_train)",
        "gx, gy = np.meshgrid(np.linspace(x0, x1, 120), np.linspace(y0, y1, 120))",
        "plane = np.column_stack([gx.ravel(), gy.ravel()])",
    ]


#: A loss's test error and the clean fit's, from their labels of the test
#: points, ``on_test`` and ``clean_on_test`` (both flavours).
ERROR_LINES = (
    "error = np.mean(on_test != y_test)",
    "clean_error = np.mean(clean_on_test != y_test)",
    'print(f"{loss} | test error: {pct(error)} (clean {pct(clean_error)})")',
)


#: svmlab's w and the clean fit's (``w = sum_i alpha_i y_i x_i``).
SVMLAB_W = (
    "# w = sum_i alpha_i y_i x_i, against the clean fit's.",
    "w = (model.dual_coef_ @ model.support_vectors_).ravel()",
    "w0 = (clean.dual_coef_ @ clean.support_vectors_).ravel()",
)
#: scikit-learn's (the squared hinge's from its dual on ``K + I/C``).
SKLEARN_W = (
    "# w = sum_i alpha_i y_i x_i (the squared hinge: from its dual",
    "# on K + I/C, whose coefficients are the same alpha_i y_i).",
    "w = model.dual_coef_[0] @ X_train[model.support_]",
    "w0 = clean.dual_coef_[0] @ X[clean.support_]",
)


def _angle_lines(r: Any, w_lines: tuple[str, ...]) -> list[str]:
    """The angle between ``w`` and ``w0`` (set by ``w_lines``), linear only."""
    if r.kernel != "linear":
        return []
    return [
        *w_lines,
        "norms = np.linalg.norm(w) * np.linalg.norm(w0)",
        "if norms > 0:",
        "    cosine = np.clip(w @ w0 / norms, -1, 1)",
        "    angle = np.degrees(np.arccos(cosine))",
        '    print(f"{loss} | w turned by: {angle:.1f}°")',
        "else:  # w = 0: f is constant (identical points of both classes)",
        '    print(f"{loss} | w turned by: – (w = 0: no direction)")',
    ]


def _shift_lines(predict: str, clean_predict: str) -> list[str]:
    return [
        "shift_data = np.mean(on_test != clean_on_test)",
        f"shift_plane = np.mean({predict} != {clean_predict})",
        'print(f"{loss} | labels changed: data: {pct(shift_data)}")',
        'print(f"{loss} | labels changed: plane: {pct(shift_plane)}")',
    ]


def _alpha_lines(alpha: str) -> list[str]:
    """The support vectors and the outliers' share of Σα, from ``alpha``."""
    return [
        'print(f"{loss} | support vectors: {model.support_.size}")',
        f"alpha = {alpha}",
        "share = alpha[is_outlier].sum() / alpha.sum()",
        'outlier_alpha = f"{alpha[is_outlier].sum():.3g} ({pct(share)})"',
        'print(f"{loss} | outliers\' Σα: {outlier_alpha}")',
    ]


# -- svmlab ------------------------------------------------------------------------


def _svmlab_fits(r: Any) -> str:
    settings = {
        "C": float(r.C),
        **_kernel(r),
        "loss": "=loss",
        "delta": float(r.delta),
        "bias": "unregularized",
        "tol": TOL,
    }
    return section(
        "Every loss, with and without the outliers: the numbers under each panel",
        *_pct_lines(),
        "",
        "",
        *_plane_lines(),
        f"losses = {literal(list(LOSS_ORDER))}",
        "fits = {}",
        "for loss in losses:",
        call("svmlab.SVC", settings, indent="    ", prefix="model = "),
        *writer.indented(
            [
                "clean = sklearn.base.clone(model).fit(X, y)",
                "model.fit(X_train, y_train)",
                "fits[loss] = model, clean",
                "on_test = model.predict(X_test)",
                "clean_on_test = clean.predict(X_test)",
                *ERROR_LINES,
                *_angle_lines(r, SVMLAB_W),
                *_shift_lines("model.predict(plane)", "clean.predict(plane)"),
                *_alpha_lines("np.abs(model.alpha_)"),
                "if not model.converged_:",
                '    print(f"{loss} | solver: stopped before tol (see Explore)")',
            ]
        ),
    )


def _svmlab_figure() -> str:
    return section(
        "The panels (in a notebook they draw below; a script opens browser tabs)",
        "# Grey dotted: the same loss's boundary on the clean data; orange rings:",
        "# the outliers.",
        "bounds = figures.data_bounds(X_train)",
        "for loss, (model, clean) in fits.items():",
        "    fig = robustness_figures.loss_panel_figure(",
        "        model, clean, X_train, y_train, is_outlier, bounds=bounds",
        "    )",
        "    fig.update_layout(title=loss)",
        "    fig.show()",
    )


# -- scikit-learn ------------------------------------------------------------------


def _sklearn_fits(r: Any) -> str:
    kernel = "gaussian" if r.kernel == "gaussian" else r.kernel
    lines = sklearn_code.kernel_lines(kernel, r.sigma, 3, 1.0, 1.0)
    functions = sklearn_code.kernel_function_lines(kernel, 3, 1.0, 1.0)
    kw = sklearn_code.kernel_kwargs(kernel, 3, 1.0, 1.0)
    C = float(r.C)
    ind = "    "
    why = comment(
        f"{NO_EQUIVALENT}: svmlab's ramp and squared ramp (non-convex, fitted by "
        "CCCP) and Lee's modified hinge (its entropy dual or IRWLS) have no "
        "scikit-learn counterpart. This script fits the two losses SVC solves "
        "instead: the hinge, and the squared hinge as the hinge's hard-margin "
        "dual on K + I/C (Sugiyama §27.6.2), with a C too large to bind."
    )
    return section(
        "The hinge and the squared hinge, with and without the outliers",
        "from sklearn.svm import SVC",
        "",
        *why,
        *lines,
        *functions,
        "",
        "",
        *_pct_lines(),
        "",
        "",
        "def fit(loss, X, y):",
        '    """SVC for a loss, and f on new points."""',
        '    if loss == "hinge":',
        call("SVC", {"C": C, **kw, "tol": TOL}, indent="        ", prefix="model = "),
        "        model.fit(X, y)",
        "        return model, model.decision_function",
        f"    C = {literal(C)}",
        call(
            "SVC",
            {"C": 1e10, "kernel": "precomputed", "tol": TOL},
            indent=ind,
            prefix="model = ",
        ),
        "    model.fit(kernel(X, X) + np.eye(len(y)) / C, y)",
        "    return model, lambda Z: model.decision_function(kernel(Z, X))",
        "",
        "",
        *_plane_lines(),
        "",
        "",
        "def predict(f, Z):",
        "    return np.where(f(Z) > 0, 1.0, -1.0)  # LIBSVM calls f > 0 +1",
        "",
        "",
        "fits = {}",
        'for loss in ["hinge", "squared_hinge"]:',
        "    model, f = fit(loss, X_train, y_train)",
        "    clean, f_clean = fit(loss, X, y)",
        "    fits[loss] = f, f_clean",
        *writer.indented(
            [
                "on_test = predict(f, X_test)",
                "clean_on_test = predict(f_clean, X_test)",
                *ERROR_LINES,
                *_angle_lines(r, SKLEARN_W),
                *_shift_lines("predict(f, plane)", "predict(f_clean, plane)"),
                "alpha = np.zeros(len(y_train))",
                "alpha[model.support_] = np.abs(model.dual_coef_[0])",
                *_alpha_lines("alpha"),
            ]
        ),
    )


#: The two panels by matplotlib: f shaded, its margins, the clean fit's
#: boundary dotted, the outliers ringed.
FIGURE_LINES = (
    "xx, yy = np.meshgrid(np.linspace(x0, x1, 200), np.linspace(y0, y1, 200))",
    "grid = np.column_stack([xx.ravel(), yy.ravel()])",
    "fig, axes = plt.subplots(1, 2, figsize=(11, 5))",
    "for ax, (loss, (f, f_clean)) in zip(axes, fits.items()):",
    "    F = f(grid).reshape(xx.shape)",
    '    ax.contourf(xx, yy, F, levels=20, cmap="RdBu", alpha=0.4)',
    "    ax.contour(",
    '        xx, yy, F, levels=[-1, 0, 1], colors="k",',
    '        linestyles=["--", "-", "--"],',
    "    )",
    "    F0 = f_clean(grid).reshape(xx.shape)",
    '    ax.contour(xx, yy, F0, levels=[0], colors="grey", linestyles=":")',
    '    ax.scatter(*X_train.T, c=y_train, cmap="RdBu", edgecolors="k", s=20)',
    "    ax.scatter(",
    '        *X_train[is_outlier].T, s=90, facecolors="none", edgecolors="orange"',
    "    )",
    "    ax.set_title(loss)",
)


# -- the snippet -------------------------------------------------------------------


def _describe(r: Any) -> str:
    """The view's title after "Losses: " and the data's name."""
    kernel = writer.kernel_name(r.kernel)
    return (
        f" with {r.count} outliers at distance {r.distance:g}, "
        f"{kernel} kernel, C = {r.C:g}"
    )


def losses_code(request: Any, upload: tuple[Array, Array] | None = None) -> Snippet:
    """The code for the Losses page's panels for ``request`` (on ``upload``'s
    points when the data were uploaded)."""
    r = request
    title = writer.view_title("Losses", r.source, upload, _describe(r))
    return writer.page_snippet(
        title,
        "Losses",
        "it fits and prints what the panels show.",
        [
            _data_section(
                r,
                upload,
                "import sklearn.base\n\nimport svmlab\n"
                "from svmlab import datasets, figures\n"
                "from svmlab.experiments import robustness\n"
                "from svmlab.figures import robustness as robustness_figures",
            ),
            _svmlab_fits(r),
            _svmlab_figure(),
        ],
        [
            _data_section(
                r,
                upload,
                "from svmlab import datasets\n"
                "from svmlab.experiments import robustness  # the page's outliers",
            ),
            _sklearn_fits(r),
            sklearn_code.figure_section(
                "The two panels, drawn by matplotlib",
                FIGURE_LINES,
                title.removeprefix("Losses: "),
                "fig.suptitle",
            ),
        ],
        stem="svmlab_losses",
        sklearn_tools="scikit-learn's SVC and matplotlib",
        data_from="the data and outliers come from svmlab",
    )

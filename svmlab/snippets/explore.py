"""The code for an Explore view: its data, its model, its numbers, its figure.

:func:`explore_code` reads the page's settings (an object with the fields of
``svmlab.ui.explore.settings.ExploreSettings``: read by name, never imported,
so the engine does not depend on the app) with the points edited on the page
and, for uploaded data, the points themselves. The svmlab flavour fits what the
page fits (``svmlab.SVC`` with every setting; for ν-SVC, ``NuSVC`` and the
C-SVC with its equivalent C started at its multipliers, as the page draws it)
and prints the numbers panel's numbers the way the panel prints them; the
scikit-learn flavour fits ``sklearn.svm.SVC`` where it solves the same problem
(the hinge and the squared hinge with an unregularized bias, ν-SVC) and says in
a comment what it fits instead where it does not.
"""

from __future__ import annotations

import math
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
    literal,
    section,
)

__all__ = ["explore_code", "kernel_settings"]

#: The losses scikit-learn's SVC solves exactly (with an unregularized bias).
SKLEARN_LOSSES = ("hinge", "squared_hinge")
#: Decision values printed for the comparison with the page.
N_SHOWN = 5


def kernel_settings(s: Any) -> dict[str, Any]:
    """svmlab's kernel keywords for these settings (the page's ``model_items``)."""
    out: dict[str, Any] = {"kernel": s.kernel}
    if s.kernel == "gaussian":
        out["sigma"] = float(s.sigma)
    elif s.kernel == "polynomial":
        out["degree"], out["coef0"] = int(s.degree), float(s.coef0)
    elif s.kernel == "sigmoid":
        out["scale"], out["coef0"] = float(s.sig_a), float(s.sig_r)
    return out


def _model_settings(s: Any) -> dict[str, Any]:
    """``svmlab.SVC``'s keywords: every setting the page passes but its time
    budget and the history it records for playback."""
    out: dict[str, Any] = {"C": float(s.effective_C), **kernel_settings(s)}
    out["loss"] = s.loss
    if s.loss == "modified_hinge":
        out["delta"] = float(s.delta)
    out.update(solver=s.solver, bias=s.bias, tol=float(s.tol), max_iter=int(s.max_iter))
    return out


def _describe(s: Any, upload: Any) -> str:
    data = writer.data_name(s.dataset, upload)
    kernel = writer.kernel_name(s.kernel)
    if s.is_nu:
        return f"Explore: {data}, ν-SVC with ν = {s.nu:g}, {kernel} kernel"
    C = "∞ (hard margin)" if math.isinf(s.effective_C) else f"{s.effective_C:g}"
    loss = s.loss.replace("_", " ")
    return f"Explore: {data}, {loss} loss, C = {C}, {kernel} kernel"


# -- the data ------------------------------------------------------------------------


def _data_section(
    s: Any, edits: tuple, upload: tuple[Array, Array] | None, sklearn: bool = False
) -> str:
    if upload is None:
        make = call(
            "datasets.make",
            s.data_kwargs(),
            prefix="X, y = ",
            args=(s.dataset,),
        )
        lines = [f"# The {s.dataset} generator with the page's seed.", make]
    else:
        X, y = upload
        lines = [
            "# The uploaded points (labels -1 and +1, as the page reads them).",
            f"X = {array_literal(X)}",
            f"y = {array_literal(y)}",
        ]
    lines += [
        "# The page's split: the same share of each class held back for testing.",
        call(
            "datasets.stratified_split",
            {"test_fraction": float(s.test_fraction), "seed": int(s.seed)},
            prefix="X_train, y_train, X_test, y_test = ",
            args=("=X", "=y"),
        ),
        *_edit_lines(edits),
    ]
    imports = (
        ["from svmlab import datasets  # the page's generators and split"]
        if sklearn
        else ["import svmlab", "from svmlab import datasets, figures"]
    )
    return section("The data", "import numpy as np", "", *imports, "", *lines)


def _edit_lines(edits: tuple) -> list[str]:
    """Points moved, removed and clicked in, in the page's order."""
    added, removed, *rest = edits
    moved = rest[0] if rest else ()
    lines: list[str] = []
    if moved:
        index = [int(i) for i, _, _ in moved]
        places = np.array([[x1, x2] for _, x1, x2 in moved])
        lines += [
            "# Points moved on the page (training point number -> new place).",
            f"X_train[{literal(index)}] = {array_literal(places)}",
        ]
    if removed:
        lines += [
            "# Points removed on the page.",
            "keep = np.ones(len(y_train), dtype=bool)",
            f"keep[{literal([int(i) for i in removed])}] = False",
            "X_train, y_train = X_train[keep], y_train[keep]",
        ]
    if added:
        points = np.array([[x1, x2] for x1, x2, _ in added])
        labels = np.array([label for _, _, label in added])
        lines += [
            "# Points clicked in on the page.",
            f"X_train = np.vstack([X_train, {array_literal(points)}])",
            f"y_train = np.concatenate([y_train, {array_literal(labels)}])",
        ]
    return lines


# -- svmlab ----------------------------------------------------------------------------


def _svmlab_model(s: Any) -> str:
    if not s.is_nu:
        return section(
            "The model: every setting of the page",
            call("svmlab.SVC", _model_settings(s), prefix="model = "),
            *_gram_lines(s),
            "model.fit(X_train, y_train, K=K)",
        )
    nu_kwargs = {
        "nu": float(s.nu),
        **kernel_settings(s),
        "tol": float(s.tol),
        "max_iter": int(s.max_iter),
    }
    c_kwargs = {
        "C": "=nu_model.C_",
        **kernel_settings(s),
        "loss": "hinge",
        "solver": "smo",
        "bias": "unregularized",
        "tol": float(s.tol),
        "max_iter": int(s.max_iter),
    }
    return section(
        "The model: ν-SVC, and the C-SVC that draws the same f",
        call("svmlab.NuSVC", nu_kwargs, prefix="nu_model = "),
        "nu_model.fit(X_train, y_train)",
        "# The C-SVC with C = 1/r has the same f (Chang & Lin 2001): the page draws",
        "# it, started at ν-SVC's multipliers so that SMO only checks them.",
        "start = np.zeros(len(y_train))",
        "start[nu_model.support_] = np.abs(nu_model.dual_coef_[0])",
        call("svmlab.SVC", c_kwargs, prefix="model = "),
        *_gram_lines(s),
        "model.fit(X_train, y_train, K=K, init=np.minimum(start, nu_model.C_))",
    )


def _gram_lines(s: Any) -> list[str]:
    """The Gram matrix the page keeps for its data and hands every fit (C and
    the loss move without recomputing it): with the same K, the same steps."""
    return [
        "# The page hands the fit the Gram matrix it keeps for these points.",
        call(
            "svmlab.kernels.gram", kernel_settings(s), prefix="K = ", args=("=X_train",)
        ),
    ]


def _svmlab_numbers(s: Any) -> str:
    nu = (
        [
            'print("margin errors:", pct(nu_model.margin_error_fraction_))',
            'print("ν:", pct(nu_model.nu))',
            'print("SV fraction:", pct(nu_model.support_fraction_))',
            'print("ρ:", f"{nu_model.rho_:.4g}")',
            'print("equivalent C:", f"{nu_model.C_:.4g}")',
        ]
        if s.is_nu
        else []
    )
    return section(
        "The numbers the page prints",
        "def pct(value):",
        '    return "–" if value is None else f"{100 * value:.1f} %"',
        "",
        "",
        "free = int(np.sum(model.sv_state_ == 1))  # 0 < α < C",
        "bound = int(np.sum(model.sv_state_ == 2))  # α = C",
        *nu,
        'print("support vectors:", f"{free + bound} / {len(y_train)}")',
        'print("free SVs:", free)',
        'print("bound SVs:", bound)',
        "train_error = np.mean(model.predict(X_train) != y_train)",
        'print("training error:", pct(train_error))',
        "test_error = None  # no test points: the page prints –",
        "if len(y_test):",
        "    test_error = np.mean(model.predict(X_test) != y_test)",
        'print("test error:", pct(test_error))',
        'print("objective:", f"{model.objective_:.4g}")',
        'print("bias b:", f"{model.intercept_[0]:.4g}")',
        'print("KKT violation:", f"{model.kkt_violation_:.1e}")',
        f"f = model.decision_function(X_train[:{N_SHOWN}])",
        f'print("f on the first {N_SHOWN} training points:", f.round(6))',
    )


def _svmlab_figure(s: Any) -> str:
    test = ", test=(X_test, y_test)" if s.show_test and s.test_fraction > 0 else ""
    return section(
        "The figure (in a notebook it draws below; a script opens a browser tab)",
        "# The page's axes: every generated point, the test points too.",
        "bounds = figures.data_bounds(X)",
        call(
            "figures.decision_figure",
            {"bounds": "=bounds", **({"test": "=(X_test, y_test)"} if test else {})},
            prefix="fig = ",
            args=("=model", "=X_train", "=y_train"),
        ),
        "fig.show()",
    )


# -- scikit-learn --------------------------------------------------------------------


def _why_not(s: Any) -> list[str]:
    """The comment lines saying what svmlab fits that scikit-learn cannot, and
    what this code fits instead; empty when scikit-learn fits the same."""
    if s.is_nu:
        return []
    why = []
    if s.loss not in SKLEARN_LOSSES:
        what = {
            "ramp": "the ramp loss (non-convex, fitted by CCCP)",
            "squared_ramp": "the squared ramp loss (non-convex)",
            "modified_hinge": "Lee's modified hinge (its entropy dual or IRWLS)",
        }[s.loss]
        why.append(f"svmlab's {what} has no scikit-learn counterpart")
    if s.bias != "unregularized":
        what = "a regularized b (K + 1)" if s.bias == "regularized" else "no b at all"
        why.append(f'svmlab\'s bias "{s.bias}" ({what}) has no counterpart in SVC')
    if not why:
        return []
    return comment(
        f"{NO_EQUIVALENT}: "
        + "; ".join(why)
        + ". This fits scikit-learn's hinge-loss SVC (unregularized b) with the "
        "same C and kernel instead, so its numbers differ from the page's."
    )


def _sklearn_model(s: Any) -> tuple[str, bool]:
    """The model cell and whether it uses a precomputed kernel."""
    kernel = sklearn_code.kernel_lines(s.kernel, s.sigma, s.degree, s.coef0, s.sig_a)
    kw = sklearn_code.kernel_kwargs(
        s.kernel, s.degree, s.sig_r if s.kernel == "sigmoid" else s.coef0, s.sig_a
    )
    degree, coef0 = s.degree, s.sig_r if s.kernel == "sigmoid" else s.coef0
    limits = {"tol": float(s.tol), "max_iter": int(s.max_iter)}
    if s.is_nu:
        return (
            section(
                "The model: scikit-learn's NuSVC (LIBSVM's ν-SVC, as svmlab's)",
                "from sklearn.svm import NuSVC",
                "",
                *kernel,
                call("NuSVC", {"nu": float(s.nu), **kw, **limits}, prefix="model = "),
                "model.fit(X_train, y_train)",
            ),
            False,
        )
    why = _why_not(s)
    hard = math.isinf(s.effective_C) and s.loss == "hinge"
    C = 1e10 if hard else float(s.effective_C)
    if s.loss == "squared_hinge" and not why:
        return (
            section(
                "The model: the squared hinge as scikit-learn's SVC on K + I/C",
                "from sklearn.svm import SVC",
                "",
                *kernel,
                *sklearn_code.kernel_function_lines(s.kernel, degree, coef0, s.sig_a),
                "",
                "",
                "# scikit-learn has no kernel SVM with the squared hinge; its dual is",
                "# the hinge's hard-margin dual on K + I/C (Sugiyama §27.6.2), which",
                "# SVC solves with a precomputed kernel and a C too large to bind.",
                f"C = {literal(C)}",
                "K = kernel(X_train, X_train)",
                call(
                    "SVC",
                    {"C": 1e10, "kernel": "precomputed", **limits},
                    prefix="model = ",
                ),
                "model.fit(K + np.eye(len(y_train)) / C, y_train)",
            ),
            True,
        )
    lines = [*why]
    if hard:
        lines += [
            "# scikit-learn takes no C = ∞: a C this large gives the hard margin.",
        ]
    return (
        section(
            "The model: scikit-learn's SVC (LIBSVM's SMO)",
            "from sklearn.svm import SVC",
            "",
            *kernel,
            *lines,
            f"C = {literal(C)}",
            call("SVC", {"C": "=C", **kw, **limits}, prefix="model = "),
            "model.fit(X_train, y_train)",
        ),
        False,
    )


#: The training and test errors from scikit-learn's f (LIBSVM calls f > 0 +1).
ERROR_LINES = (
    "called = np.where(f_train > 0, 1.0, -1.0)",
    "called_test = np.where(f_test > 0, 1.0, -1.0)",
    "test_error = np.mean(called_test != y_test) if len(y_test) else None",
    'print("training error:", pct(np.mean(called != y_train)))',
    'print("test error:", pct(test_error))',
)


def _sklearn_numbers(s: Any, precomputed: bool) -> str:
    at = ("K", "kernel(X_test, X_train)") if precomputed else ("X_train", "X_test")
    pct = [
        "def pct(value):",
        '    return "–" if value is None else f"{100 * value:.1f} %"',
        "",
        "",
        f"f_train = model.decision_function({at[0]})",
        "f_test = np.empty(0)",
        "if len(y_test):",
        f"    f_test = model.decision_function({at[1]})",
        "b = model.intercept_[0]",
        "coef = model.dual_coef_[0]  # α_i y_i of the support vectors",
    ]
    if s.is_nu:
        return section(
            "The numbers the page prints",
            *pct,
            "# LIBSVM divides ν-SVC's f by its margin r: the margins are at ±1 and",
            "# the multipliers of the points at the bound equal 1/r, the largest.",
            "alpha = np.abs(coef)",
            "at_bound = alpha >= alpha.max() * (1 - 1e-8)",
            "margins = y_train[model.support_] * f_train[model.support_]",
            "errors = np.sum(at_bound & (margins < 1))",
            'print("margin errors:", pct(errors / len(y_train)))',
            f'print("ν:", pct({literal(float(s.nu))}))',
            'print("SV fraction:", pct(coef.size / len(y_train)))',
            'print("support vectors:", f"{coef.size} / {len(y_train)}")',
            *ERROR_LINES,
            'print("bias b:", f"{b:.4g}")',
            f'print("f on the first {N_SHOWN} training points:", '
            f"f_train[:{N_SHOWN}].round(6))",
        )
    squared = s.loss == "squared_hinge" and precomputed
    hard = math.isinf(s.effective_C) and s.loss == "hinge"
    if squared:
        counts = [
            "free = coef.size  # the squared hinge has no upper bound on α",
            "bound = 0",
            "loss = 0.5 * np.maximum(0.0, 1.0 - y_train * f_train) ** 2",
        ]
    else:
        counts = [
            "bound = int(np.sum(np.abs(coef) >= C * (1 - 1e-8)))  # α = C",
            "free = coef.size - bound  # 0 < α < C",
            "loss = np.maximum(0.0, 1.0 - y_train * f_train)",
        ]
    cost = "0.0  # the hard margin: no loss term" if hard else "C * np.sum(loss)"
    return section(
        "The numbers the page prints",
        *pct,
        *counts,
        "# |f|^2 = sum_i c_i (f(x_i) - b) over the support vectors (c_i = α_i y_i)",
        "norm2 = coef @ (f_train[model.support_] - b)",
        f"objective = 0.5 * norm2 + {cost}",
        'print("support vectors:", f"{free + bound} / {len(y_train)}")',
        'print("free SVs:", free)',
        'print("bound SVs:", bound)',
        *ERROR_LINES,
        'print("objective:", f"{objective:.4g}")',
        'print("bias b:", f"{b:.4g}")',
        f'print("f on the first {N_SHOWN} training points:", '
        f"f_train[:{N_SHOWN}].round(6))",
    )


def _sklearn_figure(s: Any, precomputed: bool, title: str) -> str:
    decision = (
        "model.decision_function(kernel(grid, X_train))"
        if precomputed
        else "model.decision_function(grid)"
    )
    return section(
        "The figure, drawn by matplotlib",
        *sklearn_code.figure_lines(
            "X", "X_train", "y_train", decision, "model.support_", title
        ),
    )


# -- the snippet ---------------------------------------------------------------------


def explore_code(
    settings: Any,
    edits: tuple = ((), (), ()),
    upload: tuple[Array, Array] | None = None,
) -> Snippet:
    """The code for Explore's view of ``settings`` with ``edits`` (added,
    removed, moved: the page's) on its data, or on ``upload``'s points."""
    s = settings
    title = _describe(s, upload)
    data = _data_section(s, edits, upload)
    model, precomputed = _sklearn_model(s)
    return writer.page_snippet(
        title,
        "Explore",
        "it fits and prints what the page shows.",
        [data, _svmlab_model(s), _svmlab_numbers(s), _svmlab_figure(s)],
        [
            _data_section(s, edits, upload, sklearn=True),
            model,
            _sklearn_numbers(s, precomputed),
            _sklearn_figure(s, precomputed, title.removeprefix("Explore: ")),
        ],
        stem="svmlab_explore",
        sklearn_tools="scikit-learn's SVC and matplotlib",
    )

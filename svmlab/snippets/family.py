"""The code for an SVM family view: C-SVC with class weights, ν-SVC or the
one-class SVM, Platt's probabilities and a threshold with its ROC curve.

:func:`family_code` reads the page's request (an object with the fields of
``svmlab.ui.family.requests.FamilyRequest``, read by name: the data source and
its generator's settings, the machine, the kernel and its parameters, C, ν,
the class weights and, for the one-class SVM, the class it is fitted on), the
points clicked in, the threshold on f and, for uploaded data, the points
themselves. The svmlab flavour fits what the page fits and prints the numbers
beside the plane and under the threshold the way the page prints them (but
the fit time, the run's own); the scikit-learn flavour fits ``sklearn.svm``'s
``SVC``, ``NuSVC`` or ``OneClassSVM`` (LIBSVM's machines, as svmlab's) and
says where its Platt scaling differs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from svmlab.array_types import Array
from svmlab.snippets import sklearn_code, writer
from svmlab.snippets.writer import (
    Snippet,
    array_literal,
    call,
    comment,
    generated_lines,
    literal,
    section,
)

__all__ = ["N_TEST", "TOL", "family_code"]

#: The page's fresh test points (``svmlab.ui.family.requests.N_TEST``).
N_TEST = 400
#: The page's solver tolerance (``svmlab.ui.family.requests.TOL``).
TOL = 1e-5
#: Folds of Platt's internal cross-validation (LIBSVM's, the page's).
PLATT_FOLDS = 5
#: svmlab's polynomial kernel's coef0, which the page leaves alone.
COEF0 = 1.0


def _data_section(
    r: Any, added: tuple, upload: Any, imports: list[str], bounds: str
) -> str:
    if upload is None:
        lines = generated_lines(
            "datasets.make",
            r.source,
            dict(r.data_items),
            ("X", "y"),
            N_TEST,
            "The threshold's numbers",
        )
        lines.append("y_test = np.where(y_test > 0, 1.0, -1.0)")
    else:
        X, y = upload
        lines = [
            "# The uploaded points (an upload has no test points: the confusion",
            "# matrix and the ROC curve use the training points).",
            f"X = {array_literal(X)}",
            f"y = {array_literal(np.where(np.asarray(y, dtype=float) > 0, 1.0, -1.0))}",
            "X_test = y_test = None",
        ]
    lines += ["y = np.where(y > 0, 1.0, -1.0)", bounds]
    if added:
        lines += writer.clicked_lines(added, "(x1, x2) and their class", "y")
    others = "others = None"
    if r.machine == "one_class" and r.train != "all":
        side = "y > 0" if r.train == "pos" else "y < 0"
        lines += [
            "# The one-class SVM sees one class; the other is drawn hollow.",
            f"keep = {side}",
            "others, X, y = X[~keep], X[keep], y[keep]",
        ]
    else:
        lines.append(others)
    return writer.data_section("The data (labels ±1)", "\n".join(imports), lines)


def _kernel_kwargs(r: Any) -> dict[str, Any]:
    return writer.kernel_keywords(r.kernel, r.sigma, r.degree, (r.a, r.r))


def _class_weight(r: Any) -> Any:
    if r.weights == "balanced":
        return "balanced"
    if r.weights == "manual":
        return {1.0: float(r.w_pos), -1.0: float(r.w_neg)}
    return None


#: The page's number formats: a share, and "wrong / count (share)".
FORMAT_LINES = (
    "def pct(value):",
    '    return f"{100.0 * value:.1f} %"',
    "",
    "",
    "def class_errors(f, y, threshold=0.0):",
    '    """Per class: "wrong / count (share)" when f >= threshold is +1."""',
    "    called = np.where(f >= threshold, 1.0, -1.0)",
    "    out = {}",
    "    for label in (1, -1):",
    "        wrong, count = np.sum(called[y == label] != label), np.sum(y == label)",
    '        share = f" ({pct(wrong / count)})" if count else ""',
    '        out[label] = f"{wrong} / {count}{share}"',
    "    return out",
    "",
    "",
)


def _weight_lines(C: float) -> list[str]:
    """C times each class's weight (1 without weights), as the page prints."""
    return [
        "w = dict(zip(model.classes_.tolist(), model.class_weight_.tolist()))",
        f"C = {literal(C)}",
        "C_pos, C_neg = C * w.get(1.0, 1.0), C * w.get(-1.0, 1.0)",
        'print("C₊ / C₋:", f"{C_pos:.3g} / {C_neg:.3g}")',
    ]


def _error_lines(r: Any, f: str, f_test: str) -> list[str]:
    if not r.classifier:
        return []
    return [
        f"errors = class_errors({f}, y)",
        'print("training errors, class +1:", errors[1])',
        'print("training errors, class −1:", errors[-1])',
        "if X_test is not None:",
        f"    errors = class_errors({f_test}, y_test)",
        '    print("test errors, class +1:", errors[1])',
        '    print("test errors, class −1:", errors[-1])',
    ]


#: The one-class SVM's last row when it saw one class: the other's share it
#: flags as new (both flavours).
OTHERS_LINES = (
    "if others is not None and len(others):",
    "    new = np.mean(model.decision_function(others) < 0)",
    '    print("other class flagged:", pct(new))',
)


#: The ν machines' rows beside the plane, by machine: the estimator, its
#: share that ν bounds, its ρ and what follows ρ.
NU_ROWS = {
    "nu": (
        "NuSVC",
        'print("margin errors:", pct(model.margin_error_fraction_))',
        "rho_",
        ('print("equivalent C:", f"{model.C_:.4g}")',),
    ),
    "one_class": (
        "OneClassSVM",
        'print("outside (f < 0):", pct(model.outlier_fraction_))',
        "offset_",
        OTHERS_LINES,
    ),
}


def _svmlab_model(r: Any) -> str:
    kw = _kernel_kwargs(r)
    if r.machine in NU_ROWS:
        name, share, rho, after = NU_ROWS[r.machine]
        model = call(f"svmlab.{name}", {"nu": float(r.nu), **kw, "tol": TOL})
        rows = [
            share,
            f'print("ν:", pct({literal(float(r.nu))}))',
            'print("support vectors:", pct(model.support_fraction_))',
            f'print("ρ:", f"{{model.{rho}:.4g}}")',
            *after,
        ]
    else:
        weight = _class_weight(r)
        model = call(
            "svmlab.SVC",
            {"C": float(r.C), "class_weight": weight, **kw, "tol": TOL},
        )
        rows = ['print("support vectors:", f"{model.support_.size} / {len(y)}")']
        rows += _weight_lines(float(r.C))
    platt = []
    if r.classifier:
        platt = [
            "# Platt's sigmoid p = 1 / (1 + exp(A f + B)), fitted as LIBSVM does:",
            "# on the decision values of a 5-fold cross-validation.",
            "f_cv = probability.cross_val_decision(",
            f"    sklearn.base.clone(model), X, y, folds={PLATT_FOLDS}, random_state=0",
            ")",
            "platt = probability.sigmoid_train(f_cv, y)",
            "A, B = platt.A, platt.B",
            'print("Platt\'s A, B:", f"{A:.3g}, {B:.3g}")',
        ]
    return section(
        "The model and the numbers beside the plane",
        *FORMAT_LINES,
        model.replace("svmlab.", "model = svmlab.", 1),
        "model.fit(X, y)",
        "f = model.decision_function(X)",
        "f_test = None if X_test is None else model.decision_function(X_test)",
        *rows,
        *_error_lines(r, "f", "f_test"),
        *platt,
        "# The smallest eigenvalue of the Gram matrix (negative: not a kernel).",
        call("kernels.gram", _kernel_kwargs(r), prefix="K = ", args=("=X",)),
        "lam_min, psd = psd_note(K)",
        'eigen = f"{lam_min:.3g}" if lam_min >= 0 or psd else "0 (to rounding)"',
        'print("smallest eigenvalue of K:", eigen)',
        "if not model.converged_:",
        "    print(\"solver:\", f\"stopped ({model.stop_reason_.replace('_', ' ')})\")",
        'print("f on the first 5 points:", f[:5].round(6))',
    )


def _threshold_lines(r: Any, t: float, p_line: list[str]) -> list[str]:
    """The confusion matrix at f >= t and the ROC curve, from ``f``/``f_test``
    and ``y``/``y_test`` (the test points when there are any)."""
    return [
        f"t = {literal(float(t))}",
        "where, f_at, y_at = (",
        '    ("test", f_test, y_test) if X_test is not None else ("training", f, y)',
        ")",
        "called = f_at >= t",
        "tp, fn = np.sum(called & (y_at > 0)), np.sum(~called & (y_at > 0))",
        "fp, tn = np.sum(called & (y_at < 0)), np.sum(~called & (y_at < 0))",
        'print("points:", where)',
        'print("truly +1, called +1 / −1:", f"{tp} / {fn}")',
        'print("truly −1, called +1 / −1:", f"{fp} / {tn}")',
        'print("true positive rate:", pct(tp / (tp + fn)))',
        'print("false positive rate:", pct(fp / (fp + tn)))',
        'print("error:", pct((fp + fn) / len(y_at)))',
        'print("AUC:", f"{roc_auc_score(y_at > 0, f_at):.3f}")',
        *p_line,
    ]


def _threshold_section(r: Any, t: float, flavour: str) -> str:
    """The threshold's section (none for the one-class SVM): Platt's p at t by
    svmlab's sigmoid or by its formula, and scikit-learn's ROC curve for the
    matplotlib figure."""
    if not r.classifier:
        return ""
    if flavour == "svmlab":
        title = "A threshold on f: the confusion matrix and the ROC curve (no refit)"
        imports = "from sklearn.metrics import roc_auc_score"
        p = ["p = probability.sigmoid_predict(np.array([t]), A, B)[0]"]
    else:
        title = "A threshold on f: the confusion matrix and the ROC curve"
        imports = "from sklearn.metrics import roc_auc_score, roc_curve"
        p = ["p = 1.0 / (1.0 + np.exp(A * t + B))"]
    p.append('print("Platt\'s p at t:", f"{p:.3f}")')
    if flavour != "svmlab":
        p.append("fpr, tpr, _ = roc_curve(y_at > 0, f_at)")
    return section(title, imports, "", *_threshold_lines(r, t, p))


def _svmlab_figure(r: Any, shade: str, t: float) -> str:
    state = (
        "state = model.sv_state_"
        if r.machine == "C"
        else "solution = model.solution_\n"
        "state = np.where(solution.coef != 0, 1, 0)\n"
        "state[(solution.coef != 0) & (solution.alpha >= solution.upper)] = 2"
    )
    kw: dict[str, Any] = {"machine": r.machine, "state": "=state"}
    if r.classifier:
        kw.update(shade=shade, platt="=(A, B)", threshold=float(t))
    kw["others"] = "=others"
    return section(
        "The plane (in a notebook it draws below; a script opens a browser tab)",
        "# The support vectors' states: 1 free, 2 at the bound (ringed apart).",
        *state.splitlines(),
        call(
            "family_figures.family_figure",
            kw,
            prefix="fig = ",
            args=("=model", "=X", "=y", "=bounds"),
        ),
        "fig.show()",
    )


# -- scikit-learn ------------------------------------------------------------------


#: The ν machines' rows in scikit-learn's terms, by machine: the estimator and
#: the rows before and after the support vectors' share (LIBSVM reports
#: neither the shares ν bounds nor ν-SVC's ρ: they are computed from f).
SKLEARN_NU_ROWS = {
    "nu": (
        "NuSVC",
        (
            "# Margin errors: y f < 1 (LIBSVM scales ν-SVC's f so its margins",
            "# are at ±1). LIBSVM does not report ρ or the equivalent C.",
            'print("margin errors:", pct(np.mean(y * f < 1 - 1e-8)))',
        ),
        (),
    ),
    "one_class": (
        "OneClassSVM",
        ('print("outside (f < 0):", pct(np.mean(f < 0)))',),
        ('print("ρ:", f"{model.offset_[0]:.4g}")', *OTHERS_LINES),
    ),
}


def _sklearn_model(r: Any) -> str:
    coef0 = float(r.r) if r.kernel == "sigmoid" else COEF0
    kernel = sklearn_code.kernel_lines(r.kernel, r.sigma, r.degree, coef0, r.a)
    kw = sklearn_code.kernel_kwargs(r.kernel, r.degree, coef0, float(r.a))
    base = {**kw, "tol": TOL}
    if r.machine in SKLEARN_NU_ROWS:
        name, before, after = SKLEARN_NU_ROWS[r.machine]
        model_kw = {"nu": float(r.nu), **base}
        support = 'print("support vectors:", pct(model.support_.size / len(y)))'
        rows = [*before, support, *after]
    else:
        weight = _class_weight(r)
        name = "SVC"
        model_kw = {"C": float(r.C), "class_weight": weight, **base}
        rows = ['print("support vectors:", f"{model.support_.size} / {len(y)}")']
        rows += _weight_lines(float(r.C))
    platt = []
    if r.classifier:
        platt = [
            *comment(
                "Platt's sigmoid: probability=True fits it as svmlab does "
                "(on the decision values of LIBSVM's internal 5-fold "
                "cross-validation), but LIBSVM shuffles the folds with its own "
                "random numbers, so A and B differ a little from the page's. "
                "p = 1 / (1 + exp(A f + B)): A = probA_, B = probB_."
            ),
            call(
                name,
                {**model_kw, "probability": True, "random_state": 0},
                prefix="platt = ",
            ),
            "platt.fit(X, y)",
            "A, B = platt.probA_[0], platt.probB_[0]",
            'print("Platt\'s A, B:", f"{A:.3g}, {B:.3g}")',
        ]
    fit_y = "X" if r.machine == "one_class" else "X, y"
    return section(
        f"The model: scikit-learn's {name} (LIBSVM)",
        f"from sklearn.svm import {name}",
        "",
        *kernel,
        *FORMAT_LINES,
        call(name, model_kw, prefix="model = "),
        f"model.fit({fit_y})",
        "f = model.decision_function(X)",
        "f_test = None if X_test is None else model.decision_function(X_test)",
        *rows,
        *_error_lines(r, "f", "f_test"),
        *platt,
        'print("f on the first 5 points:", f[:5].round(6))',
    )


def _sklearn_figure(r: Any, title: str) -> str:
    roc = (
        [
            "",
            "fig, ax = plt.subplots(figsize=(4.5, 4.5))",
            'ax.plot(fpr, tpr, "k-")',
            'ax.plot([0, 1], [0, 1], "k:")',
            'ax.plot(fp / (fp + tn), tp / (tp + fn), "o", label=f"f >= {t:g}")',
            'ax.set_xlabel("false positive rate")',
            'ax.set_ylabel("true positive rate")',
            "ax.legend()",
            "plt.show()",
        ]
        if r.classifier
        else []
    )
    return section(
        "The plane"
        + (" and the ROC curve" if r.classifier else "")
        + ", drawn by matplotlib",
        *sklearn_code.figure_lines(
            "X", "X", "y", "model.decision_function(grid)", "model.support_", title
        ),
        *roc,
    )


# -- the snippet -------------------------------------------------------------------


def _describe(r: Any) -> str:
    """The view's title after "SVM family: " and the data's name."""
    kernel = writer.kernel_name(r.kernel)
    if r.machine == "nu":
        machine = f"ν-SVC with ν = {r.nu:g}"
    elif r.machine == "one_class":
        machine = f"one-class SVM with ν = {r.nu:g}"
    else:
        weights = {"none": "", "balanced": ", balanced weights"}.get(
            r.weights, f", weights {r.w_pos:g} / {r.w_neg:g}"
        )
        machine = f"C-SVC with C = {r.C:g}{weights}"
    return f", {machine}, {kernel} kernel"


def family_code(
    request: Any,
    added: tuple = (),
    threshold: float = 0.0,
    shade: str = "f",
    upload: tuple[Array, Array] | None = None,
) -> Snippet:
    """The code for the SVM family page's view of ``request`` with the points
    ``added`` ((x1, x2, label) triples clicked in), the threshold on f and the
    shading, on ``upload``'s points if uploaded."""
    r = request
    title = writer.view_title("SVM family", r.source, upload, _describe(r))
    bounds = "bounds = figures.data_bounds(X)  # the axes: the data's own points"
    return writer.page_snippet(
        title,
        "SVM family",
        "it fits and prints what the page shows (but the fit time).",
        [
            _data_section(
                r,
                added,
                upload,
                [
                    "import sklearn.base",
                    "",
                    "import svmlab",
                    "from svmlab import datasets, figures, kernels",
                    "from svmlab.figures import family as family_figures",
                    "from svmlab.kernels.psd import psd_note",
                    "from svmlab.svm import probability",
                ],
                bounds,
            ),
            _svmlab_model(r),
            *filter(None, [_threshold_section(r, threshold, "svmlab")]),
            _svmlab_figure(r, shade, threshold),
        ],
        [
            _data_section(
                r, added, upload, ["from svmlab import datasets, figures"], bounds
            ),
            _sklearn_model(r),
            *filter(None, [_threshold_section(r, threshold, "sklearn")]),
            _sklearn_figure(r, title.removeprefix("SVM family: ")),
        ],
        stem="svmlab_family",
    )

"""The code for a Multiclass view: one-vs-rest, one-vs-one and Crammer-Singer
on the same data, kernel and C.

:func:`multiclass_code` reads the page's request (an object with the fields of
``svmlab.ui.multiclass.requests.MulticlassRequest``, read by name: the data
source and its generator's settings, the kernel, C, sigma, degree, the binary
fits' machine, ν, loss and bias) and, for uploaded data, the points themselves
(split 70/30 as the page splits them). The svmlab flavour fits the three
methods as :func:`svmlab.experiments.multiclass_compare.compare` does and
prints the numbers under each panel the way the page prints them (but the fit
times); the scikit-learn flavour fits ``OneVsRestClassifier(SVC)``, ``SVC``'s
own one-vs-one (LIBSVM) and, for the linear kernel, ``LinearSVC``'s
Crammer-Singer, saying that svmlab's kernel Crammer-Singer dual has no
counterpart.
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
    literal,
    section,
)

__all__ = ["N_TEST", "multiclass_code"]

#: The page's fresh test points (``svmlab.ui.multiclass.requests.N_TEST``).
N_TEST = 1000
#: An upload's share held out as its test set (``requests.TEST_SHARE``).
TEST_SHARE = 0.3
#: The settings the page leaves at their defaults (``MulticlassSettings``).
COEF0, DELTA, TOL = 1.0, 0.1, 1e-3
#: The page's budget of each method's fit (``svmlab.ui.frame.room``).
FIT_SECONDS = 5.0
#: The page's methods, in its order (``svmlab.svm.multiclass.METHODS``).
METHOD_ORDER = ("ovr", "ovo", "crammer_singer")


#: The page's share format (``requests.pct``).
PCT_LINES = (
    "def pct(value):",
    '    return "–" if not np.isfinite(value) else f"{100.0 * value:.1f} %"',
    "",
    "",
)


def _data_section(r: Any, upload: tuple[Array, Array] | None, imports: str) -> str:
    if upload is None:
        lines = generated_lines(
            "multiclass_data.make",
            r.source,
            dict(r.data_items),
            ("X", "y"),
            N_TEST,
            "The test error",
        )
    else:
        X, y = upload
        lines = [
            "# The uploaded points, split 70/30 at random (seed 0) as the page",
            "# splits them: the test error is measured on the 30 %.",
            f"X_all = {array_literal(X)}",
            f"y_all = {array_literal(y)}.astype(int)",
            "order = np.random.default_rng(0).permutation(len(y_all))",
            f"cut = max(1, round(len(y_all) * {literal(1 - TEST_SHARE)}))",
            "train, test = order[:cut], order[cut:]",
            "if test.size == 0:  # one point: it is its own test set",
            "    train = test = order",
            "X, y = X_all[train], y_all[train]",
            "X_test, y_test = X_all[test], y_all[test]",
        ]
    return writer.data_section("The data", imports, lines)


def _binary_kwargs(r: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"kernel": r.kernel, "C": float(r.C)}
    if r.kernel == "gaussian":
        out["sigma"] = float(r.sigma)
    elif r.kernel == "polynomial":
        out.update(degree=int(r.degree), coef0=COEF0)
    return out


def _entry(
    method: str, callee: str, kwargs: dict[str, Any], args: tuple[str, ...] = ()
) -> str:
    """One method's model as an entry of the script's ``models`` dict."""
    return call(callee, kwargs, indent="    ", prefix=f'"{method}": ', args=args) + ","


def _svmlab_models(r: Any) -> str:
    kw = {**_binary_kwargs(r), "max_seconds": FIT_SECONDS}
    binary: dict[str, Any] = (
        {"nu": float(r.nu)}
        if r.machine == "nu"
        else {"loss": r.loss, "delta": DELTA, "bias": r.bias}
    )
    return section(
        "The three methods and the numbers under each panel",
        "# Each method's fit has 5 s, as on the page; the fit times are this",
        "# run's own, so they are left out.",
        "models = {",
        _entry("ovr", "svmlab.OneVsRestSVC", {**kw, **binary}),
        _entry("ovo", "svmlab.OneVsOneSVC", {**kw, **binary}),
        _entry("crammer_singer", "svmlab.CrammerSingerSVC", {**kw, "bias": "none"}),
        "}",
        "",
        "",
        *PCT_LINES,
        "fitted = {}",
        "for name, model in models.items():",
        "    try:",
        "        model.fit(X, y)",
        "    except svmlab.SvmlabError as error:  # one method failing hides no other",
        '        print(f"{name} | failed: {error}")',
        "        continue",
        "    fitted[name] = model",
        "    wrong = model.predict(X_test) != y_test",
        "    # The points the method's own rule leaves open: one-vs-rest, no",
        "    # classifier or several claim them (f_c > 0); one-vs-one, a tied vote.",
        '    if name == "ovr":',
        "        undecided = ovr_ambiguity(model.binary_decisions(X_test)) != 1",
        '    elif name == "ovo":',
        "        undecided = ovo_ties(model.votes(X_test))",
        "    else:",
        "        undecided = np.zeros(len(y_test), dtype=bool)",
        '    print(f"{name} | test error: {pct(np.mean(wrong))}")',
        "    training = np.mean(model.predict(X) != y)",
        '    print(f"{name} | training error: {pct(training)}")',
        '    print(f"{name} | SVs: {model.support_.shape[0]}")',
        '    print(f"{name} | undecided: {pct(np.mean(undecided))}")',
        "    if undecided.any():",
        "        undecided_wrong = np.mean(wrong[undecided])",
        '        print(f"{name} | undecided wrong: {pct(undecided_wrong)}")',
        "    if not model.converged_:",
        '        print(f"{name} | stopped before convergence: approximate")',
    )


def _svmlab_figure() -> str:
    return section(
        "The three panels (a notebook draws them; a script opens browser tabs)",
        "bounds = figures.data_bounds(X)",
        "for name, model in fitted.items():",
        "    fig = multiclass_figures.panel_figure(",
        "        multiclass_figures.multiclass_panel_spec(model, X, y, bounds=bounds)",
        "    )",
        "    fig.update_layout(title=name)",
        "    fig.show()",
    )


# -- scikit-learn ------------------------------------------------------------------


def _why(r: Any) -> list[str]:
    lines = []
    if r.kernel != "linear":
        lines += comment(
            f"{NO_EQUIVALENT}: svmlab's Crammer-Singer with a {r.kernel} kernel "
            "(its kernel dual, solved exactly by CVXOPT or one point's block at a "
            "time). scikit-learn's Crammer-Singer is LinearSVC's, the linear "
            "kernel only, so this script leaves it out."
        )
    else:
        lines += comment(
            "svmlab's Crammer-Singer solves its kernel dual; with the linear "
            "kernel it is LinearSVC's multi_class='crammer_singer' (LIBLINEAR, "
            "the same problem, no intercept)."
        )
    if r.machine != "nu" and (r.loss != "hinge" or r.bias != "unregularized"):
        what = []
        if r.loss != "hinge":
            what.append(f"the {r.loss.replace('_', ' ')} loss")
        if r.bias != "unregularized":
            what.append("no bias" if r.bias == "none" else "a regularized bias")
        lines += comment(
            f"{NO_EQUIVALENT} for the binary fits' {' and '.join(what)}: SVC "
            "minimises the hinge with an unregularized b. This fits that "
            "instead, so one-vs-rest's and one-vs-one's numbers differ from "
            "the page's."
        )
    return lines


def _sklearn_models(r: Any) -> str:
    kernel = sklearn_code.kernel_lines(r.kernel, r.sigma, r.degree, COEF0, 1.0)
    kw = sklearn_code.kernel_kwargs(r.kernel, r.degree, COEF0, 1.0)
    if r.machine == "nu":
        name, machine = "NuSVC", {"nu": float(r.nu)}
    else:
        name, machine = "SVC", {"C": float(r.C)}
    binary = {**machine, **kw, "tol": TOL}
    cs = []
    if r.kernel == "linear":
        cs = [
            _entry(
                "crammer_singer",
                "LinearSVC",
                {
                    "multi_class": "crammer_singer",
                    "C": float(r.C),
                    "fit_intercept": False,
                    "tol": TOL,
                    "max_iter": 100_000,
                    "random_state": 0,
                },
            ),
        ]
    return section(
        f"One-vs-rest, one-vs-one (scikit-learn's {name}, LIBSVM) and the numbers",
        "from sklearn.multiclass import OneVsRestClassifier",
        f"from sklearn.svm import LinearSVC, {name}"
        if cs
        else f"from sklearn.svm import {name}",
        "",
        *_why(r),
        *kernel,
        "# One-vs-one is SVC's own multiclass rule (LIBSVM): one classifier per",
        "# pair, a vote, a tie to the class that comes first.",
        "models = {",
        _entry("ovr", "OneVsRestClassifier", {}, ("=" + call(name, binary),)),
        _entry("ovo", name, {**binary, "decision_function_shape": "ovo"}),
        *cs,
        "}",
        "",
        "",
        *PCT_LINES,
        "def ovo_votes(model, X):",
        '    """Votes per class: f_ij > 0 votes for i, else for j (LIBSVM)."""',
        "    k = len(model.classes_)",
        "    pairwise = model.decision_function(X).reshape(len(X), -1)",
        "    votes = np.zeros((len(X), k), dtype=int)",
        "    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]",
        "    for column, (i, j) in enumerate(pairs):",
        "        first = pairwise[:, column] > 0",
        "        votes[first, i] += 1",
        "        votes[~first, j] += 1",
        "    return votes",
        "",
        "",
        "for name, model in models.items():",
        "    model.fit(X, y)",
        "    wrong = model.predict(X_test) != y_test",
        '    if name == "ovr":',
        "        claims = np.column_stack(",
        "            [m.decision_function(X_test) for m in model.estimators_]",
        "        )",
        "        if claims.shape[1] == 1:  # two classes: one classifier, -f and f",
        "            claims = np.column_stack([-claims[:, 0], claims[:, 0]])",
        "        undecided = np.sum(claims > 0, axis=1) != 1",
        '    elif name == "ovo":',
        "        votes = ovo_votes(model, X_test)",
        "        top = votes.max(axis=1, keepdims=True)",
        "        undecided = np.sum(votes == top, axis=1) > 1",
        "    else:",
        "        undecided = np.zeros(len(y_test), dtype=bool)",
        '    print(f"{name} | test error: {pct(np.mean(wrong))}")',
        "    training = np.mean(model.predict(X) != y)",
        '    print(f"{name} | training error: {pct(training)}")',
        '    if name == "ovr":  # a support vector of any classifier',
        "        support = set()",
        "        for m in model.estimators_:",
        "            support |= set(m.support_.tolist())",
        '        print(f"{name} | SVs: {len(support)}")',
        '    elif name == "ovo":',
        '        print(f"{name} | SVs: {model.support_.shape[0]}")',
        '    print(f"{name} | undecided: {pct(np.mean(undecided))}")',
        "    if undecided.any():",
        "        undecided_wrong = np.mean(wrong[undecided])",
        '        print(f"{name} | undecided wrong: {pct(undecided_wrong)}")',
    )


#: The three panels by matplotlib: each method's regions and the points.
FIGURE_LINES = (
    "low, high = X.min(axis=0), X.max(axis=0)",
    "low, high = low - 0.08 * (high - low), high + 0.08 * (high - low)",
    "xx, yy = np.meshgrid(",
    "    np.linspace(low[0], high[0], 200), np.linspace(low[1], high[1], 200)",
    ")",
    "grid = np.column_stack([xx.ravel(), yy.ravel()])",
    "fig, axes = plt.subplots(1, len(models), figsize=(5 * len(models), 5))",
    "for ax, (name, model) in zip(axes, models.items()):",
    "    regions = model.predict(grid).reshape(xx.shape)",
    '    ax.contourf(xx, yy, regions, alpha=0.3, cmap="tab10", vmin=0, vmax=9)',
    '    ax.scatter(*X.T, c=y, cmap="tab10", vmin=0, vmax=9, s=12)',
    "    ax.set_title(name)",
    '    ax.set_aspect("equal")',
)


# -- the snippet -------------------------------------------------------------------


def _describe(r: Any) -> str:
    """The view's title after "Multiclass: " and the data's name."""
    kernel = writer.kernel_name(r.kernel)
    binary = f", binary ν-SVC (ν = {r.nu:g})" if r.machine == "nu" else ""
    return f", {kernel} kernel, C = {r.C:g}{binary}"


def multiclass_code(request: Any, upload: tuple[Array, Array] | None = None) -> Snippet:
    """The code for the Multiclass page's three panels for ``request`` (on
    ``upload``'s points, before the page's split, when the data were
    uploaded)."""
    r = request
    title = writer.view_title("Multiclass", r.source, upload, _describe(r))
    return writer.page_snippet(
        title,
        "Multiclass",
        "it fits and prints what the panels show (but the fit times).",
        [
            _data_section(
                r,
                upload,
                "import svmlab\nfrom svmlab import figures\n"
                "from svmlab.datasets import multiclass as multiclass_data\n"
                "from svmlab.figures import multiclass as multiclass_figures\n"
                "from svmlab.svm.multiclass import ovo_ties, ovr_ambiguity",
            ),
            _svmlab_models(r),
            _svmlab_figure(),
        ],
        [
            _data_section(
                r, upload, "from svmlab.datasets import multiclass as multiclass_data"
            ),
            _sklearn_models(r),
            sklearn_code.figure_section(
                "The panels, drawn by matplotlib",
                FIGURE_LINES,
                title.removeprefix("Multiclass: "),
                "fig.suptitle",
            ),
        ],
        stem="svmlab_multiclass",
    )

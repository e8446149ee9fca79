"""The SVM family page: C-SVC with class weights, ν-SVC and the one-class SVM on
the same data, Platt's probabilities, and a threshold with its ROC curve.

Data move one way: the sidebar (the shared data block, the shared model block on
:data:`FAMILY_STATE`'s fields) gives a :class:`FamilyRequest` (primitives only: it
keys the cache); :func:`fit` fits the machine once, with everything that does not
depend on the threshold or the shading (the decision values on the training and
test points, Platt's A and B from LIBSVM's internal 5-fold cross-validation, the
smallest eigenvalue of the Gram matrix). The threshold and the shading are not in
the request: moving them reads the cached fit and never refits
(``tests/test_family_page.py`` counts the fits). The sentences are written from
the numbers measured now.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import streamlit as st
from numpy.typing import NDArray
from sklearn.base import clone

from svmlab import kernels
from svmlab.array_types import Array
from svmlab.errors import ProblemError, SvmlabError
from svmlab.figures import data_bounds
from svmlab.kernels.psd import psd_note
from svmlab.svm.classifier import SVC
from svmlab.svm.nu_svm import NuSVC, OneClassSVM, max_feasible_nu
from svmlab.svm.probability import (
    cross_val_decision,
    roc,
    sigmoid_predict,
    sigmoid_train,
    threshold_report,
)
from svmlab.ui.frame import data_source, page_url, room
from svmlab.ui.frame.model_block import model_block, model_field
from svmlab.ui.frame.model_fields import NU_GRID
from svmlab.ui.frame.page_state import FAMILY_STATE

__all__ = [
    "CHART_KEY",
    "MACHINES",
    "PREFIX",
    "FamilyRequest",
    "Fitted",
    "add_point",
    "added_points",
    "class_errors",
    "clear_points",
    "confusion_markdown",
    "controls",
    "fit",
    "nu_path",
    "numbers",
    "numbers_markdown",
    "path_caption",
    "probability_at",
    "story",
    "threshold_view",
]

PREFIX = "family"
CHART_KEY = "family_chart"
ROC_KEY = "family_roc_chart"
NU_PATH_KEY = "family_nu_path_chart"
#: Fresh test points drawn from the generator (another seed): the confusion
#: matrix, the ROC curve and the test errors are measured on them.
N_TEST = 400
MAX_N = FAMILY_STATE.max_n
#: The solvers' tolerance: at LIBSVM's 1e-3 the one-class SVM's count of
#: support vectors at small ν was off by five of 199 points (multipliers left
#: just above 0); 1e-5 costs a few ms at the page's sizes.
TOL = 1e-5
#: Folds of Platt's internal cross-validation (LIBSVM's).
PLATT_FOLDS = 5
MACHINES = {
    "C": "C-SVC (you set C)",
    "nu": "ν-SVC (ν bounds the errors)",
    "one_class": "one-class (labels ignored)",
}
WEIGHTS = {
    "none": "none",
    "balanced": "balanced",
    "manual": "C₊ and C₋",
}
TRAIN = {
    "all": "every point (labels ignored)",
    "pos": "class +1 only",
    "neg": "class −1 only",
}
SHADES = {"f": "f(x)", "p": "probability p (Platt)"}


@dataclass(frozen=True)
class FamilyRequest(data_source.DataRequest):
    """Everything the fit depends on, as primitives (the cache key). The
    threshold and the shading are left out on purpose: they never refit."""

    prefix = PREFIX
    machine: str
    kernel: str
    C: float
    nu: float
    sigma: float
    degree: int
    a: float
    r: float
    weights: str
    w_pos: float
    w_neg: float
    train: str

    @property
    def classifier(self) -> bool:
        return self.machine != "one_class"

    def kernel_params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kernel": self.kernel}
        if self.kernel == "gaussian":
            out["sigma"] = self.sigma
        elif self.kernel == "polynomial":
            out["degree"] = int(self.degree)
        elif self.kernel == "sigmoid":
            out["scale"], out["coef0"] = self.a, self.r
        return out

    def class_weight(self) -> dict[float, float] | str | None:
        """SVC's ``class_weight``: None, ``"balanced"`` or ``{+1: w+, -1: w-}``."""
        if self.weights == "balanced":
            return "balanced"
        if self.weights == "manual":
            return {1.0: self.w_pos, -1.0: self.w_neg}
        return None

    def estimator(self) -> SVC | NuSVC | OneClassSVM:
        params = {
            **self.kernel_params(),
            "tol": TOL,
            "max_seconds": room.fit_seconds(),
        }
        if self.machine == "nu":
            return NuSVC(nu=self.nu, **params)
        if self.machine == "one_class":
            return OneClassSVM(nu=self.nu, **params)
        return SVC(C=self.C, class_weight=self.class_weight(), **params)


def controls() -> FamilyRequest | None:
    """The sidebar: data and model. None while an upload is missing."""
    name, items = data_source.source_block(
        FAMILY_STATE,
        empty_note="Choose a CSV file: two feature columns and a label column "
        "(for the one-class SVM, the two feature columns alone will do).",
        one_class=True,
        n_help=f"Training points, at most {MAX_N}; the test numbers use "
        f"{N_TEST} fresh points.",
    )
    machine = model_field(
        FAMILY_STATE,
        "machine",
        heading="Model",
        fmt=MACHINES.get,
        help="C-SVC takes C; ν-SVC takes ν in (0, 1], a bound on the fractions of "
        "margin errors and support vectors; the one-class SVM ignores the labels "
        "and finds where the points are.",
    )
    classifier = machine != "one_class"
    grids, top = {}, 1.0
    if machine == "nu" and items:
        labels = _labels(name, items)
        top = max_feasible_nu(labels) if labels.size else 1.0
        grids["nu"] = feasible_nu_stops(labels)
    parameter = model_block(
        FAMILY_STATE,
        ("C", "weights", "wpos", "wneg") if machine == "C" else ("nu",),
        heading="",
        grids=grids,
        formats={"weights": WEIGHTS.get},
        labels={
            "weights": "Class weights",
            "wpos": "w₊ (C₊ = C w₊)",
            "wneg": "w₋ (C₋ = C w₋)",
        },
        helps={
            "nu": "ν-SVC: at most a fraction ν of the points are margin errors, at "
            "least ν are support vectors. One-class: at most ν lie outside, at "
            "least ν are support vectors.",
            "weights": "A C per class: errors on a small class cost more. "
            "Balanced is scikit-learn's rule, w_c = n / (2 n_c).",
        },
        disabled=() if field_value("weights") == "manual" else ("wpos", "wneg"),
    )
    if grids and top < 1.0:
        st.caption(
            f"On these data ν-SVC takes ν up to 2 min(n₊, n₋)/n = {top:.3g}: "
            f"the slider ends at {grids['nu'][-1]:g}."
        )
    train = "all"
    if not classifier:
        train = model_field(
            FAMILY_STATE,
            "train",
            fmt=TRAIN.get,
            help="The one-class SVM sees no labels: fit it on every point, or on "
            "one class and watch the other flagged as new.",
        )
    model = model_block(
        FAMILY_STATE, ("kernel", "sigma", "degree", "a", "r"), heading=""
    )
    if not items:
        return None
    return FamilyRequest(
        source=name,
        data_items=items,
        machine=machine,
        kernel=model["kernel"],
        C=float(parameter.get("C", _default("C"))),
        nu=float(parameter.get("nu", _default("nu"))),
        sigma=float(model["sigma"]),
        degree=int(model["degree"]),
        a=float(model["a"]),
        r=float(model["r"]),
        weights=str(parameter.get("weights", "none")),
        w_pos=float(parameter.get("wpos", 1.0)),
        w_neg=float(parameter.get("wneg", 1.0)),
        train=train,
    )


def _labels(source: str, items: data_source.DataItems) -> Array:
    """The ±1 labels the machine will see: the data's and the clicked points'."""
    try:
        _, y = data_source.request_data(PREFIX, source, items)
    except SvmlabError:
        return np.zeros(0)
    held = st.session_state.get(ADDED_KEY)
    extra = [p[2] for p in held[1]] if held and held[0] == (source, items) else []
    return np.concatenate([np.where(np.asarray(y) > 0, 1.0, -1.0), extra])


def feasible_nu_stops(y: Array) -> tuple[float, ...]:
    """The ν slider's stops for labels ``y``: every stop up to ν-SVC's largest
    feasible ν, 2 min(n₊, n₋)/n (Chang & Lin 2001), which ends the slider
    (rounded down to the slider's step). A value above it is moved onto it
    first, with a sentence (:func:`svmlab.ui.frame.page_url.say`)."""
    field = next(f for f in FAMILY_STATE.fields if f.query == "nu")
    top = max_feasible_nu(y) if y.size else 1.0
    stops = tuple(g for g in field.grid if g <= top + 1e-12) or (field.grid[0],)
    now = float(st.session_state.get(field.key, field.default))
    if now > stops[-1]:
        st.session_state[field.key] = stops[-1]
        page_url.say(
            FAMILY_STATE,
            [],
            [
                f"ν = {now:g} is more than these data allow: ν-SVC needs ν ≤ "
                f"2 min(n₊, n₋)/n = {top:.3g} (each class must hold half of ν n "
                f"with every αᵢ ≤ 1); using {stops[-1]:g}."
            ],
        )
    return stops


def _default(name: str) -> Any:
    return next(f.default for f in FAMILY_STATE.fields if f.query == name)


def field_value(name: str) -> Any:
    """A field's current widget value (its default before it has one)."""
    field = next(f for f in FAMILY_STATE.fields if f.query == name)
    return st.session_state.get(field.key, field.default)


def view_controls(classroom: bool = False) -> tuple[str, float]:
    """The shading and the threshold on f (main pane): they never refit."""
    shade = model_field(
        FAMILY_STATE,
        "shade",
        label="Shading",
        fmt=SHADES.get,
        help="Platt's probability is a monotone squash of f, "
        "p = 1 / (1 + exp(A f + B)): the same boundary, other contours.",
    )
    threshold = model_field(
        FAMILY_STATE,
        "t",
        label="Threshold on f: call +1 where f ≥ t",
        help="Moves the decision along f without refitting: the confusion matrix "
        "and the point on the ROC curve follow.",
    )
    return str(shade), float(threshold)


# -- points clicked in --------------------------------------------------------------

#: Points clicked in, ``((x1, x2, label), ...)``.
Added = tuple[tuple[float, float, float], ...]
#: Session key of the points clicked in: ``(data identity, Added)``.
ADDED_KEY = FAMILY_STATE.points
#: The radio choosing the class a click adds (a session choice, not a link's).
CLICK_LABEL_KEY = f"{PREFIX}_click_label"


def added_points(request: FamilyRequest) -> Added:
    """The points clicked into this data set (a new data set starts empty)."""
    held = st.session_state.get(ADDED_KEY)
    if held is None or held[0] != request.identity:
        return ()
    return held[1]


def add_point(request: FamilyRequest, point: tuple[float, float]) -> None:
    """Add a point of the class the radio says where the chart was clicked."""
    label = float(st.session_state.get(CLICK_LABEL_KEY, 1.0))
    st.session_state[ADDED_KEY] = (
        request.identity,
        (*added_points(request), (float(point[0]), float(point[1]), label)),
    )


def clear_points() -> None:
    st.session_state.pop(ADDED_KEY, None)


# -- the fit ------------------------------------------------------------------------


@dataclass(frozen=True)
class Fitted:
    """A fit and everything the page shows that does not depend on the threshold.

    ``X, y`` are the points the machine saw (for the one-class SVM fitted on one
    class: that class), ``others`` the points it did not (the other class, drawn
    hollow), ``f`` and ``f_test`` the decision values, ``A, B`` Platt's sigmoid
    (None for the one-class SVM, or when a fold could not be fitted: ``platt_note``
    says why), ``lam_min`` the smallest eigenvalue of the training Gram matrix
    and ``psd`` the sentence when it is negative.
    """

    model: Any
    X: Array
    y: Array
    others: Array | None
    f: Array
    test: tuple[Array, Array] | None
    f_test: Array | None
    A: float | None
    B: float | None
    platt_note: str | None
    lam_min: float
    psd: str | None
    state: NDArray[np.int8]
    seconds: float
    bounds: tuple[float, float, float, float]


def sv_states(model: Any) -> NDArray[np.int8]:
    """0 (not a support vector), 1 (free), 2 (at its upper bound) per training
    point, for each machine."""
    if isinstance(model, SVC):
        return np.asarray(model.sv_state_, dtype=np.int8)
    solution = model.solution_
    state = np.zeros(solution.coef.shape[0], dtype=np.int8)
    state[solution.coef != 0] = 1
    state[(solution.coef != 0) & (solution.alpha >= solution.upper)] = 2
    return state


def _platt(
    request: FamilyRequest, X: Array, y: Array
) -> tuple[float | None, float | None, str | None]:
    """Platt's A and B, fitted as LIBSVM does (5-fold decision values)."""
    try:
        f_cv = cross_val_decision(
            clone(request.estimator()), X, y, folds=PLATT_FOLDS, random_state=0
        )
    except SvmlabError as error:
        return (
            None,
            None,
            (
                "No probabilities: Platt's sigmoid is fitted on a 5-fold "
                f"cross-validation, and one fold could not be fitted ({error})"
            ),
        )
    platt = sigmoid_train(f_cv, y)
    return platt.A, platt.B, None


def training_points(request: FamilyRequest, added: Added = ()) -> tuple:
    """``(X, y, others, bounds, test)``: the points the machine sees (labels
    ±1, the points clicked in among them; for a one-class SVM fitted on one
    class, that class), the points it does not (the other class, else None),
    the axes' bounds (of the generated points: they stay when a class is left
    out or a point is clicked in) and the fresh test points (None for an
    upload)."""
    X, y = request.data()
    y = np.where(np.asarray(y) > 0, 1.0, -1.0)
    bounds = data_bounds(X)
    if added:
        extra = np.asarray(added, dtype=np.float64)
        X = np.vstack([X, extra[:, :2]])
        y = np.concatenate([y, extra[:, 2]])
    test = request.test_data(N_TEST)
    if test is not None:
        test = (test[0], np.where(np.asarray(test[1]) > 0, 1.0, -1.0))
    others = None
    if request.machine == "one_class" and request.train != "all":
        keep = y > 0 if request.train == "pos" else y < 0
        others = X[~keep]
        X, y = X[keep], y[keep]
    return X, y, others, bounds, test


@st.cache_resource(max_entries=32, show_spinner=False)
def fit(request: FamilyRequest, added: Added = ()) -> Fitted:
    """The request's machine on its points and the ones clicked in (raises
    :class:`svmlab.SvmlabError` with the engine's sentence)."""
    X, y, others, bounds, test = training_points(request, added)
    model = request.estimator()
    start = time.perf_counter()
    with room.page_fits():
        model.fit(X, y)
        A = B = None
        note = None
        if request.classifier:
            A, B, note = _platt(request, X, y)
    seconds = time.perf_counter() - start
    K = kernels.gram(X, **request.kernel_params())
    lam, psd = psd_note(K)
    f = model.decision_function(X)
    f_test = None if test is None else model.decision_function(test[0])
    return Fitted(
        model,
        X,
        y,
        others,
        f,
        test,
        f_test,
        A,
        B,
        note,
        lam,
        psd,
        sv_states(model),
        seconds,
        bounds,
    )


# -- along ν ------------------------------------------------------------------------


@dataclass(frozen=True)
class NuPath:
    """ν-SVC's or the one-class SVM's two fractions at every stop of the ν
    slider: ``low`` (margin errors, or points outside) ≤ ν ≤ ``high`` (support
    vectors). ``top`` is ν-SVC's largest feasible ν (the path stops there);
    ``skipped`` the ν at or below the smallest fraction of margin errors the
    kernel allows (no margin: ν-SVC refuses them)."""

    nus: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    top: float | None
    skipped: tuple[float, ...] = ()


@st.cache_resource(max_entries=16, show_spinner=False)
def nu_path(request: FamilyRequest, added: Added = ()) -> NuPath:
    """The request's machine at every ν of the slider (``request.nu`` is not
    used: the path is the same whichever ν the slider shows)."""
    X, y, *_ = training_points(request, added)
    top = max_feasible_nu(y) if request.machine == "nu" else None
    nus, low, high, skipped = [], [], [], []
    with room.page_fits():
        for nu in NU_GRID:
            if top is not None and nu > top:
                break
            try:
                model = replace(request, nu=nu).estimator().fit(X, y)
            except ProblemError:  # no margin: below the least fraction of errors
                skipped.append(nu)
                continue
            nus.append(nu)
            if request.machine == "nu":
                low.append(model.margin_error_fraction_)
            else:
                low.append(model.outlier_fraction_)
            high.append(model.support_fraction_)
    return NuPath(tuple(nus), tuple(low), tuple(high), top, tuple(skipped))


def path_caption(request: FamilyRequest, path: NuPath) -> str:
    """What the ν path shows, from its numbers."""
    what = "margin errors" if request.machine == "nu" else "points outside"
    text = (
        f"One fit at each of the ν slider's {len(path.nus)} stops on these "
        f"points: the fraction of {what} stays under the dashed diagonal ν and "
        "the fraction of support vectors above it (the ν-property: Schölkopf et "
        f"al. 2000 and, for one class, 2001); the orange line is the slider's "
        f"ν = {request.nu:g}."
    )
    if path.skipped:
        text += (
            f" At ν = {', '.join(f'{v:g}' for v in path.skipped)} ν-SVC finds no "
            "margin: no kernel boundary has that few margin errors."
        )
    if path.top is not None and path.top < 1.0:
        text += (
            f" Above 2 min(n₊, n₋)/n = {path.top:.3g} (dotted) ν-SVC is "
            "infeasible: each class must hold half of ν n with every αᵢ ≤ 1."
        )
    return text


def path_key(request: FamilyRequest) -> FamilyRequest:
    """The request :func:`nu_path` is cached under (ν left out)."""
    return replace(request, nu=0.0)


# -- the numbers --------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{100.0 * value:.1f} %"


def class_errors(f: Array, y: Array, threshold: float = 0.0) -> dict[int, tuple]:
    """Per class (+1, −1): ``(wrong, count)`` when ``f >= threshold`` is +1."""
    called = np.where(np.asarray(f) >= threshold, 1.0, -1.0)
    out = {}
    for label in (1, -1):
        mine = np.asarray(y) == label
        out[label] = (int(np.sum(called[mine] != label)), int(np.sum(mine)))
    return out


def _class_line(wrong: int, count: int) -> str:
    return f"{wrong} / {count}" + (f" ({_pct(wrong / count)})" if count else "")


def probability_at(fitted: Fitted, threshold: float) -> float | None:
    """Platt's p at f = ``threshold`` (None without probabilities)."""
    if fitted.A is None or fitted.B is None:
        return None
    return float(sigmoid_predict(np.array([threshold]), fitted.A, fitted.B)[0])


def _nu_property(
    below: str, fraction: float, nu: float, model: Any, rho: float
) -> list[tuple[str, str]]:
    """ν between its two bounds (the fraction ``below`` names is at most ν, the
    support vectors' at least ν) and ρ: ν-SVC's rows and the one-class SVM's."""
    return [
        (below, _pct(fraction)),
        ("ν", _pct(nu)),
        ("support vectors", _pct(model.support_fraction_)),
        ("ρ", f"{rho:.4g}"),
    ]


def numbers(request: FamilyRequest, fitted: Fitted) -> list[tuple[str, str]]:
    """The numbers beside the figure, as (label, value)."""
    m = fitted.model
    n = len(fitted.y)
    rows: list[tuple[str, str]] = []
    if request.machine == "nu":
        rows += _nu_property(
            "margin errors", m.margin_error_fraction_, request.nu, m, m.rho_
        )
        rows.append(("equivalent C", f"{m.C_:.4g}"))
    elif request.machine == "one_class":
        rows += _nu_property(
            "outside (f < 0)", m.outlier_fraction_, request.nu, m, m.offset_
        )
        if fitted.others is not None and fitted.others.shape[0]:
            new = float(np.mean(m.decision_function(fitted.others) < 0))
            rows.append(("other class flagged", _pct(new)))
    else:
        rows.append(("support vectors", f"{m.support_.size} / {n}"))
        weights = m.class_weight_ if hasattr(m, "class_weight_") else None
        if weights is not None:
            w = dict(zip(m.classes_.tolist(), np.ravel(weights).tolist(), strict=True))
            rows.append(
                (
                    "C₊ / C₋",
                    f"{request.C * w.get(1.0, 1.0):.3g} / "
                    f"{request.C * w.get(-1.0, 1.0):.3g}",
                )
            )
    if request.classifier:
        errors = class_errors(fitted.f, fitted.y)
        rows += [
            ("training errors, class +1", _class_line(*errors[1])),
            ("training errors, class −1", _class_line(*errors[-1])),
        ]
        if fitted.test is not None:
            errors = class_errors(fitted.f_test, fitted.test[1])
            rows += [
                ("test errors, class +1", _class_line(*errors[1])),
                ("test errors, class −1", _class_line(*errors[-1])),
            ]
        if fitted.A is not None:
            rows.append(("Platt's A, B", f"{fitted.A:.3g}, {fitted.B:.3g}"))
    rows += [
        (
            "smallest eigenvalue of K",
            f"{fitted.lam_min:.3g}"
            if fitted.lam_min >= 0 or fitted.psd
            else "0 (to rounding)",
        ),
        ("fit time", f"{1e3 * fitted.seconds:.0f} ms"),
    ]
    if not m.converged_:
        rows.append(("solver", f"stopped ({m.stop_reason_.replace('_', ' ')})"))
    return rows


def numbers_markdown(request: FamilyRequest, fitted: Fitted) -> str:
    """:func:`numbers` as short lines beside the chart."""
    return "  \n".join(
        f"{label}: **{value}**" for label, value in numbers(request, fitted)
    )


def story(request: FamilyRequest, fitted: Fitted) -> str:
    """What the picture shows, written from the numbers measured now."""
    m = fitted.model
    if request.machine == "nu":
        errors, support = m.margin_error_fraction_, m.support_fraction_
        holds = errors <= request.nu + 1e-9 <= support + 2e-9
        top = max_feasible_nu(fitted.y)
        return (
            f"ν = {request.nu:g} is an upper bound on the fraction of margin errors "
            f"({_pct(errors)}: points at the bound with y f < 1, purple rings) and "
            f"a lower bound on the fraction of support vectors ({_pct(support)})"
            f"{'' if holds else ' (up to the solver tol)'}. ν-SVC found the margin "
            f"ρ = {m.rho_:.3g}; the C-SVC with C = {m.C_:.3g} draws the same "
            f"boundary. ν can go up to 2 min(n₊, n₋)/n = {top:.3g} on these data."
        )
    if request.machine == "one_class":
        outside = m.outlier_fraction_
        text = (
            f"The one-class SVM separates the points from the origin in feature "
            f"space: f ≥ 0 (shaded) is where it puts the data. At most ν = "
            f"{request.nu:g} of the training points may lie outside; "
            f"{_pct(outside)} do (crosses), and {_pct(m.support_fraction_)} are "
            "support vectors (at least ν)."
        )
        if fitted.others is not None and fitted.others.shape[0]:
            new = float(np.mean(m.decision_function(fitted.others) < 0))
            text += (
                f" It never saw the other class (hollow): {_pct(new)} of those "
                "points fall outside, flagged as new."
            )
        return text
    errors = class_errors(fitted.f, fitted.y)
    if errors[1][1] == errors[-1][1]:
        return (
            f"The two classes are the same size ({errors[1][1]} points each): "
            f"{_class_line(*errors[1])} of class +1 and "
            f"{_class_line(*errors[-1])} of class −1 are on the wrong side. "
            "Class weights matter when one class is smaller: balanced weights "
            "are 1 for both here."
        )
    minority = 1 if errors[1][1] < errors[-1][1] else -1
    wrong, count = errors[minority]
    sign = "+1" if minority == 1 else "−1"
    text = (
        f"The smaller class is {sign} ({count} of {len(fitted.y)} training points);"
        f" {_class_line(wrong, count)} of its points are on the wrong side."
    )
    if request.weights == "none":
        text += (
            " Every error costs C alike, so the boundary is pushed into the "
            "smaller class: weight its errors (class weights: balanced) and it "
            "comes back."
        )
    else:
        text += (
            " Its errors now cost C times its weight, so the boundary moves back "
            "towards the larger class."
        )
    return text


# -- the threshold ------------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdView:
    """The threshold's confusion matrix and the ROC curve, on ``where`` points."""

    where: str
    report: Any
    fpr: Array
    tpr: Array
    auc: float


def threshold_view(fitted: Fitted, threshold: float) -> ThresholdView:
    """The confusion matrix at ``threshold`` and the ROC curve (no refit): on the
    fresh test points when there are any, else on the training points."""
    if fitted.test is not None and fitted.f_test is not None:
        f, y, where = fitted.f_test, fitted.test[1], "test"
    else:
        f, y, where = fitted.f, fitted.y, "training"
    y_pm = np.where(np.asarray(y) > 0, 1.0, -1.0)
    report = threshold_report(f, y_pm, threshold)
    fpr, tpr, _, auc = roc(f, y_pm)
    return ThresholdView(where, report, fpr, tpr, auc)


def confusion_markdown(view: ThresholdView) -> str:
    """The confusion matrix as a small table, rows the truth."""
    r = view.report
    return (
        f"| {view.where} points | called +1 | called −1 |\n"
        "| --- | ---: | ---: |\n"
        f"| truly +1 | {r.tp} | {r.fn} |\n"
        f"| truly −1 | {r.fp} | {r.tn} |\n"
    )


def threshold_caption(view: ThresholdView, p: float | None) -> str:
    r = view.report
    text = (
        f"At f ≥ {r.threshold:g}: true positive rate {_pct(r.tpr)}, false "
        f"positive rate {_pct(r.fpr)}, error {_pct(r.error)}; AUC = {view.auc:.3f}."
    )
    if p is not None:
        text += f" Platt's probability at this threshold: p = {p:.3f}."
    return text


#: The page's title and the help beside it (``page_hands.top_with_code``).
TITLE = "The SVM family"
HELP = (
    "The same data under C-SVC (you set C, and a C per class), ν-SVC (ν "
    "bounds the fractions of margin errors and support vectors) and the "
    "one-class SVM (no labels: where are the points?). Below: Platt's "
    "probabilities and a threshold on f with its ROC curve."
)

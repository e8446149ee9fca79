"""Cached wrappers of the engine calls the Explore page makes (STYLE rule 12).

Every cached function takes primitives or tuples of primitives only. Three caches:

- :func:`load_data` (``st.cache_data``): generate a data set and split it into
  training and test points. The arrays are small (n <= 2000 x 2), so the copy
  ``cache_data`` makes on every hit costs microseconds.
- :func:`gram_matrix` (``st.cache_resource``, a few entries: up to 32 MB each at
  n = 2000): the training Gram matrix, keyed by the data identity (data set,
  parameters, test fraction, edits) and the kernel parameters only, so moving C
  (or the loss, solver, bias, tol) reuses it instead of recomputing ``K``.
- :func:`fit` (``st.cache_resource``): the fitted model plus the numbers the page
  shows. ``cache_data`` would pickle and copy the estimator (its history holds up
  to 200 dual vectors) on every hit; ``cache_resource`` hands back the object,
  which the page treats as read-only.

Uploaded data (:mod:`svmlab.ui.explore.upload`) go through the same functions
under the data source name :data:`~svmlab.ui.explore.settings.UPLOAD`, with
``("upload", key)`` among the data items: :func:`hold_upload` puts the arrays
in a small process-wide table under their key (a hash of the arrays
themselves), so a key always means the same data and the caches may key on it.

Warm start: :func:`fit_settings` keeps the last dual vector per "problem
identity" (everything except C and sigma) in ``st.session_state`` and passes it as
``init`` when only C or sigma moved. The solution does not depend on the start
beyond the solver's tolerance, which is why ``_init`` may be left out of the
cache key.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import streamlit as st
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from svmlab import SVC, NuSVC, datasets, kernels, solvers
from svmlab.datasets.split import split_indices
from svmlab.errors import DataError, IncompatibleLossError, counted
from svmlab.figures import data_bounds
from svmlab.kernels.psd import psd_note
from svmlab.ui.explore.settings import UPLOAD, ExploreSettings
from svmlab.ui.frame import room

__all__ = [
    "NO_EDITS",
    "Data",
    "DataIdentity",
    "Edits",
    "FitRecord",
    "Picture",
    "apply_edits",
    "edit_parts",
    "fit",
    "fit_settings",
    "gram_matrix",
    "hold_upload",
    "keep_good",
    "kernel_items",
    "last_good",
    "load_data",
    "model_items",
    "no_solver_message",
    "split_indices",
]

Array = NDArray[np.float64]
#: What the points depend on, the key of every cache here:
#: ``(source, data_items, test_fraction)`` (:attr:`ExploreSettings.data_identity`).
DataIdentity = tuple[str, tuple[tuple[str, Any], ...], float]
#: Session key of this session's last fit that may not be shared (cut off by the
#: time budget, or stopped short from a warm start): ``(key, FitRecord)``.
UNSHARED_KEY = "explore_unshared_fit"
#: Points added by clicking, ``((x1, x2, label), ...)``, indices of removed
#: generated training points, and generated points moved to a new place,
#: ``((index, x1, x2), ...)``: a moved point keeps its place (and its number).
#: (Two-part edits, without moves, are read too.)
Edits = tuple[
    tuple[tuple[float, float, float], ...],
    tuple[int, ...],
    tuple[tuple[int, float, float], ...],
]
NO_EDITS: Edits = ((), (), ())


def edit_parts(edits: tuple) -> Edits:
    """``(added, removed, moved)`` of two- or three-part edits."""
    added, removed, *rest = edits
    return added, removed, (rest[0] if rest else ())


@dataclass(frozen=True)
class Data:
    """A generated data set split into training and test points."""

    X_train: Array
    y_train: Array
    X_test: Array
    y_test: Array
    bounds: tuple[float, float, float, float]


def _bounds(X: Array, pad: float = 0.08) -> tuple[float, float, float, float]:
    """Axis ranges with a margin, the same for every rerun on this data set."""
    return tuple(float(v) for v in np.ravel(data_bounds(X, pad)))  # type: ignore[return-value]


#: Most uploaded data sets held at once in the process (each at most 5,000 x 3
#: floats, 120 KB); the sessions hold their own and hand them back on every run.
MAX_HELD_UPLOADS = 32
_uploads: OrderedDict[str, tuple[Array, Array]] = OrderedDict()
_uploads_lock = threading.Lock()


def hold_upload(key: str, X: Array, y: Array) -> None:
    """Make the uploaded ``(X, y)`` available to :func:`load_data` under ``key``.

    ``key`` must identify the arrays (the upload module hashes them), so that the
    cached functions, which key on it, never mix two data sets up. The oldest of
    more than :data:`MAX_HELD_UPLOADS` keys is forgotten; a session that still
    shows it holds it again on its next run.
    """
    X, y = np.array(X, dtype=np.float64), np.array(y, dtype=np.float64)
    X.setflags(write=False)
    y.setflags(write=False)
    with _uploads_lock:
        _uploads[key] = (X, y)
        _uploads.move_to_end(key)
        while len(_uploads) > MAX_HELD_UPLOADS:
            _uploads.popitem(last=False)


def _held_upload(key: str) -> tuple[Array, Array]:
    with _uploads_lock:
        held = _uploads.get(key)
    if held is None:
        raise DataError(
            "The uploaded data are no longer held by the server; upload the file again."
        )
    return held


@st.cache_data(max_entries=64, show_spinner=False)
def load_data(identity: DataIdentity) -> Data:
    """The data of ``identity`` = ``(dataset, data_items, test_fraction)``
    (:attr:`ExploreSettings.data_identity`): ``dataset`` generated with
    ``data_items`` (keyword arguments of :func:`svmlab.datasets.make`, seed
    included), ``test_fraction`` split off.

    For ``dataset == UPLOAD`` the data items are the upload key and the seed,
    and the points are those given to :func:`hold_upload`.
    """
    dataset, data_items, test_fraction = identity
    params = dict(data_items)
    if dataset == UPLOAD:
        X, y = _held_upload(str(params["upload"]))
    else:
        X, y = datasets.make(dataset, **params)
    train, test = split_indices(y, test_fraction, int(params.get("random_state", 0)))
    return Data(X[train], y[train], X[test], y[test], _bounds(X))


def apply_edits(X: Array, y: Array, edits: Edits) -> tuple[Array, Array]:
    """Training points after the edits: moved rows at their new place, removed
    rows dropped, added rows appended."""
    added, removed, moved = edit_parts(edits)
    if moved:
        X = np.array(X, dtype=np.float64)
        for i, x1, x2 in moved:
            if 0 <= i < X.shape[0]:
                X[i] = (x1, x2)
    keep = np.ones(y.shape[0], dtype=bool)
    keep[[i for i in removed if 0 <= i < keep.size]] = False
    X, y = X[keep], y[keep]
    if added:
        extra = np.asarray(added, dtype=np.float64)
        X = np.vstack([X, extra[:, :2]])
        y = np.concatenate([y, extra[:, 2]])
    return X, y


#: Estimator keyword arguments that determine the Gram matrix.
KERNEL_KEYS = ("kernel", "sigma", "degree", "coef0", "scale")


def kernel_items(
    model_items: tuple[tuple[str, Any], ...],
) -> tuple[tuple[str, Any], ...]:
    """The kernel parameters among ``model_items`` (the :func:`gram_matrix` key)."""
    return tuple((k, v) for k, v in model_items if k in KERNEL_KEYS)


@st.cache_resource(max_entries=4, show_spinner=False)
def gram_matrix(
    identity: DataIdentity, edits: Edits, kernel_params: tuple[tuple[str, Any], ...]
) -> Array:
    """The Gram matrix of the (edited) training points, read-only.

    ``kernel_params`` are ``(name, value)`` pairs of :data:`KERNEL_KEYS`; missing
    ones take :func:`svmlab.kernels.gram`'s defaults, which equal ``SVC``'s.
    """
    data = load_data(identity)
    X, _ = apply_edits(data.X_train, data.y_train, edits)
    K = kernels.gram(X, **dict(kernel_params))
    K.setflags(write=False)  # shared between reruns and sessions
    return K


@dataclass(frozen=True)
class FitRecord:
    """A fitted model and the numbers the page shows about it.

    ``warning`` is the solver's message when a limit (``max_iter``, the time
    budget) stopped it; ``notes`` are the model's other sentences
    (``SVC.fit_notes_``: which looser rule stopped it, numerical trouble).
    """

    model: SVC
    X: Array
    y: Array
    train_error: float
    test_error: float | None
    n_free: int
    n_bound: int
    warning: str | None
    notes: tuple[str, ...] = ()
    #: The ν-SVC fit (:class:`svmlab.NuSVC`) when the machine is ν-SVC; ``model``
    #: is then the C-SVC with its equivalent C = 1/r, warm-started at its
    #: multipliers (the same f: Chang & Lin 2001), which every view draws.
    nu_model: Any = None
    #: The smallest eigenvalue of the training Gram matrix and the sentence when
    #: it is not positive semidefinite (:func:`svmlab.kernels.psd.psd_note`), for
    #: a kernel outside :data:`svmlab.kernels.PSD_KERNELS` (the sigmoid).
    lam_min: float | None = None
    psd_note: str | None = None


class _NotShared(Exception):
    """Carries a fit out of :func:`fit` without storing it: Streamlit caches
    return values, never exceptions."""

    def __init__(self, record: FitRecord) -> None:
        super().__init__("a fit that is not shared")
        self.record = record


def shareable(stop_reason: str, warm: bool) -> bool:
    """Whether a fit may be handed to every visitor as *the* answer for its key.

    The key leaves the warm start out (the answer does not depend on it within
    tol), so only an answer that met tol, or one a cold start reached by a
    deterministic rule, may be shared; a fit cut off by the time budget depends
    on the machine's load and never is.
    """
    if stop_reason == "converged":
        return True
    return stop_reason != "max_seconds" and not warm


def _stop_sentence(model: SVC, tol: float) -> str | None:
    """What stopped a fit before tol, and what the visitor can do about it, in
    the page's own terms (the engine's warning names estimator parameters)."""
    reason = model.stop_reason_
    solution = model.solution_
    kkt = f"KKT violation {solution.kkt:.2e}"
    if reason == "max_seconds":
        return (
            f"The {model.solver_} solver stopped at the page's "
            f"{room.fit_seconds():g} s time budget before meeting tol = {tol:g} "
            f"({kkt}): the picture shows where it got. A larger tol, a smaller C, "
            "fewer points or another solver gives a converged answer."
        )
    if reason == "max_iter":
        return (
            f"The {model.solver_} solver stopped after "
            f"{counted(model.n_iter_, 'iteration')} "
            "(max_iter, under 'Solver tolerance and iteration cap') before "
            f"meeting tol = {tol:g} "
            f"({kkt}): the picture shows where it got. Raise max_iter or tol."
        )
    return None


@st.cache_resource(max_entries=48, show_spinner=False)
def fit(
    identity: DataIdentity,
    edits: Edits,
    model_items: tuple[tuple[str, Any], ...],
    _init: Array | None = None,
) -> FitRecord:
    """Fit ``svmlab.SVC(**model_items)`` on the (edited) training points, with the
    Gram matrix from :func:`gram_matrix`.

    The fit stops (:class:`svmlab.errors.FitCancelled`, which is not cached) as
    soon as this script run's result will not be seen
    (:mod:`svmlab.ui.frame.run_state`). A fit that may not be shared (:func:`shareable`)
    leaves as :class:`_NotShared` so that it is never stored; :func:`fit_settings` takes
    it from there.
    """
    data = load_data(identity)
    X, y = apply_edits(data.X_train, data.y_train, edits)
    params = dict(model_items)
    nu = params.pop("nu", None)
    model = SVC(**params)
    model._check_params()  # a bad kernel parameter raises the estimator's error
    K = gram_matrix(identity, edits, kernel_items(model_items))
    nu_model = None
    lam, psd = (None, None)
    if params.get("kernel") not in kernels.PSD_KERNELS:
        lam, psd = psd_note(K)
    with warnings.catch_warnings(record=True) as caught, room.page_fits():
        warnings.simplefilter("always", ConvergenceWarning)
        if nu is not None:
            nu_model, model, _init = _nu_fit(nu, params, X, y)
        model.fit(X, y, init=_init, K=K)
    message = next(
        (str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)),
        None,
    )
    test_error = (
        float(np.mean(model.predict(data.X_test) != data.y_test))
        if data.y_test.size
        else None
    )
    record = FitRecord(
        model=model,
        X=X,
        y=y,
        train_error=float(np.mean(model.predict(X) != y)),
        test_error=test_error,
        n_free=int(np.sum(model.sv_state_ == 1)),
        n_bound=int(np.sum(model.sv_state_ == 2)),
        warning=_stop_sentence(model, model.tol),
        notes=tuple(
            note
            for note in (*model.fit_notes_, *getattr(nu_model, "fit_notes_", ()))
            if note != message
        ),
        nu_model=nu_model,
        lam_min=lam,
        psd_note=psd,
    )
    if not shareable(model.stop_reason_, warm=_init is not None):
        raise _NotShared(record)
    return record


def _nu_fit(nu: float, params: dict[str, Any], X: Array, y: Array) -> tuple:
    """ν-SVC on ``(X, y)``, and the C-SVC with its equivalent C = 1/r started
    at its multipliers |coef| (0 <= |coef| <= 1/r, y'|coef| = 0): the C-SVC's
    optimum, so SMO only checks it. Returns ``(NuSVC, SVC, init)``."""
    kernel = {k: params[k] for k in KERNEL_KEYS if k in params}
    nu_model = NuSVC(
        nu=nu,
        tol=params["tol"],
        max_iter=params["max_iter"],
        max_seconds=params["max_seconds"],
        **kernel,
    ).fit(X, y)
    coef = np.zeros(y.shape[0])
    coef[nu_model.support_] = np.abs(nu_model.dual_coef_[0])
    C = float(nu_model.C_)
    coef = np.minimum(coef, C)
    model = SVC(**{**params, "C": C, "loss": "hinge", "bias": "unregularized"})
    model.set_params(solver="smo", record_history=False)
    return nu_model, model, coef


#: Session key of the last settings that gave a picture, with their data and fit.
LAST_GOOD_KEY = "explore_last_good"


class Picture(NamedTuple):
    """What the page draws: the settings, their data's identity (the arguments
    of :func:`load_data`), the data, the edits and the fit; the tools under the
    figure read it."""

    settings: ExploreSettings
    identity: tuple
    data: Data
    edits: Edits
    record: FitRecord


def keep_good(picture: Picture) -> None:
    """Remember the picture that was just drawn (see :func:`last_good`)."""
    st.session_state[LAST_GOOD_KEY] = picture


def last_good() -> Picture | None:
    """The last picture of this session that could be drawn: what the page
    draws under an error, so a bad value never takes the picture away."""
    return st.session_state.get(LAST_GOOD_KEY)


def _kernel_params(s: ExploreSettings) -> dict[str, Any]:
    """The chosen kernel's own parameters: only they go into the key, so moving
    another kernel's slider does not refit."""
    if s.kernel == "gaussian":
        return {"sigma": s.sigma}
    if s.kernel == "polynomial":
        return {"degree": s.degree, "coef0": s.coef0}
    if s.kernel == "sigmoid":
        return {"scale": s.sig_a, "coef0": s.sig_r}
    return {}


def model_items(s: ExploreSettings) -> tuple[tuple[str, Any], ...]:
    """The estimator's keyword arguments for these settings (for ν-SVC, ``nu``
    in place of C, and the hinge, unregularized bias and SMO: see
    :func:`fit`)."""
    if s.is_nu:
        nu_items: dict[str, Any] = {
            "nu": s.nu,
            "kernel": s.kernel,
            "tol": s.tol,
            "max_iter": s.max_iter,
            "max_seconds": room.fit_seconds(),
            **_kernel_params(s),
        }
        return tuple(nu_items.items())
    items: dict[str, Any] = {
        "C": s.effective_C,
        "kernel": s.kernel,
        "loss": s.loss,
        "solver": s.solver,
        "bias": s.bias,
        "tol": s.tol,
        "max_iter": s.max_iter,
        "max_seconds": room.fit_seconds(),
        "record_history": s.playback,
        **_kernel_params(s),
    }
    if s.loss == "modified_hinge":
        items["delta"] = s.delta
    return tuple(items.items())


def no_solver_message(s: ExploreSettings) -> str | None:
    """A plain sentence when no registered solver can fit this loss and bias yet."""
    if s.is_nu:
        return None  # ν-SVC has its own solver
    try:
        solvers.resolve_solver(
            s.solver,
            s.loss,
            fit_intercept=s.fit_intercept,
            hard_margin=math.isinf(s.effective_C),
        )
    except IncompatibleLossError:
        if not solvers.valid_solvers(s.loss, fit_intercept=s.fit_intercept):
            others = [
                b
                for b in ("unregularized", "regularized", "none")
                if solvers.valid_solvers(s.loss, fit_intercept=b == "unregularized")
            ]
            hint = (
                f" Try the bias mode {others[0]!r}."
                if others
                else " Pick another loss for now."
            )
            return (
                f"No solver for the {s.loss.replace('_', ' ')} loss in this bias mode "
                f"is registered yet, so there is nothing to fit.{hint}"
            )
    return None


def fit_settings(s: ExploreSettings, edits: Edits = NO_EDITS) -> FitRecord:
    """Fit for ``s``, warm-started from the last fit when only C or sigma moved.

    Raises :class:`svmlab.SvmlabError` with a message for the page.
    """
    items = model_items(s)
    rest = tuple((k, v) for k, v in items if k not in ("C", "sigma"))
    identity = (s.data_identity, edits, rest)
    last = st.session_state.get("explore_warm")
    init = last[1] if last is not None and last[0] == identity else None
    key = (s.data_identity, edits, items)
    held = st.session_state.get(UNSHARED_KEY)
    if held is not None and held[0] == key:
        return held[1]  # this session's own cut-off fit, drawn again
    try:
        record = fit(*key, _init=init)
    except _NotShared as kept:
        record = kept.record
        st.session_state[UNSHARED_KEY] = (key, record)
    st.session_state["explore_warm"] = (identity, record.model.alpha_)
    return record

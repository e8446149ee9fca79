"""The Model selection page's widgets, cached engine calls and tables.

Data move one way: the sidebar widgets give a :class:`SweepRequest` (primitives
only, so it is hashable and keys the caches); the "Run sweep" button hands it to
:func:`run_sweep` (one :func:`svmlab.experiments.criterion_grid.grid_sweep` call, shared
by every session through :class:`~svmlab.ui.frame.shared_results.SharedResults`,
bounded, its progress bar drawn outside any cache); the result goes to the session state
with the data it was computed on, and every display control below reads it from
there, so moving them never recomputes a sweep.

The Lee (2006) section reads the cached result of
:mod:`svmlab.experiments.lee2006` (:data:`LEE_PATH`) and the solver benchmark's
Lee Table 1 (:data:`SOLVERS_JSON`); neither file has to exist. Its Recompute
button (:func:`recompute_lee`) runs once at a time per server process, in
turns with the server's long fits (the fit lane), and writes no file: the
result stays in the visitor's session (:data:`LEE_SESSION_KEY`), so no other
visitor ever sees it (the shipped file is the owner's, written by
``python -m svmlab.experiments.lee2006``).

Uploads are held per session (at most
:data:`svmlab.ui.frame.data_source.MAX_SESSION_UPLOADS`),
checked drawable like the Explore page's, and every user string this page shows
in markdown goes through :func:`plain`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from svmlab import datasets, figures
from svmlab.array_types import Array
from svmlab.errors import (
    ClusterError,
    DataError,
    FitCancelled,
    ParameterError,
    SvmlabError,
)
from svmlab.experiments import criterion_grid, selection
from svmlab.experiments.executors import ENV_SCHEDULER, describe_executor
from svmlab.kernels import lee_sigma2_from_sigma
from svmlab.solvers.base import cancel_when
from svmlab.solvers.lane import lane_turn
from svmlab.svm.classifier import SVC
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import app_files, data_source, keyed, room
from svmlab.ui.frame.page_state import (
    SELECTION_C,
    SELECTION_DELTAS,
    SELECTION_SIGMA,
    SELECTION_STATE,
)
from svmlab.ui.frame.shared_results import SharedResults, with_progress
from svmlab.user_text import for_markdown

__all__ = [
    "DEFAULT_CRITERIA",
    "LEE_PATH",
    "MAX_RECOMPUTE_SEEDS",
    "N_TEST_SETS",
    "PAPER_TABLE1",
    "SOLVERS_JSON",
    "STATE_KEY",
    "STOP_RULES",
    "RecomputeRunning",
    "StoredSweep",
    "SweepRequest",
    "chosen_models",
    "cluster_address",
    "explore_query",
    "fresh_test_errors",
    "fresh_test_size",
    "grid",
    "lee_choices_frame",
    "lee_reference_frame",
    "lee_summary_frame",
    "load_lee",
    "plain",
    "read_table1",
    "recompute_lee",
    "recompute_refusal",
    "run_sweep",
    "speed_sentence",
    "stop_rule_frame",
    "summary_frame",
    "sweep_controls",
    "sweep_location",
    "table1_frame",
]

#: The checkout, or the installed copy of the app's files (ui/frame/app_files.py).
ROOT = app_files.ROOT

#: Session-state key of the last sweep (a :class:`StoredSweep`).
STATE_KEY = "selection_sweep"
#: The criteria ticked at first: every approximation and the exact reference.
DEFAULT_CRITERIA = ("lee", "plugin", "alo", "span", "loo")
#: Fresh test sets per chosen model, each of the training set's size (capped).
N_TEST_SETS = 20
MAX_TEST_SIZE = 200
#: Largest training set the page sweeps (exact LOO costs n fits per cell).
MAX_N = SELECTION_STATE.max_n
#: Grid ends offered for C and sigma (log-spaced, half decades).
# The grids are the page state's (svmlab.ui.frame.page_state): the URL and the
# widgets share them.
C_CHOICES = SELECTION_C
SIGMA_CHOICES = SELECTION_SIGMA
DELTAS = SELECTION_DELTAS

LEE_PATH = app_files.PACKAGE / "experiments" / "results" / "lee2006.json"
SOLVERS_JSON = ROOT / "benchmarks" / "results" / "solvers.json"
#: What ``python -m benchmarks model_selection`` measured (issue 29): the
#: speed-ups the page states come from this file, never from numbers typed into
#: the text.
SPEED_JSON = ROOT / "benchmarks" / "results" / "model_selection.json"


def benchmark_run(path: Path, mode: str = "default") -> dict[str, Any]:
    """A benchmark's current run of ``mode`` from its results file
    (``{"benchmark": name, "runs": {mode: run}}``, benchmarks/harness/report.py)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))["runs"][mode]


#: Session key of this session's own recomputed Lee result (never written to
#: a file: no other visitor sees it).
LEE_SESSION_KEY = "selection_lee_local"

#: Lee (2006) Table 1: CPU seconds of one fit (MATLAB 6.5, Pentium IV), n -> (IRWLS,
#: QP); the paper's numbers as quoted in the seed.
PAPER_TABLE1: dict[int, tuple[float, float]] = {
    100: (0.609, 1.313),
    200: (2.64, 16.563),
    300: (10.375, 65.875),
}

UPLOAD = data_source.UPLOAD

#: How the page's fits stop: by their own KKT measure (the default: the entropy
#: dual, the modified hinge's exact solver), or by Lee's rule (IRWLS, as in his
#: paper), which the page then compares with converged fits.
STOP_RULES: dict[str, str] = {
    "kkt": "converged (KKT residual ≤ 1e-6)",
    "lee": "Lee's rule (IRWLS, mean squared change of α < 1e-3)",
}
#: The KKT tolerance of converged fits and refits (the stationarity residual
#: max |αᵢ/C + h'(mᵢ)|): measured as fast as 1e-3 on the default sweep.
KKT_TOL = 1e-6
#: Lee's tolerance for his rule (section 4).
LEE_TOL = 1e-3


@dataclass(frozen=True)
class SweepRequest:
    """Everything a sweep depends on, as primitives (the cache key).

    ``source`` is a generator name or ``"upload"``; ``data_items`` the generator's
    keyword arguments (seed included) or ``(("upload", key),)``.
    """

    source: str
    data_items: tuple[tuple[str, Any], ...]
    Cs: tuple[float, ...]
    sigmas: tuple[float, ...]
    criteria: tuple[str, ...]
    delta: float
    bias: str
    stop: str = "kkt"

    @property
    def solver(self) -> str:
        return "irwls" if self.stop == "lee" else "entropy_dual"

    def model_items(self) -> tuple[tuple[str, Any], ...]:
        """Keyword arguments of the (unfitted) estimator the sweep clones:
        converged fits by the entropy dual, or IRWLS stopped by Lee's rule."""
        lee = self.stop == "lee"
        return (
            ("kernel", "gaussian"),
            ("loss", "modified_hinge"),
            ("solver", self.solver),
            ("delta", float(self.delta)),
            ("bias", self.bias),
            ("tol", LEE_TOL if lee else KKT_TOL),
            ("max_iter", 1000 if lee else None),
        )

    def converged(self) -> SweepRequest:
        """The same request with converged fits (what Lee's rule is compared
        with)."""
        return dataclasses.replace(self, stop="kkt")

    def estimator(self, **extra: Any) -> SVC:
        return SVC(**dict(self.model_items()), **extra)


@dataclass(frozen=True)
class StoredSweep:
    """A finished sweep with the data it ran on (what the display reads)."""

    request: SweepRequest
    result: criterion_grid.SweepResult
    X: Array
    y: Array
    #: With Lee's rule: the same sweep with converged fits (None otherwise).
    converged: criterion_grid.SweepResult | None = None


def grid(low: float, high: float, count: int) -> tuple[float, ...]:
    """``count`` log-spaced values from ``low`` to ``high`` (4 significant digits)."""
    values = np.logspace(math.log10(low), math.log10(high), int(count))
    return tuple(float(f"{v:.4g}") for v in values)


# -- data -------------------------------------------------------------------------


#: Advice ending the drawable check's sentence on this page (no standardise box).
DRAWABLE_ADVICE = data_source.DRAWABLE_ADVICE
#: Widget and session keys of this page's data controls start with this.
PREFIX = "selection"

#: User text shown where Streamlit renders markdown (labels, messages quoting
#: cells): :func:`svmlab.user_text.for_markdown`, every page's.
plain = for_markdown

TWO_CIRCLES_NOTE = (
    "Lee (2006)'s two circles: x uniform on (−1, 1)², +1 inside the inner "
    "circle, −1 outside the outer one, a coin flip between. The paper gives "
    "no radii: we use 0.5 and 0.75 (Bayes error "
    f"{datasets.two_circles_bayes_error(0.5, 0.75):.4f})."
)


def request_data(request: SweepRequest) -> tuple[Array, Array]:
    """The training data of ``request`` (generated, or the held upload)."""
    return data_source.request_data(PREFIX, request.source, request.data_items)


def _grid_range(
    label: str, options: Sequence[float], name: str, default: Any
) -> tuple[float, float]:
    """The (low, high) slider of the grid's ``name`` axis ("C" or "sigma")."""
    key = f"selection_{name}_range"
    return st.select_slider(
        label,
        options=options,
        value=tuple(keyed.value(key, default)),
        format_func=lambda v: f"{v:g}",
        key=key,
        persist_state="session",
    )


def _grid_count(label: str, name: str) -> int:
    """How many values the grid's ``name`` axis takes (2 to 15)."""
    key = f"selection_n_{name}"
    return st.slider(
        label, 2, 15, int(keyed.value(key, 7)), key=key, persist_state="session"
    )


def sweep_controls() -> SweepRequest | None:
    """The sidebar: data, grid, criteria and model. None while an upload is missing."""
    st.header("Data")
    sources = ["Generator", "Upload CSV"]
    source = keyed.radio(
        "Data source",
        sources,
        "selection_source",
        horizontal=True,
        persist_state="session",
        label_visibility="collapsed",
    )
    if source == "Upload CSV":
        data_items = data_source.upload_controls(
            PREFIX, "Choose a CSV file to sweep over your own data."
        )
        name = UPLOAD
    else:
        name, data_items = data_source.generator_controls(
            SELECTION_STATE,
            n_help=f"At most {MAX_N}: exact leave-one-out refits n times per cell.",
            notes={"two_circles": TWO_CIRCLES_NOTE},
        )
    # Every widget is one of SELECTION_STATE's fields, drawn with its current
    # value (a link's, or the session's) as its default (svmlab.ui.frame.keyed).
    fields = {f.query: f for f in SELECTION_STATE.fields}
    st.header("Grid")
    c_low, c_high = _grid_range("C range", C_CHOICES, "C", fields["C"].default)
    n_C = _grid_count("C values", "C")
    s_low, s_high = _grid_range(
        "σ range (svmlab: exp(−‖x − z‖² / 2σ²))",
        SIGMA_CHOICES,
        "sigma",
        fields["sigma"].default,
    )
    st.caption(
        f"Lee's σ² = 2σ²: here {lee_sigma2_from_sigma(s_low):.3g} to "
        f"{lee_sigma2_from_sigma(s_high):.3g} (his kernel is exp(−‖x − z‖² / σ²))."
    )
    n_sigma = _grid_count("σ values", "sigma")
    st.header("Criteria")
    picked = st.multiselect(
        "Approximations and cross-validation",
        list(fields["criteria"].options),
        default=list(keyed.value("selection_criteria", fields["criteria"].default)),
        format_func=lambda c: selection.CRITERIA[c].title,
        key="selection_criteria",
        persist_state="session",
        help="Exact leave-one-out is always computed: it is the reference.",
    )
    st.header("Model")
    delta = st.select_slider(
        "δ of the modified hinge",
        options=DELTAS,
        # Lee's own setting by default: the page asks whether *his* ACV tracks
        # leave-one-out (it is also the faster one to sweep: 13 s against 21 s
        # for the default grid at delta = 0.1, measured).
        value=keyed.value("selection_delta", fields["delta"].default),
        format_func=lambda v: f"{v:g}",
        key="selection_delta",
        persist_state="session",
        help="Lee's experiment uses δ = 1e-4, the default (smaller δ: closer to "
        "the hinge; larger δ: a smoother loss, easier for the approximations).",
    )
    biases = list(fields["bias"].options)
    bias = keyed.radio(
        "Bias",
        biases,
        "selection_bias",
        format_func={"none": "none (Lee)", "regularized": "regularized (k + 1)"}.get,
        horizontal=True,
        persist_state="session",
        help="The approximations are derived for Lee's model, which has no "
        "unregularized bias.",
    )
    stop = keyed.radio(
        "Fits",
        STOP_RULES,
        "selection_stop",
        format_func=STOP_RULES.get,
        persist_state="session",
        help="Converged: every fit and refit meets the modified hinge's KKT "
        "measure (exact leave-one-out is then exact). Lee's rule: IRWLS stopped "
        "as in his paper, loosely; the page then also runs the converged sweep "
        "and shows where the numbers differ.",
    )
    if data_items is None:
        return None
    order = [c for c in selection.CRITERIA if c in picked or c == "loo"]
    return SweepRequest(
        source=name,
        data_items=data_items,
        Cs=grid(c_low, c_high, n_C),
        sigmas=grid(s_low, s_high, n_sigma),
        criteria=tuple(order),
        delta=float(delta),
        bias=str(bias),
        stop=str(stop),
    )


# -- the sweep ---------------------------------------------------------------------


def cluster_address() -> str | None:
    """The Dask scheduler this page sends sweeps to, or None (this machine):
    ``$SVMLAB_DASK_SCHEDULER``, else ``dask_scheduler`` in
    ``.streamlit/secrets.toml``."""
    env = os.environ.get(ENV_SCHEDULER, "").strip()
    if env:
        return env
    try:
        value = st.secrets.get("dask_scheduler")
    except Exception:  # no secrets file at all is the normal case: no cluster
        return None
    text = str(value).strip() if value else ""
    return text or None


def sweep_location() -> str:
    """Where the next sweep runs, in words (no connection made)."""
    address = cluster_address()
    return "this machine" if address is None else describe_executor(address)


#: Finished sweeps, shared by every session. A sweep with missing rows (a row
#: cut off by its budget or lost with a worker) is shown to the session that ran
#: it but never handed to another as the answer.
SWEEPS: SharedResults[criterion_grid.SweepResult] = SharedResults(max_entries=6)


def _compute_sweep(
    request: SweepRequest, X: Array, y: Array, executor: str | None, progress
) -> criterion_grid.SweepResult:
    """The one engine call, reporting ``progress(fraction, message[, partial])``:
    the grid as far as it is done after every cell."""
    last = [0.0, "Sweep: starting"]

    def on_progress(fraction: float, message: str) -> None:
        last[:] = [fraction, f"Sweep: {message}"]
        progress(*last)

    # Every fit of the sweep stops once nobody will see the result (the visitor
    # left or started another run): svmlab.ui.frame.run_state.
    with room.page_fits():
        return criterion_grid.grid_sweep(
            request.estimator(),
            X,
            y,
            request.Cs,
            request.sigmas,
            criteria=request.criteria,
            progress=on_progress,
            executor=executor,
            on_partial=lambda partial: progress(*last, partial),
        )


def _sweep(
    request: SweepRequest,
    X: Array,
    y: Array,
    executor: str | None,
    draw_partial: Callable[[criterion_grid.SweepResult], None] | None = None,
) -> criterion_grid.SweepResult:
    return with_progress(
        SWEEPS,
        request,
        lambda progress: _compute_sweep(request, X, y, executor, progress),
        text="Starting the sweep…",
        keep=lambda result: not result.missing_rows,
        draw_partial=draw_partial,
    )


def run_sweep(
    request: SweepRequest,
    draw_partial: Callable[[criterion_grid.SweepResult], None] | None = None,
) -> StoredSweep:
    """Run (or fetch from the shared results) the sweep of ``request``, with a
    progress bar that disappears when it is done, on the configured cluster if
    there is one (:func:`cluster_address`; the numbers do not depend on where it
    ran, so the key leaves it out). A cluster that cannot be used gets a warning
    and the sweep runs here. ``draw_partial`` draws the grid as far as it is
    done while it runs. Raises :class:`svmlab.SvmlabError`."""
    X, y = request_data(request)
    # Fail before the sweep, not when the result is drawn: a result that
    # cannot be drawn is never stored (its error would replay on every rerun).
    figures.data_bounds(X)
    address = cluster_address()
    try:
        result = _sweep(request, X, y, address, draw_partial)
    except ClusterError as error:
        st.warning(f"{plain(error)} The sweep runs on this machine instead.")
        result = _sweep(request, X, y, None, draw_partial)
    converged = None
    if request.stop == "lee":
        # What Lee's rule does to the numbers: the same sweep, converged.
        converged = _sweep(request.converged(), X, y, None)
    if result.missing_rows:
        # Never drawn as zeros: the rows stay blank and the page says why.
        rows = ", ".join(
            f"σ = {result.sigmas[i]:.3g} ({why})"
            for i, why in sorted(result.missing_rows.items())
        )
        st.warning(f"Some rows of the grid have no result: {rows}.")
    return StoredSweep(request, result, X, y, converged)


# -- chosen models and fresh test sets ----------------------------------------------


@st.cache_data(max_entries=32, show_spinner=False)
def _fit(request: SweepRequest, C: float, sigma: float, _X: Array, _y: Array) -> SVC:
    return request.estimator(C=float(C), sigma=float(sigma)).fit(_X, _y)


def chosen_models(stored: StoredSweep) -> dict[str, SVC]:
    """Each criterion's chosen model, fitted on the whole training set."""
    out = {}
    for name in stored.result.criteria:
        C, sigma = stored.result.best(name)
        out[name] = _fit(stored.request, C, sigma, stored.X, stored.y)
    return out


def fresh_test_size(request: SweepRequest) -> int:
    n = int(dict(request.data_items).get("n_samples", 100))
    return min(n, MAX_TEST_SIZE)


@st.cache_data(max_entries=32, show_spinner=False)
def fresh_test_errors(
    request: SweepRequest, C: float, sigma: float, _X: Array, _y: Array
) -> Array | None:
    """Misclassification of the model at (C, sigma) on :data:`N_TEST_SETS` fresh
    test sets from the same generator (seeds ``[seed, 1, k]``, never the training
    draw), each of :func:`fresh_test_size` points; None for uploaded data."""
    if request.source == UPLOAD:
        return None
    model = _fit(request, C, sigma, _X, _y)
    params = dict(request.data_items)
    seed = int(params.pop("random_state", 0))
    params["n_samples"] = fresh_test_size(request)
    errors = []
    for k in range(N_TEST_SETS):
        Xt, yt = datasets.make(
            request.source, **params, random_state=np.random.default_rng([seed, 1, k])
        )
        errors.append(selection.misclassification(yt * model.decision_function(Xt)))
    return np.asarray(errors)


# -- tables -------------------------------------------------------------------------


def summary_frame(
    stored: StoredSweep, test_errors: dict[str, Array | None] | None = None
) -> pd.DataFrame:
    """One row per criterion: its argmin, rank correlation with exact LOO, time,
    speed-up, convergence and (if given) the mean fresh test error of its choice.

    The numbers are the engine's
    (:class:`svmlab.experiments.criterion_grid.SweepResult`), unrounded; the page
    formats them.
    """
    r = stored.result
    rows = []
    for name in r.criteria:
        C, sigma = r.best(name)
        errs = (test_errors or {}).get(name)
        rows.append(
            {
                # Short: every column of the table in a 1280 px window with
                # the sidebar open; the full titles head the heatmaps.
                "criterion": selection.CRITERIA[name].short_title,
                "ρ": r.spearman(name) if name != "loo" else 1.0,
                "C": C,
                "σ": sigma,
                "Lee σ²": lee_sigma2_from_sigma(sigma),
                "steps": r.argmin_distance(name),
                "time (s)": r.total_seconds(name),
                "speed-up": r.speedup(name),
                "unconverged": int(np.sum(~r.converged[name])),
                "test error": float(np.mean(errs)) if errs is not None else None,
            }
        )
    return pd.DataFrame(rows)


def explore_query(stored: StoredSweep, C: float, sigma: float) -> str | None:
    """The Explore page's URL query for this data and model at (C, sigma); None for
    uploaded data (a link never carries data)."""
    request = stored.request
    if request.source == UPLOAD:
        return None
    params = dict(request.data_items)
    settings = ExploreSettings(
        dataset=request.source,
        n=int(params.pop("n_samples")),
        noise=float(params.pop("noise")),
        seed=int(params.pop("random_state")),
        data_params=tuple(params.items()),
        test_fraction=0.0,
        kernel="gaussian",
        loss="modified_hinge",
        delta=float(request.delta),
        solver=request.solver,
        bias=request.bias,
        C=float(C),
        sigma=float(sigma),
    )
    from urllib.parse import urlencode

    return urlencode(settings.to_query())


def _seconds(value: object) -> str:
    v = float(value)  # type: ignore[arg-type]
    return f"{v:.2g} s" if v < 1.0 else f"{v:.1f} s" if v < 10 else f"{v:.0f} s"


def _span(values: list[float], fmt: str) -> str:
    """``a–b``, or ``a`` when both ends print alike."""
    low, high = format(min(values), fmt), format(max(values), fmt)
    return low if low == high else f"{low}–{high}"


def speed_sentence(path: Path | None = None) -> str:
    """What the default sweep costs, as benchmarks/model_selection.py last
    measured it (:data:`SPEED_JSON`): the whole sweep, exact leave-one-out
    warm against cold, the approximations and their speed-up over the warm
    exact leave-one-out, and the sweep before (Lee's IRWLS). A plain sentence
    without numbers when the file is missing or unreadable."""
    plain_text = (
        "Exact leave-one-out refits every point with a non-zero multiplier, each "
        "refit warm-started from the full solution; the approximations need one "
        "fit per cell."
    )
    try:
        data = benchmark_run(path or SPEED_JSON)
        after = next(r for r in data["after"] if r["setting"].startswith("page"))
        before = next(
            (r for r in data.get("before", []) if r["setting"].startswith("page")),
            None,
        )
        names = ("lee", "plugin", "alo", "span")
        seconds = [float(after[f"{c}_s"]) for c in names]
        speedups = [float(after[f"{c}_speedup_over_warm_loo"]) for c in names]
        load = float(after["load_start"][0])
        text = (
            f"Measured on our 2-core machine (load {load:.1f}), the default 7 × 7 "
            f"grid on 100 points with every criterion takes "
            f"{_seconds(after['sweep_wall_s_median'])}"
        )
        if before is not None:
            text += (
                f" (Lee's IRWLS stopped by his rule, as this page swept before: "
                f"{float(before['sweep_wall_s']):.0f} s)"
            )
        text += (
            f". Exact leave-one-out, every refit warm-started from the full "
            f"solution and converged, is {_seconds(after['loo_warm_s'])} of it"
        )
        if "cold_over_warm" in after:
            text += (
                f", {float(after['cold_over_warm']):.0f}× less than refitting every "
                "point from scratch (the same leave-one-out error in "
                f"{after['warm_equals_cold_cells']} cells)"
            )
        return text + (
            f"; each approximation takes {_span(seconds, '.2f')} s, "
            f"{_span(speedups, '.0f')}× less than that exact leave-one-out: against "
            "a smart exact method the shortcut saves a few times, not hundreds."
        )
    except (OSError, ValueError, KeyError, StopIteration, TypeError, IndexError):
        return plain_text


def stop_rule_frame(stored: StoredSweep) -> pd.DataFrame | None:
    """Lee's rule against converged fits, one row per criterion: the largest
    change of the criterion value over the grid, the cells whose held-out
    misclassification changes, and the cell each picks. None unless the sweep
    ran with Lee's rule (and its converged twin)."""
    lee, exact = stored.result, stored.converged
    if stored.request.stop != "lee" or exact is None:
        return None
    rows = []
    for name in lee.criteria:
        diff = np.abs(lee.scores[name] - exact.scores[name])
        changed = np.abs(lee.errors[name] - exact.errors[name]) > 1e-12
        C_lee, s_lee = lee.best(name)
        C_ok, s_ok = exact.best(name)
        rows.append(
            {
                "criterion": selection.CRITERIA[name].title,
                "largest change": float(np.nanmax(diff)),
                "cells with another error": int(np.sum(changed)),
                "choice, Lee's rule": f"C = {C_lee:.4g}, σ = {s_lee:.4g}",
                "choice, converged": f"C = {C_ok:.4g}, σ = {s_ok:.4g}",
                "same choice": (C_lee, s_lee) == (C_ok, s_ok),
            }
        )
    return pd.DataFrame(rows)


def non_converged_message(stored: StoredSweep) -> str | None:
    """A sentence counting the cells whose fits did not converge (or failed)."""
    r = stored.result
    parts = []
    for name in r.criteria:
        bad = int(np.sum(~r.converged[name]))
        failed = int(np.sum(~np.isfinite(r.scores[name])))
        if bad:
            text = (
                f"{selection.CRITERIA[name].title}: {bad} of {r.converged[name].size}"
            )
            if failed:
                text += f" ({failed} without a value)"
            parts.append(text)
    if not parts:
        return None
    return (
        "Some fits did not converge (their cells still show the values reached): "
        + "; ".join(parts)
        + ". Try a larger δ or a smaller C range."
    )


# -- Lee (2006) ---------------------------------------------------------------------


def load_lee(path: Path | None = None) -> dict[str, Any] | None:
    """The cached Lee (2006) result; None when there is none or it is unreadable."""
    from svmlab.experiments import lee2006

    try:
        return lee2006.load(path or LEE_PATH)
    except (DataError, OSError):
        return None


LEE_TITLES = {
    "irwls_lee": "IRWLS, Lee's ACV",
    "irwls_plugin": "IRWLS, plug-in ACV",
    "irwls_alo": "IRWLS, ALO",
    "irwls_span": "IRWLS, span rule",
    "irwls_loo": "IRWLS, exact LOO",
    "qp_loo": "hinge QP, exact LOO (CV)",
}
LEE_PAPER_KEYS = {"irwls_lee": "irwls_acv_error", "qp_loo": "qp_cv_error"}


def lee_summary_frame(result: dict[str, Any]) -> pd.DataFrame:
    """Ours (mean ± sd over seeds of each seed's mean test error) beside the paper,
    one row per selector; the paper's column is text ("" where it has no number),
    so a projector shows a blank, not "None"."""
    summary, paper = result["summary"], result["paper"]
    rows = []
    for name, title in LEE_TITLES.items():
        if name not in summary:
            continue
        s = summary[name]
        key = LEE_PAPER_KEYS.get(name)
        rows.append(
            {
                "selector": title,
                "ours: mean test error": s["mean_test_error"],
                "sd over seeds": s["sd_test_error"],
                "paper": f"{paper[key]:.4f}" if key and key in paper else "",
                "picks the best cell": s["picks_best_on_test"],
                "within one grid step": s["within_one_step"],
            }
        )
    return pd.DataFrame(rows)


def lee_reference_frame(result: dict[str, Any]) -> pd.DataFrame:
    """The reference cells: the paper's own choices and the best cell on the test
    sets, evaluated on the same test sets (mean ± sd over seeds)."""
    summary = result["summary"]
    rows = []
    for key, title in (
        ("irwls_paper_cell", "IRWLS at the paper's (500, 0.7)"),
        ("qp_paper_cell", "hinge QP at the paper's (500, 0.5)"),
        ("irwls_best_on_test", "IRWLS, best cell on the test sets"),
        ("qp_best_on_test", "hinge QP, best cell on the test sets"),
    ):
        if key in summary:
            rows.append(
                {
                    "reference": title,
                    "mean test error": summary[key]["mean_test_error"],
                    "sd over seeds": summary[key]["sd_test_error"],
                }
            )
    return pd.DataFrame(rows)


def lee_choices_frame(result: dict[str, Any]) -> pd.DataFrame:
    """One row per training seed: the (C, Lee σ²) each selector chose."""
    rows = []
    for record in result["seeds"]:
        row: dict[str, Any] = {"seed": record["seed"]}
        for name, title in LEE_TITLES.items():
            cell = record["selectors"].get(name)
            if cell is not None:
                row[title] = f"({cell['C']:g}, {cell['lee_sigma2']:g})"
        best = record.get("best_on_test", {}).get("irwls")
        if best is not None:
            row["IRWLS best on test"] = f"({best['C']:g}, {best['lee_sigma2']:g})"
        rows.append(row)
    return pd.DataFrame(rows)


def lee_test_errors(result: dict[str, Any]) -> dict[str, list[float]]:
    """Every test-set error of each selector's chosen model, pooled over seeds."""
    out: dict[str, list[float]] = {}
    for name in LEE_TITLES:
        values = [
            e
            for record in result["seeds"]
            for e in record["selectors"].get(name, {}).get("test_errors", [])
            if e is not None
        ]
        if values:
            out[name] = values
    return out


def read_table1(path: Path | None = None) -> list[dict[str, Any]] | None:
    """Our Lee Table 1 rows from the solver benchmark's JSON (``table3``), or None."""
    try:
        payload = benchmark_run(path or SOLVERS_JSON)
        rows = payload["table3"]["rows"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return rows if isinstance(rows, list) else None


def table1_frame(ours: list[dict[str, Any]] | None) -> pd.DataFrame:
    """The paper's Table 1 (seconds per fit, n = 100, 200, 300) beside ours."""
    by_n = {int(r.get("n", -1)): r for r in ours or [] if isinstance(r, dict)}
    rows = []
    for n, (irwls, qp) in PAPER_TABLE1.items():
        mine = by_n.get(n, {})
        rows.append(
            {
                "n": n,
                "paper IRWLS (s)": irwls,
                "paper QP (s)": qp,
                "paper QP / IRWLS": qp / irwls,
                "ours IRWLS (s)": mine.get("irwls_s"),
                "ours QP (s)": mine.get("qp_s"),
                "ours QP / IRWLS": mine.get("qp/irwls"),
            }
        )
    return pd.DataFrame(rows)


class RecomputeRunning(SvmlabError):
    """Recompute pressed while another recompute runs (in any session)."""


#: The most training seeds one Recompute may ask for: each seed is two exact-LOO
#: sweeps of an 8 x 8 grid (about a minute of CPU), and any visitor may press it.
MAX_RECOMPUTE_SEEDS = 5


def recompute_refusal() -> str | None:
    """Why Recompute is off on this server (room mode), or None."""
    if room.limits() is not None:
        return (
            "Recomputing the Lee experiment is off in room mode: it takes minutes "
            "of the server's CPU that the room's fits need. The shipped results "
            "above are the experiment's."
        )
    return None


#: One Lee recompute at a time in this server process, whoever starts it: it
#: takes minutes of a core.
_RECOMPUTE_LOCK = threading.Lock()
_recompute_started: float | None = None


def recompute_lee(
    seeds: int,
    progress: Callable[[float, str], None],
    should_stop: Callable[[], bool] = lambda: False,
) -> dict[str, Any]:
    """Run the Lee experiment for training seeds 0..seeds-1 for one visitor:
    the result is returned (the page keeps it in the visitor's session), never
    written to a file another visitor would read.

    What bounds it, per visitor: at most :data:`MAX_RECOMPUTE_SEEDS` seeds;
    one run at a time per process (while one runs, another call raises
    :class:`RecomputeRunning`, "already running, started at ...", and starts
    nothing); off in room mode; it runs in the server's fit lane
    (:func:`svmlab.solvers.lane.lane_turn`: one core at most, and at every step
    of progress it lets a waiting long fit of another visitor go first); and
    it stops at its next fit once ``should_stop()`` is true (the visitor left
    or ran the page again: :class:`~svmlab.errors.FitCancelled`).
    """
    global _recompute_started
    from svmlab.experiments import lee2006

    refusal = recompute_refusal()
    if refusal:
        raise ParameterError(refusal)
    if not 1 <= int(seeds) <= MAX_RECOMPUTE_SEEDS:
        raise ParameterError(
            f"Choose between 1 and {MAX_RECOMPUTE_SEEDS} training seeds: each takes "
            "about a minute of the server's CPU."
        )
    if not _RECOMPUTE_LOCK.acquire(blocking=False):
        started = _recompute_started
        when = time.strftime("%H:%M:%S", time.localtime(started)) if started else "?"
        raise RecomputeRunning(
            f"A recompute is already running, started at {when} (server time); "
            "wait until it has finished, then press Recompute again."
        )
    try:
        _recompute_started = time.time()
        with (
            cancel_when(should_stop),
            lane_turn(room.LANE, _stop_if(should_stop)) as give_way,
        ):

            def step(fraction: float, message: str) -> None:
                progress(fraction, message)
                give_way()

            return lee2006.run(tuple(range(int(seeds))), progress=step)
    finally:
        _recompute_started = None
        _RECOMPUTE_LOCK.release()


def _stop_if(should_stop: Callable[[], bool]) -> Callable[[], None]:
    """A lane poll that raises :class:`~svmlab.errors.FitCancelled` once
    ``should_stop()`` is true (a recompute waiting for its turn stops too)."""

    def poll() -> None:
        if should_stop():
            raise FitCancelled("The Lee recompute was stopped: its page was left.")

    return poll

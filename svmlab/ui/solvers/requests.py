"""The Solvers page's widgets, cached engine calls and table.

Data move one way: the sidebar widgets give a :class:`SolversRequest`
(primitives only, hashable: it keys the caches); :func:`comparison` is the
``st.cache_data`` wrapper of
:func:`svmlab.experiments.solver_comparison.compare_solvers` (the same call
``benchmarks/solvers.py`` makes); :func:`race` reads the cached comparison's recorded
iterates at one moment (cached too: scrubbing fits nothing); the "Run scaling" button
hands a :class:`ScalingRequest` to
:func:`run_scaling` (shared by every session, with a progress bar drawn outside
any cache and a time budget), whose
result is kept in the session with its request.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from svmlab import figures
from svmlab.array_types import Array
from svmlab.experiments.solver_comparison import (
    Comparison,
    ModelSpec,
    compare_solvers,
    warm_up,
)
from svmlab.experiments.solver_race import Frame, race_frames
from svmlab.experiments.solver_scaling import (
    SIZES,
    LeeRow,
    ScalingResult,
    lee_table,
    scaling,
)
from svmlab.solvers import SOLVERS
from svmlab.ui.frame import data_source, room
from svmlab.ui.frame.model_block import model_block
from svmlab.ui.frame.page_state import SOLVERS_STATE
from svmlab.ui.frame.shared_results import SharedResults, with_progress
from svmlab.ui.solvers.text import titles

__all__ = [
    "PREFIX",
    "SCALING_KEY",
    "ScalingRequest",
    "SolversRequest",
    "comparison",
    "controls",
    "lee_frame",
    "nothing_recorded",
    "race",
    "run_scaling",
    "stored_scaling",
    "table",
]


PREFIX = "solvers"
#: Session key of the last scaling run: ``(ScalingRequest, ScalingResult, rows)``.
SCALING_KEY = "solvers_scaling"
#: Largest training set of the comparison (every solver runs twice on it).
MAX_N = SOLVERS_STATE.max_n
#: The whole scaling sweep's time budget, in seconds.
SCALING_SECONDS = 60.0
#: The scaling run's partial chart is drawn only while the run is younger than
#: this: the browser draws it while the next fits are timed, on the same two
#: cores. With a partial drawn at every size, 4 of 8 benchmark runs spent 20 s
#: more (one fit at its cap): most likely a QP time inflated by the drawing
#: flattened the slope, so the QP at n = 5000 was predicted under the cap and
#: ran into it. The early sizes' fits take milliseconds and decide nothing.
PARTIAL_SCALING_SECONDS = 0.5
#: Each scaling fit's budget (the comparison's fits get room.fit_seconds()).
SCALING_FIT_SECONDS = 20.0
#: Grid points per side of the plane (max |f - f_ref| and the race).
RESOLUTION = 60


@dataclass(frozen=True)
class SolversRequest(data_source.DataRequest):
    """Everything the table, traces and race depend on (the cache key)."""

    prefix = PREFIX
    kernel: str
    loss: str
    C: float
    sigma: float
    degree: int
    bias: str
    delta: float
    tol: float

    @property
    def model(self) -> ModelSpec:
        return self.model_as(ModelSpec, max_seconds=room.fit_seconds())

    def data_of_size(self, n: int) -> tuple[Array, Array]:
        """The same source with n points: the generator at n, or n points of
        the upload drawn without replacement (a fixed permutation)."""
        if self.generated:
            items = dict(self.data_items)
            items["n_samples"] = int(n)
            return data_source.generated_data(self.source, tuple(items.items()))
        X, y = self.data()
        order = np.random.default_rng(0).permutation(len(y))[:n]
        return X[order], y[order]


# -- widgets -----------------------------------------------------------------------


def controls() -> SolversRequest | None:
    """The sidebar: one data set, one model. None while an upload is missing."""
    name, items = data_source.source_block(
        SOLVERS_STATE,
        empty_note="Choose a CSV file: every solver is fitted to it.",
        n_help=f"At most {MAX_N}: every solver runs twice (timed, recorded).",
    )
    model = model_block(
        SOLVERS_STATE,
        ("kernel", "loss", "bias", "C", "hard", "sigma", "degree", "delta", "tol"),
        heading="Model (every solver)",
        labels={"hard": "Hard margin (C = ∞)", "tol": "tol (every solver)"},
        helps={"hard": "Hinge loss only, exact QP only: the data must be separable."},
    )
    if not items:
        return None
    return SolversRequest(
        source=name,
        data_items=items,
        kernel=model["kernel"],
        loss=model["loss"],
        C=math.inf if model["hard"] else model["C"],
        sigma=model["sigma"],
        degree=int(model["degree"]),
        bias=model["bias"],
        delta=model["delta"],
        tol=model["tol"],
    )


# -- the comparison and the race ---------------------------------------------------


@st.cache_resource(max_entries=1, show_spinner="Compiling the solvers (once)…")
def _warm() -> bool:
    """Every solver run once per server, so no timed fit pays for compiling."""
    warm_up()
    return True


@st.cache_data(max_entries=16, show_spinner="Fitting every solver…")
def comparison(request: SolversRequest) -> Comparison:
    """Every solver on the request's data (raises SvmlabError)."""
    _warm()
    X, y = request.data()
    bounds = figures.data_bounds(X)
    with room.page_fits():
        return compare_solvers(
            X, y, request.model, bounds=bounds, resolution=RESOLUTION
        )


@st.cache_data(max_entries=64, show_spinner=False)
def race(request: SolversRequest, position: float, clock: str) -> list[Frame]:
    """The recorded iterates at one moment: from the cached comparison, no fit."""
    return race_frames(comparison(request), position, clock)


# -- scaling -----------------------------------------------------------------------


@dataclass(frozen=True)
class ScalingRequest:
    """A scaling run: the comparison's request and the sizes it may reach."""

    base: SolversRequest
    budget: float = SCALING_SECONDS

    @property
    def sizes(self) -> tuple[int, ...]:
        if self.base.generated:
            return SIZES
        n = len(self.base.data()[1])
        return (*(s for s in SIZES if s < n), n)


#: Finished scaling runs, shared by every session (no element inside: the
#: progress bar is drawn by :func:`~svmlab.ui.frame.shared_results.with_progress`).
SCALINGS: SharedResults[tuple[ScalingResult, list[LeeRow]]] = SharedResults(8)


def _compute_scaling(
    request: ScalingRequest, progress
) -> tuple[ScalingResult, list[LeeRow]]:
    """The engine calls, reporting ``progress(fraction, message[, partial])``:
    the times over the sizes done so far after each size."""
    model = request.base.model
    model = ModelSpec(**{**model.__dict__, "max_seconds": SCALING_FIT_SECONDS})
    last = [0.0, "Scaling: starting"]

    def on_progress(done: int, total: int) -> None:
        last[:] = [done / total, f"Scaling: {done} of {total} fits"]
        progress(*last)

    with room.page_fits():
        result = scaling(
            request.base.data_of_size,
            model,
            request.sizes,
            budget_seconds=request.budget,
            on_progress=on_progress,
            on_partial=lambda partial: (
                progress(*last, partial)
                if partial.seconds < PARTIAL_SCALING_SECONDS
                else None
            ),
        )
        progress(1.0, "Lee's Table 1 setting (n = 100 to 400)…")
        # Median of 3: one run each flipped the order at n = 400 under load.
        lee = lee_table(repeats=3)
    return result, lee


def run_scaling(
    request: ScalingRequest,
    draw_partial: Callable[[ScalingResult], None] | None = None,
) -> tuple[ScalingResult, list[LeeRow]]:
    """Run (or fetch from the shared results) a scaling sweep with a progress bar
    and keep it in the session; ``draw_partial`` draws the times over the sizes
    done so far while it runs. Raises SvmlabError."""
    result = with_progress(
        SCALINGS,
        request,
        lambda progress: _compute_scaling(request, progress),
        text="Timing every solver at growing n…",
        draw_partial=draw_partial,
    )
    st.session_state[SCALING_KEY] = (request, *result)
    return result


def stored_scaling() -> tuple[ScalingRequest, ScalingResult, list[LeeRow]] | None:
    return st.session_state.get(SCALING_KEY)


# -- the table ---------------------------------------------------------------------


def _num(value: float | None, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.{digits}g}"


def _met(met: bool | None, stop: str, library: bool = False) -> str:
    """ "yes", "—" (a library that reports no KKT check), "its own test" (a
    library stopped by its own criterion, though svmlab's measure of its answer
    is above tol) or "no (what stopped it)"."""
    if met is None:
        return "—"
    if met:
        return "yes"
    if library and stop == "rule":
        return "its own test"
    return f"no ({stop.replace('_', ' ')})"


def nothing_recorded(result: Comparison) -> str:
    """Why no iterative solver left a trace (or a race) for this request, in one
    sentence: no solver fits the problem at all, or only exact ones do."""
    fitted = [r for r in result.rows if r.valid and not r.library and not r.error]
    short = titles()
    if fitted:
        names = ", ".join(short.get(r.name, r.name) for r in fitted)
        return (
            f"Nothing was recorded: only {names} can fit this problem, and "
            "it solves it at once (no iterates to trace). Untick the hard margin "
            "or change the loss or bias to see the iterative solvers."
        )
    # The telling reason is that of a solver made for this loss (it fails on
    # the bias or the hard margin), not "SMO cannot handle the ramp loss".
    loss = result.model.loss
    reasons = [
        r.reason
        for r in result.rows
        if not r.valid
        and r.reason
        and r.name in SOLVERS
        and loss in SOLVERS[r.name].losses
    ] or [r.reason for r in result.rows if not r.valid and r.reason]
    why = f" ({reasons[0].rstrip('.')})" if reasons else ""
    return (
        "Nothing was recorded: no solver can fit this loss, bias and margin"
        f"{why}. Untick the hard margin or change the loss or bias."
    )


def table(result: Comparison) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The fitted rows as a table (text cells, so "—" can stand for "none"),
    and the (title, reason) of every solver that is not valid here."""
    rows, invalid = [], []
    short = titles()
    for r in result.rows:
        if not r.valid:
            invalid.append((r.title, r.reason))
            continue
        if r.error:
            continue
        svs = "—" if r.n_free is None else f"{r.n_free} / {r.n_bound}"
        rows.append(
            {
                "solver": short.get(r.name, r.name)
                + (" · library" if r.library else ""),
                "ms": _num(None if r.fit_time is None else 1e3 * r.fit_time, 3),
                "iter.": "—" if r.n_iter is None else str(r.n_iter),
                "objective": _num(r.objective, 9),
                "KKT viol.": _num(r.kkt, 2),
                "gap": _num(r.gap, 2),
                "SVs free/bound": svs,
                "max |f − f_ref|": _num(r.max_f_diff, 2),
                "met tol": _met(r.met_tol, r.stop_reason, r.library),
            }
        )
    return pd.DataFrame(rows), invalid


def lee_frame(rows: list[LeeRow]) -> pd.DataFrame:
    """Lee's Table 1 beside ours, one column per n (narrow enough for half of a
    1280 px screen): seconds and the QP / IRWLS ratio."""
    lines = {
        "Lee IRWLS (s)": [f"{r.paper_irwls:.3g}" for r in rows],
        "Lee QP (s)": [f"{r.paper_qp:.4g}" for r in rows],
        "Lee QP / IRWLS": [f"{r.paper_ratio:.2f}" for r in rows],
        "our IRWLS (s)": [f"{r.irwls:.2g}" for r in rows],
        "our QP (s)": [f"{r.qp:.2g}" for r in rows],
        "our QP / IRWLS": [f"{r.ratio:.2f}" for r in rows],
    }
    return pd.DataFrame(
        [[label, *values] for label, values in lines.items()],
        columns=["", *(f"n = {r.n}" for r in rows)],
    )


def frame_caption(frame: Frame, title: str, reference: str | None) -> str:
    """One line over a race panel: iteration, time and agreement."""
    against = f"the {reference.upper()} reference" if reference else "its own answer"
    state = "finished" if frame.done else "running"
    return (
        f"**{title}** · {state} · iteration {frame.iteration} · "
        f"{1e3 * frame.time:.3g} ms · {100 * frame.agreement:.1f} % of the plane "
        f"signed as {against}"
    )


#: The page's title and the help beside it (``page_hands.top_with_code``).
TITLE = "Solvers: the same problem, every way"
HELP = (
    "Every solver registered for the chosen loss and bias minimises the same "
    "objective on the same data; scikit-learn's SVC and LinearSVC join as library "
    "references where they solve exactly that problem."
)

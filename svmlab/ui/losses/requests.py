"""The Losses page's widgets, cached engine calls and sentences.

Data move one way: the sidebar widgets give a :class:`LossesRequest` (primitives
only, hashable: it keys the caches); :func:`comparison` and :func:`starts` are
``st.cache_data`` wrappers of :func:`svmlab.experiments.robustness.compare_losses` and
:func:`svmlab.experiments.robustness.multistart`; the "Run sweep" button hands a
:class:`SweepRequest` to :func:`run_sweep` (shared by every session, with a
progress bar drawn outside any cache), whose
result goes to the session state with its request, so the display controls under
it (which measure, which loss's margins in the rug) recompute nothing.

Every fit has the Explore page's time budget and stops once nobody will see its
result (:func:`svmlab.ui.frame.run_state.superseded`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st

from svmlab.array_types import Array
from svmlab.experiments import robustness
from svmlab.experiments.robustness import Comparison, FitSettings, Outliers, StartResult
from svmlab.losses import LOSSES
from svmlab.ui.frame import data_source, keyed, room
from svmlab.ui.frame.model_block import model_block
from svmlab.ui.frame.page_state import LOSSES_STATE
from svmlab.ui.frame.shared_results import SharedResults, with_progress
from svmlab.user_text import for_markdown

__all__ = [
    "FIG_27_17",
    "PREFIX",
    "SWEEP_KEY",
    "LossesRequest",
    "SweepRequest",
    "apply_fig_27_17",
    "comparison",
    "controls",
    "run_sweep",
    "starts",
    "sweep_promise",
]


#: Widget keys start with this.
PREFIX = "losses"
#: Session key of the last sweep: ``(SweepRequest, SweepResult)``.
SWEEP_KEY = "losses_sweep"
#: Session key of the seconds this visitor waited for it.
SWEEP_WAIT_KEY = "losses_sweep_wait"
#: Clean test points drawn from the generator (another seed) for the error.
N_TEST = 2000
#: Largest clean training set (five losses, each fitted twice, on every move).
MAX_N = LOSSES_STATE.max_n
#: The most outliers the slider offers (more than the clean points is refused).
MAX_OUTLIERS = 60

#: Sugiyama's Fig. 27.17 setting (widget key -> value): two Gaussian classes, a few
#: far outliers of one class beyond the other, the linear kernel.
FIG_27_17: dict[str, Any] = {
    f"{PREFIX}_source": "Generator",
    f"{PREFIX}_dataset": "outlier_blobs",
    f"{PREFIX}_outlier_blobs_n_samples": 100,
    f"{PREFIX}_outlier_blobs_noise": 0.5,
    f"{PREFIX}_seed": 0,
    f"{PREFIX}_count": 3,
    f"{PREFIX}_distance": 6.0,
    f"{PREFIX}_label": 1,
    f"{PREFIX}_side": "other",
    f"{PREFIX}_kernel": "linear",
    f"{PREFIX}_C": 1.0,
}


def apply_fig_27_17() -> None:
    """Button callback: the Fig. 27.17 setting (before the widgets are drawn)."""
    st.session_state.update(FIG_27_17)


@dataclass(frozen=True)
class LossesRequest(data_source.DataRequest):
    """Everything the panels depend on, as primitives (the cache key)."""

    prefix = PREFIX
    count: int
    distance: float
    label: int
    side: str
    kernel: str
    C: float
    sigma: float
    delta: float

    @property
    def outliers(self) -> Outliers:
        return Outliers(self.count, self.distance, self.label, self.side)

    @property
    def settings(self) -> FitSettings:
        return self.model_as(FitSettings, max_seconds=room.fit_seconds())

    def matches_fig_27_17(self) -> bool:
        """Whether this is Sugiyama's Fig. 27.17 setting (:data:`FIG_27_17`)."""
        return matches(self, FIG_27_17)

    @property
    def seed(self) -> int:
        return int(dict(self.data_items).get("random_state", 0))

    def clean_data(self, seed: int | None = None) -> tuple[Array, Any, Array, Any]:
        """``(X, y, X_test, y_test)``: the clean training data for ``seed`` (the
        request's own by default) and a clean test set. A generator draws
        :data:`N_TEST` fresh points with another seed; an upload has no more
        points than its own, so its test set is itself (the page says so)."""
        if not self.generated:
            X, y = self.data()
            return X, y, X, y
        items = dict(self.data_items)
        if seed is not None:
            items["random_state"] = int(seed)
        X, y = data_source.generated_data(self.source, tuple(items.items()))
        return (X, y, *self.fresh(N_TEST, items["random_state"]))


# -- widgets -----------------------------------------------------------------------


def _class_names(items: tuple) -> tuple[str, str]:
    """The (negative, positive) class names: an upload's own, else -1 and +1."""
    labels = dict(items).get("labels")
    if labels is None:
        return "−1", "+1"
    return for_markdown(labels[0]), for_markdown(labels[1])


def controls() -> LossesRequest | None:
    """The sidebar: data, outliers, model. None while an upload is missing."""
    st.button(
        "Sugiyama's Fig. 27.17 setting",
        on_click=apply_fig_27_17,
        key=f"{PREFIX}_fig_27_17",
        help="Two Gaussian classes, three far outliers of class +1 beyond class −1, "
        "the linear kernel, C = 1: the book's hinge-against-ramp picture.",
        width="stretch",
    )
    name, items = data_source.source_block(
        LOSSES_STATE,
        empty_note="Choose a CSV file: the page adds outliers to your data.",
        n_help=f"Clean points, at most {MAX_N}; the outliers come on top.",
        notes={
            "outlier_blobs": "The outliers are set below (they replace the "
            "generator's own)."
        },
    )
    st.header("Outliers")
    count = st.slider(
        "Number of outliers",
        0,
        MAX_OUTLIERS,
        value=int(keyed.value(f"{PREFIX}_count", 5)),
        key=f"{PREFIX}_count",
        persist_state="session",
        help="Added to the clean points; at most as many as there are clean points.",
    )
    distance = st.slider(
        "Distance from the centre",
        0.0,
        20.0,
        value=float(keyed.value(f"{PREFIX}_distance", 6.0)),
        step=0.5,
        key=f"{PREFIX}_distance",
        persist_state="session",
        help="Along the line through the two class means, from its midpoint.",
    )
    negative, positive = _class_names(items or ())
    labels = [1, -1]
    label = keyed.radio(
        "Their class",
        labels,
        f"{PREFIX}_label",
        format_func=(
            {1: f"+1 ({positive})", -1: f"−1 ({negative})"}
            if items and dict(items).get("labels")
            else {1: "+1", -1: "−1"}
        ).get,
        horizontal=True,
        persist_state="session",
    )
    sides = list(robustness.SIDES)
    side = keyed.radio(
        "Their side",
        sides,
        f"{PREFIX}_side",
        format_func={"other": "beyond the other class", "own": "beyond their own"}.get,
        persist_state="session",
        help=" ".join(f"{k}: {v}." for k, v in robustness.SIDES.items()),
    )
    model = model_block(
        LOSSES_STATE, ("kernel", "C", "sigma", "delta"), heading="Model (every panel)"
    )
    if not items:
        return None
    return LossesRequest(
        source=name,
        data_items=items,
        count=int(count),
        distance=float(distance),
        label=int(label),
        side=str(side),
        kernel=str(model["kernel"]),
        C=model["C"],
        sigma=model["sigma"],
        delta=model["delta"],
    )


# -- the comparison and the starts -------------------------------------------------


def _on_request_data(experiment: Callable[..., Any], request: LossesRequest, **kw: Any):
    """``experiment`` (a :mod:`svmlab.experiments.robustness` function) on the request's
    clean
    points, outliers, settings, test set and seed, as one of the page's fits."""
    X, y, X_test, y_test = request.clean_data()
    with room.page_fits():
        return experiment(
            X,
            y,
            request.outliers,
            request.settings,
            X_test,
            y_test,
            random_state=request.seed,
            **kw,
        )


@st.cache_data(max_entries=24, show_spinner=False)
def comparison(request: LossesRequest) -> Comparison:
    """Every loss on the data with outliers beside its clean-data fit."""
    return _on_request_data(robustness.compare_losses, request)


#: Random starts besides the solver's own, the hinge's and the clean data's.
N_RANDOM_STARTS = 4


@st.cache_data(max_entries=24, show_spinner=False)
def starts(request: LossesRequest, loss: str) -> list[StartResult]:
    """The ramp or squared ramp from several starts (objectives comparable)."""
    return _on_request_data(
        robustness.multistart, request, loss=loss, n_random=N_RANDOM_STARTS
    )


# -- the sweep ---------------------------------------------------------------------

#: Swept values of the outlier distance and count.
DISTANCES = tuple(float(v) for v in np.arange(0.0, 12.01, 1.5))
COUNTS = (0, 1, 2, 3, 5, 8, 12, 20, 30)
N_SEEDS = 5


@dataclass(frozen=True)
class SweepRequest:
    """A sweep: the panels' request, the swept axis and the seeds."""

    base: LossesRequest
    axis: str
    n_seeds: int = N_SEEDS

    @property
    def values(self) -> tuple[float, ...]:
        if self.axis == "count":
            n = len(self.base.clean_data()[1])
            return tuple(float(c) for c in COUNTS if c <= n)
        return DISTANCES

    @property
    def seeds(self) -> tuple[int, ...]:
        return tuple(self.base.seed + s for s in range(self.n_seeds))


#: Finished sweeps, shared by every session (no element inside: the progress
#: bar is drawn by :func:`~svmlab.ui.frame.shared_results.with_progress`).
SWEEPS: SharedResults[robustness.SweepResult] = SharedResults(max_entries=8)


def _compute_sweep(request: SweepRequest, progress) -> robustness.SweepResult:
    """The engine call, reporting ``progress(fraction, message[, partial])``:
    the sweep over the seeds done so far after each seed."""
    base = request.base
    done = [0, 1]

    def clean(seed: int):
        return base.clean_data(seed)

    def on_progress(count: int, total: int) -> None:
        done[:] = [count, total]
        progress(count / total, f"Sweep: {count} of {total} data sets fitted")

    def on_partial(sweep: robustness.SweepResult) -> None:
        count, total = done
        progress(count / total, f"Sweep: {count} of {total} data sets fitted", sweep)

    with room.page_fits():
        return robustness.sweep_outliers(
            clean,
            base.outliers,
            base.settings,
            axis=request.axis,
            values=request.values,
            seeds=request.seeds,
            on_progress=on_progress,
            on_partial=on_partial,
        )


def run_sweep(
    request: SweepRequest,
    draw_partial: Callable[[robustness.SweepResult], None] | None = None,
) -> robustness.SweepResult:
    """Run (or fetch from the shared results) a sweep with a progress bar that
    disappears when it is done, and keep it in the session with how long this
    visitor waited (:data:`SWEEP_WAIT_KEY`). ``draw_partial`` draws the sweep
    over the seeds done so far while it runs. Raises SvmlabError."""
    start = time.perf_counter()
    result = with_progress(
        SWEEPS,
        request,
        lambda progress: _compute_sweep(request, progress),
        text="Starting the sweep…",
        draw_partial=draw_partial,
    )
    st.session_state[SWEEP_KEY] = (request, result)
    st.session_state[SWEEP_WAIT_KEY] = time.perf_counter() - start
    return result


def stored_sweep() -> tuple[SweepRequest, robustness.SweepResult] | None:
    """The last sweep of this session, if any."""
    return st.session_state.get(SWEEP_KEY)


# -- sentences ---------------------------------------------------------------------


def pct(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{100 * value:.1f} %"


def loss_title(name: str) -> str:
    return LOSSES[name].title


def panel_numbers(result: robustness.LossResult, kernel: str) -> list[tuple[str, str]]:
    """The numbers under one panel, as (label, value) rows."""
    if result.error:
        return [("fit failed", result.error)]
    clean = pct(result.clean_test_error)
    rows = [("test error", f"{pct(result.test_error)} (clean {clean})")]
    if kernel == "linear":
        # NaN when a w is zero (f constant: identical points of both classes).
        turned = (
            f"{result.angle:.1f}°"
            if math.isfinite(result.angle)
            else "– (w = 0: no direction)"
        )
        rows.append(("w turned by", turned))
    share = pct(result.outlier_alpha_share)
    rows += [
        ("labels changed: data", pct(result.shift_data)),
        ("labels changed: plane", pct(result.shift_plane)),
        ("support vectors", str(result.n_support)),
        ("outliers' Σα", f"{result.outlier_alpha:.3g} ({share})"),
    ]
    if not result.converged:
        rows.append(("solver", "stopped before tol (see Explore)"))
    return rows


def numbers_markdown(result: robustness.LossResult, kernel: str) -> str:
    """The numbers under a panel as a two-column markdown table."""
    rows = panel_numbers(result, kernel)
    lines = ["| measured | |", "|:--|--:|"]
    lines += [f"| {label} | {for_markdown(value)} |" for label, value in rows]
    return "\n".join(lines)


#: The markers, once for every panel.
KEY_TEXT = (
    "● class +1 · ■ class −1 · ◇ orange: the outliers · rings: black a free SV, "
    "pink a bound SV · solid black: f = 0 · dashed: f = ±1 · grey dotted: the "
    "same loss's boundary fitted without the outliers."
)

#: Sugiyama's Fig. 27.17 in words, shown when its setting is on.
FIG_27_17_TEXT = (
    "**Sugiyama, Fig. 27.17** shows two panels on data like these: (a) the hinge "
    "loss SVM, whose boundary is pulled and tilted towards a few outliers far on "
    "the wrong side; (b) the ramp loss, whose boundary stays where the two "
    "classes meet, as if the outliers were not there. The panels below are the "
    "same experiment (our layout: the book gives no coordinates), with the squared "
    "losses and Lee's modified hinge beside them."
)

#: Why bounded losses ignore far outliers.
WHY_TEXT = (
    "At the optimum of ½‖f‖² + C Σ ℓ(mᵢ) each point's coefficient is "
    "αᵢ = C·(−ℓ′(mᵢ)): its influence. A misclassified point (m < 0) keeps an "
    "influence of 1 under the hinge and the modified hinge, and 1 − m, growing "
    "without bound, under the squared hinge: the further the outliers, the harder "
    "the squared hinge pulls. Under the ramp and the squared ramp the influence "
    "falls to 0 below m = 0: once an outlier is on the wrong side it stops "
    "pulling (the orange ticks at m < 0 in the rug get no weight). The price is a "
    "non-convex objective: the fit depends on where the solver starts (below)."
)


def sweep_promise(request: SweepRequest) -> str:
    """What "Run sweep" will do, in words: how many fits, never a time this
    machine may not keep (a page once promised "about 1 s" and took 4-6 s)."""
    # Each seed: every loss on the clean data once, then at every swept value.
    per_seed = (len(request.values) + 1) * len(robustness.LOSS_ORDER)
    fits = per_seed * len(request.seeds)
    return (
        f"{len(request.values)} values × {len(request.seeds)} seeds, "
        f"{fits:,} fits, with a progress bar"
    )


def matches(request: LossesRequest, values: dict[str, Any]) -> bool:
    """Whether ``request`` is the setting of a preset's widget values."""
    items = dict(request.data_items)
    wanted = {
        "source": values[f"{PREFIX}_dataset"],
        "n_samples": values[f"{PREFIX}_outlier_blobs_n_samples"],
        "noise": values[f"{PREFIX}_outlier_blobs_noise"],
        "count": values[f"{PREFIX}_count"],
        "distance": values[f"{PREFIX}_distance"],
        "label": values[f"{PREFIX}_label"],
        "side": values[f"{PREFIX}_side"],
        "kernel": values[f"{PREFIX}_kernel"],
        "C": values[f"{PREFIX}_C"],
    }
    actual = {
        "source": request.source,
        "n_samples": items.get("n_samples"),
        "noise": items.get("noise"),
        "count": request.count,
        "distance": request.distance,
        "label": request.label,
        "side": request.side,
        "kernel": request.kernel,
        "C": request.C,
    }
    return actual == wanted


def _join(parts: list[str]) -> str:
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def story(result: Comparison, request: LossesRequest) -> str:
    """What the panels show, from the numbers measured now (not hoped)."""
    ok = {k: r for k, r in result.results.items() if not r.error}
    if request.count == 0:
        return (
            "No outliers: every panel is its loss's clean fit, so no boundary "
            "moved. Add outliers in the sidebar."
        )
    if not ok:
        return "No loss could be fitted with these settings (see the panels)."
    unbounded = [k for k in ("hinge", "squared_hinge", "modified_hinge") if k in ok]
    bounded = [k for k in ("ramp", "squared_ramp") if k in ok]
    lines = []
    if request.kernel == "linear":
        turned = [f"{loss_title(k)} {ok[k].angle:.1f}°" for k in ok]
        lines.append(f"Angle by which w turned: {_join(turned)}.")
        if unbounded and bounded:
            low = max(ok[k].angle for k in bounded)
            high = min(ok[k].angle for k in unbounded)
            if low < high:
                lines.append(
                    "Here the bounded losses moved less than every unbounded "
                    f"one (at most {low:.1f}° against at least {high:.1f}°)."
                )
            else:
                lines.append(
                    "Here the bounded losses did not move less than the "
                    "unbounded ones: the outliers are close enough to pay less "
                    "than the maximum loss, or so many that the default start "
                    "is stuck (see the starts below)."
                )
    else:
        data = [f"{loss_title(k)} {pct(ok[k].shift_data)}" for k in ok]
        plane = [f"{loss_title(k)} {pct(ok[k].shift_plane)}" for k in ok]
        lines.append(f"Labels changed where the clean data are: {_join(data)}.")
        lines.append(f"Over the whole plane: {_join(plane)}.")
        lines.append(
            "With a Gaussian kernel the fit can carve an island around a "
            "clump of outliers: there they are classified as their own class and "
            "pay no loss under any loss, which costs less than the ramp's bounded "
            "loss, so the ramp's lowest objective may be the island. Small σ "
            "(around 1 on the default data): islands, the boundary where the "
            "data are barely moves for any loss, the change is all in the "
            "empty plane. Large σ (10 or more): no island fits around the "
            "clump; on the default data with 20 outliers at distance 6 and C = 1 "
            "the hinge, the ramp (from its default start) and the modified "
            "hinge are then dragged to 50 % error while the squared hinge and "
            "the squared ramp stay near 1 % (measured, not a rule: move σ and "
            "read the numbers)."
        )
    worst = max(ok.values(), key=lambda r: r.test_error)
    best = min(ok.values(), key=lambda r: r.test_error)
    lines.append(
        f"Clean test error from {pct(best.test_error)} ({loss_title(best.loss)}) "
        f"to {pct(worst.test_error)} ({loss_title(worst.loss)})."
    )
    return "\n\n".join(lines)


def starts_text(results: list[StartResult], title: str) -> str:
    """Which start reached the lowest objective, and whether the default did."""
    best = robustness.best_start(results)
    default = next(r for r in results if r.default)
    lines = [
        f"{title} from {len(results)} starts. Lowest objective: "
        f"**{best.objective:.4g}**, from the start {best.start} "
        f"(clean test error {pct(best.test_error)})."
    ]
    if default.objective > best.objective * (1 + 1e-6) + 1e-9:
        lines.append(
            f"**The default start is stuck**: it stopped at {default.objective:.4g} "
            f"(test error {pct(default.test_error)}), a local minimum "
            f"{default.objective - best.objective:.3g} above the lowest found. A "
            "non-convex loss gives no guarantee: what the page shows above is the "
            "default start's fit."
        )
    else:
        lines.append("The default start reached the lowest objective found.")
    return "\n\n".join(lines)


#: What the numbers under the panels are.
NUMBERS_TEXT = (
    "Under each panel: the error on a large clean test set (and of the clean-data "
    "fit); how far the boundary moved from its clean-data position: the angle of "
    "w (linear kernel), the share of predicted labels that changed where the "
    "clean data are and over the whole plane drawn; the support vectors; the "
    "outliers' total α and its share of Σα (how much the fit listens to them)."
)

#: The page's title and the help beside it (``page_hands.top_with_code``).
TITLE = "Losses: robustness to outliers"
HELP = (
    "Every panel fits the same data, outliers included, with one loss; the "
    "grey dotted line is that loss's boundary on the data without the outliers. "
    + NUMBERS_TEXT
)

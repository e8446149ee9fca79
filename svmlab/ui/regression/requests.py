"""The Regression page's request, cached fit, ε path and sentences.

Data move one way: the sidebar (the shared data block on the regression
generators, the shared model block on :data:`REGRESSION_STATE`'s fields) gives a
:class:`RegressionRequest` (primitives only: it keys the caches); :func:`fit`
fits :class:`svmlab.EpsilonSVR` or :class:`svmlab.NuSVR` on its points plus
the points clicked in; :func:`run_tube_path` runs
:func:`svmlab.experiments.path.tube_path` once for every visitor
(:mod:`svmlab.ui.frame.shared_results`). The sentences are written from the numbers
measured now.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from svmlab.array_types import Array
from svmlab.experiments.path import TubePath, tube_path
from svmlab.svm.regression import EpsilonSVR, NuSVR
from svmlab.ui.frame import data_source, room
from svmlab.ui.frame.model_block import model_block
from svmlab.ui.frame.page_state import EPSILON_GRID, REGRESSION_STATE
from svmlab.ui.frame.shared_results import SharedResults, with_progress

__all__ = [
    "CHART_KEY",
    "DUAL_LATEX",
    "DUAL_TEXT",
    "PREDICT_LATEX",
    "PREFIX",
    "Fitted",
    "RegressionRequest",
    "controls",
    "fit",
    "numbers",
    "numbers_markdown",
    "path_caption",
    "path_epsilons",
    "run_tube_path",
    "story",
]

PREFIX = "regression"
#: The tube chart's element key (the click listener finds it by this prefix).
CHART_KEY = "regression_chart"
#: Fresh test points drawn from the generator (another seed) for the RMSE.
N_TEST = 400
MAX_N = REGRESSION_STATE.max_n
MACHINES = {"epsilon": "ε-SVR (you set ε)", "nu": "ν-SVR (ν finds ε)"}
#: Session key of the points clicked in: ``(data identity, ((x, t), ...))``.
ADDED_KEY = REGRESSION_STATE.points
PATH_SECONDS = 30.0
#: The solver's tolerance: the page prints ε, RMSE and b to four digits, and at
#: LIBSVM's 1e-3 ν-SVR's ε is off in the fourth (0.1136 for 0.1132 on the
#: default sinc); 1e-5 costs a few ms at the page's sizes.
TOL = 1e-5


@dataclass(frozen=True)
class RegressionRequest(data_source.DataRequest):
    """Everything the page's fit depends on, as primitives (the cache key)."""

    prefix = PREFIX
    catalogue = "regression"
    machine: str
    kernel: str
    C: float
    epsilon: float
    nu: float
    sigma: float
    degree: int
    loss: str

    def params(self) -> dict[str, Any]:
        """The estimator's keyword arguments (the model block's values)."""
        out: dict[str, Any] = {
            "C": self.C,
            "kernel": self.kernel,
            "sigma": self.sigma,
            "degree": self.degree,
            "tol": TOL,
            "max_seconds": room.fit_seconds(),
        }
        return out

    def estimator(self) -> EpsilonSVR | NuSVR:
        if self.machine == "nu":
            return NuSVR(nu=self.nu, **self.params())
        return EpsilonSVR(epsilon=self.epsilon, loss=self.loss, **self.params())


def controls() -> RegressionRequest | None:
    """The sidebar: data and model. None while an upload is missing."""
    name, items = data_source.source_block(
        REGRESSION_STATE,
        empty_note="Choose a CSV file: an input column x and a target column t.",
        n_help=f"Training points, at most {MAX_N}; the test error uses {N_TEST} "
        "fresh points.",
    )
    machine = model_block(
        REGRESSION_STATE,
        ("machine",),
        heading="Model",
        formats={"machine": MACHINES.get},
    )
    nu_svr = machine["machine"] == "nu"
    tube = model_block(
        REGRESSION_STATE,
        ("nu",) if nu_svr else ("epsilon", "loss"),
        heading="",
        labels={"loss": "Loss"},
        formats={
            "loss": {
                "epsilon_insensitive": "ε-insensitive |r|_ε",
                "squared_epsilon_insensitive": "squared ε-insensitive",
            }.get
        },
        helps={
            "nu": "An upper bound on the fraction of points outside the tube and "
            "a lower bound on the fraction of support vectors.",
            "epsilon": "Residuals smaller than ε cost nothing.",
        },
    )
    model = model_block(
        REGRESSION_STATE, ("kernel", "C", "sigma", "degree"), heading=""
    )
    if not items:
        return None
    fields = {f.query: f for f in REGRESSION_STATE.fields}
    return RegressionRequest(
        source=name,
        data_items=items,
        machine=machine["machine"],
        kernel=model["kernel"],
        C=model["C"],
        epsilon=float(tube.get("epsilon", fields["epsilon"].default)),
        nu=float(tube.get("nu", fields["nu"].default)),
        sigma=model["sigma"],
        degree=int(model["degree"]),
        loss=str(tube.get("loss", fields["loss"].default)),
    )


# -- points clicked in --------------------------------------------------------------


def added_points(request: RegressionRequest) -> tuple[tuple[float, float], ...]:
    """The points clicked into this data set (a new data set starts empty)."""
    held = st.session_state.get(ADDED_KEY)
    if held is None or held[0] != request.identity:
        return ()
    return held[1]


def add_point(request: RegressionRequest, point: tuple[float, float]) -> None:
    st.session_state[ADDED_KEY] = (
        request.identity,
        (*added_points(request), (float(point[0]), float(point[1]))),
    )


def clear_points() -> None:
    st.session_state.pop(ADDED_KEY, None)


# -- the fit ------------------------------------------------------------------------


@dataclass(frozen=True)
class Fitted:
    """A fit and the numbers the page shows about it."""

    model: Any
    X: Array
    t: Array
    added: NDArray[np.bool_]
    epsilon: float
    train_rmse: float
    test_rmse: float | None
    test: tuple[Array, Array] | None
    seconds: float


@st.cache_resource(max_entries=32, show_spinner=False)
def fit(request: RegressionRequest, added: tuple[tuple[float, float], ...]) -> Fitted:
    """The request's machine on its points and the clicked ones (raises
    :class:`svmlab.SvmlabError` with the engine's sentence)."""
    X, t = request.data()
    mask = np.zeros(len(t), dtype=bool)
    if added:
        extra = np.asarray(added, dtype=np.float64)
        X = np.vstack([X, extra[:, :1]])
        t = np.concatenate([t, extra[:, 1]])
        mask = np.concatenate([mask, np.ones(len(added), dtype=bool)])
    model = request.estimator()
    start = time.perf_counter()
    with room.page_fits():
        model.fit(X, t)
    seconds = time.perf_counter() - start
    epsilon = float(getattr(model, "epsilon_", request.epsilon))
    train = float(np.sqrt(np.mean(model.residuals_**2)))
    test = request.test_data(N_TEST)
    test_rmse = None
    if test is not None:
        test_rmse = float(np.sqrt(np.mean((model.predict(test[0]) - test[1]) ** 2)))
    return Fitted(model, X, t, mask, epsilon, train, test_rmse, test, seconds)


# -- the ε path ---------------------------------------------------------------------


def path_epsilons(epsilon: float, count: int = 15) -> tuple[float, ...]:
    """``count`` values of ε, every other stop of the ε slider's positive grid
    (a factor of about 1.5 apart, so 15 span two and a half decades) centred on
    ``epsilon`` where the grid allows, and holding it when it is positive (the
    path's axis is logarithmic: ε = 0 is its left end's neighbour)."""
    grid = EPSILON_GRID[1:]
    if epsilon > 0:
        centre = int(np.argmin([abs(math.log(g / epsilon)) for g in grid]))
    else:
        centre = 0
    first = centre - 2 * (count // 2)
    first = max(0, min(first, len(grid) - 1 - 2 * (count - 1)))
    values = [grid[first + 2 * k] for k in range(count)]
    if epsilon > 0 and epsilon not in values:
        nearest = int(np.argmin([abs(math.log(v / epsilon)) for v in values]))
        values[nearest] = float(epsilon)
    return tuple(sorted(values))


PATHS: SharedResults[TubePath] = SharedResults(max_entries=4)


def run_tube_path(
    request: RegressionRequest, added: tuple[tuple[float, float], ...]
) -> TubePath:
    """ε-SVR along :func:`path_epsilons` (shared by every visitor; a path cut
    off by its budget stays its visitor's)."""
    values = path_epsilons(request.epsilon)
    key = (request, added, values)

    def compute(progress) -> TubePath:
        X, t = request.data()
        if added:
            extra = np.asarray(added, dtype=np.float64)
            X = np.vstack([X, extra[:, :1]])
            t = np.concatenate([t, extra[:, 1]])
        test = request.test_data(N_TEST)
        params = {**request.params(), "loss": request.loss}
        params.pop("max_seconds", None)
        progress(0.2, f"Fitting ε-SVR at {len(values)} values of ε…")
        with room.page_fits():
            return tube_path(
                X,
                t,
                values,
                params=params,
                X_test=None if test is None else test[0],
                t_test=None if test is None else test[1],
                max_seconds=PATH_SECONDS,
            )

    return with_progress(
        PATHS, key, compute, text="Starting the ε path…", keep=lambda r: r.complete
    )


# -- sentences -----------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{100.0 * value:.1f} %"


def numbers(request: RegressionRequest, fitted: Fitted) -> list[tuple[str, str]]:
    """The numbers beside the figure, as (label, value)."""
    m = fitted.model
    n = len(fitted.t)
    rows = [
        ("support vectors", f"{m.support_.size} / {n}"),
        ("outside the tube", _pct(m.outside_fraction_)),
        (
            "ε" + (" found by ν" if request.machine == "nu" else ""),
            f"{fitted.epsilon:.4g}",
        ),
        ("training RMSE", f"{fitted.train_rmse:.4g}"),
    ]
    if fitted.test_rmse is not None:
        rows.append(("test RMSE", f"{fitted.test_rmse:.4g}"))
    rows += [
        ("b", f"{float(m.intercept_[0]):.4g}"),
        ("fit time", f"{1e3 * fitted.seconds:.0f} ms"),
    ]
    if not m.converged_:
        rows.append(("solver", f"stopped ({m.stop_reason_.replace('_', ' ')})"))
    return rows


def story(request: RegressionRequest, fitted: Fitted) -> str:
    """What the picture shows, written from the numbers measured now."""
    m = fitted.model
    outside, support = m.outside_fraction_, m.support_fraction_
    if request.machine == "nu":
        holds = outside <= request.nu + 1e-9 and support >= request.nu - 1e-9
        return (
            f"ν = {request.nu:g} bounds the fraction of points outside the tube "
            f"({_pct(outside)}) from above and the fraction of support vectors "
            f"({_pct(support)}) from below{'' if holds else ' (up to the solver tol)'}"
            f"; ν-SVR chose the tube's half-width itself: ε = {fitted.epsilon:.3g}."
        )
    if request.loss == "squared_epsilon_insensitive":
        return (
            f"With the squared loss every point outside the tube is a support "
            f"vector with |α − α*| free to grow (no box): {m.support_.size} of "
            f"{len(fitted.t)} points, ε = {request.epsilon:g}."
        )
    inside = 1.0 - support
    return (
        f"Points inside the tube (ε = {request.epsilon:g}) cost nothing and have "
        f"α = α* = 0: {_pct(inside)} of them. The rest are the support vectors: on "
        f"the tube's edge (0 < |α − α*| < C) or outside it at the box "
        f"(|α − α*| = C = {request.C:g}, {_pct(outside)}). Widen ε and they thin out."
    )


def numbers_markdown(request: RegressionRequest, fitted: Fitted) -> str:
    """:func:`numbers` as short lines beside the chart (a projector has no
    room for a table)."""
    return "  \n".join(
        f"{label}: **{value}**" for label, value in numbers(request, fitted)
    )


def _rmse_text(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{value:.3g}"


def path_caption(path: TubePath) -> str:
    """What the ε path measured, and where its best test error is."""
    n = len(path.models)
    if n == 0:
        return (
            f"The ε path ran out of its {PATH_SECONDS:.0f} s before its first fit; "
            "try fewer points."
        )
    took = path.elapsed
    text = f"{n} fits in " + (
        f"{took:.1f} s." if took >= 1 else f"{1e3 * took:.0f} ms."
    )
    rmse = np.asarray(path.test_rmse[:n], dtype=float)
    if np.isfinite(rmse).any():
        best = int(np.nanargmin(rmse))
        text += (
            f" The lowest test RMSE, {_rmse_text(float(rmse[best]))}, is at "
            f"ε = {float(path.epsilons[best]):.3g}"
            f" with {_pct(float(path.support_fraction[best]))} of the points as "
            "support vectors."
        )
    if not path.complete:
        text += (
            f" Stopped after {n} of {path.epsilons.size} values: the path has "
            f"{PATH_SECONDS:.0f} s."
        )
    return text


# -- the formulas --------------------------------------------------------------------

DUAL_LATEX = (
    r"\begin{aligned}\max_{\alpha,\alpha^*}\;& -\tfrac12\sum_{i,j}"
    r"(\alpha_i-\alpha_i^*)(\alpha_j-\alpha_j^*)\,k(x_i,x_j)\\"
    r"& -\varepsilon\sum_i(\alpha_i+\alpha_i^*)+\sum_i t_i(\alpha_i-\alpha_i^*)\\"
    r"\text{s.t.}\;& \sum_i(\alpha_i-\alpha_i^*)=0,\quad"
    r"0\le\alpha_i,\alpha_i^*\le C\end{aligned}"
)
PREDICT_LATEX = r"f(x)=\sum_i(\alpha_i-\alpha_i^*)\,k(x_i,x)+b"
DUAL_TEXT = (
    "Each point has two multipliers: α for the tube's upper edge, α* for the "
    "lower; at most one is non-zero. Inside the tube both are 0 (grey), on an "
    "edge one is between 0 and C (black rings), outside one is at C (purple): "
    "the stems below. The −ε Σ(α + α*) term is what makes most of them zero: "
    "a wider tube, fewer support vectors. ν-SVR adds ε to the variables and "
    "the constraint Σ(α + α*) = C n ν, which makes ν the bound on both fractions. "
    "With the squared ε-insensitive loss the box goes and K gets 1/C on its "
    "diagonal, as with the squared hinge."
)

#: The page's title and the help beside it (``page_hands.top_with_code``).
TITLE = "Support vector regression"
HELP = (
    "The same machine as the classifier, with the hinge replaced by the "
    "ε-insensitive loss: residuals inside a tube of half-width ε cost nothing. "
    "ε-SVR takes ε; ν-SVR takes ν and finds ε itself."
)

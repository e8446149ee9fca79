"""The Multiclass page's widgets, cached comparison and sentences.

The sidebar widgets give a :class:`MulticlassRequest` (primitives only, the cache
key); :func:`comparison` is an ``st.cache_data`` wrapper of
:func:`svmlab.experiments.multiclass_compare.compare` with the app's time budget per
method, stopped once nobody will see its result
(:func:`svmlab.ui.frame.run_state.superseded`). Every widget is keyed ``multiclass_...``
and drawn with its current value as its default (:mod:`svmlab.ui.frame.keyed`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st

from svmlab import figures
from svmlab.array_types import Array
from svmlab.datasets import csv_data
from svmlab.experiments.multiclass_compare import (
    MethodResult,
    MulticlassSettings,
    compare,
)
from svmlab.figures.multiclass import multiclass_panel_spec
from svmlab.svm.multiclass import METHODS
from svmlab.ui.frame import data_source, room
from svmlab.ui.frame.model_block import model_block, model_field
from svmlab.ui.frame.page_state import MULTICLASS_STATE

__all__ = [
    "DUAL_LATEX",
    "DUAL_TEXT",
    "PREFIX",
    "MulticlassRequest",
    "comparison",
    "controls",
    "numbers_markdown",
    "panel_specs",
    "story",
]


#: Widget keys start with this.
PREFIX = "multiclass"
#: Largest training set (three methods on every move; the QP is dense).
MAX_N = MULTICLASS_STATE.max_n
#: Fresh test points a generator draws (another seed).
N_TEST = 1000
#: An upload's share held out as its test set.
TEST_SHARE = 0.3
#: The losses a reduction's binary fits may use (all of svmlab's).
#: Crammer-Singer's dual as the page writes it (the project's notes).
#: On two lines: on one, a 1280 px screen cut the constraints off after
#: "s.t. Σ α_{i,y}" (KaTeX does not wrap).
DUAL_LATEX = r"""
\begin{aligned}
&\max_{\alpha}\; \sum_{i=1}^{n} \alpha_{i,y_i}
 - \frac{1}{2}\sum_{i,j=1}^{n} k(x_i, x_j) \sum_{y=1}^{c} \alpha_{i,y}\,\alpha_{j,y}
\\[4pt]
&\text{s.t.}\quad \sum_{y=1}^{c} \alpha_{i,y} = 0,\qquad
\alpha_{i,y} \le C\,[y = y_i] \quad \text{for every } i \text{ and } y
\end{aligned}
"""
#: Beside the dual: what it says, in the project's words (docs/corrections.md).
DUAL_TEXT = (
    "Each point $i$ owns a block of $c$ multipliers that sums to zero: "
    "$0 \\le \\alpha_{i,y_i} \\le C$ for its own class, $\\alpha_{i,y} \\le 0$ "
    "for the others. A point whose multiclass margin "
    "$f_{y_i}(x_i) - \\max_{y \\ne y_i} f_y(x_i)$ exceeds 1 keeps its whole "
    "block at 0: it is not a support vector. There is no bias, as in "
    "Sugiyama's dual. One coupled problem for all classes: every point of the "
    "plane has a single argmax, so nothing is left to a vote or a tie-break.\n\n"
    "Solved exactly (CVXOPT on all $n c$ variables) up to 900 of them, above "
    "that one point's block at a time, each block in closed form. The Notes "
    "page says how this dual was derived and checked."
)
#: The binary machines of the reductions, as the sidebar names them.
BINARY_MACHINES = {"C": "C-SVC (C above)", "nu": "ν-SVC (ν below)"}

PREDICT_LATEX = r"""
f_y(x) = \sum_{i=1}^{n} \alpha_{i,y}\, k(x_i, x), \qquad
\hat y(x) = \operatorname*{argmax}_{y} f_y(x)
"""


@dataclass(frozen=True)
class MulticlassRequest(data_source.DataRequest):
    """Everything the panels depend on, as primitives (the cache key)."""

    prefix = PREFIX
    catalogue = "multiclass"
    kernel: str
    C: float
    sigma: float
    degree: int
    loss: str
    bias: str
    machine: str = "C"
    nu: float = 0.3

    @property
    def settings(self) -> MulticlassSettings:
        return self.model_as(
            MulticlassSettings,
            max_seconds=room.fit_seconds(),
            nu=self.nu if self.machine == "nu" else None,
        )

    def class_names(self, k: int) -> tuple[str, ...]:
        """An upload's own label texts, else the class numbers."""
        labels = dict(self.data_items).get("labels")
        return tuple(labels) if labels else tuple(str(c) for c in range(k))

    def points(self) -> tuple[Array, Any]:
        """The generator's or the upload's points, before an upload's split."""
        return super().data()

    def data(self) -> tuple[Array, Any, Array, Any]:
        """``(X, y, X_test, y_test)``: a generator's points and
        :data:`N_TEST` fresh ones (another seed); an upload split
        70/30 at random (seed 0)."""
        if not self.generated:
            X, y = self.points()
            rng = np.random.default_rng(0)
            order = rng.permutation(len(y))
            cut = max(1, round(len(y) * (1 - TEST_SHARE)))
            train, test = order[:cut], order[cut:]
            if test.size == 0:
                return X, y, X, y
            return X[train], y[train], X[test], y[test]
        return (*super().data(), *self.fresh(N_TEST))


def controls() -> MulticlassRequest | None:
    """The sidebar: data and model. None while an upload is missing."""
    name, items = data_source.source_block(
        MULTICLASS_STATE,
        empty_note="Choose a CSV file: two feature columns and a label column with "
        f"two to {csv_data.MAX_CLASSES} classes.",
        n_help=f"Training points, at most {MAX_N}; the test error uses {N_TEST} "
        "fresh points.",
    )
    model = model_block(
        MULTICLASS_STATE,
        ("kernel", "C", "sigma", "degree"),
        heading="Model (every method)",
    )
    machine = model_field(
        MULTICLASS_STATE,
        "machine",
        heading="Binary fits (one-vs-rest, one-vs-one)",
        fmt=BINARY_MACHINES.get,
        help="ν-SVC in every binary fit (LIBSVM's -s 1 with several classes); "
        "Crammer-Singer keeps C.",
    )
    nu_svc = machine == "nu"
    binary = model_block(
        MULTICLASS_STATE,
        ("nu", "loss", "bias"),
        heading="",
        helps={
            "nu": "At most a fraction ν of each binary fit's points are margin "
            "errors, at least ν are support vectors.",
            "loss": "Crammer-Singer always uses its own multiclass hinge; ν-SVC "
            "the hinge.",
            "bias": "Crammer-Singer has no bias here, as in Sugiyama's dual; ν-SVC "
            "an unregularized one.",
        },
        disabled=("loss", "bias") if nu_svc else ("nu",),
    )
    if not items:
        return None
    return MulticlassRequest(
        source=name,
        data_items=items,
        kernel=str(model["kernel"]),
        C=model["C"],
        sigma=model["sigma"],
        degree=int(model["degree"]),
        loss=str(binary["loss"]),
        bias=str(binary["bias"]),
        machine=str(machine),
        nu=float(binary["nu"]),
    )


@st.cache_data(max_entries=24, show_spinner="Fitting the three methods…")
def comparison(request: MulticlassRequest) -> dict[str, MethodResult]:
    """The three methods on the request's data."""
    X, y, X_test, y_test = request.data()
    with room.page_fits():
        return compare(X, y, X_test, y_test, request.settings)


@st.cache_data(max_entries=24, show_spinner=False)
def panel_specs(
    request: MulticlassRequest, height: int, class_names: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """Each fitted method's panel (``svmlab.figures.multiclass``) as plain
    dicts, built once per server for a request, a height and the class names:
    evaluating the three models on the 160 x 160 grid took about 0.1 s of
    every visit's script (issue 28). A method that failed has no entry."""
    X, y, _, _ = request.data()
    bounds = figures.data_bounds(X)
    return {
        method: multiclass_panel_spec(
            result.model,
            X,
            y,
            bounds=bounds,
            height=height,
            class_names=class_names,
        )
        for method, result in comparison(request).items()
        if not result.error
    }


# -- sentences ---------------------------------------------------------------------


def pct(value: float) -> str:
    return "–" if not math.isfinite(value) else f"{100.0 * value:.1f} %"


def numbers_markdown(result: MethodResult) -> str:
    """The numbers under a panel: two short lines (a projector has no room for
    a table under each of three panels)."""
    first = (
        f"**test error {pct(result.test_error)}** · training "
        f"{pct(result.train_error)} · {result.n_support} SVs · "
        f"{result.fit_time:.2f} s"
    )
    if result.method == "ovr":
        second = (
            f"no or several f_c > 0: {pct(result.undecided_share)} of the test points"
        )
    elif result.method == "ovo":
        second = f"tied vote: {pct(result.undecided_share)} of the test points"
    else:
        second = "undecided: none (one argmax)"
    if result.method != "crammer_singer" and result.undecided_share > 0:
        second += f", {pct(result.undecided_error)} of them wrong"
    text = f"{first}  \n{second}"
    if not result.converged:
        text += (
            "  \n⚠ stopped before convergence (time or iteration limit): approximate"
        )
    return text


def story(results: dict[str, MethodResult]) -> str:
    """What the three panels show, written from the numbers measured now."""
    fitted = {m: r for m, r in results.items() if r.model is not None}
    if not fitted:
        return "No method could be fitted on these settings."
    low = min(r.test_error for r in fitted.values())
    best = [r for r in fitted.values() if pct(r.test_error) == pct(low)]
    if len(best) == len(fitted) > 1:
        parts = [f"All {len(fitted)} methods reach the same test error ({pct(low)})."]
    elif len(best) > 1:
        names = " and ".join(f"**{METHODS[r.method]}**" for r in best)
        parts = [f"Lowest test error, shared: {names} ({pct(low)})."]
    else:
        parts = [f"Lowest test error: **{METHODS[best[0].method]}** ({pct(low)})."]
    ovr, ovo = fitted.get("ovr"), fitted.get("ovo")
    if ovr is not None:
        parts.append(
            f"One-vs-rest leaves {pct(ovr.undecided_share)} of the test points to "
            "the argmax of its scores (no classifier or several claim them)."
        )
    if ovo is not None:
        parts.append(
            f"One-vs-one ties on {pct(ovo.undecided_share)} of them; LIBSVM gives "
            "a tie to the class that comes first."
        )
    if "crammer_singer" in fitted:
        cs = fitted["crammer_singer"]
        parts.append(
            f"Crammer-Singer solves one problem for all classes "
            f"({cs.model.alpha_.size} dual variables, {cs.model.solver_} solver): "
            "every point has one argmax, so nothing is left to a tie-break."
        )
    return " ".join(parts)


#: The page's title and the help beside it (``page_hands.top_with_code``).
TITLE = "Multiclass SVMs"
HELP = (
    "The same data, kernel and C for the three methods. One-vs-rest trains "
    "one binary SVM per class against the rest and takes the largest score; "
    "one-vs-one trains one per pair and votes (LIBSVM); Crammer-Singer solves "
    "one problem for all classes."
)

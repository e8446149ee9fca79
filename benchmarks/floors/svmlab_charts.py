"""Floor page for benchmarks/checkout_comparison.py: Explore's charts and nothing else.

A C slider and, in one fragment as on Explore, svmlab's own fit of Explore's
default data (the spiral, 160 training points, Gaussian kernel, σ = 3.3) drawn
by svmlab's kept-alive chart component: the decision chart alone
(``?charts=1``), or with the α histogram and the loss chart below it
(``?charts=3``, the default; both deferred as on Explore). What a slider move
costs when it redraws what Explore redraws, without the rest of the page (the
numbers, the lecture tools, the popovers): the floor for issue 28's slider
target.
"""

import sys
from pathlib import Path

import numpy as np
import streamlit as st

# The checkout's svmlab, however the page is started (``streamlit run`` puts
# only this directory on the path).
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from svmlab import SVC, figures  # noqa: E402
from svmlab.datasets import make  # noqa: E402
from svmlab.losses import make_loss  # noqa: E402
from svmlab.ui.explore.panels import CHART_CONFIG  # noqa: E402
from svmlab.ui.frame import chart as ui_chart  # noqa: E402

st.set_page_config(page_title="floor: svmlab charts", layout="wide")
GRID = [round(10 ** (k / 10), 4) for k in range(-30, 51)]
CHARTS = 1 if st.query_params.get("charts") == "1" else 3
X_ALL, Y_ALL = make("spiral", n_samples=200, noise=1.0, random_state=0)
X, Y = X_ALL[:160], Y_ALL[:160]
# Explore's axes: the padded, equal-span bounds of the whole data set.
BOUNDS = tuple(float(v) for v in np.ravel(figures.data_bounds(X_ALL)))


@st.fragment
def charts() -> None:
    C = st.select_slider("C", options=GRID, value=10.0, key="floor_C")
    model = SVC(C=C, kernel="gaussian", sigma=3.3).fit(X, Y)
    revision = str(C)
    decision = figures.decision_spec(
        model, X, Y, bounds=BOUNDS, legend="none", height=760
    )
    ui_chart.plot(
        decision,
        key="floor_decision",
        config=CHART_CONFIG,
        select=True,
        revision=revision,
        fit=(400, 300),
    )
    if CHARTS == 3:
        left, right = st.columns(2, gap="medium")
        with left:
            ui_chart.plot(
                figures.alpha_histogram(model),
                key="floor_alpha",
                config=CHART_CONFIG,
                revision=revision,
                defer=True,
            )
        with right:
            ui_chart.plot(
                figures.loss_spec(make_loss("hinge"), model.margins_, C=C),
                key="floor_loss",
                config=CHART_CONFIG,
                revision=revision,
                defer=True,
            )


charts()

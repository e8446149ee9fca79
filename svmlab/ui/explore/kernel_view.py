"""Kernel views on the Explore page: the Gram matrix, one support vector's bump,
and the degree-2 kernel's lift to 3-D with its separating plane.

Each view has its own chart key: one kept-alive chart redrawn from a heatmap to
the plane kept the heatmap's axis ranges (Plotly's ``uirevision``).

The 3-D lift is exact for the kernel (x·z)² only; with another kernel the page
fits that kernel on the same points, loss, bias and C (cached) and says so.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import streamlit as st

from svmlab import figures
from svmlab.experiments.kernel_views import bump, gram_order, is_poly2, lift
from svmlab.ui.explore import cache
from svmlab.ui.explore.cache import Picture
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import keyed

__all__ = ["MAX_HEATMAP", "section"]

VIEW_KEY = "explore_kernel_view"
ORDER_KEY = "explore_kernel_order"
SV_KEY = "explore_kernel_sv"
#: Samples drawn in the heatmap at most (every k-th in display order beyond it).
MAX_HEATMAP = 300
VIEWS = {
    "gram": "Gram matrix",
    "bump": "one SV's bump",
    "lift": "degree-2 lift (3-D)",
}


def _radio(label: str, options: dict[str, str], key: str) -> str:
    names = list(options)
    return str(
        st.radio(
            label,
            names,
            index=keyed.index(key, names),
            format_func=options.__getitem__,
            horizontal=True,
            key=key,
        )
    )


def poly2_settings(s: ExploreSettings) -> ExploreSettings:
    """``s`` with the kernel (x·z)² (the one whose lift is 3-D)."""
    return replace(
        s,
        kernel="polynomial",
        degree=2,
        coef0=0.0,
        hard_margin=False,
        solver="auto",
        playback=False,
    )


def section(picture: Picture, chart: Any, scale: float) -> None:
    """The kernel views of ``picture`` (inside the page's fragment)."""
    s, _, data, edits, record = picture
    view = _radio("Kernel view", VIEWS, VIEW_KEY)
    model = record.model
    revision = (s, edits, view)
    if view == "gram":
        by = _radio("Order", {"class": "by class", "alpha": "by α"}, ORDER_KEY)
        K = cache.gram_matrix(
            s.data_identity, edits, cache.kernel_items(cache.model_items(s))
        )
        order = gram_order(record.y, model.alpha_, by)
        step = -(-order.size // MAX_HEATMAP)
        order = order[::step]
        if step > 1:
            st.caption(f"Every {step}th sample of {K.shape[0]} is drawn.")
        chart(
            figures.gram_figure(
                K[np.ix_(order, order)], record.y[order], by=by, scale=scale
            ),
            "explore_kernel_gram",
            (revision, by),
        )
        return
    if view == "bump":
        sv = np.flatnonzero(model.alpha_ > 0)
        if not sv.size:
            st.info("This model has no support vector.")
            return
        options = sv.tolist()
        if st.session_state.get(SV_KEY) not in options:
            st.session_state[SV_KEY] = int(sv[np.argmax(model.alpha_[sv])])
        i = st.selectbox(
            "Support vector",
            options,
            index=keyed.index(SV_KEY, options),
            format_func=lambda j: f"#{j} (α = {model.alpha_[j]:.3g})",
            key=SV_KEY,
        )
        xs, ys, XY = figures.grid_points(data.bounds, 90)
        Z = bump(model, record.X, record.y, i, XY).reshape(len(ys), len(xs))
        width = (
            f" A bump about σ = {s.sigma:g} wide: f is a sum of such bumps plus b."
            if s.kernel == "gaussian"
            else " f is a sum of such terms plus b."
        )
        st.caption(f"αᵢ yᵢ k(xᵢ, x) for support vector #{i}.{width}")
        chart(
            figures.bump_figure(
                xs, ys, Z, tuple(record.X[i]), record.X, title=f"#{i}", scale=scale
            ),
            "explore_kernel_bump",
            (revision, i),
        )
        return
    if not is_poly2(model):
        s2 = poly2_settings(s)
        record = cache.fit(s2.data_identity, edits, cache.model_items(s2))
        st.caption(
            "The lift is exact for the kernel (x·z)² only: shown for that kernel "
            "fitted on the same points, loss, bias and C."
        )
    lifted = lift(record.model, record.X, record.y)
    correct = record.model.predict(record.X) == record.y
    on_side = lifted.side == np.where(record.y == record.model.classes_[1], 1, -1)
    st.caption(
        f"φ(x) = (x₁², √2 x₁x₂, x₂²): the plane w·φ + b = 0 puts {on_side.sum()} of "
        f"{len(record.y)} points on their class's side; the 2-D boundary classifies "
        f"{correct.sum()} correctly. Drag to rotate."
    )
    chart(
        figures.lift_figure(lifted, record.y, scale=scale),
        "explore_kernel_lift",
        (revision, "lift"),
    )

"""The point inspector on the Explore page.

Pick a training point (its number, or a click on the chart with "inspects"
chosen above it): read f(x), y f(x), its loss ℓ(m) for the chosen loss, α, its
KKT state and why (:func:`svmlab.experiments.inspection.inspect_point`); move it with
two sliders and watch the boundary follow (each move refits); delete it. The point is
ringed in orange on the main figure.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import streamlit as st

from svmlab import losses
from svmlab.experiments.inspection import inspect_point
from svmlab.ui.explore import edit
from svmlab.ui.explore.cache import FitRecord
from svmlab.ui.explore.lecture import TOOL_KEY
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import keyed

__all__ = ["POINT_KEY", "current", "pick", "section"]

POINT_KEY = "explore_inspect_point"
MOVE_KEYS = ("explore_inspect_x1", "explore_inspect_x2")


def current(n: int) -> int | None:
    """The inspected point's index (None unless the inspector is the tool)."""
    if st.session_state.get(TOOL_KEY) != "inspect":
        return None
    return int(min(max(0, st.session_state.get(POINT_KEY, 0)), n - 1))


def pick(X: np.ndarray, point: tuple[float, float]) -> None:
    """Inspect the training point nearest to a click, and open the inspector."""
    d = np.hypot(X[:, 0] - point[0], X[:, 1] - point[1])
    st.session_state[POINT_KEY] = int(np.argmin(d))
    st.session_state[TOOL_KEY] = "inspect"


def _moved(identity: Any, n_generated: int, index: int, label: float) -> None:
    point = (st.session_state[MOVE_KEYS[0]], st.session_state[MOVE_KEYS[1]])
    st.session_state[POINT_KEY] = edit.move_point(
        identity, n_generated, index, point, label
    )


def _deleted(identity: Any, n_generated: int, index: int) -> None:
    edit.delete_point(identity, n_generated, index)
    st.session_state[POINT_KEY] = max(0, index - 1)


_ROW = '<tr><td style="opacity:0.75;padding-right:1em">{}</td><td>{}</td></tr>'


def section(
    s: ExploreSettings,
    identity: Any,
    n_generated: int,
    record: FitRecord,
    bounds: tuple[float, float, float, float],
) -> None:
    """The inspector's controls and report (inside the page's fragment)."""
    n = len(record.y)
    index = current(n) or 0
    st.session_state[POINT_KEY] = index
    left, right = st.columns([1, 2], gap="medium")
    with left:
        st.number_input(
            "Point #",
            min_value=0,
            max_value=n - 1,
            value=keyed.value(POINT_KEY, 0),
            step=1,
            key=POINT_KEY,
            help="Or choose 'inspects' above the chart and click a point.",
        )
        index = int(st.session_state[POINT_KEY])
        loss = losses.make_loss(s.loss, delta=s.delta)
        report = inspect_point(record.model, record.X, record.y, index, loss)
        label = float(record.y[index])
        for key, value, (low, high) in zip(
            MOVE_KEYS, report.x, (bounds[:2], bounds[2:]), strict=True
        ):
            st.session_state[key] = float(min(max(value, low), high))
        for key, name, (low, high) in zip(
            MOVE_KEYS, ("x₁", "x₂"), (bounds[:2], bounds[2:]), strict=True
        ):
            st.slider(
                f"move {name}",
                float(low),
                float(high),
                value=float(keyed.value(key, low)),
                step=float(high - low) / 200,
                format="%.2f",
                key=key,
                on_change=_moved,
                args=(identity, n_generated, index, label),
            )
        st.button(
            "Delete this point",
            key="explore_inspect_delete",
            on_click=_deleted,
            args=(identity, n_generated, index),
        )
    with right:
        rows = [
            ("point", f"#{report.index} at ({report.x[0]:.2f}, {report.x[1]:.2f})"),
            ("class y", f"{report.label:+.0f}"),
            ("f(x)", f"{report.f:.3f}"),
            ("m = y f(x)", f"{report.margin:.3f}"),
            (f"loss ℓ(m) ({loss.title})", f"{report.loss:.3f}"),
            ("α", f"{report.alpha:.4g}" + (f" (C = {report.C:g})")),
            ("KKT state", report.state),
        ]
        body = "".join(_ROW.format(html.escape(k), html.escape(v)) for k, v in rows)
        st.html(
            f'<table data-svmlab-inspector="{report.index}" '
            f'style="font-size:1.1rem">{body}</table>'
        )
        st.markdown(report.why)

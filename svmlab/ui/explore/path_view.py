"""The regularisation path scrubber on the Explore page.

"Compute the path" fits the current model at 30 values of C (or σ) with warm
starts (:func:`svmlab.experiments.path.regularization_path`, a progress bar, a time
budget), and keeps the result, models included, in a table every visitor shares
(:class:`~svmlab.ui.frame.shared_results.SharedResults`: the progress bar is drawn
outside it, so a second visitor's hit replays nothing) and in the session. The
values are stops of the page's own C and σ sliders (every other E12 value), so
scrubbing sets C or σ to a value the sliders show; the curves (margin
width, free and bound SVs, errors, objective) carry a cursor at the current value.
While the settings are those of a path value, :func:`stored_record` hands the
page the stored model: a scrub costs no fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import streamlit as st

from svmlab import figures
from svmlab.experiments.path import PathResult, regularization_path
from svmlab.solvers.lane import long_fits_through
from svmlab.ui.explore import panels
from svmlab.ui.explore.cache import (
    Edits,
    FitRecord,
    apply_edits,
    load_data,
    model_items,
)
from svmlab.ui.explore.controls import KEYS
from svmlab.ui.explore.settings import NU_TOOL_NOTE, ExploreSettings
from svmlab.ui.frame import keyed, room
from svmlab.ui.frame.link_values import C_GRID, SIGMA_GRID, nearest
from svmlab.ui.frame.panels import partial_chart
from svmlab.ui.frame.shared_results import SharedResults, with_progress

__all__ = ["PATH_SECONDS", "clicked_value", "path_values", "section", "stored_record"]

#: Wall-clock budget of one path (the values not reached are left out).
PATH_SECONDS = 30.0
#: Values per path.
N_VALUES = 30
STATE_KEY = "explore_path"
PARAM_KEY = "explore_path_param"
SCRUB_KEY = "explore_path_scrub"
CHART_KEY = "explore_path_chart"


def path_values(param: str, current: float) -> tuple[float, ...]:
    """30 stops of the page's slider grid (every other E12 value, about 6 a
    decade), placed so that the current value is near the middle."""
    grid = (C_GRID if param == "C" else SIGMA_GRID)[::2]
    centre = int(np.argmin(np.abs(np.log(grid) - np.log(current))))
    start = max(0, min(len(grid) - N_VALUES, centre - N_VALUES // 2))
    return tuple(grid[start : start + N_VALUES])


def _identity(s: ExploreSettings, edits: Edits, param: str) -> tuple:
    """Everything the path depends on except the swept value."""
    items = tuple((k, v) for k, v in model_items(s) if k != param)
    return (s.data_identity, edits, items)


#: Finished paths, shared by every session; a path cut off by its budget is
#: shown to the session that computed it but never handed to another.
PATHS: SharedResults[PathResult] = SharedResults(max_entries=4)


def _compute_path(
    identity: tuple,
    param: str,
    values: tuple[float, ...],
    progress=None,
    on_partial=None,
) -> PathResult:
    data_identity, edits, items = identity
    data = load_data(data_identity)
    X, y = apply_edits(data.X_train, data.y_train, edits)
    params = dict(items)
    params.pop("max_seconds", None)
    params["record_history"] = False
    # Through the server's lane (its fits take turns with other long fits),
    # not cancelled by a rerun: a path is asked for once, by a button.
    with long_fits_through(room.LANE):
        return regularization_path(
            X,
            y,
            param=param,
            values=values,
            params=params,
            X_test=data.X_test,
            y_test=data.y_test,
            progress=progress,
            max_seconds=PATH_SECONDS,
            on_partial=on_partial,
        )


def stored_record(s: ExploreSettings, edits: Edits) -> FitRecord | None:
    """The path's stored model for these settings, if a path holds them."""
    held = st.session_state.get(STATE_KEY)
    if held is None:
        return None
    identity, result = held
    param = result.param
    if identity != _identity(s, edits, param) or s.hard_margin:
        return None
    value = getattr(s, param)
    hits = np.flatnonzero(result.values[: len(result.models)] == value)
    if not hits.size:
        return None
    i = int(hits[0])
    model = result.models[i]
    data = load_data(s.data_identity)
    X, y = apply_edits(data.X_train, data.y_train, edits)
    test = result.test_error[i]
    return FitRecord(
        model=model,
        X=X,
        y=y,
        train_error=float(result.train_error[i]),
        test_error=None if np.isnan(test) else float(test),
        n_free=int(result.n_free[i]),
        n_bound=int(result.n_bound[i]),
        warning=None,
        notes=tuple(model.fit_notes_),
    )


def _scrubbed(param: str) -> None:
    st.session_state[KEYS[param]] = st.session_state[SCRUB_KEY]


def clicked_value(selection: Any, fitted: Sequence[float]) -> float | None:
    """The path value nearest (on the log axis) to the first point clicked on
    the curves, or None when the selection holds no point with an x."""
    try:
        points = selection["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for point in points or ():
        x = point.get("x") if isinstance(point, dict) else None
        if isinstance(x, int | float) and not isinstance(x, bool) and fitted:
            return nearest(tuple(fitted), float(x))
    return None


def _clicked(param: str, fitted: tuple[float, ...]) -> None:
    """A click on the curves: C or σ (and the slider) to that path value."""
    value = clicked_value(st.session_state.get(CHART_KEY), fitted)
    if value is not None:
        st.session_state[KEYS[param]] = value
        st.session_state[SCRUB_KEY] = value


def section(s: ExploreSettings, edits: Edits, scale: float) -> None:
    """The path's controls, curves and scrubber (inside the page's fragment)."""
    if s.is_nu:
        st.info(NU_TOOL_NOTE, icon=":material/info:")
        return
    params = ["C", "sigma"] if s.kernel == "gaussian" else ["C"]
    if st.session_state.get(PARAM_KEY) not in params:
        st.session_state[PARAM_KEY] = "C"
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    param = left.radio(
        "Sweep",
        params,
        index=keyed.index(PARAM_KEY, params),
        format_func={"C": "C (log grid)", "sigma": "σ (log grid)"}.get,
        horizontal=True,
        key=PARAM_KEY,
    )
    identity = _identity(s, edits, param)
    values = path_values(param, getattr(s, param))
    held = st.session_state.get(STATE_KEY)
    if held is not None and (held[0] != identity or held[1].param != param):
        held = None
    if right.button("Compute the path", key="explore_path_run", disabled=s.hard_margin):

        def compute(progress) -> PathResult:
            return _compute_path(
                identity,
                param,
                values,
                lambda done, total: progress(done / total, f"{done} of {total} fits"),
                lambda part: progress(
                    len(part.models) / len(values),
                    f"{len(part.models)} of {len(values)} fits",
                    part,
                ),
            )

        def partial_curves(part: PathResult) -> None:
            note = f"{len(part.models)} of {len(values)} values of {param}"
            partial_chart(figures.path_figure(part, scale=scale), note)

        result = with_progress(
            PATHS,
            (identity, param, values),
            compute,
            text=f"Fitting {len(values)} values of {param}…",
            keep=lambda r: r.complete,
            draw_partial=partial_curves,
        )
        held = (identity, result)
        st.session_state[STATE_KEY] = held
    if s.hard_margin:
        st.caption("The hard margin has no C to sweep: untick it to compute a path.")
    if held is None:
        st.caption(
            f"Fits the model at {N_VALUES} values of {param} from "
            f"{values[0]:g} to {values[-1]:g}, each warm-started from the last; "
            "then the slider below scrubs the figure above without fitting."
        )
        return
    result = held[1]
    fitted = tuple(float(v) for v in result.values[: len(result.models)])
    if not result.complete:
        st.warning(
            f"The path stopped after {len(fitted)} of {result.values.size} values "
            f"(its {PATH_SECONDS:g} s budget)."
        )
    current = getattr(s, param)
    on_path = current in fitted
    if st.session_state.get(SCRUB_KEY) not in fitted or on_path:
        st.session_state[SCRUB_KEY] = (
            current if on_path else fitted[result.nearest(current)]
        )
    st.select_slider(
        f"Scrub {'C' if param == 'C' else 'σ'} along the path (no fit: stored models)",
        options=fitted,
        value=keyed.value(SCRUB_KEY, fitted[0]),
        format_func=lambda v: f"{v:g}",
        key=SCRUB_KEY,
        on_change=_scrubbed,
        args=(param,),
    )
    st.caption(
        f"{len(fitted)} warm-started fits in {result.elapsed:.2f} s; the cursor "
        "is the value the figure shows: click a point on the curves to move it."
    )
    cursor = current if on_path else None
    # Streamlit's plotly chart, not the kept-alive one: it reports the point clicked.
    # A new cursor is a new figure, so the chart remounts with no selection.
    panels.plotly_chart(
        figures.path_figure(result, cursor=cursor, scale=scale),
        CHART_KEY,
        on_select=lambda: _clicked(param, fitted),
        selection_mode="points",
    )

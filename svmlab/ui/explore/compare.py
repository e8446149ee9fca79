"""Compare mode on the Explore page: the current settings (A) beside the same
settings with one thing changed (B): the loss, the solver, C or σ.

Both panels share the axes (the data's bounds) and the colour scale (the surface
saturates at the same |f| in every figure), and each has its numbers. B is a
cached fit (:func:`svmlab.ui.explore.cache.fit`) of its own settings, and is in the URL
(the ``compare`` setting, ``compare=C:100``), so a compare link opens the tool
with the same B.
"""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Any

import streamlit as st

from svmlab import figures, losses, solvers
from svmlab.errors import FitCancelled, SvmlabError
from svmlab.ui.explore import cache
from svmlab.ui.explore.cache import FitRecord, Picture
from svmlab.ui.explore.controls import COMPARE_FIELD_KEY, COMPARE_PREFIX, publish
from svmlab.ui.explore.panels import number_cells
from svmlab.ui.explore.settings import NU_TOOL_NOTE, ExploreSettings, compare_text
from svmlab.ui.frame import keyed
from svmlab.ui.frame.link_values import C_GRID, SIGMA_GRID, nearest

__all__ = ["other_settings", "section"]

FIELD_KEY = COMPARE_FIELD_KEY
P = COMPARE_PREFIX
FIELDS = {"loss": "loss", "solver": "solver", "C": "C", "sigma": "σ"}
#: The numbers under each panel (the rest are on the main panel).
SHOWN = ("support vectors", "bound SVs", "training error", "test error", "objective")


def _choices(s: ExploreSettings, field: str) -> list[Any]:
    if field == "loss":
        return list(losses.LOSSES)
    if field == "solver":
        return [
            "auto",
            *solvers.valid_solvers(
                s.loss if s.loss else "hinge", fit_intercept=s.fit_intercept
            ),
        ]
    return list(C_GRID if field == "C" else SIGMA_GRID)


def _default(s: ExploreSettings, field: str) -> Any:
    """B's first value: something that shows a difference."""
    if field == "loss":
        return "squared_hinge" if s.loss != "squared_hinge" else "hinge"
    if field == "solver":
        options = _choices(s, field)
        return next((o for o in options[1:] if o != s.solver), "auto")
    grid = C_GRID if field == "C" else SIGMA_GRID
    current = getattr(s, field)
    return nearest(grid, current * (100.0 if field == "C" else 0.2))


def other_settings(s: ExploreSettings, field: str, value: Any) -> ExploreSettings:
    """B: ``s`` with ``field`` set to ``value`` (and the hard margin off for C)."""
    changes: dict[str, Any] = {field: value}
    if field == "C" or field == "loss":
        changes["hard_margin"] = False
    if field == "loss":
        changes["solver"] = "auto"
    return replace(s, **changes)


def _numbers(record: FitRecord) -> None:
    cells = [(k, v) for k, v in number_cells(record) if k in SHOWN]
    rows = "".join(
        f'<div><span style="opacity:0.75">{html.escape(k)}</span> '
        f'<b data-svmlab-compare="{html.escape(k)}">{html.escape(v)}</b></div>'
        for k, v in cells
    )
    st.html(f'<div style="display:flex;flex-wrap:wrap;gap:0.2rem 1.2rem">{rows}</div>')


def section(picture: Picture, chart: Any, scale: float, test: Any) -> None:
    """The compare row under ``picture`` (inside the page's fragment)."""
    s, _, data, edits, record = picture
    if s.is_nu:
        st.info(NU_TOOL_NOTE, icon=":material/info:")
        return
    fields = [f for f in FIELDS if f != "sigma" or s.kernel == "gaussian"]
    top = st.columns([2, 3], vertical_alignment="bottom")
    with top[0]:
        field = str(
            keyed.radio(
                "B differs from A in",
                fields,
                FIELD_KEY,
                format_func=FIELDS.__getitem__,
                horizontal=True,
            )
        )
    options = _choices(s, field)
    key = P + field
    if st.session_state.get(key) not in options:
        st.session_state[key] = _default(s, field)
    with top[1]:
        label = f"B's {FIELDS[field]}"
        if field in ("C", "sigma"):
            value = st.select_slider(
                label,
                options=options,
                value=keyed.value(key, options[0]),
                format_func=lambda v: f"{v:g}",
                key=key,
            )
        else:
            value = st.selectbox(
                label,
                options,
                index=keyed.index(key, options),
                format_func=lambda v: str(v).replace("_", " "),
                key=key,
            )
    # B in the URL: a compare link round-trips (the C and σ row wrote the URL
    # before this row was drawn, so a B set just now is written here).
    if s.compare != compare_text(field, value):
        publish(replace(s, compare=compare_text(field, value)))
    other = other_settings(s, field, value)
    message = cache.no_solver_message(other)
    if message:
        st.info(message)
        return
    try:
        b = cache.fit(other.data_identity, edits, cache.model_items(other))
    except FitCancelled:
        return
    except SvmlabError as error:
        st.warning(f"B cannot be fitted: {error}")
        return
    panels = st.columns(2, gap="medium")
    for column, name, rec, settings in (
        (panels[0], "A", record, s),
        (panels[1], "B", b, other),
    ):
        with column:
            shown = getattr(settings, field)
            st.markdown(f"**{name}: {FIELDS[field]} = {str(shown).replace('_', ' ')}**")
            fig = figures.decision_spec(
                rec.model,
                rec.X,
                rec.y,
                bounds=data.bounds,
                test=test,
                legend="none",
                height=460,
                scale=scale,
                resolution=90,
            )
            chart(fig, f"explore_compare_{name}", (settings, edits, scale))
            _numbers(rec)

"""Clicks on the empty plot area of a chart, as data coordinates.

Streamlit's ``st.plotly_chart`` selection events report no click on empty space,
so adding points (Explore's classes, the Regression page's (x, t)) uses a small
``st.components.v2`` component with no iframe and no visible body. Its
JavaScript listens (once per browser tab) for clicks on the plot area of the
chart whose element key starts with the page's prefix: Plotly re-dispatches a
``click`` event on its drag layer after a press without a drag, in every drag
mode. The pixel is turned into data coordinates with the axes' own ``p2l`` and
sent back as the component's ``click`` trigger value, which reruns the script
once. The listener follows the page that mounted it last (one page is shown at
a time).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

__all__ = ["add_clicked", "click_listener", "remove_clicked_button", "take_click"]

_JS = r"""
export default function (component) {
  const { setTriggerValue, data } = component;
  const hub = (window.__svmlabClick = window.__svmlabClick || {});
  hub.send = setTriggerValue;
  hub.prefix = data && data.prefix;
  if (hub.installed) return;
  hub.installed = true;
  hub.last = { x: NaN, y: NaN, t: 0 };
  document.addEventListener(
    "click",
    (event) => {
      const target = event.target;
      if (!target || !target.classList || !target.classList.contains("nsewdrag")) {
        return;
      }
      if (!target.closest('[class*="st-key-' + hub.prefix + '"]')) return;
      const plot = target.closest(".js-plotly-plot");
      const layout = plot && plot._fullLayout;
      if (!layout || !layout.xaxis || !layout.yaxis) return;
      // The browser's own click and Plotly's re-dispatched one: count one.
      const now = Date.now();
      // The click the browser fires after a point was dragged (the chart's
      // move, svmlab.ui.frame.chart) is not a click on the plane.
      if (hub.suppressUntil && now < hub.suppressUntil) return;
      const { last } = hub;
      if (event.clientX === last.x && event.clientY === last.y && now - last.t < 400) {
        return;
      }
      hub.last = { x: event.clientX, y: event.clientY, t: now };
      const box = target.getBoundingClientRect();
      const x = layout.xaxis.p2l(event.clientX - box.left);
      const y = layout.yaxis.p2l(event.clientY - box.top);
      if (Number.isFinite(x) && Number.isFinite(y)) {
        hub.send("click", { x: x, y: y, t: now });
      }
    },
    true,
  );
}
"""

_listener = st.components.v2.component(
    "svmlab_chart_click", js=_JS, isolate_styles=False
)


def _pending_key(prefix: str) -> str:
    return f"{prefix}_pending_click"


def click_listener(prefix: str) -> tuple[float, float] | None:
    """Mount the (invisible) listener for the chart keyed ``prefix...``; the
    point clicked in this rerun, if any.

    The point is also kept in ``st.session_state`` until :func:`take_click`
    consumes it, so the listener can live outside the fragment that draws the
    chart (a click reruns the whole page once).
    """
    result = _listener(
        # Not "{prefix}...": selectors that find the chart by its key prefix
        # must not find the listener.
        key=f"click_listener_{prefix}",
        data={"prefix": prefix},
        on_click_change=lambda: None,
        height=0,
    )
    click = getattr(result, "click", None)
    if isinstance(click, dict):
        try:
            point = float(click["x"]), float(click["y"])
        except (KeyError, TypeError, ValueError):
            return None
        st.session_state[_pending_key(prefix)] = point
        return point
    return None


def take_click(prefix: str) -> tuple[float, float] | None:
    """The click on ``prefix``'s chart not yet used, once."""
    return st.session_state.pop(_pending_key(prefix), None)


def add_clicked(prefix: str, add: Callable[[tuple[float, float]], None]) -> None:
    """Mount the listener for ``prefix``'s chart and hand a click not yet used
    to ``add`` (a page that adds the clicked point to its data; one rerun)."""
    click_listener(prefix)
    clicked = take_click(prefix)
    if clicked is not None:
        add(clicked)


def remove_clicked_button(added: tuple, key: str, clear: Callable[[], None]) -> None:
    """A "Remove clicked points (n)" button while any point was clicked in;
    pressed, ``clear`` forgets them before the rerun it starts (a callback),
    so that one run draws the page without them. As ``clear()`` then
    ``st.rerun()`` in the script, the press took two runs, and a browser
    test under load read the first run's page, points and all."""
    if added:
        st.button(f"Remove clicked points ({len(added)})", key=key, on_click=clear)

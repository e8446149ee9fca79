"""A Plotly chart kept alive across reruns: one ``div``, updated with ``Plotly.react``.

``st.plotly_chart`` (Streamlit 1.67) hashes the figure into the element id, so every
chart whose figure changed is unmounted and mounted again on each rerun, and then
drawn twice (README, "Points painted, hover kept"). :func:`plot` draws the figure in
a small ``st.components.v2`` component instead (no iframe, no shadow DOM): its key
alone is its identity, so the browser keeps the same Plotly ``div`` and hands each
new figure to ``Plotly.react``, which redraws in place once.

plotly.js is the copy shipped with the Python ``plotly`` package
(``plotly/package_data/plotly.min.js``, the version the figures are built for).
Streamlit serves it as the file of a v1 component declared on that directory
(``/component/<name>/plotly.min.js``, cacheable): no npm build, no network. Each
browser tab loads it once.

Everything a figure carries works as with ``st.plotly_chart``: hover, legend, fixed
axis ranges, the modebar (``config``, e.g. PNG export). With ``select=True`` a box
or lasso selection is sent back (one rerun, scoped to the fragment the chart is in)
as ``{"box": [{"x": [x0, x1], "y": [y0, y1]}], "lasso": [{"x": [...], "y": [...]}]}``,
the geometry ``st.plotly_chart`` reports in ``event.selection``. Clicks on empty
space are left to :mod:`svmlab.ui.explore.edit`'s listener, which finds the chart by its
element key.

The figure travels as JSON bytes; the browser skips a figure it already shows. The
page keeps one ``uirevision`` (svmlab.figures), so what the student did to a chart
(a zoom, a legend entry switched off) now survives a slider move instead of being
reset by the remount. A chart follows its column's width (``ResizeObserver``).
Secondary charts (``defer=True``) are drawn when the browser is next idle, so the
main chart and the end of the rerun come first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import plotly
import streamlit as st
import streamlit.components.v1 as components_v1
from plotly.utils import PlotlyJSONEncoder

from svmlab.figures.theme import LIGHT, Theme, themed
from svmlab.ui.frame import theme_choice
from svmlab.ui.hall.view import json_numbers

__all__ = ["COMPONENT", "PLOTLY_JS", "PRELOAD_KEY", "figure_payload", "plot", "preload"]

#: The key of the frame's invisible preload instance (the frame's style takes
#: its 0 px element out of the flow).
PRELOAD_KEY = "svmlab_plotly_preload"

#: The plotly.js bundle of the installed plotly package: every trace type, for
#: a figure with a 3-D trace (the kernel view's lift) only.
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
#: Plotly's own cartesian bundle of the same plotly.js version (npm's
#: plotly.js-cartesian-dist-min: scatter, bar, box, heatmap, contour, histogram,
#: image, pie, violin), vendored: a third of the full bundle's size, and a new
#: tab evaluates it in a third of the time (issue 28: 480 against 1335 ms
#: under load 3.7), which every 2-D chart page's first load waits for.
PLOTLY_2D_JS = Path(__file__).resolve().parent / "static" / "plotly-cartesian.min.js"
#: The trace types the cartesian bundle draws (its README); a figure with any
#: other (the lift's scatter3d and surface) is drawn by the full bundle.
CARTESIAN_TRACES = (
    "bar",
    "box",
    "contour",
    "heatmap",
    "histogram",
    "histogram2d",
    "histogram2dcontour",
    "image",
    "pie",
    "scatter",
    "scatterternary",
    "violin",
)

#: The names Streamlit serves the two bundles under (see :func:`_serve_plotly_js`).
ASSET_NAME = f"{__name__}.plotlyjs"
ASSET_2D_NAME = f"{__name__}.plotly2d"


def _serve_plotly_js() -> None:
    """Declare a v1 component that is never drawn on plotly.js's directory.

    Declaring it makes Streamlit serve that directory's files under
    ``/component/<ASSET_NAME>/``. Streamlit registers a declaration only during a
    script run, in the running server's registry; once it is there, later calls
    return at once (a declaration walks the caller's source files: ~0.2 ms a
    chart, which a lecture room of sixty pays many times a second).
    """
    try:  # registered already in this server: skip the declaration's file lookups
        from streamlit.runtime import get_instance

        registry = get_instance().component_registry
        if registry.get_component_path(ASSET_NAME) == str(
            PLOTLY_JS.parent
        ) and registry.get_component_path(ASSET_2D_NAME) == str(PLOTLY_2D_JS.parent):
            return
    except Exception:  # no runtime (a bare script), or Streamlit's API moved
        pass
    components_v1.declare_component("plotlyjs", path=str(PLOTLY_JS.parent))
    components_v1.declare_component("plotly2d", path=str(PLOTLY_2D_JS.parent))


COMPONENT = "svmlab_plotly"

_COMMON_JS = r"""
const SCRIPT = "__ASSET__";
const SCRIPT_2D = "__ASSET_2D__";
const CARTESIAN = new Set(__CARTESIAN__);
const PRELOAD = "__PRELOAD__";
const LATER = "__LATER__";

// svmlab's own plotly.js, kept by reference: Streamlit's Plotly element code
// (which the frame's preload imports) brings another copy that may take the
// global window.Plotly, and under it a box drawn on svmlab's chart selected
// nothing (tests/browser/test_explore_browser.py). Two bundles of the same
// plotly.js: the cartesian one for every 2-D figure (window.__svmlabPlotlyLib),
// the full one only for a figure with a 3-D trace (window.__svmlabPlotlyFullLib).
function plotlyReady(full) {
  const lib = full ? "__svmlabPlotlyFullLib" : "__svmlabPlotlyLib";
  const pending = full ? "__svmlabPlotlyFull" : "__svmlabPlotly";
  if (window[lib]) return Promise.resolve(window[lib]);
  if (!window[pending]) {
    // Streamlit's own bundle tells where the app is served from (base path).
    const own = document.querySelector('script[src*="/static/js/"]');
    const base = own ? own.src.slice(0, own.src.indexOf("static/js/")) : "/";
    window[pending] = new Promise((resolve, reject) => {
      const tag = document.createElement("script");
      tag.src = base + "component/" + (full ? SCRIPT + "/plotly.min.js"
        : SCRIPT_2D + "/plotly-cartesian.min.js");
      tag.async = true;
      tag.onload = () => {
        window[lib] = window.Plotly;
        resolve(window.Plotly);
      };
      tag.onerror = () => {
        window[pending] = null;
        reject(new Error("svmlab: could not load plotly.js from " + tag.src));
      };
      document.head.appendChild(tag);
    });
  }
  return window[pending];
}

// The copy of plotly.js that drew this chart.
function libOf(gd) {
  return gd.__svmlabFull ? window.__svmlabPlotlyFullLib : window.__svmlabPlotlyLib;
}

// Whether a figure needs the full bundle (a trace type the cartesian one lacks;
// a trace without a type is a scatter).
function needsFull(spec) {
  return (spec.data || []).some((trace) => !CARTESIAN.has(trace.type || "scatter"));
}

"""

#: The chart: one Plotly ``div`` per instance, redrawn in place. Sent with
#: every instance on every run (Streamlit 1.67 inlines a component's code in
#: each element), so what only the preload needs lives in :data:`_PRELOAD_JS`.
_CHART_JS = r"""
function selection(event) {
  const out = { box: [], lasso: [] };
  if (!event) return out;
  if (event.range && event.range.x && event.range.y) {
    out.box.push({ x: event.range.x.slice(0, 2), y: event.range.y.slice(0, 2) });
  }
  if (event.lassoPoints && event.lassoPoints.x && event.lassoPoints.y) {
    out.lasso.push({ x: event.lassoPoints.x, y: event.lassoPoints.y });
  }
  return out;
}

// Moving a point (``move``: the movable points' data coordinates, in index
// order): a press within 12 px of one picks it up (Plotly never sees the
// press), a ring follows the pointer, the release sends {index, x, y, from}.
// A release where the press was is a click, left to the click listener; the
// click the browser fires after a move is swallowed (window.__svmlabClick).
function axesOf(gd) {
  const layout = gd._fullLayout;
  const drag = gd.querySelector(".nsewdrag");
  if (!layout || !layout.xaxis || !layout.yaxis || !drag) return null;
  return { layout, box: drag.getBoundingClientRect() };
}

function installMove(gd) {
  if (gd.__svmlabMoveInstalled) return;
  gd.__svmlabMoveInstalled = true;
  if (getComputedStyle(gd).position === "static") gd.style.position = "relative";
  const ring = document.createElement("div");
  ring.className = "svmlab-move-ring";
  ring.style.cssText =
    "position:absolute;width:22px;height:22px;margin:-11px 0 0 -11px;" +
    "border:3px solid #E69F00;border-radius:50%;pointer-events:none;" +
    "display:none;z-index:5";
  gd.appendChild(ring);
  let held = null;
  const place = (event) => {
    const own = gd.getBoundingClientRect();
    ring.style.left = event.clientX - own.left + "px";
    ring.style.top = event.clientY - own.top + "px";
  };
  gd.addEventListener("pointerdown", (event) => {
    const points = gd.__svmlabMove;
    if (!points || event.button !== 0) return;
    const axes = axesOf(gd);
    if (!axes) return;
    const { layout, box } = axes;
    const px = event.clientX - box.left, py = event.clientY - box.top;
    if (px < 0 || py < 0 || px > box.width || py > box.height) return;
    let best = -1, bestD = 144;  // (12 px)^2
    for (let i = 0; i < points.length; i++) {
      const dx = layout.xaxis.l2p(points[i][0]) - px;
      const dy = layout.yaxis.l2p(points[i][1]) - py;
      const d = dx * dx + dy * dy;
      if (d < bestD) { bestD = d; best = i; }
    }
    if (best < 0) return;
    event.preventDefault();
    event.stopPropagation();
    held = { index: best, x0: event.clientX, y0: event.clientY };
    place(event);
    ring.style.display = "block";
  }, true);
  window.addEventListener("pointermove", (event) => {
    if (held) place(event);
  }, true);
  window.addEventListener("pointerup", (event) => {
    if (!held) return;
    const moved = Math.hypot(event.clientX - held.x0, event.clientY - held.y0) > 3;
    const index = held.index;
    held = null;
    ring.style.display = "none";
    if (!moved) return;
    const hub = (window.__svmlabClick = window.__svmlabClick || {});
    hub.suppressUntil = Date.now() + 600;
    const axes = axesOf(gd);
    if (!axes) return;
    const { layout, box } = axes;
    const x = layout.xaxis.p2l(event.clientX - box.left);
    const y = layout.yaxis.p2l(event.clientY - box.top);
    if (Number.isFinite(x) && Number.isFinite(y)) {
      gd.__svmlabSend("move", {
        index: index, x: x, y: y, from: gd.__svmlabMove[index], t: Date.now(),
      });
    }
  }, true);
}

// A figure with a narrow layout (``spec.narrow``: stacked panels for a phone's
// column) draws it while the chart is at most ``narrow.below`` px wide.
function isNarrow(gd, spec) {
  return !!spec.narrow && gd.clientWidth > 0 && gd.clientWidth <= spec.narrow.below;
}

// The chart's height: the figure's (its narrow one's), or less on a short
// screen (a projector at 1280 x 720), never below a readable minimum.
function fitHeight(gd, spec, narrow) {
  const h = (narrow ? spec.narrow.height : spec.height) || 450;
  gd.style.height = spec.fit
    ? `min(${h}px, max(${spec.fit[0]}px, calc(100vh - ${spec.fit[1]}px)))`
    : h + "px";
}

async function draw(gd) {
  if (gd.__svmlabBusy) return;
  gd.__svmlabBusy = true;
  try {
    while (gd.__svmlabNext) {
      const spec = gd.__svmlabNext;
      gd.__svmlabNext = null;
      const full = needsFull(spec);
      const Plotly = await plotlyReady(full);
      if (gd.__svmlabFull !== undefined && gd.__svmlabFull !== full) {
        // Drawn by the other bundle before: its copy frees the div first.
        try { libOf(gd).purge(gd); } catch (error) {}
      }
      gd.__svmlabFull = full;
      const narrow = isNarrow(gd, spec);
      gd.__svmlabNarrow = narrow;
      if (spec.narrow) fitHeight(gd, spec, narrow);
      await Plotly.react(
        gd, spec.data, narrow ? spec.narrow.layout : spec.layout, spec.config
      );
      if (spec.select && !gd.__svmlabSelect) {
        gd.__svmlabSelect = true;
        gd.on("plotly_selected", (event) => {
          const picked = selection(event);
          if (picked.box.length || picked.lasso.length) {
            gd.__svmlabSend("select", picked);
          }
        });
      }
    }
  } finally {
    gd.__svmlabBusy = false;
  }
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  let gd = parentElement.querySelector(":scope > .svmlab-plot");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "svmlab-plot";
    gd.style.width = "100%";
    parentElement.appendChild(gd);
    // Follow the column's width (sidebar opened or closed, window resized).
    // A full react, not Plots.resize: after a resize Plotly keeps the margin it
    // pushed for the old number of legend rows, and a legend that now wraps
    // differently covered the plot (seen with the sidebar collapsed).
    gd.__svmlabObserver = new ResizeObserver(() => {
      const layout = gd._fullLayout;
      const Plotly = libOf(gd);
      if (!Plotly || !layout || gd.__svmlabBusy || !gd.isConnected) return;
      const shown = gd.__svmlabSpec;
      if (shown && shown.narrow && isNarrow(gd, shown) !== gd.__svmlabNarrow) {
        // Across the narrow layout's width: the other layout, drawn anew.
        gd.__svmlabNext = shown;
        draw(gd).catch((error) => console.error(error));
        return;
      }
      const wide = gd.clientWidth > 0 && Math.abs(gd.clientWidth - layout.width) > 1;
      const tall = gd.clientHeight > 0 && Math.abs(gd.clientHeight - layout.height) > 1;
      if (wide || tall) {
        Plotly.react(gd, gd.data, Object.assign({}, gd.layout))
          .catch(() => {});  // hidden meanwhile
      }
    }).observe(gd);
  }
  gd.__svmlabSend = setTriggerValue;
  const text = data ? new TextDecoder().decode(data) : null;
  if (text) {
    if (text !== gd.__svmlabText) {
      gd.__svmlabText = text;
      const spec = JSON.parse(text);
      fitHeight(gd, spec, isNarrow(gd, spec));
      gd.__svmlabSpec = spec;
      gd.__svmlabNext = spec;
      gd.__svmlabMove = spec.move || null;
      if (spec.move) installMove(gd);
      const run = () => draw(gd).catch((error) => console.error(error));
      // A secondary chart waits until the browser is idle (at most 300 ms), so
      // the main chart and the rest of the rerun are not held up by it.
      if (spec.defer && window.requestIdleCallback) {
        window.requestIdleCallback(run, { timeout: 300 });
      } else {
        run();
      }
    }
  }
  // Streamlit also calls this when an update superseded the previous one while
  // the module loaded: free the chart only once it has left the page.
  return () => {
    setTimeout(() => {
      if (gd.isConnected) return;
      if (gd.__svmlabObserver) gd.__svmlabObserver.disconnect();
      const Plotly = libOf(gd);
      if (Plotly && Plotly.purge) Plotly.purge(gd);
      gd.__svmlabSelect = false;
      gd.__svmlabText = null;
    }, 0);
  };
}
"""

#: The frame's invisible preload: plotly.js and Streamlit's Plotly element code
#: fetched and warmed up while the browser is idle (:func:`preload`).
_PRELOAD_JS = r"""
// One small chart drawn, redrawn and freed off screen while the browser is
// idle: V8 compiles a function on its first call, so a tab's first real chart
// paid for compiling Plotly's drawing code (scatter, bars, layout images, axes,
// legend, hover) on the spot (issue 28: most of the browser's time on the
// Multiclass page opened from the hub). Once per copy of plotly.js.
const PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAf" +
  "FcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
function warmUp(lib) {
  if (!lib || !lib.newPlot || lib.__svmlabWarm) return Promise.resolve();
  lib.__svmlabWarm = true;
  const div = document.createElement("div");
  div.setAttribute("aria-hidden", "true");
  div.style.cssText = "position:absolute;left:-10000px;top:0;width:480px;" +
    "height:360px;pointer-events:none";
  document.body.appendChild(div);
  const data = [
    { type: "scatter", x: [0, 1, null, 2], y: [1, 0, null, 2], mode: "lines",
      line: { dash: "dash" }, name: "a", hoverinfo: "skip" },
    { type: "scatter", x: [0, 1, 2], y: [2, 1, 0], mode: "markers", name: "b",
      marker: { symbol: "circle-open", size: 9 },
      hovertemplate: "%{x}<extra>%{fullData.name}</extra>" },
    { type: "bar", x: [0, 1, 2], y: [3, 1, 2], name: "c" },
  ];
  const layout = {
    title: { text: "w" }, showlegend: true, dragmode: "select",
    xaxis: { title: { text: "x" }, range: [-0.5, 2.5] },
    yaxis: { title: { text: "y" }, scaleanchor: "x" },
    images: [{ source: PIXEL, xref: "x", yref: "y", x: 0, y: 2, sizex: 2,
               sizey: 2, sizing: "stretch", layer: "below" }],
  };
  const done = () => { try { lib.purge(div); } catch (error) {} div.remove(); };
  return Promise.resolve(lib.newPlot(div, data, layout, { responsive: false }))
    .then(() => lib.react(div, data.slice().reverse(),
      Object.assign({}, layout, { datarevision: 1 })))
    .then(done, done);
}

// A page of charts draws its own first: the preload's download and parse run
// on the same main thread, and started while such a page was still drawing
// they put 0.8-1.3 s on its load (issue 28: Losses 2.8 -> 4.1 s, Model
// selection 2.7 -> 3.5 s, a new session each). So the preload waits until the
// script has finished, no chart of the main pane is still to be drawn and
// nothing on the page has changed for QUIET_MS (at most CAP_MS in all: a page
// that never settles, say one following a room, still gets it).
const QUIET_MS = 500;
const CAP_MS = 15000;
function pageDrawn() {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute("data-test-script-state") === "running") return false;
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main || main.querySelector('[data-testid="stSkeleton"]')) return false;
  return [...main.querySelectorAll('.svmlab-plot, [data-testid="stPlotlyChart"]')]
    .every((chart) => chart.querySelector(".main-svg"));
}
function whenDrawn(run) {
  const began = performance.now();
  let changed = began;
  const observer = new MutationObserver(() => { changed = performance.now(); });
  observer.observe(document.body, { subtree: true, childList: true,
                                    attributes: true, characterData: true });
  const check = () => {
    const now = performance.now();
    if (now - began >= CAP_MS || (now - changed >= QUIET_MS && pageDrawn())) {
      observer.disconnect();
      run();
    } else {
      setTimeout(check, 100);
    }
  };
  setTimeout(check, 100);
}

export default function (component) {
  const { data } = component;
  const text = data ? new TextDecoder().decode(data) : "";
  if (text.startsWith(PRELOAD)) {
    // The frame's preload (every page): while the browser is idle, fetch and
    // run plotly.js, then Streamlit's own Plotly element code (the chunk
    // named after the prefix), so the tab's first chart of either kind does
    // not wait for a download and a parse. Once per tab; on a page of charts
    // ("later" after the prefix) once the page is drawn (whenDrawn).
    if (!window.__svmlabPreloaded) {
      window.__svmlabPreloaded = true;
      const idle = (run) => window.requestIdleCallback
        ? window.requestIdleCallback(run, { timeout: 2000 })
        : setTimeout(run, 500);
      let chunk = text.slice(PRELOAD.length);
      const later = chunk.startsWith(LATER);
      if (later) chunk = chunk.slice(LATER.length);
      const own = document.querySelector('script[src*="/static/js/"]');
      (later ? whenDrawn : (run) => run())(() => idle(() => plotlyReady()
        .then((lib) => idle(() => warmUp(lib)))
        .catch((error) => console.error(error)).then(() => {
        if (chunk && own) {
          const url = own.src.slice(0, own.src.indexOf("static/js/")) +
            "static/js/" + chunk;
          // Streamlit's element code sets window.Plotly to its own copy.
          idle(() => import(url).then(() => idle(() => warmUp(window.Plotly)))
            .catch((error) => console.error(error)));
        }
      })));
    }
  }
  return () => {};
}
"""

#: The payload of :func:`preload` starts so (a figure's starts with "{"), and
#: goes on with the file name of Streamlit's own Plotly element code: a chunk
#: of Streamlit's bundle with a hashed name (Streamlit is pinned; none found
#: after an upgrade: plotly.js alone is preloaded).
PRELOAD = "svmlab-preload:"
#: ... then this, on a page of charts: the preload waits until the page is drawn.
LATER = "later:"
_STREAMLIT_JS = Path(st.__file__).resolve().parent / "static" / "static" / "js"
PLOTLY_CHUNK = next(
    (f.name for f in sorted(_STREAMLIT_JS.glob("PlotlyChart.*.js"))), ""
)

_COMMON_SOURCE = (
    _COMMON_JS.replace("__ASSET__", ASSET_NAME)
    .replace("__ASSET_2D__", ASSET_2D_NAME)
    .replace("__CARTESIAN__", json.dumps(list(CARTESIAN_TRACES)))
    .replace("__PRELOAD__", PRELOAD)
    .replace("__LATER__", LATER)
)
_component = st.components.v2.component(
    COMPONENT, js=_COMMON_SOURCE + _CHART_JS, isolate_styles=False
)
#: A component of its own: the preload is not a chart, so what lists a page's
#: charts (by :data:`COMPONENT`) does not meet it, and its code is not sent
#: with every chart.
_preload_component = st.components.v2.component(
    COMPONENT + "_preload", js=_COMMON_SOURCE + _PRELOAD_JS, isolate_styles=False
)


def _drawn(
    fig: Any, revision: str | None, theme: Theme
) -> tuple[list[Any], dict[str, Any], Any]:
    """``fig``'s themed data, its layout as the browser sizes it (no width, no
    height: the chart's ``div`` has them) and its height."""
    spec = themed(fig.to_dict() if hasattr(fig, "to_dict") else fig, theme)
    layout = {**spec.get("layout", {}), "autosize": True}
    layout.pop("width", None)
    height = layout.pop("height", None)
    if revision is not None:
        layout["datarevision"] = revision
    return spec.get("data", []), layout, height


def _narrow(below: int, fig: Any, revision: str | None, theme: Theme) -> dict:
    """A figure's narrow layout as the browser takes it (see :func:`figure_payload`)."""
    _, layout, height = _drawn(fig, revision, theme)
    return {"below": int(below), "layout": layout, "height": height}


def figure_payload(
    fig: Any,
    config: dict[str, Any],
    select: bool = False,
    defer: bool = False,
    revision: str | None = None,
    fit: tuple[int, int] | None = None,
    move: Any = None,
    theme: Theme = LIGHT,
    narrow: tuple[int, Any] | None = None,
) -> bytes:
    """The bytes :func:`plot` sends: ``{"data", "layout", "config", "select",
    "defer", "height", "fit", "move", "narrow"}``.

    ``fig`` is a ``go.Figure`` or the plain ``{"data", "layout"}`` dicts of a
    ``svmlab.figures.*_spec`` builder (serialised as they are, without the
    copies ``go.Figure`` makes). ``revision`` becomes ``layout.datarevision``.
    The figure's height moves out of the layout: the browser sizes the chart's
    ``div`` (``fit = (minimum, offset)``: at most the figure's height, at least
    ``minimum`` pixels, else the window's height less ``offset``) and Plotly fills it.
    ``theme`` recolours the figure (:func:`svmlab.figures.theme.themed`).
    ``narrow = (below, figure)``: while the chart is at most ``below`` px wide
    (a phone's column) the browser draws ``figure``'s layout and height
    instead, with the same data (``{"below", "layout", "height"}``).
    """
    data, layout, height = _drawn(fig, revision, theme)
    payload = {
        "data": data,
        "layout": layout,
        "config": config,
        "select": bool(select),
        "defer": bool(defer),
        "height": height,
        "fit": list(fit) if fit else None,
        "move": None if move is None else np.asarray(move, dtype=float).tolist(),
        "narrow": None if narrow is None else _narrow(*narrow, revision, theme),
    }
    try:
        text = json.dumps(payload, default=json_numbers, allow_nan=False)
    except ValueError:  # NaN or infinity somewhere: plotly's encoder writes null
        text = json.dumps(payload, cls=PlotlyJSONEncoder)
    return text.encode()


def plot(
    fig: Any, *, key: str, config: dict[str, Any], **options: Any
) -> dict[str, Any] | None:
    """Draw ``fig`` (a ``go.Figure`` or a ``*_spec`` dict) in the kept-alive chart
    ``key``; ``options`` are :func:`figure_payload`'s (``select``, ``defer``,
    ``revision``, ``fit``, ``move``, ``narrow``, all off by default). ``revision``
    (``layout.datarevision``) should change with the data.

    With ``select``, returns the box or lasso selection the user made in the
    browser, in the run that selection triggered (else ``None``). With
    ``defer``, the browser draws the figure when it is next idle (at most
    300 ms later): for secondary charts, so that they do not hold up the main
    one. With ``fit = (minimum, offset)`` the chart is at most the figure's
    height and fits in the window below ``offset`` pixels of page above it (a
    projector's 720 lines), but never shorter than ``minimum``.

    With ``move`` (the movable points' data coordinates, one row per point in
    index order) a point can be dragged to a new place: the run the drop
    triggers returns ``{"move": {"index", "x", "y", "from"}}``.
    """
    _serve_plotly_js()
    options.setdefault("theme", theme_choice.current())
    result = _component(
        key=key,
        data=figure_payload(fig, config, **options),
        on_select_change=lambda: None,
        on_move_change=lambda: None,
        height="content",
    )
    moved = getattr(result, "move", None)
    if isinstance(moved, dict):
        return {"move": moved}
    picked = getattr(result, "select", None)
    return picked if isinstance(picked, dict) else None


def preload(*, later: bool = False, streamlit_code: bool = False) -> None:
    """An invisible instance of the chart that loads plotly.js's cartesian
    bundle (and with ``streamlit_code`` then Streamlit's own Plotly element
    code, for Explore's path, the one ``st.plotly_chart``) when the browser is
    next idle (issue 28): the frame mounts it on every page, so the tab's first
    chart (a preset from the hub, a switch to another page, the path) is drawn
    at once instead of after a download (1.5 MB; 4.7 MB) and a parse of up to a
    second or more (measured on two loaded cores). ``later``: not before the
    page's own charts are drawn (a page of charts; the hub, which has none,
    preloads at once). Nothing is drawn, nothing is sent back."""
    _serve_plotly_js()
    chunk = PLOTLY_CHUNK if streamlit_code else ""
    payload = PRELOAD + (LATER if later else "") + chunk
    _preload_component(key=PRELOAD_KEY, data=payload.encode(), height="content")

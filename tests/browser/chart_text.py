"""What a drawn Plotly chart's text measures in Chromium: each kind of text's
rendered font size and glyph height, and whether every legend entry lies
inside the chart's box (none scrolled out of sight by Plotly's legend).

Issue 46 asks that a chart's text grow with classroom mode; these numbers come
from the rendered SVG, not from the figure the server built.
"""

from __future__ import annotations

import statistics
from typing import Any

#: The SVG selectors of each kind of a chart's text.
KINDS = {
    "legend": ".legendtext",
    "ticks": ".xtick text, .ytick text, .x2tick text, .y2tick text",
    "axis_titles": ".g-xtitle text, .g-x2title text, .g-ytitle text, .g-y2title text",
    "annotations": ".annotation-text",
    "title": ".gtitle",
}

#: ``(selector, kinds)`` -> for each kind, the rendered ``sizes`` (px) and
#: ``heights`` (px, the drawn glyphs' boxes) of its non-empty texts; and
#: ``inside``: every legend entry within the chart's box.
TEXT_JS = r"""
([selector, kinds]) => {
  const chart = document.querySelector(selector);
  if (!chart) return null;
  const box = chart.getBoundingClientRect();
  const out = {};
  for (const [kind, sel] of Object.entries(kinds)) {
    const texts = [...chart.querySelectorAll(sel)]
      .filter((t) => (t.textContent || "").trim() && t.getBoundingClientRect().height);
    out[kind] = {
      sizes: texts.map((t) => parseFloat(getComputedStyle(t).fontSize)),
      heights: texts.map((t) => t.getBoundingClientRect().height),
    };
  }
  out.inside = [...chart.querySelectorAll(".legendtext")].every((t) => {
    const r = t.getBoundingClientRect();
    return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  });
  return out;
}
"""


def chart_text(page: Any, selector: str) -> dict[str, Any]:
    """The measured text of the first chart ``selector`` finds (a Plotly
    ``div`` or an element holding one): see :data:`TEXT_JS`."""
    measured = page.evaluate(TEXT_JS, [selector, KINDS])
    assert measured is not None, f"no chart at {selector}"
    return measured


def growth(normal: dict[str, Any], classroom: dict[str, Any], kind: str) -> dict:
    """How much ``kind``'s text grew from ``normal`` to ``classroom`` (two
    :func:`chart_text` measurements): ``size``, the smallest classroom font
    over the largest normal one (every text grew by at least this), and
    ``height``, the ratio of the median glyph heights (the glyphs drawn
    larger, not only a style number). Both 0 when a side has no such text."""
    a, b = normal[kind], classroom[kind]
    if not a["sizes"] or not b["sizes"]:
        return {"size": 0.0, "height": 0.0}
    return {
        "size": min(b["sizes"]) / max(a["sizes"]),
        "height": statistics.median(b["heights"]) / statistics.median(a["heights"]),
    }


#: ``selector`` -> what of a drawn chart's text sits on something else, as
#: sentences: a tick label on another axis's tick label, a tick label inside a
#: plot area (any subplot's: its own axis's labels lie outside it), and the
#: legend on a tick label or an axis title. Empty when nothing clashes.
CLASHES_JS = r"""
(selector) => {
  const chart = document.querySelector(selector);
  if (!chart) return ["no chart at " + selector];
  const box = (e) => { const r = e.getBoundingClientRect();
    return r.width && r.height ? [r.left, r.top, r.right, r.bottom] : null; };
  const meet = (a, b) => a[0] < b[2] - 1 && b[0] < a[2] - 1 && a[1] < b[3] - 1 &&
    b[1] < a[3] - 1;
  const text = (e) => (e.textContent || "").trim().slice(0, 40);
  const ticks = [...chart.querySelectorAll('g[class$="tick"] text')]
    .map((e) => ({ axis: e.parentNode.getAttribute("class"), text: text(e),
                   box: box(e) }))
    .filter((t) => t.box && t.text);
  const plots = [...chart.querySelectorAll("rect.nsewdrag")]
    .map((e) => ({ name: e.getAttribute("data-subplot"), box: box(e) }))
    .filter((p) => p.box);
  const titles = [...chart.querySelectorAll('g[class^="g-"][class$="title"] text')]
    .map((e) => ({ text: text(e), box: box(e) })).filter((t) => t.box && t.text);
  const legends = [...chart.querySelectorAll("g.legend")].map(box).filter(Boolean);
  const out = [];
  ticks.forEach((a, i) => {
    ticks.slice(i + 1).forEach((b) => {
      if (a.axis !== b.axis && meet(a.box, b.box))
        out.push(`tick "${a.text}" (${a.axis}) on tick "${b.text}" (${b.axis})`);
    });
    plots.forEach((p) => {
      if (meet(a.box, p.box))
        out.push(`tick "${a.text}" (${a.axis}) in plot ${p.name}`);
    });
    legends.forEach((l) => {
      if (meet(a.box, l)) out.push(`legend on tick "${a.text}" (${a.axis})`);
    });
  });
  titles.forEach((t) => legends.forEach((l) => {
    if (meet(t.box, l)) out.push(`legend on the axis title "${t.text}"`);
  }));
  return out;
}
"""


def clashes(page: Any, selector: str) -> list[str]:
    """What of the chart ``selector`` finds clashes (:data:`CLASHES_JS`)."""
    return list(page.evaluate(CLASHES_JS, selector))

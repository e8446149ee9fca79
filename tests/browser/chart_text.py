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

"""Every formula, figure title and code line fits its page (issue 27, item 7),
at a projector's 1280 x 720 and at 1920 x 1080, measured in Chromium.

A KaTeX formula does not wrap: one wider than its column is cut off ("s.t.
Σ α_{i,y}" without its "= 0"). A Plotly title, axis title or annotation outside
its SVG is cut (a two-line title lost its first line above the figure). A code
block wider than the page scrolls its end out of sight.
"""

from __future__ import annotations

import pytest

# A long walk in Chromium: in the README's second run (`-m slow`), so the
# default run stays near ten minutes on two cores.
pytestmark = pytest.mark.slow

#: What is cut, as sentences; empty when everything fits.
CUT_JS = r"""
() => {
  const out = [];
  const text = (e) => (e.textContent || '').replace(/\s+/g, ' ').slice(0, 70);
  for (const host of document.querySelectorAll('.katex-display')) {
    if (host.scrollWidth > host.clientWidth + 2)
      out.push(`formula ${host.scrollWidth} px in ${host.clientWidth}: ${text(host)}`);
  }
  for (const svg of document.querySelectorAll('svg.main-svg')) {
    const s = svg.getBoundingClientRect();
    if (s.width === 0) continue;
    const sel = '.gtitle, .gtitle-subtitle, .g-xtitle text, .g-ytitle text, ' +
      '.annotation-text';
    for (const t of svg.querySelectorAll(sel)) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.top < s.top - 1 || r.bottom > s.bottom + 1 || r.left < s.left - 1 ||
          r.right > s.right + 1)
        out.push(`figure text cut: ${text(t)}`);
    }
  }
  // A legend never sits on an axis title (the Losses sweep's did).
  for (const svg of document.querySelectorAll('svg.main-svg')) {
    const legends = [...svg.querySelectorAll('g.legend')]
      .map((e) => e.getBoundingClientRect());
    for (const t of svg.querySelectorAll('.g-xtitle text, .g-ytitle text')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0) continue;
      for (const l of legends) {
        if (l.width && r.left < l.right && l.left < r.right && r.top < l.bottom &&
            l.top < r.bottom)
          out.push(`legend on the axis title: ${text(t)}`);
      }
    }
  }
  for (const pre of document.querySelectorAll('pre')) {
    if (pre.scrollWidth > pre.clientWidth + 2) out.push(`code scrolls: ${text(pre)}`);
  }
  return out;
}
"""

PAGES = [
    "/",
    "/Explore",
    "/Explore?loss=ramp&bias=regularized&theory=1",
    "/Explore?loss=modified_hinge&theory=1",
    "/Explore?machine=nu&theory=1",
    "/Losses",
    "/Solvers",
    "/Model_selection",
    "/Multiclass",
    "/Family",
    "/Family?machine=one_class&kernel=sigmoid",
    "/Notes",
]


def _open(page, url: str, wait_for_rerun) -> None:
    theory = url.endswith("&theory=1")
    page.goto(url.removesuffix("&theory=1"))
    wait_for_rerun(page)
    if theory:
        page.get_by_text("Show the theory", exact=False).first.click()
        wait_for_rerun(page)


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["1280", "1920"])
def test_no_formula_title_or_code_is_cut(
    streamlit_url, page, wait_for_rerun, check_page, size
) -> None:
    width, height = size
    cut: dict[str, list[str]] = {}
    for path in PAGES:
        page.set_viewport_size({"width": width, "height": height})
        _open(page, streamlit_url + path, wait_for_rerun)
        if path in ("/Model_selection", "/Losses"):  # and the figures of a sweep
            page.get_by_role("button", name="Run sweep").first.click()
            wait_for_rerun(page, timeout_ms=240_000)
        check_page()
        # Every chart drawn: the main pane at its full height, then settle.
        full = page.evaluate(
            "() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight"
        )
        page.set_viewport_size({"width": width, "height": max(height, int(full))})
        page.wait_for_timeout(1500)
        found = page.evaluate(CUT_JS)
        if found:
            cut[path] = found
    assert not cut, cut

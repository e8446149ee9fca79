"""The landing page, as a projector shows it: loads in Chromium, no errors."""

from __future__ import annotations

from pathlib import Path

import pytest

# A long walk in Chromium: in the README's second run (`-m slow`), so the
# default run stays near ten minutes on two cores.
pytestmark = pytest.mark.slow

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def test_landing_page_renders_cleanly(
    page, browser_log, open_page, assert_no_exception, full_screenshot
):
    open_page()

    full_screenshot(page, ARTIFACTS / "landing.png")
    # Exceptions first: their text says more than a missing element would.
    assert_no_exception(page)

    title = page.get_by_role("heading", name="svmlab", level=1)
    title.wait_for(state="visible")
    assert page.title() == "svmlab · Lecture hub"  # the landing page has a name
    assert page.get_by_text("Sources", exact=True).is_visible()

    assert not browser_log.page_errors, browser_log.page_errors
    assert not browser_log.console_errors, browser_log.console_errors


def test_the_hub_preloads_the_cartesian_plotly_while_idle(page, browser_log, open_page):
    """Issue 28: the frame's invisible chart instance loads plotly.js's
    cartesian bundle (svmlab's kept-alive chart, every page's 2-D charts) while
    the hub is idle, so the first chart after a click does not wait for it; not
    the full bundle (3-D figures only) nor Streamlit's Plotly element code
    (Explore's path only). The hub has no chart of its own: without the
    preload nothing would be loaded."""
    open_page()
    page.wait_for_function(
        "() => !!(window.__svmlabPlotlyLib && window.__svmlabPlotlyLib.react)"
    )
    page.wait_for_timeout(1500)
    loaded = page.evaluate(
        """() => performance.getEntriesByType('resource').map((e) => e.name)
             .filter((name) => /plotly|PlotlyChart/.test(name))"""
    )
    assert [n.rsplit("/", 1)[-1] for n in loaded] == ["plotly-cartesian.min.js"]
    # Invisible: nothing of it is drawn, and it takes no room in the sidebar.
    box = page.locator(".st-key-svmlab_plotly_preload").bounding_box()
    assert box is None or box["height"] == 0
    assert not browser_log.page_errors, browser_log.page_errors
    assert not browser_log.console_errors, browser_log.console_errors


def test_the_hub_warms_the_plotly_copy_up_off_screen(page, browser_log, open_page):
    """Issue 28: once loaded, svmlab's copy of plotly.js draws one small chart
    off screen while the hub is idle, so the next page's first charts do not
    pay for compiling Plotly's drawing code; the chart is freed and its node
    removed, and nothing of it reaches the page."""
    open_page()
    page.wait_for_function(
        "() => window.__svmlabPlotlyLib && window.__svmlabPlotlyLib.__svmlabWarm",
        timeout=60_000,
    )
    page.wait_for_timeout(500)
    left = page.evaluate(
        """() => [...document.querySelectorAll('div[aria-hidden="true"]')]
             .filter((e) => e.style.left === '-10000px').length"""
    )
    assert left == 0
    assert page.locator('[data-testid="stMain"] .js-plotly-plot').count() == 0
    assert not browser_log.page_errors, browser_log.page_errors
    assert not browser_log.console_errors, browser_log.console_errors


#: Records when the main pane last had every Plotly chart drawn (None while
#: one is still to be drawn).
_DRAWN_JS = """
window.__drawnAt = null;
new MutationObserver(() => {
  const main = document.querySelector('[data-testid="stMain"]');
  if (!main) return;
  const charts = [...main.querySelectorAll('.svmlab-plot')];
  const pending = charts.some((c) => !c.querySelector('.main-svg'));
  if (pending) window.__drawnAt = null;
  else if (charts.length && window.__drawnAt === null) {
    window.__drawnAt = performance.now();
  }
}).observe(document, { subtree: true, childList: true });
"""


def test_explore_preloads_streamlits_plotly_code_once_drawn(
    page, open_page, check_page
):
    """Issue 28: Explore's path is the one ``st.plotly_chart`` (it reports the
    point clicked): the preload imports Streamlit's Plotly element code (4.7
    MB, its own copy of plotly.js) and warms that copy up, so "Compute the
    path" does not wait for them; but only once Explore's own charts are drawn
    (started while they drew, such a download and parse put about a second on
    a page's load)."""
    page.add_init_script(_DRAWN_JS)
    open_page("/Explore")
    page.wait_for_function(
        """() => window.Plotly && window.Plotly !== window.__svmlabPlotlyLib
             && window.Plotly.__svmlabWarm""",
        timeout=60_000,
    )
    drawn, started, charts, streamlit_charts = page.evaluate(
        r"""() => [window.__drawnAt,
                  performance.getEntriesByType('resource')
                    .filter((e) => /static\/js\/PlotlyChart\.[^/]*\.js$/.test(e.name))
                    .map((e) => e.startTime)[0],
                  document.querySelectorAll('[data-testid="stMain"] .svmlab-plot')
                    .length,
                  document.querySelectorAll('[data-testid="stPlotlyChart"]').length]"""
    )
    assert charts >= 3 and streamlit_charts == 0  # the page's own, all drawn
    assert drawn is not None and started is not None
    # Not before half a second of a quiet page after the last chart was drawn.
    assert started >= drawn + 400, (started, drawn)
    check_page()  # Streamlit probes /Explore/_stcore/health first: benign

"""The landing page, as a projector shows it: loads in Chromium, no errors."""

from __future__ import annotations

from pathlib import Path

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


def test_the_hub_preloads_both_plotly_codes_while_idle(page, browser_log, open_page):
    """Issue 28: the frame's invisible chart instance loads plotly.js (svmlab's
    kept-alive chart) and Streamlit's own Plotly element code while the hub is
    idle, so the first chart after a click does not wait for them. The hub has
    no chart of its own: without the preload neither would be loaded."""
    open_page()
    page.wait_for_function("() => !!(window.Plotly && window.Plotly.react)")
    page.wait_for_function(
        """() => performance.getEntriesByType('resource').some(
             (e) => /static\\/js\\/PlotlyChart\\.[^/]*\\.js$/.test(e.name)
               && e.responseEnd > 0)"""
    )
    # Invisible: nothing of it is drawn, and it takes no room in the sidebar.
    box = page.locator(".st-key-svmlab_plotly_preload").bounding_box()
    assert box is None or box["height"] == 0
    assert not browser_log.page_errors, browser_log.page_errors
    assert not browser_log.console_errors, browser_log.console_errors


def test_the_hub_warms_both_plotly_copies_up_off_screen(page, browser_log, open_page):
    """Issue 28: once loaded, each copy of plotly.js (svmlab's chart's, and the
    one Streamlit's Plotly element code brings) draws one small chart off
    screen while the hub is idle, so the next page's first charts do not pay
    for compiling Plotly's drawing code; the chart is freed and its node
    removed, and nothing of it reaches the page."""
    open_page()
    page.wait_for_function(
        """() => window.__svmlabPlotlyLib && window.__svmlabPlotlyLib.__svmlabWarm
             && window.Plotly !== window.__svmlabPlotlyLib
             && window.Plotly.__svmlabWarm""",
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

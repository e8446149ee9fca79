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

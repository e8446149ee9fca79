"""The Multiclass page in Chromium: three panels drawn, a control changed (the
data set and the kernel), no exception, no ``st.error`` box, no page error."""

from __future__ import annotations

from pathlib import Path

from svmlab.svm.multiclass import METHODS

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
# Opening a sub-page URL directly logs two harmless 404s (shared tools notes).


def _panels_drawn(page) -> None:
    for method in METHODS:
        page.locator(f".st-key-multiclass_panel_{method} .main-svg").first.wait_for(
            state="visible"
        )


def test_multiclass_page_draws_three_panels_and_follows_controls(
    page, open_page, check_page, wait_for_rerun, full_screenshot
):
    open_page("/Multiclass")
    _panels_drawn(page)
    check_page()
    text = page.locator("body").inner_text()
    assert "The Crammer-Singer dual" in text
    assert "test error" in text

    # Another data set: the k-arm spiral.
    box = page.locator(".st-key-multiclass_dataset input").first
    box.click()
    page.keyboard.type("Spiral, k arms")
    page.keyboard.press("Enter")
    wait_for_rerun(page, timeout_ms=120_000)
    _panels_drawn(page)
    check_page()

    # Another kernel, for every method.
    page.locator(".st-key-multiclass_kernel").get_by_text("linear").click()
    wait_for_rerun(page, timeout_ms=120_000)
    _panels_drawn(page)
    check_page()
    # The spiral's sliders (no separation: that is the blobs').
    sidebar = page.locator("[data-testid='stSidebar']").inner_text()
    assert "Separation" not in sidebar and "Classes" in sidebar
    full_screenshot(page, ARTIFACTS / "multiclass_linear_spiral.png")

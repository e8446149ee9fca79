"""The Losses page in Chromium: five panels, the sweep, a control changed, the
Fig. 27.17 setting. Fails on any exception box, ``st.error`` box or uncaught page
error; screenshots land in ``tests/browser/artifacts/losses_*.png``."""

from __future__ import annotations

from pathlib import Path

from svmlab.experiments.robustness import LOSS_ORDER

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
# Opening a sub-page URL directly logs two harmless 404s (shared tools notes).


def _charts(page, key: str):
    return page.locator(f".st-key-{key} .main-svg")


def test_losses_page_panels_sweep_and_controls(
    page, open_page, check_page, wait_for_rerun, full_screenshot
):
    open_page("/Losses")
    for loss in LOSS_ORDER:
        _charts(page, f"losses_panel_{loss}").first.wait_for(state="visible")
    check_page()
    text = page.locator("body").inner_text()
    assert "Angle by which w turned" in text
    assert "bounded losses moved less than every unbounded" in text

    page.get_by_role("button", name="Run sweep").click()
    wait_for_rerun(page, timeout_ms=120_000)
    for key in ("losses_sweep_error", "losses_sweep_shift"):
        _charts(page, key).first.wait_for(state="visible")
    check_page()
    page.get_by_text("Where each loss breaks").scroll_into_view_if_needed()
    full_screenshot(page, ARTIFACTS / "losses_sweep.png")

    # A display control recomputes nothing and keeps the sweep on the page.
    box = page.locator(".st-key-losses_rug input").first
    box.scroll_into_view_if_needed()
    box.click()
    page.keyboard.type("Squared hinge")
    page.keyboard.press("Enter")
    wait_for_rerun(page)
    _charts(page, "losses_sweep_error").first.wait_for(state="visible")
    check_page()

    # The kernel, for every panel: the Gaussian story and its two shift measures.
    page.locator(".st-key-losses_kernel").get_by_text("Gaussian").click()
    wait_for_rerun(page)
    for loss in LOSS_ORDER:
        _charts(page, f"losses_panel_{loss}").first.wait_for(state="visible")
    text = page.locator("body").inner_text()
    assert "Labels changed where the clean data are" in text
    check_page()

    page.get_by_role("button", name="Sugiyama's Fig. 27.17 setting").click()
    wait_for_rerun(page)
    page.get_by_text("Sugiyama, Fig. 27.17").first.wait_for(state="visible")
    check_page()
    full_screenshot(page, ARTIFACTS / "losses_fig_27_17.png")

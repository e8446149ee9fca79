"""The Multiclass page in Chromium: three panels drawn, a control changed (the
data set and the kernel), no exception, no ``st.error`` box, no page error."""

from __future__ import annotations

from pathlib import Path

from svmlab.svm.multiclass import METHODS
from tests.browser.chart_text import chart_text

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


#: The key's drawn chart (its legend measured by :func:`chart_text`).
KEY = ".st-key-multiclass_key .svmlab-plot"


def test_the_key_grows_with_classroom_mode(page, open_page, check_page):
    """Issue 46: classroom mode enlarges the Multiclass key's legend as it
    does the page's text (the root font 16 -> 19 px) and the family's key
    (times 1.25), measured on the rendered legend; every entry stays drawn."""
    page.set_viewport_size({"width": 1280, "height": 720})
    measured = {}
    for mode, query in (("normal", ""), ("classroom", "?classroom=1")):
        open_page(f"/Multiclass{query}")
        _panels_drawn(page)
        page.locator(".st-key-multiclass_key .legendtext").first.wait_for()
        check_page()
        measured[mode] = chart_text(page, KEY)
        page.screenshot(path=str(ARTIFACTS / f"multiclass_key_{mode}.png"))
    normal = {**measured["normal"]["legend"], "inside": measured["normal"]["inside"]}
    classroom = {
        **measured["classroom"]["legend"],
        "inside": measured["classroom"]["inside"],
    }
    # Three classes and five marks, each entry one size.
    assert len(normal["sizes"]) == len(classroom["sizes"]) == 8
    assert len(set(normal["sizes"])) == len(set(classroom["sizes"])) == 1
    ratio = classroom["sizes"][0] / normal["sizes"][0]
    assert ratio >= 19 / 16, measured
    # The glyphs themselves taller, not only a style number.
    assert min(classroom["heights"]) > max(normal["heights"]), measured
    assert normal["inside"] and classroom["inside"], measured


def test_every_key_entry_is_drawn_on_a_phone(page, open_page, check_page):
    """At 390 px the key holds one entry a row: all eight (three classes, five
    marks) inside the strip, none scrolled out of it by Plotly's legend."""
    page.set_viewport_size({"width": 390, "height": 844})
    open_page("/Multiclass")
    _panels_drawn(page)
    page.locator(".st-key-multiclass_key .legendtext").first.wait_for()
    check_page()
    page.wait_for_timeout(500)  # the strip redrawn in its phone height
    page.screenshot(path=str(ARTIFACTS / "multiclass_key_phone.png"))
    measured = chart_text(page, KEY)
    assert len(measured["legend"]["sizes"]) == 8, measured
    assert measured["inside"], measured

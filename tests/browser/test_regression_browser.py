"""The Regression page in Chromium: the tube drawn, ε moved with the keyboard,
ν-SVR chosen, a click on empty space adding a point (x, t) where it landed, the
ε path run; no exception, no ``st.error`` box, no page error."""

from __future__ import annotations

import re
from pathlib import Path

from tests.browser.chart_text import clashes

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHART = ".st-key-regression_chart"


def _n_points(page) -> int:
    text = page.locator("[data-testid='stMain']").inner_text()
    found = re.search(r"support vectors: (\d+) / (\d+)", text)
    assert found, text[:500]
    return int(found.group(2))


def _chart_drawn(page) -> None:
    page.locator(f"{CHART} .nsewdrag").first.wait_for(state="visible")


def test_regression_page_tube_click_and_path(page, driver):
    driver.open("/Regression?epsilon=0.1")
    _chart_drawn(page)
    driver.check()
    assert _n_points(page) == 100

    # ε one step up with the keyboard: the URL and the tube follow.
    page.locator(".st-key-regression_epsilon").get_by_role("slider").focus()
    page.keyboard.press("ArrowRight")
    driver.rerun()
    assert "epsilon=0.12" in page.url
    assert "f ± ε (ε = 0.12)" in page.locator(CHART).inner_text()

    # C and σ one stop each: the link and the numbers follow, no error box.
    driver.press_slider("regression_C", "ArrowRight", 1)
    driver.press_slider("regression_sigma", "ArrowLeft", 1)
    _chart_drawn(page)
    driver.check()
    assert "C=12" in page.url and "sigma=0.39" in page.url, page.url
    assert _n_points(page) == 100

    # A click on empty space, high above the curve: one more point, drawn.
    driver.click_plot(CHART, 0.5, 0.04)
    _chart_drawn(page)
    assert _n_points(page) == 101
    assert "clicked in" in page.locator(CHART).inner_text()
    page.get_by_role("button", name=re.compile("Remove clicked points")).click()
    driver.rerun()
    assert _n_points(page) == 100

    # ν-SVR: it reports the ε it found.
    page.locator(".st-key-regression_machine").get_by_text("ν-SVR").click()
    driver.rerun()
    assert "ε found by ν" in page.locator("[data-testid='stMain']").inner_text()
    assert "machine=nu" in page.url
    page.locator(".st-key-regression_machine").get_by_text("ε-SVR").click()
    driver.rerun()

    page.get_by_role("button", name="Run the ε path").click()
    driver.rerun(timeout_ms=120_000)
    page.locator(".st-key-regression_path_chart .main-svg").first.wait_for()
    assert "15 fits in" in page.locator("[data-testid='stMain']").inner_text()
    driver.check()
    driver.screenshot(ARTIFACTS / "regression_path.png")


def test_the_key_leaves_the_ticks_alone_on_a_phone(page, driver):
    """Issue 46 at 390 x 844: the tube chart's key, a row an entry in the
    phone's column, sits under the x axis's tick labels and title, not on
    them (in the 150 px margin kept for two rows it covered them)."""
    page.set_viewport_size({"width": 390, "height": 844})
    driver.open("/Regression?epsilon=0.1")
    page.locator(f"{CHART} .legendtext").first.wait_for(state="visible")
    page.wait_for_timeout(600)  # the chart resized to the phone's column
    driver.check()
    page.screenshot(path=str(ARTIFACTS / "regression_phone.png"))
    assert not clashes(page, CHART)
    # Every tick label of the x axis is drawn (none hidden under the key).
    assert page.locator(f"{CHART} .xtick text").count() >= 3

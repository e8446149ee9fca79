"""The Regression page in Chromium: the tube drawn, ε moved with the keyboard,
ν-SVR chosen, a click on empty space adding a point (x, t) where it landed, the
ε path run; no exception, no ``st.error`` box, no page error."""

from __future__ import annotations

import re
from pathlib import Path

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHART = ".st-key-regression_chart"


def _n_points(page) -> int:
    text = page.locator("[data-testid='stMain']").inner_text()
    found = re.search(r"support vectors: (\d+) / (\d+)", text)
    assert found, text[:500]
    return int(found.group(2))


def _chart_drawn(page) -> None:
    page.locator(f"{CHART} .nsewdrag").first.wait_for(state="visible")


def test_regression_page_tube_click_and_path(
    page,
    open_page,
    check_page,
    wait_for_rerun,
    press_slider,
    full_screenshot,
    click_plot,
):
    open_page("/Regression?epsilon=0.1")
    _chart_drawn(page)
    check_page()
    assert _n_points(page) == 100

    # ε one step up with the keyboard: the URL and the tube follow.
    page.locator(".st-key-regression_epsilon").get_by_role("slider").focus()
    page.keyboard.press("ArrowRight")
    wait_for_rerun(page)
    assert "epsilon=0.12" in page.url
    assert "f ± ε (ε = 0.12)" in page.locator(CHART).inner_text()

    # C and σ one stop each: the link and the numbers follow, no error box.
    press_slider("regression_C", "ArrowRight", 1)
    press_slider("regression_sigma", "ArrowLeft", 1)
    _chart_drawn(page)
    check_page()
    assert "C=12" in page.url and "sigma=0.39" in page.url, page.url
    assert _n_points(page) == 100

    # A click on empty space, high above the curve: one more point, drawn.
    click_plot(CHART, 0.5, 0.04)
    _chart_drawn(page)
    assert _n_points(page) == 101
    assert "clicked in" in page.locator(CHART).inner_text()
    page.get_by_role("button", name=re.compile("Remove clicked points")).click()
    wait_for_rerun(page)
    assert _n_points(page) == 100

    # ν-SVR: it reports the ε it found.
    page.locator(".st-key-regression_machine").get_by_text("ν-SVR").click()
    wait_for_rerun(page)
    assert "ε found by ν" in page.locator("[data-testid='stMain']").inner_text()
    assert "machine=nu" in page.url
    page.locator(".st-key-regression_machine").get_by_text("ε-SVR").click()
    wait_for_rerun(page)

    page.get_by_role("button", name="Run the ε path").click()
    wait_for_rerun(page, timeout_ms=120_000)
    page.locator(".st-key-regression_path_chart .main-svg").first.wait_for()
    assert "15 fits in" in page.locator("[data-testid='stMain']").inner_text()
    check_page()
    full_screenshot(page, ARTIFACTS / "regression_path.png")

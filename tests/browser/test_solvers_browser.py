"""The Solvers page in Chromium: the table, traces and race drawn; a control
changed (the bias: two solvers race); the race scrubbed to its end. Fails on any
exception box, ``st.error`` box or uncaught page error; screenshots land in
``tests/browser/artifacts/solvers_*.png``."""

from __future__ import annotations

import re
from pathlib import Path

from tests.browser.chart_text import clashes

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
# Opening a sub-page URL directly logs two harmless 404s (shared tools notes).


def _chart(page, key: str):
    return page.locator(f".st-key-{key} .main-svg").first


def test_solvers_page_table_control_and_race(
    page, open_page, check_page, wait_for_rerun, full_screenshot
):
    open_page("/Solvers", timeout_ms=120_000)
    for key in ("solvers_traces", "solvers_race_smo"):
        _chart(page, key).wait_for(state="visible")
    page.locator('[data-testid="stDataFrame"]').first.wait_for(state="visible")
    check_page()

    # A control: no bias, so coordinate ascent joins SMO in the race.
    page.locator(".st-key-solvers_bias").get_by_text("no bias").click()
    wait_for_rerun(page)
    for key in ("solvers_race_smo", "solvers_race_coordinate"):
        _chart(page, key).wait_for(state="visible")
    check_page()

    # Scrub the race to its end: every solver has finished there.
    thumb = page.locator('.st-key-solvers_race input[type="range"]').first
    thumb.scroll_into_view_if_needed()
    thumb.focus()
    page.keyboard.press("End")
    page.mouse.move(2, 2)
    wait_for_rerun(page)
    page.get_by_text(re.compile(r"coordinate ascent · finished")).first.wait_for(
        state="visible"
    )
    assert "· running ·" not in page.locator("body").inner_text()
    check_page()
    full_screenshot(page, ARTIFACTS / "solvers_race.png")


def test_the_convergence_charts_ticks_stand_apart_on_a_phone(
    page, open_page, check_page
):
    """Issue 46 at 390 x 844: the 2 x 2 convergence charts' tick labels sit
    on no other tick label and in no other panel (the right panels' y labels,
    a copy of the left's, lay inside the left panels)."""
    page.set_viewport_size({"width": 390, "height": 844})
    open_page("/Solvers", timeout_ms=120_000)
    chart = ".st-key-solvers_traces"
    page.locator(f"{chart} .ytick text").first.wait_for(
        state="visible", timeout=120_000
    )
    page.wait_for_timeout(600)  # the chart resized to the phone's column
    check_page()
    page.locator(chart).scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "solvers_traces_phone.png"))
    assert not clashes(page, chart)

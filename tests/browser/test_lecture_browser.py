"""The lecture tools in Chromium: a preset from the hub, classroom mode, the path
scrubber, the point inspector, the kernel views and compare mode.

One walk through the tools a lecturer uses, at the projector's 1280 x 720. Fails
on any exception box, ``st.error`` box or uncaught page error. Screenshots land in
``tests/browser/artifacts/lecture_*.png``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# A long walk in Chromium: in the README's second run (`-m slow`), so the
# default run stays near ten minutes on two cores.
pytestmark = pytest.mark.slow

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
MAIN = '[class*="st-key-explore_chart"]'

NUMBER_JS = """(label) => {
  const m = document.querySelector(`[data-svmlab-number="${label}"]`);
  return m ? m.innerText : null;
}"""
SCENE_JS = """(sel) => {
  const gd = document.querySelector(sel + ' .js-plotly-plot');
  return !!(gd && gd._fullLayout && gd._fullLayout.scene);
}"""


def _pick(page, key: str, label: str, wait_for_rerun) -> None:
    page.locator(f".st-key-{key}").get_by_text(label, exact=True).click()
    wait_for_rerun(page)
    page.wait_for_timeout(300)


def test_a_lecture_walk_through_the_tools(
    page, open_page, check_page, wait_for_rerun, press_slider
) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page()
    # The hub: a preset is one click away.
    page.get_by_role(
        "link", name="C too large: the boundary chases label noise"
    ).click()
    wait_for_rerun(page)
    page.locator(f"{MAIN} .main-svg").first.wait_for(state="visible")
    assert "preset=c_too_large" in page.url and "C=10000" in page.url
    assert page.evaluate(NUMBER_JS, "test error") == "22.5 %"
    check_page()

    # Classroom mode: in the URL, the advanced controls gone, the numbers bigger.
    small = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector("
        "'[data-svmlab-number=\"test error\"]')).fontSize)"
    )
    page.locator(".st-key-explore_classroom").get_by_text("Classroom mode").click()
    wait_for_rerun(page)
    page.wait_for_timeout(400)
    assert "classroom=1" in page.url
    assert page.locator(".st-key-explore_solver").count() == 0
    big = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector("
        "'[data-svmlab-number=\"test error\"]')).fontSize)"
    )
    assert big > 1.3 * small, (small, big)
    page.screenshot(path=str(ARTIFACTS / "lecture_classroom.png"))
    check_page()

    # The path: compute it, then scrub C with the keyboard (stored models).
    _pick(page, "explore_tool", "Regularisation path", wait_for_rerun)
    page.locator(".st-key-explore_path_run button").click()
    wait_for_rerun(page)
    page.locator(".st-key-explore_path_chart .main-svg").first.wait_for()
    before = page.locator(".st-key-explore_C input").input_value()
    press_slider("explore_path_scrub", "ArrowLeft", 3)
    page.wait_for_timeout(300)
    after = page.locator(".st-key-explore_C input").input_value()
    assert float(after) < float(before), (before, after)
    assert f"C={after}" in page.url
    page.screenshot(path=str(ARTIFACTS / "lecture_path.png"), full_page=True)
    check_page()

    # The inspector: pick a point, then move it with its slider.
    _pick(page, "explore_tool", "Point inspector", wait_for_rerun)
    table = page.locator("[data-svmlab-inspector]")
    table.wait_for()
    first = table.inner_text()
    press_slider("explore_inspect_x1", "ArrowRight", 5)
    page.wait_for_timeout(300)
    moved = page.locator("[data-svmlab-inspector]").inner_text()
    assert moved != first
    assert page.locator(f"{MAIN} .main-svg").count() >= 1
    check_page()

    # Kernel views: the Gram heatmap, then the 3-D lift (a Plotly scene).
    _pick(page, "explore_tool", "Kernel views", wait_for_rerun)
    page.locator(".st-key-explore_kernel_gram .main-svg").first.wait_for()
    # One SV's bump: drawn over the plane (x from -1.3 to 1.3), not over the
    # heatmap's sample numbers (a reused chart kept those axis ranges).
    _pick(page, "explore_kernel_view", "one SV's bump", wait_for_rerun)
    page.locator(".st-key-explore_kernel_bump .main-svg").first.wait_for()
    page.wait_for_timeout(500)
    x_range = page.evaluate(
        "() => document.querySelector('.st-key-explore_kernel_bump .js-plotly-plot')"
        "._fullLayout.xaxis.range"
    )
    assert -2 < x_range[0] < 0 < x_range[1] < 2, x_range
    _pick(page, "explore_kernel_view", "degree-2 lift (3-D)", wait_for_rerun)
    page.wait_for_function(SCENE_JS, arg=".st-key-explore_kernel_lift")
    page.screenshot(path=str(ARTIFACTS / "lecture_lift.png"), full_page=True)
    check_page()

    # Compare: two panels.
    _pick(page, "explore_tool", "Compare", wait_for_rerun)
    page.locator(".st-key-explore_compare_B .main-svg").first.wait_for()
    assert page.locator(".st-key-explore_compare_A .main-svg").count() >= 1
    check_page()

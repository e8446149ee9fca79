"""A preset's box on every page with a preset, its settings changed since (so
both its buttons show), measured in Chromium at 1920 x 1080, 1280 x 720 (the
sidebar open: the narrowest box) and on a 390 x 844 phone: each button's label
shown whole, none cut to "Back to th…" (the two shared the box's side column,
about 100 px each at 1280 px, and both were cut there).

A label is cut when an element of its button is wider inside than its box
(``scrollWidth`` over ``clientWidth``: CSS's ellipsis keeps the whole text's
width as the scroll width) or when the button's text is not the label.
Screenshots land in ``tests/browser/artifacts/preset_box/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from svmlab.ui.frame.presets import BACK_LABEL, LEAVE_LABEL
from tests.browser.test_screen_matrix import DRAWN_JS

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "preset_box"

#: Page path, its preset box's key, and a preset's link with one setting
#: moved off the preset (the box then says what changed and offers both buttons).
BOXES: dict[str, tuple[str, str]] = {
    "Family": ("family_preset_box", "t=0&shade=p&preset=family_threshold"),
    "Losses": ("losses_preset_box", "count=4&preset=losses_fig_27_17"),
    "Solvers": ("solvers_preset_box", "tol=1e-05&preset=solvers_smo_qp_agree"),
    "Multiclass": (
        "multiclass_preset_box",
        "kernel=linear&noise=1.0&preset=multiclass_three_methods",
    ),
    "Regression": ("regression_preset_box", "C=2&preset=regression_tube"),
    "Explore": (
        "explore_preset_box",
        "data=two_circles&n=200&noise=0.1&C=100&preset=c_too_large",
    ),
}

SCREENS = {"1280": (1280, 720), "1920": (1920, 1080), "phone": (390, 844)}

#: Each button of the box: its text, and the elements in it whose content is
#: wider than their box (a label cut with an ellipsis).
BUTTONS_JS = r"""
(key) => [...document.querySelectorAll(`.st-key-${key} button`)]
  // Shown ones: a button with a tooltip has a hidden twin.
  .filter((b) => b.getBoundingClientRect().width > 0).map((b) => ({
  text: (b.innerText || "").trim(),
  width: b.getBoundingClientRect().width,
  cut: [b, ...b.querySelectorAll("*")]
    .filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
    .map((e) => `${e.tagName} ${e.scrollWidth} px in ${e.clientWidth}`),
}))
"""


def _cases() -> list:
    # The default run: 1280 x 720 (where the labels were cut) on every page;
    # the wide screen and the phone in the slow run.
    return [
        pytest.param(
            path,
            screen,
            id=f"{path}-{screen}",
            marks=() if screen == "1280" else (pytest.mark.slow,),
        )
        for screen in SCREENS
        for path in BOXES
    ]


@pytest.mark.parametrize(("path", "screen"), _cases())
def test_preset_box_buttons_show_their_whole_labels(
    streamlit_url, browser, path, screen
) -> None:
    width, height = SCREENS[screen]
    phone = screen == "phone"
    context = browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=1,
        reduced_motion="reduce",
        has_touch=phone,
        is_mobile=phone,
    )
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)
        key, link = BOXES[path]
        page.goto(f"{streamlit_url}/{path}?{link}")
        page.wait_for_function(DRAWN_JS, polling=250, timeout=180_000)
        box = page.locator(f".st-key-{key}")
        box.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        box.screenshot(path=str(ARTIFACTS / f"{path}-{screen}.png"))
        buttons = page.evaluate(BUTTONS_JS, key)
    finally:
        context.close()
    cut = [b for b in buttons if b["cut"]]
    assert not cut, f"{path} at {screen}: labels cut: {cut}"
    assert [b["text"] for b in buttons] == [BACK_LABEL, LEAVE_LABEL], buttons

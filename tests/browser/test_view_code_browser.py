""" "Code for this view" in Chromium (issue 47) on every page that has it: the
popover opens, its svmlab tab holds the page's key settings as code, its
scikit-learn tab the library's call, both download buttons are there; the
popover fits a 1280 x 720 projector (classroom mode), a 1920 x 1080 screen
and a 390 x 844 phone.
Fails on any exception box, ``st.error`` box or uncaught page error;
screenshots land in ``tests/browser/artifacts/view_code_*.png``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# A long walk in Chromium: in the README's second run (`-m slow`), so the
# default run stays near ten minutes on two cores.
pytestmark = pytest.mark.slow

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

#: Page path (its link's query) -> what its svmlab tab and its scikit-learn tab
#: must say: the page's default settings written as code.
PAGES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Solvers": (
        (
            "solver_comparison.compare_solvers(",
            'kernel="gaussian"',
            'loss="hinge"',
            "C=10.0",
            'bias="unregularized"',
        ),
        ("from sklearn.svm import SVC", "No scikit-learn equivalent"),
    ),
    "Family": (
        ("svmlab.SVC(", 'kernel="linear"', "tol=1e-05", "probability.sigmoid_train"),
        ("from sklearn.svm import SVC", "probability=True"),
    ),
    "Multiclass": (
        (
            "svmlab.OneVsRestSVC(",
            "svmlab.OneVsOneSVC(",
            "svmlab.CrammerSingerSVC(",
            'kernel="gaussian"',
        ),
        ("OneVsRestClassifier(", 'decision_function_shape="ovo"'),
    ),
    "Model_selection": (
        (
            "criterion_grid.grid_sweep(",
            'loss="modified_hinge"',
            "delta=0.0001",
            'bias="none"',
            "lee2006.load()",
        ),
        ("GridSearchCV(", "LeaveOneOut()", "No scikit-learn equivalent"),
    ),
    "Explore": (("svmlab.SVC(",), ("from sklearn.svm import SVC",)),
    "Losses": (("svmlab.SVC(",), ("No scikit-learn equivalent",)),
    "Regression": (("svmlab.EpsilonSVR(",), ("from sklearn.svm import SVR",)),
}
#: The screens each popover is looked at on: (width, height, classroom mode).
SCREENS = {
    "classroom": (1280, 720, True),
    "desktop": (1920, 1080, False),
    "phone": (390, 844, False),
}


def _popover(page):
    return page.locator('[data-testid="stPopoverBody"]').last


def _open(page, open_page, path: str, classroom: bool) -> None:
    query = "?classroom=1" if classroom else ""
    open_page(f"/{path}{query}", timeout_ms=180_000)
    button = page.get_by_role("button", name="Code for this view")
    button.wait_for(state="visible")
    button.click()
    _popover(page).locator('[data-testid="stCode"]').first.wait_for(state="visible")


@pytest.mark.parametrize("path", list(PAGES))
def test_the_popover_holds_the_pages_settings_as_code(
    page, open_page, check_page, path
) -> None:
    width, height, classroom = SCREENS["classroom"]
    page.set_viewport_size({"width": width, "height": height})
    _open(page, open_page, path, classroom)
    body = _popover(page)
    own, theirs = PAGES[path]
    text = body.inner_text()
    for needle in own:
        assert needle in text, (path, needle)
    # The two downloads of the open tab: the script and the notebook.
    downloads = body.locator('[data-testid="stDownloadButton"] >> visible=true')
    labels = sorted(downloads.all_inner_texts())
    assert [label.rsplit(".", 1)[-1] for label in labels] == ["ipynb", "py"], labels
    # The popover stays on the projector: its top and its tabs inside 720 px.
    box = body.bounding_box()
    assert box is not None and box["y"] >= 0 and box["x"] >= 0, box
    assert box["x"] + box["width"] <= width + 1, box
    page.screenshot(path=str(ARTIFACTS / f"view_code_{path}_classroom.png"))
    body.get_by_role("tab", name="scikit-learn").click()
    page.wait_for_timeout(300)
    text = body.inner_text()
    for needle in theirs:
        assert needle in text, (path, needle)
    check_page()


@pytest.mark.parametrize("screen", ["desktop", "phone"])
@pytest.mark.parametrize("path", ["Solvers", "Family", "Multiclass", "Model_selection"])
def test_the_popover_on_a_1080_screen_and_a_phone(
    page, open_page, check_page, path, screen
) -> None:
    width, height, classroom = SCREENS[screen]
    page.set_viewport_size({"width": width, "height": height})
    _open(page, open_page, path, classroom)
    box = _popover(page).bounding_box()
    assert box is not None and box["y"] + 120 <= height, box
    assert box["x"] + box["width"] <= width + 1, box
    page.screenshot(path=str(ARTIFACTS / f"view_code_{path}_{screen}.png"))
    check_page()

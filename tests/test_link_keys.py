"""What a link carries that a page cannot use is said, never dropped (issue 44,
item 8): a name the page does not read (a misspelling, another page's field,
another data set's slider), a name given twice, the hard margin beside a loss
that has none; and a data set switch says what it changed in the model.

The reference for each sentence is the link itself: the names the test puts
in it, not a list computed by the code under test.
"""

from __future__ import annotations

import pytest

from svmlab.ui.explore.fields import EXPLORE_STATE
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame.page_state import PAGE_STATES, REGRESSION_STATE
from tests.pages import APP, EXPLORE, notes, open_page, page_test, problems

pytestmark = pytest.mark.usefixtures("fresh_caches")

#: Every page with settings: its script and a field every page has.
PAGES = {"explore": EXPLORE_STATE.page} | {
    name: state.page for name, state in PAGE_STATES.items()
}


def test_an_unknown_name_is_one_sentence_with_the_name_it_misspells() -> None:
    errors: list[str] = []
    notes_: list[str] = []
    values = REGRESSION_STATE.values({"eps": "-5", "C": "10"}, errors, notes_)
    assert errors == [
        "The link's 'eps' is not a setting of this page (did you mean epsilon "
        "for 'eps'?); ignored."
    ]
    assert values["regression_epsilon"] == 0.1  # the default, not -5
    errors = []
    EXPLORE_STATE.values({"foo": "1", "data": "two_circles", "radius": "2"}, errors)
    assert len(errors) == 1
    assert "'foo' and 'radius' are not settings of this page" in errors[0]
    # Another data set's slider is not this one's; Streamlit's own names and
    # Explore's room code are read elsewhere, never reported.
    errors = []
    EXPLORE_STATE.values({"r_inner": "1", "embed": "true", "follow": "ABCD"}, errors)
    assert errors == ["The link's 'r_inner' is not a setting of this page; ignored."]
    errors = []
    EXPLORE_STATE.values({"data": "two_circles", "r_inner": "0.4"}, errors)
    assert errors == []
    # Hundreds of names: one sentence, five named.
    errors = []
    EXPLORE_STATE.values({f"x{k}": "1" for k in range(300)}, errors)
    assert len(errors) == 1 and "'x4' and 295 more are not settings" in errors[0]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_page_says_an_unknown_and_a_repeated_name(page: str) -> None:
    at = page_test(PAGES[page], default_timeout=240)
    at.query_params["foo"] = "1"
    at.query_params["[x](http://example.com)"] = "1"
    at.query_params["classroom"] = ["1", "0"]
    at.query_params["theme"] = "dark"  # the frame's, read on every page
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    said = problems(at)
    (sentence,) = [e for e in said if "not settings of this page" in e]
    assert "'foo'" in sentence and "'[x](http://example.com)'" in sentence
    assert "'theme'" not in sentence
    # Escaped where it is shown: markdown draws no link from a link's name.
    raw = next(e.value for e in at.error if "not settings" in e.value)
    assert "\\[x\\]\\(http" in raw
    assert any("The link gives classroom 2 times" in n for n in notes(at)), notes(at)


def test_the_hub_says_its_link_is_ignored() -> None:
    at = page_test(APP)
    at.query_params["preset"] = "spiral_hinge"
    at.run()
    assert not at.exception
    assert any("the link's 'preset' is ignored" in n for n in notes(at)), notes(at)


@pytest.mark.parametrize(
    ("link", "under"),
    [({"loss": "ramp"}, "the ramp loss"), ({"machine": "nu"}, "ν-SVC")],
)
def test_explore_says_a_hard_margin_the_model_has_not(link, under) -> None:
    said: list[str] = []
    s = ExploreSettings.from_query({"hard": "1", "C": "2", **link}, said)
    assert not s.hard_margin and s.effective_C == 2.0
    assert any("hard margin" in n and under in n and "C = 2" in n for n in said)
    at = open_page(EXPLORE, {"hard": "1", "C": "2", "n": "60", **link})
    assert not problems(at), problems(at)
    assert any("hard margin (C = ∞) is the hinge loss's" in n for n in notes(at))
    assert "hard" not in at.query_params  # the link shows what is drawn
    # Beside the hinge the link is honoured: C = ∞.
    s = ExploreSettings.from_query({"hard": "1", "data": "linear"})
    assert s.hard_margin and s.effective_C == float("inf")


def test_a_data_set_switch_says_what_it_changed_in_the_model() -> None:
    at = open_page(EXPLORE, {"n": "60"})
    assert at.session_state["explore_settings"].kernel == "gaussian"
    at.selectbox(key="explore_dataset").set_value("outlier_blobs").run()
    assert not problems(at), problems(at)
    s = at.session_state["explore_settings"]
    assert (s.kernel, s.C) == ("linear", 1.0)  # the outlier blobs' own model
    (sentence,) = [n for n in notes(at) if "Outliers" in n or "utlier" in n]
    assert "kernel Gaussian → linear" in sentence and "C 10 → 1" in sentence
    assert "σ" not in sentence  # the linear kernel has none

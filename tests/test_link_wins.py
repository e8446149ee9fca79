"""A preset's link wins over the session's values by one rule on every page
(issue 30): :func:`svmlab.ui.frame.page_url.link_wins`, which Explore's
``sync_state`` and every other page's ``page_url.load`` both ask."""

from __future__ import annotations

import pytest

from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import page_url
from svmlab.ui.frame.presets import page_query, query
from tests.pages import EXPLORE, PAGES, page_test

pytestmark = pytest.mark.usefixtures("fresh_caches")

LOSSES = str(PAGES / "4_Losses.py")


def test_the_rule_on_queries() -> None:
    written = {"C": "10", "preset": "p"}
    assert page_url.link_wins({}, None)  # the first run: the link
    assert not page_url.link_wins({"C": "1"}, written)  # no preset: the session
    assert not page_url.link_wins(dict(written), written)  # what the page wrote
    assert page_url.link_wins({"C": "1", "preset": "p"}, written)


def test_the_rule_on_explore_s_settings_reads_two_spellings_as_one() -> None:
    last = ExploreSettings.from_query({"C": "10", "preset": "c_too_large"})
    read = ExploreSettings.from_query
    same = {"C": "10.0", "preset": "c_too_large"}
    assert not page_url.link_wins(same, last, read)
    assert page_url.link_wins(same, last)  # compared as text, they differ
    assert page_url.link_wins({"C": "3", "preset": "c_too_large"}, last, read)


@pytest.mark.parametrize(
    ("script", "preset"),
    [(EXPLORE, "c_too_large"), (LOSSES, "losses_fig_27_17")],
    ids=["explore", "losses"],
)
def test_both_pages_ask_the_shared_rule(monkeypatch, script, preset) -> None:
    """A wrapper around the rule sees each page ask it on every run, and a
    preset's link followed in a running session wins through it."""
    asked: list[bool] = []
    original = page_url.link_wins

    def spy(*args, **kwargs):
        asked.append(original(*args, **kwargs))
        return asked[-1]

    monkeypatch.setattr(page_url, "link_wins", spy)
    at = page_test(script, default_timeout=180).run()
    assert not at.exception, [e.value for e in at.exception]
    assert asked == [True]  # the first run
    at.run()
    assert asked[-1] is False  # the session's own URL
    link = query(preset) if script == EXPLORE else page_query(preset)
    for key, value in link.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert asked[-1] is True  # the preset's link, followed
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert asked[-1] is False  # the page's own link to the preset now

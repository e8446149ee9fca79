"""Settings survive a click made right after a page load (issue 14, item 1).

Streamlit sends a value set through ``st.session_state`` to the browser only in
the run that set it. A click that cuts the first run short made the browser mount
widgets afresh from a later run's element, at their built-in defaults (0, the
minimum, the first option, False), and send those back: "Upload CSV" right after
a load reran with C = 0.001, σ = 0.01, tol = 0, max_iter = 1, the test points
hidden, and wrote that into the URL (about one load in five). Each round here
opens a fresh session (a new tab) on an Explore link with non-default settings
and clicks at once; the settings and the URL must come through every round.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

#: Before the fix this link lost its settings in about one load in four: 30
#: rounds catch that with probability 1 - 0.75^30 = 99.98 % (issue 30 asks for
#: 30). They take about two minutes, so the test is marked slow: the README's
#: command runs it in its second, `-m slow`, part.
ROUNDS = 30
#: Non-default settings, with a first run slow enough (IRWLS on 1,500 points, about
#: a second) that the click lands while it runs, which is when the browser used to
#: mount widgets afresh. Without a slow run the fault showed only on a loaded
#: machine: before the fix this link lost settings in 3 of 12 loads on a quiet one.
QUERY = {
    "n": "1500",
    "loss": "modified_hinge",
    "seed": "3",
    "C": "4.7",
    "sigma": "2.2",
    "tol": "0.01",
    "max_iter": "500",
    "show_test": "0",
}


def _link(query: dict[str, str]) -> str:
    return "Explore?" + "&".join(f"{k}={v}" for k, v in query.items())


QUIET_JS = """(ms) => {
  const app = document.querySelector('[data-testid="stApp"]');
  return app && app.getAttribute('data-test-script-state') === 'notRunning'
    && performance.now() - (window.__svmlabLastMessage || 0) > ms;
}"""


def _source(page, label: str) -> None:
    page.locator(".st-key-explore_source").get_by_text(label).click()


def _upload_and_back(page, query: dict[str, str]) -> list[dict[str, str]]:
    _source(page, "Upload CSV")
    page.wait_for_timeout(300)  # the second click lands in the rerun of the first
    _source(page, "Generator")
    return [query]


def _upload(page, query: dict[str, str]) -> list[dict[str, str]]:
    _source(page, "Upload CSV")
    return [query]


def _log_count(page, query: dict[str, str]) -> list[dict[str, str]]:
    """A display toggle. Its click may be lost if it lands before Streamlit's
    front end listens (the toggle is drawn but not yet live: a race in the
    browser, not in the app); what must hold is that the link's settings stay."""
    page.locator(".st-key-explore_log_count label").click()
    return [{**query, "log_count": "1"}, query]


CLICKS = (_upload_and_back, _upload, _upload_and_back, _log_count)


@pytest.mark.slow
def test_settings_survive_an_immediate_click(
    fresh_page, browser_log, streamlit_url, wait_for_rerun, shown_errors
) -> None:
    failures = []
    for round_ in range(ROUNDS):
        click = CLICKS[round_ % len(CLICKS)]
        # Another seed each round: the first run fits afresh (no cache hit), so
        # it is slow every time, not only in the first round.
        query = {**QUERY, "seed": str(3 + round_)}
        # A new browser context each round: a new session with a cold cache, so
        # the click lands while the browser is still building the first page.
        tab = fresh_page()
        tab.goto(f"{streamlit_url}/{_link(query)}")
        expected = click(tab, query)
        wait_for_rerun(tab)
        # Settled: idle and no server message for a while (a late rerun would
        # have sent one).
        tab.wait_for_function(QUIET_JS, arg=600)
        shown = dict(parse_qsl(urlsplit(tab.url).query))
        errors = shown_errors(tab)
        typed_C = tab.locator(".st-key-explore_C input").input_value()
        if shown not in expected or errors or typed_C != "4.7":
            failures.append((round_, click.__name__, str(shown), typed_C, errors))
        tab.context.close()
    assert not failures, failures
    assert not browser_log.page_errors, browser_log.page_errors

"""What every Chromium test asks of a page after each step: no exception box,
no ``st.error`` box, no uncaught script error, no console error except the
benign ones. (The ``assert_no_exception``, ``shown_errors`` and ``check_page``
fixtures of ``conftest.py`` hand these out.)"""

from __future__ import annotations

import re

import pytest

#: Console messages that are not the app's errors: Streamlit's own health and
#: host-config polling, and 404s of optional resources.
BENIGN = re.compile(r"_stcore/(health|host-config)|status of 404")

# Test ids of Streamlit 1.67's frontend (checked in the bundled JS under
# site-packages/streamlit/static): an uncaught exception renders
# `stException`; `st.error` renders `stAlertContentError` (`stAlertContent`
# + the capitalised alert kind).
ERRORS_JS = r"""
() => {
  const text = (e) => (e.innerText || e.textContent || '').trim();
  const exceptions = [...document.querySelectorAll('[data-testid="stException"]')];
  // An exception box draws its own error alert inside: report it once.
  const alerts = [...document.querySelectorAll('[data-testid="stAlertContentError"]')]
    .filter((e) => !e.closest('[data-testid="stException"]'));
  return [
    ...exceptions.map((e) => 'stException:\n' + text(e)),
    ...alerts.map((e) => 'stAlertContentError (st.error):\n' + text(e)),
  ];
}
"""


def shown_errors(page) -> list[str]:
    """The exception boxes and ``st.error`` boxes on the page, as text."""
    return list(page.evaluate(ERRORS_JS))


def assert_no_exception(page) -> None:
    """Fail if an exception box or an ``st.error`` box is on the page."""
    found = shown_errors(page)
    if found:
        pytest.fail("error shown on the page:\n\n" + "\n\n".join(found))


def no_errors(page, browser_log) -> None:
    """Fail on an exception box, a page error or a console error on ``page``."""
    assert_no_exception(page)
    assert not browser_log.page_errors, browser_log.page_errors
    real = [e for e in browser_log.console_errors if not BENIGN.search(e)]
    assert not real, real

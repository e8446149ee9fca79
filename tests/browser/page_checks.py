"""What every Chromium test asks of a page after each step: no exception box,
no uncaught script error, no console error except the benign ones."""

from __future__ import annotations

import re
from collections.abc import Callable

#: Console messages that are not the app's errors: Streamlit's own health and
#: host-config polling, and 404s of optional resources.
BENIGN = re.compile(r"_stcore/(health|host-config)|status of 404")


def no_errors(page, browser_log, assert_no_exception: Callable[[object], None]) -> None:
    """Fail on an exception box, a page error or a console error on ``page``."""
    assert_no_exception(page)
    assert not browser_log.page_errors, browser_log.page_errors
    real = [e for e in browser_log.console_errors if not BENIGN.search(e)]
    assert not real, real

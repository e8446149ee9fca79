"""AppTests of svmlab's pages, each run as a visitor meets it: through the app's
router (``app.py``: the navigation and the frame), switched to the page."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def page_test(script: str | Path, default_timeout: float = 60) -> AppTest:
    """An AppTest of the app from its router, switched to ``script`` (a page
    file, absolute or relative to the app root); set query parameters on it
    before the first ``run()``."""
    path = Path(script)
    if path.is_absolute():
        path = path.relative_to(ROOT)
    at = AppTest.from_file(APP, default_timeout=default_timeout)
    if path.as_posix() != "app.py":
        at.switch_page(path.as_posix())
    return at

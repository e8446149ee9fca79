"""Fixtures for driving the app in a real Chromium through Playwright.

Every test under ``tests/browser`` is marked ``browser`` (deselect them with
``-m "not browser"``). The fixtures:

- ``streamlit_url``: one ``streamlit run app.py`` per session on a free
  127.0.0.1 port, in its own process group, stopped (whole group) at the end.
- ``browser``: one headless Debian Chromium per session (``/usr/bin/chromium``;
  Playwright never downloads a browser here). A missing Chromium is a failure,
  not a skip: the README test command installs it.
- ``page``: a fresh 1400 x 1000 browser context per test; ``browser_log``
  collects its console errors and uncaught page errors.
- ``open_page``: go to a path of the app on ``page`` and wait for its first
  run; ``check_page``: no exception box, ``st.error`` box, page error or
  console error that is not benign (``page_checks.py``).
- ``wait_for_rerun`` / ``assert_no_exception`` / ``shown_errors`` /
  ``full_screenshot``: helpers, handed out as fixtures so tests need not import
  this file.
- ``driver``: the page with ``open_page``, ``check_page``, ``press_slider``,
  ``click_plot``, a rerun's wait and a screenshot, as one object for the tests
  that work every control of a page.

The server is started by ``benchmarks/harness/app_server.py``, which the benchmarks
that drive the app use too (the browser flags live there as well).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from benchmarks.harness import app_server
from benchmarks.harness.app_server import CHROMIUM, CHROMIUM_ARGS
from tests.browser import page_checks
from tests.browser.script_state import RERUN_DONE_JS, STATE_LOG_JS

HERE = Path(__file__).resolve().parent
VIEWPORT = {"width": 1400, "height": 1000}
RERUN_TIMEOUT_MS = 30_000

SCROLL_HEIGHT_JS = r"""
() => Math.max(document.documentElement.scrollHeight,
  ...['stMain', 'stAppViewContainer', 'stSidebarContent']
    .map((id) => document.querySelector(`[data-testid="${id}"]`))
    .filter(Boolean).map((e) => e.scrollHeight))
"""


def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Mark every test collected from this directory as ``browser``."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


# --------------------------------------------------------------------------
# Server
# --------------------------------------------------------------------------


#: Base URL -> process id of the ``streamlit run`` serving it (``server_pid``).
SERVER_PIDS: dict[str, int] = {}


def _tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


@contextmanager
def serve_app(log_dir: Path) -> Iterator[tuple[str, int]]:
    """Start ``streamlit run app.py`` on a free port; yield ``(base URL, pid)``;
    stop the whole process group after."""
    port = app_server.free_port()
    log_path = log_dir / f"server-{port}.log"
    env = {"OPENBLAS_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    with log_path.open("wb") as log:
        proc, url = app_server.launch(port=port, env=env, output=log)
    try:
        why = app_server.wait_healthy(proc, url)
        if why is not None:
            pytest.fail(f"{why}; log {log_path}:\n{_tail(log_path)}")
        yield url, proc.pid
    finally:
        app_server.stop(proc)


@pytest.fixture(scope="session")
def streamlit_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One ``streamlit run app.py`` for the session; its base URL."""
    with serve_app(tmp_path_factory.mktemp("streamlit")) as (url, pid):
        SERVER_PIDS[url] = pid
        try:
            yield url
        finally:
            SERVER_PIDS.pop(url, None)


@pytest.fixture
def fresh_server(tmp_path: Path) -> Callable[[], object]:
    """A factory of freshly started servers (each stopped at the test's end):
    ``with fresh_server() as url: ...``."""
    return lambda: serve_app(tmp_path)


@pytest.fixture(scope="session")
def server_pid(streamlit_url: str) -> int:
    """The process id of the Streamlit server (to read its memory in /proc)."""
    return SERVER_PIDS[streamlit_url]


# --------------------------------------------------------------------------
# Browser
# --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless Debian Chromium for the session (Playwright, sync API)."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}. Install it with "
            "`apt-get update && apt-get install -y chromium fonts-dejavu-core` "
            "(the README's test command does this); Playwright must not "
            "download browsers."
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class BrowserLog:
    """What went wrong in the browser during one test."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)


@pytest.fixture
def browser_log() -> BrowserLog:
    return BrowserLog()


def _new_page(browser, browser_log: BrowserLog, *, console: bool = True) -> object:
    """A 1400 x 1000 page in a new browser context (close it with
    ``page.context.close()``) that records the script states (STATE_LOG_JS);
    its page errors go to ``browser_log``, and its console errors if
    ``console``."""
    context = browser.new_context(
        viewport=VIEWPORT, device_scale_factor=1, reduced_motion="reduce"
    )
    context.add_init_script(STATE_LOG_JS)
    page = context.new_page()
    page.set_default_timeout(RERUN_TIMEOUT_MS)
    if console:
        page.on(
            "console",
            lambda msg: (
                browser_log.console_errors.append(f"{msg.text} ({msg.location})")
                if msg.type == "error"
                else None
            ),
        )
    page.on("pageerror", lambda exc: browser_log.page_errors.append(str(exc)))
    return page


@pytest.fixture
def page(browser, browser_log: BrowserLog) -> Iterator[object]:
    """A fresh 1400 x 1000 page whose console and page errors go to browser_log."""
    page = _new_page(browser, browser_log)
    try:
        yield page
    finally:
        page.context.close()


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _wait_for_rerun(page, timeout_ms: int = RERUN_TIMEOUT_MS) -> None:
    """Wait until the script has been ``running`` and is ``notRunning`` again.

    Call it after every page load and after every input. Each call waits for a
    ``running`` recorded since the previous call returned (or since the page
    loaded), so a rerun that already finished before the call still counts,
    and an input that triggered no rerun times out instead of passing.
    """
    since = page.evaluate("() => window.__svmlabStates._cursor || 0")
    page.wait_for_function(RERUN_DONE_JS, arg=since, timeout=timeout_ms)
    page.evaluate("() => { const l = window.__svmlabStates; l._cursor = l.length; }")


#: Every drawn Plotly chart's layout matches its element's size (no resize
#: pending), two frames in a row.
PLOTS_SETTLED_JS = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')]
    .filter((gd) => gd._fullLayout && gd.clientHeight > 0 && gd.clientWidth > 0);
  const ok = plots.every((gd) =>
    Math.abs(gd.clientHeight - gd._fullLayout.height) <= 2
    && Math.abs(gd.clientWidth - gd._fullLayout.width) <= 2);
  const was = window.__svmlabSettled || 0;
  window.__svmlabSettled = ok ? was + 1 : 0;
  return window.__svmlabSettled >= 2;
}"""


def _full_screenshot(page, path: Path) -> None:
    """Screenshot the whole app: Streamlit scrolls inside its main pane, so
    grow the viewport to the content height first, then restore it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    height = max(size["height"], int(page.evaluate(SCROLL_HEIGHT_JS)))
    page.set_viewport_size({"width": size["width"], "height": height})
    try:
        page.screenshot(path=str(path), full_page=True)
    finally:
        page.set_viewport_size(size)
        # Charts sized to the window (Explore's fits 100vh) redraw after the
        # viewport comes back; a test that then aims at a point must wait for
        # that, or it aims at where the point was on the tall screen.
        page.wait_for_function(PLOTS_SETTLED_JS, timeout=15_000, polling=50)


@pytest.fixture
def fresh_page(browser, browser_log: BrowserLog) -> Iterator[Callable[[], object]]:
    """A factory of pages each in a new browser context: an empty cache, as a
    student's first visit (the app's scripts load again, so the first render is
    as slow as it gets). Contexts are closed at the end of the test."""
    pages: list = []

    def make() -> object:
        pages.append(_new_page(browser, browser_log, console=False))
        return pages[-1]

    try:
        yield make
    finally:
        for page in pages:
            page.context.close()


@pytest.fixture
def wait_for_rerun() -> Callable[..., None]:
    return _wait_for_rerun


@pytest.fixture
def assert_no_exception() -> Callable[[object], None]:
    return page_checks.assert_no_exception


@pytest.fixture
def shown_errors() -> Callable[[object], list[str]]:
    """The exception boxes and ``st.error`` boxes on the page, as text."""
    return page_checks.shown_errors


@pytest.fixture
def check_page(page, browser_log: BrowserLog) -> Callable[..., None]:
    """``check_page()`` (or ``check_page(other_page)``): fail on an exception
    box, an ``st.error`` box, a page error or a console error that is not
    benign (:func:`page_checks.no_errors`)."""
    return lambda target=None: page_checks.no_errors(target or page, browser_log)


@pytest.fixture
def open_page(page, streamlit_url: str) -> Callable[..., object]:
    """``open_page("/Losses")``: go to that path of the app (its root by
    default), check the response and wait for the first run
    (``timeout_ms``); return the page."""

    def go(path: str = "", timeout_ms: int = RERUN_TIMEOUT_MS) -> object:
        response = page.goto(f"{streamlit_url}{path}")
        assert response is not None and response.ok, response
        _wait_for_rerun(page, timeout_ms)
        return page

    return go


@pytest.fixture
def press_slider(page) -> Callable[[str, str, int], None]:
    """``press_slider(slider_key, key, times)``: focus the slider of that
    widget key and press ``key`` (``"ArrowLeft"``...) ``times`` times, waiting
    for each rerun; then move the mouse off the charts."""

    def press(slider_key: str, key: str, times: int) -> None:
        slider = page.locator(f".st-key-{slider_key}").get_by_role("slider")
        for _ in range(times):
            slider.focus()
            page.keyboard.press(key)
            _wait_for_rerun(page)
        page.mouse.move(2, 2)

    return press


@pytest.fixture
def click_plot(page) -> Callable[[str, float, float], None]:
    """``click_plot(chart, fx, fy)``: click the plot area of the Plotly chart
    under the CSS selector ``chart`` at the fractions ``fx`` of its width from
    the left and ``fy`` of its height from the top, and wait for the rerun."""

    def click(chart: str, fx: float, fy: float) -> None:
        box = page.locator(f"{chart} .nsewdrag").first.bounding_box()
        assert box is not None, f"no plot area under {chart}"
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
        _wait_for_rerun(page)

    return click


@pytest.fixture
def full_screenshot() -> Callable[[object, Path], None]:
    return _full_screenshot


@dataclass(frozen=True)
class Driver:
    """A test's page and what it does there (``driver.open("/Family")``,
    ``driver.press_slider(...)``, ``driver.rerun()``, ``driver.check()``...):
    the page fixtures in one."""

    page: object
    open: Callable[..., object]
    check: Callable[..., None]
    press_slider: Callable[[str, str, int], None]
    click_plot: Callable[[str, float, float], None]

    def rerun(self, timeout_ms: int = RERUN_TIMEOUT_MS) -> None:
        """Wait for the rerun that the last action started."""
        _wait_for_rerun(self.page, timeout_ms)

    def screenshot(self, path: Path) -> None:
        _full_screenshot(self.page, path)


@pytest.fixture
def driver(page, open_page, check_page, press_slider, click_plot) -> Driver:
    return Driver(page, open_page, check_page, press_slider, click_plot)

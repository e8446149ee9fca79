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
- ``wait_for_rerun`` / ``assert_no_exception``: helpers, handed out as fixtures
  so tests need not import this file.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
HOST = "127.0.0.1"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1400, "height": 1000}
STARTUP_TIMEOUT_S = 60.0
RERUN_TIMEOUT_MS = 30_000

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

# Records every value of stApp's `data-test-script-state` attribute
# (initial / running / notRunning / rerunRequested / compilationError).
# `attributeOldValue` lets us rebuild the whole sequence even when several
# changes land in one mutation batch, so a short `running` is never missed.
# Streamlit's React front end may still never show `running`: a short rerun
# whose first and last server messages are handled in one render (the page was
# busy drawing a chart meanwhile) goes from `notRunning` to `notRunning`. So
# each server message is logged too (`message`, its time in
# `window.__svmlabLastMessage`): see RERUN_DONE_JS.
STATE_LOG_JS = r"""
(() => {
  if (window.__svmlabStates) return;
  const log = window.__svmlabStates = [];
  const push = (s) => { if (s && log[log.length - 1] !== s) log.push(s); };
  window.__svmlabLastMessage = 0;
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => {
        window.__svmlabLastMessage = performance.now();
        push('message');
      });
    }
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes' && r.attributeName === 'data-test-script-state') {
        push(r.oldValue);
      }
    }
    const app = document.querySelector('[data-testid="stApp"]');
    if (app) push(app.getAttribute('data-test-script-state'));
  }).observe(document, {
    subtree: true, childList: true, attributes: true, attributeOldValue: true,
    attributeFilter: ['data-test-script-state'],
  });
})();
"""

# True once the app is connected and idle, and has been `running` at some
# index >= `since` of the state log; or, when `running` never showed, once
# server messages came since `since` and none for QUIET_MS (the rerun ended:
# a script still running would have shown `running` by then).
QUIET_MS = 250
RERUN_DONE_JS = r"""
(since) => {
  const log = window.__svmlabStates || [];
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  const state = app.getAttribute('data-test-script-state');
  if (state !== 'notRunning' && state !== 'compilationError') return false;
  const seen = log.slice(since);
  if (seen.includes('running')) return true;
  return seen.includes('message')
    && performance.now() - window.__svmlabLastMessage > QUIET_MS;
}
""".replace("QUIET_MS", str(QUIET_MS))

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


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the child: get SIGTERM if pytest dies, even by SIGKILL (Linux)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
    except OSError:
        pass


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server's whole process group (its own session: pgid == pid)."""
    if proc.poll() is not None:
        return
    for sig, wait_s in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def _tail(path: Path, n: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return "(no log)"


@contextmanager
def serve_app(log_dir: Path) -> Iterator[tuple[str, int]]:
    """Start ``streamlit run app.py`` on a free port; yield ``(base URL, pid)``;
    stop the whole process group after."""
    port = _free_port()
    url = f"http://{HOST}:{port}"
    log_path = log_dir / f"server-{port}.log"
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.address",
        HOST,
        "--server.headless",
        "true",
        # Other people edit the repository while tests run: no reruns on save.
        "--server.fileWatcherType",
        "none",
    ]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"streamlit exited with code {proc.returncode} before it was "
                    f"healthy; log {log_path}:\n{_tail(log_path)}"
                )
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200 and r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"streamlit not healthy at {url} after {STARTUP_TIMEOUT_S:.0f} s; "
                    f"log {log_path}:\n{_tail(log_path)}"
                )
            time.sleep(0.1)
        yield url, proc.pid
    finally:
        _stop(proc)


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


@pytest.fixture
def page(browser, browser_log: BrowserLog) -> Iterator[object]:
    """A fresh 1400 x 1000 page whose console and page errors go to browser_log."""
    context = browser.new_context(
        viewport=VIEWPORT, device_scale_factor=1, reduced_motion="reduce"
    )
    context.add_init_script(STATE_LOG_JS)
    page = context.new_page()
    page.set_default_timeout(RERUN_TIMEOUT_MS)
    page.on(
        "console",
        lambda msg: (
            browser_log.console_errors.append(f"{msg.text} ({msg.location})")
            if msg.type == "error"
            else None
        ),
    )
    page.on("pageerror", lambda exc: browser_log.page_errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()


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


def _assert_no_exception(page) -> None:
    """Fail if an exception box or an ``st.error`` box is on the page."""
    found = page.evaluate(ERRORS_JS)
    if found:
        pytest.fail("error shown on the page:\n\n" + "\n\n".join(found))


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


@pytest.fixture
def fresh_page(browser, browser_log: BrowserLog) -> Iterator[Callable[[], object]]:
    """A factory of pages each in a new browser context: an empty cache, as a
    student's first visit (the app's scripts load again, so the first render is
    as slow as it gets). Contexts are closed at the end of the test."""
    contexts: list = []

    def make() -> object:
        context = browser.new_context(
            viewport=VIEWPORT, device_scale_factor=1, reduced_motion="reduce"
        )
        contexts.append(context)
        context.add_init_script(STATE_LOG_JS)
        page = context.new_page()
        page.set_default_timeout(RERUN_TIMEOUT_MS)
        page.on("pageerror", lambda exc: browser_log.page_errors.append(str(exc)))
        return page

    try:
        yield make
    finally:
        for context in contexts:
            context.close()


@pytest.fixture
def wait_for_rerun() -> Callable[..., None]:
    return _wait_for_rerun


@pytest.fixture
def assert_no_exception() -> Callable[[object], None]:
    return _assert_no_exception


@pytest.fixture
def shown_errors() -> Callable[[object], list[str]]:
    """The exception boxes and ``st.error`` boxes on the page, as text."""
    return lambda page: list(page.evaluate(ERRORS_JS))


@pytest.fixture
def full_screenshot() -> Callable[[object, Path], None]:
    return _full_screenshot

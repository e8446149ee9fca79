"""A lecture as the room waits for it, in Chromium, beside the floor (issue 28).

    python -m benchmarks lecture_flow [--moves 20] [--warmup 3] [--skip-scaling]
        [--app-dir DIR] [--ports 8750-8799]
    python -m benchmarks lecture_flow --buttons-only [--rounds 3] [--app-dir DIR]
    python -m benchmarks lecture_flow --first-visit-only [--rounds 3] [--app-dir DIR]

``--buttons-only`` times only the buttons (a preset from the hub, Explore's
"Compute the path", Losses' and Model selection's "Run sweep", Solvers' "Run
scaling", the Multiclass page's three fits on a switch), each round on a server
of its own (a second round on one server would be served the first's shared
results) after every page was loaded once; it prints the medians over the
rounds and writes mode ``buttons`` of ``results/lecture_flow.json``. Each button's row
has ``partial_s`` beside the complete wait: when the first chart drawn from a
partial result appeared (a Plotly chart of the main pane whose title or
annotation says "so far", as the pages mark them; None when none was drawn).

``--first-visit-only`` times a fresh ``git clone``'s first ``/Explore`` on a
server started as the README's first command starts it (the install's
``python -m svmlab.compiled.precompile`` into an empty numba cache first) and without
that step, beside the floor page's first load, each on a server of its own;
mode ``first_visit`` of ``results/lecture_flow.json``.

Drives headless Debian Chromium (Playwright, ``/usr/bin/chromium``, the flags of
``tests/browser/conftest.py``) through a scripted lecture against a ``streamlit
run app.py`` it starts itself on a free 127.0.0.1 port (one BLAS thread, no file
watcher), and prints every wait beside the floor pages measured in the same run
(``benchmarks/floors/``: a bare page with one slider and text, one with a small
Plotly chart, and the naive SVC page the slider target is relative to), each
served by its own ``streamlit run``, measured before the lecture and again after.

The lecture:

1. **precompile**: ``python -m svmlab.compiled.precompile`` with an empty numba cache,
then
   again with the filled one (skipped when ``--app-dir`` has no such module);
2. **fresh clone, first visit**: a server whose numba cache (``SVMLAB_CACHE_DIR``)
   is an empty directory; ``/Explore`` opened first. Then two more such servers
   with the hub opened first and a preset clicked on it, at once and after
   ``--pause`` seconds (20: the lecturer's introduction); then the last
   restarted with the cache it filled (**second start**), ``/Explore`` first;
3. on that server: the hub, a preset clicked on it (Explore), back to the hub by
   the sidebar, a second preset (Losses); ``/Explore`` in a new session, C moves
   (ArrowRight) and σ moves (ArrowLeft) on its sliders, its "Compute the path";
   every page's first visit and warm load (a new browser session each: an empty
   browser cache, as a student's), the pages switched in one session by the
   sidebar links, and each page's main button (Losses "Run sweep", Model
   selection "Run sweep", Solvers "Run scaling", which has a 60 s budget:
   ``--skip-scaling`` leaves it out).

A wait runs from the action (navigation start, the key press, the click: in the
page's clock) until the app is idle and every chart of the main pane is drawn:
the script state ``notRunning`` after ``running`` (or, when Streamlit skips
showing ``running`` for a short rerun, the server's messages since the action),
every chart container (svmlab's kept-alive chart, ``st.plotly_chart``) holding a
drawn plot (``.main-svg``), no element still a skeleton (Streamlit loads an
element's code on first use: the Plotly element in a new session), every
component mounted (svmlab's chart loads its script, then plotly.js), no request
in flight (React may keep the old screen, with no skeleton, while such code
loads), and all of it unchanged between two polls at least 400 ms apart (a main
thread busy parsing a script holds the polls up too, so it is never taken for
quiet). The wait ends at the last change in the main pane (plus the next
animation frame) or the script's last message, whichever is later; the quiet
window is not counted. ``script_s`` is when the script's last message came,
``first_msg_s`` when its first came (for a new session: the page and
Streamlit's scripts loaded, the websocket open), ``kb`` the bytes the server
sent over the websocket since the action,
``server_cpu_s`` and ``browser_cpu_s`` the CPU the Streamlit process and this
run's Chromium processes spent meanwhile. Each wait row has the load average
beside it; the JSON goes to mode ``lecture`` of
``benchmarks/results/lecture_flow.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness.app_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from benchmarks.harness.report import machine_load, print_table, write_json  # noqa: E402
from benchmarks.harness.script_states import with_state_log  # noqa: E402

FLOORS = ROOT / "benchmarks" / "floors"
VIEWPORT = {"width": 1400, "height": 1000}
QUIET_MS = 400
#: A chart container still without a drawn plot after this much quiet is
#: reported as pending (a plot Plotly never draws, say) instead of waited for.
GRACE_MS = 4000
PAGES = {
    "Explore": "Explore",
    "Losses": "Losses",
    "Solvers": "Solvers",
    "Model selection": "Model_selection",
    "Multiclass": "Multiclass",
}

# The page's record of a wait: script states and server messages with their
# times, the websocket bytes, the last change inside a chart of the main pane.
# A fresh document starts armed at navigation start (t0 = 0); an action in a
# loaded page is armed by ARM_JS and starts at its keydown or pointerdown.
INIT_JS = r"""
(() => {
  if (window.__lf) return;
  const now = () => performance.now();
  const L = window.__lf = {
    t0: 0, armed: false, states: [], lastMsg: 0, firstMsg: null, bytes: 0,
    lastChart: 0, lastMain: 0, firstPartial: null,
  };
  // A partial result: a chart of the main pane whose title or annotation says
  // "so far" (the pages mark a chart drawn from the rows computed so far).
  const partialDrawn = () => [...document.querySelectorAll(
    '[data-testid="stMain"] .js-plotly-plot .main-svg')].some((svg) =>
    [...svg.querySelectorAll('.gtitle, .annotation-text')]
      .some((e) => e.textContent.includes('so far')));
  const start = () => { if (L.armed && L.t0 === null) { L.t0 = now(); } };
  window.addEventListener('keydown', start, true);
  window.addEventListener('pointerdown', start, true);
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        const t = now();
        L.lastMsg = t;
        if (L.t0 !== null && t >= L.t0) {
          if (L.firstMsg === null) L.firstMsg = t;
          const d = e.data;
          L.bytes += (d && (d.byteLength || d.size || d.length)) || 0;
        }
      });
    }
  };
  const CHART = '.svmlab-plot, [data-testid="stPlotlyChart"], .js-plotly-plot';
  new MutationObserver((records) => {
    const t = now();
    let chart = false, main = false;
    for (const r of records) {
      __LOG_STATE__
      if (!el.closest('[data-testid="stMain"]')) continue;
      main = true;
      if (el.closest(CHART) || (r.addedNodes && [...r.addedNodes].some(
          (n) => n.nodeType === 1 && (n.matches(CHART) || n.querySelector(CHART))))) {
        chart = true;
      }
    }
    const bump = (key) => {
      L[key] = t;
      requestAnimationFrame(() => { L[key] = Math.max(L[key], now()); });
    };
    if (chart && L.t0 !== null && L.firstPartial === null && partialDrawn()) {
      L.firstPartial = t;
      requestAnimationFrame(() => { L.firstPartial = now(); });
    }
    if (chart) bump('lastChart');
    if (main) bump('lastMain');
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        attributeOldValue: true, characterData: true});
})();
"""
INIT_JS = with_state_log(INIT_JS)

ARM_JS = """() => { const L = window.__lf;
  L.t0 = null; L.armed = true; L.bytes = 0; L.firstMsg = null;
  L.firstPartial = null; }"""

STATE_JS = r"""
() => {
  const L = window.__lf;
  const app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const charts = main ? [...main.querySelectorAll(
    '.svmlab-plot, [data-testid="stPlotlyChart"]')] : [];
  // Pending too: an element Streamlit still draws as a skeleton (its code is
  // loaded on first use: the Plotly element in a new session) and a component
  // whose script has not mounted yet (svmlab's chart loads it, then plotly.js).
  const unmounted = main ? [
    ...main.querySelectorAll('[data-testid="stSkeleton"]'),
    ...[...main.querySelectorAll('[data-testid="stBidiComponentRegular"]')]
      .filter((e) => !e.childElementCount),
  ] : [];
  const after = L.t0 === null ? [] : L.states.filter(([ts]) => ts >= L.t0);
  const ran = after.some(([, s]) => s === 'running');
  const done = [...after].reverse().find(([, s]) => s === 'notRunning');
  const script = Math.max(done ? done[0] : 0, L.lastMsg);
  return {
    now: performance.now(), t0: L.t0,
    connected: !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED',
    state: app ? app.getAttribute('data-test-script-state') : null,
    ran: ran || (L.firstMsg !== null),
    charts: charts.length,
    pending: charts.filter((c) => !c.querySelector('.main-svg')).length
      + unmounted.length,
    script, lastChart: L.lastChart, lastMain: L.lastMain, bytes: L.bytes,
    firstMsg: L.firstMsg, firstPartial: L.firstPartial,
    lastState: after.length ? after[after.length - 1][0] : 0,
    containers: main ? main.querySelectorAll('[data-testid="stElementContainer"]')
      .length : 0,
    resources: performance.getEntriesByType('resource').length,
  };
}
"""

NUMBERS_JS = r"""
() => Object.fromEntries([...document.querySelectorAll('[data-svmlab-number]')]
  .map((e) => [e.getAttribute('data-svmlab-number'), e.textContent.trim()]))
"""


# -- processes ----------------------------------------------------------------------


#: Ports the servers may take (``--ports 8750-8799``; None: any free port).
PORTS: range | None = None


def _free_port() -> int:
    for port in PORTS or (0,):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise RuntimeError(f"no free port in {PORTS}")


class Server:
    """``streamlit run <script>`` in its own process group, stopped with it."""

    def __init__(self, script: str, cwd: Path, env: dict[str, str] | None = None):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(
            prefix="lecture_flow_", suffix=".log", delete=False
        )
        cmd = [
            sys.executable, "-m", "streamlit", "run", script,
            "--server.port", str(self.port), "--server.address", "127.0.0.1",
            "--server.headless", "true", "--server.fileWatcherType", "none",
        ]  # fmt: skip
        full_env = {
            **os.environ,
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(
                    self.url + "/_stcore/health", timeout=2
                ) as r:
                    if r.read().strip() == b"ok":
                        self.healthy_s = time.perf_counter() - self.started
                        return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"streamlit did not start: {self.log.name}")

    def stop(self) -> None:
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
                self.proc.wait(timeout=wait)
                return
            except ProcessLookupError:
                return
            except subprocess.TimeoutExpired:
                continue

    def cpu_s(self) -> float:
        return _cpu_s(self.proc.pid)


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process and its waited-for children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _chromium_cpu_s() -> float:
    """CPU seconds of this process's Chromium descendants (other helpers may
    run a Chromium too: only this run's count)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(stat[1]), []).append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    total, stack = 0.0, [os.getpid()]
    while stack:
        for child in children.get(stack.pop(), []):
            stack.append(child)
            try:
                if Path(f"/proc/{child}/comm").read_text().startswith("chrom"):
                    total += _cpu_s(child)
            except (OSError, IndexError, ValueError):
                continue
    return total


def _signature(s: dict[str, Any]) -> tuple:
    """What must not change between two polls for the page to count as settled."""
    keys = ("script", "lastMain", "lastChart", "lastState", "charts", "pending")
    return (*(s[k] for k in keys), s["containers"], s["resources"])


# -- one wait -----------------------------------------------------------------------


class Lecture:
    """The browser, the server in use and every wait measured, in order."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.rows: list[dict[str, Any]] = []
        self.contexts: list[Any] = []
        self.in_flight: dict[Any, list[int]] = {}
        self.server: Server | None = None

    def new_page(self) -> Any:
        context = self.browser.new_context(
            viewport=VIEWPORT, device_scale_factor=1, reduced_motion="reduce"
        )
        context.add_init_script(INIT_JS)
        self.contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(120_000)
        # Requests in flight (scripts, styles, plotly.js): while Streamlit loads
        # an element's code, React may keep the old screen without a skeleton.
        flight = self.in_flight[page] = [0]

        def done(_request: Any) -> None:
            flight[0] -= 1

        page.on("request", lambda _request: flight.__setitem__(0, flight[0] + 1))
        page.on("requestfinished", done)
        page.on("requestfailed", done)
        return page

    def close_pages(self) -> None:
        for context in self.contexts:
            context.close()
        self.contexts.clear()

    def wait(
        self, step: str, page: Any, action: Any, timeout_s: float = 120.0, **extra: Any
    ) -> dict[str, Any]:
        """Run ``action`` and wait (module docstring); record and return the row."""
        server = self.server
        cpu0 = server.cpu_s() if server else 0.0
        browser0 = _chromium_cpu_s()
        began = time.perf_counter()
        action()
        s = self.settle(page, began + timeout_s)
        wall = time.perf_counter() - began
        end = max(s["script"], s["lastMain"])
        row = {
            "step": step,
            "wait_s": round((end - s["t0"]) / 1000, 3),
            "script_s": round((s["script"] - s["t0"]) / 1000, 3),
            # The first server message: a new session's page and Streamlit's
            # bundle loaded and the websocket open (a rerun: the request sent).
            "first_msg_s": (
                round((s["firstMsg"] - s["t0"]) / 1000, 3)
                if s["firstMsg"] is not None
                else None
            ),
            # The first chart drawn from a partial result (None: none was).
            "partial_s": (
                round((s["firstPartial"] - s["t0"]) / 1000, 3)
                if s["firstPartial"] is not None
                else None
            ),
            "charts": s["charts"],
            "pending": s["pending"],
            "kb": round(s["bytes"] / 1024, 1),
            "server_cpu_s": round(server.cpu_s() - cpu0, 3) if server else None,
            "browser_cpu_s": round(_chromium_cpu_s() - browser0, 3),
            "wall_s": round(wall, 3),
            "load1": round(os.getloadavg()[0], 2),
            **extra,
        }
        self.rows.append(row)
        print(
            f"  {step}: {row['wait_s']:.2f} s (script {row['script_s']:.2f} s, "
            f"{row['charts']} charts, {row['kb']:.0f} KB, load {row['load1']})",
            flush=True,
        )
        return row

    def settle(self, page: Any, deadline: float) -> dict[str, Any]:
        """Poll the page until it is idle with every chart drawn (module
        docstring): the conditions must hold at two polls at least QUIET_MS
        apart with nothing changed in between, so a main thread busy parsing a
        script (which also holds the polls up) is never mistaken for quiet."""
        flight = self.in_flight.get(page, [0])
        first: dict[str, Any] | None = None
        while True:
            if time.perf_counter() > deadline:
                raise TimeoutError("the page did not settle")
            try:
                s = page.evaluate("(" + STATE_JS + ")()")
            except Exception:  # a navigation replaced the document: poll again
                first = None
                time.sleep(0.05)
                continue
            idle = (
                s["t0"] is not None
                and s["connected"]
                and s["state"] == "notRunning"
                and s["ran"]
                and flight[0] <= 0
            )
            if not idle:
                first = None
            elif first is None or _signature(first) != _signature(s):
                first = s
            else:
                quiet = s["now"] - first["now"]
                if quiet >= QUIET_MS and (s["pending"] == 0 or quiet >= GRACE_MS):
                    return s
            time.sleep(0.05)

    def load(self, step: str, url: str, timeout_s: float = 120.0, **extra: Any) -> Any:
        """Open ``url`` in a new browser session; the wait starts at navigation."""
        page = self.new_page()
        self.wait(
            step,
            page,
            lambda: page.goto(url, wait_until="commit"),
            timeout_s,
            **extra,
        )
        page.mouse.move(2, 2)
        return page

    def act(self, step: str, page: Any, do: Any, timeout_s: float = 120.0) -> dict:
        """An action in a loaded page: the wait starts at its keydown or click."""
        page.evaluate(ARM_JS)
        return self.wait(step, page, do, timeout_s)


def moves(
    lecture: Lecture,
    page: Any,
    slider_key: str,
    key: str,
    count: int,
    warmup: int,
    step: str,
) -> dict[str, Any]:
    """``warmup + count`` presses of ``key`` on a slider; p50/p90 of the last
    ``count`` (their rows are kept apart from the table's)."""
    slider = page.locator(f".st-key-{slider_key}").get_by_role("slider")
    samples = []
    for i in range(warmup + count):
        slider.focus()
        row = lecture.act(f"{step} #{i + 1}", page, lambda: page.keyboard.press(key))
        lecture.rows.pop()
        if i >= warmup:
            samples.append(row)
    return summarise(step, samples)


def summarise(step: str, samples: list[dict[str, Any]]) -> dict[str, Any]:
    def pct(key: str, q: float) -> float:
        ordered = sorted(s[key] for s in samples)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return {
        "step": step,
        "n": len(samples),
        "wait_s": pct("wait_s", 0.5),
        "p90_s": pct("wait_s", 0.9),
        "script_s": pct("script_s", 0.5),
        "charts": samples[-1]["charts"],
        "kb": statistics.median(s["kb"] for s in samples),
        "server_cpu_s": statistics.median(s["server_cpu_s"] for s in samples),
        "browser_cpu_s": statistics.median(s["browser_cpu_s"] for s in samples),
        "load1": samples[-1]["load1"],
        "samples": samples,
    }


# -- the parts ----------------------------------------------------------------------


def precompile_times(app_dir: Path) -> dict[str, Any] | None:
    """``python -m svmlab.compiled.precompile`` on an empty numba cache, then the same
    again: seconds from outside (process start to exit) and its own report."""
    if not (app_dir / "svmlab" / "precompile.py").is_file():
        return None
    out = {}
    with tempfile.TemporaryDirectory(prefix="svmlab_cache_") as cache:
        for label in ("cold cache", "warm cache"):
            began = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "svmlab.compiled.precompile"],
                cwd=app_dir,
                env={
                    **os.environ,
                    "SVMLAB_CACHE_DIR": cache,
                    "OPENBLAS_NUM_THREADS": "1",
                },
                capture_output=True,
                text=True,
                check=True,
            )
            report = json.loads(done.stdout)
            out[label] = {
                "process_s": round(time.perf_counter() - began, 2),
                "warm_up_s": round(report["seconds"], 2),
                "compiled": report["compiled"],
                "loaded": report["loaded"],
                "jobs": {k: round(v, 2) for k, v in report["jobs"].items()},
                "load1": round(os.getloadavg()[0], 2),
            }
            print(f"  precompile, {label}: {out[label]}", flush=True)
    return out


def floors(lecture: Lecture, count: int, warmup: int, label: str) -> dict:
    """Each floor page on its own server: first load, three warm loads (new
    sessions), slider moves."""
    out: dict[str, Any] = {}
    for name in ("bare", "plotly_chart", "naive_svc"):
        server = Server(str(FLOORS / f"{name}.py"), ROOT)
        lecture.server = server
        try:
            lecture.load(f"floor {name}: first load ({label})", server.url)
            first = lecture.rows[-1]
            warm = []
            for _ in range(3):
                lecture.load(f"floor {name}: warm load ({label})", server.url)
                warm.append(lecture.rows.pop())
            lecture.close_pages()
            page = lecture.load(f"floor {name}: page for moves", server.url)
            lecture.rows.pop()
            moved = moves(
                lecture, page, "floor_C", "ArrowRight", count, warmup,
                f"floor {name}: slider move ({label})",
            )  # fmt: skip
            out[name] = {
                "first_load": first,
                "warm_load": summarise(f"floor {name}: warm load", warm),
                "move": moved,
            }
        finally:
            lecture.close_pages()
            server.stop()
    return out


def fresh_clone(
    lecture: Lecture, app_dir: Path, cache: Path, pause: float
) -> dict[str, Any]:
    """First visits with an empty numba cache: /Explore first; the hub first and a
    preset clicked at once; the hub first and a preset after ``pause`` seconds
    (the lecturer's introduction), whose server fills ``cache`` for the second
    start."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="svmlab_cold_") as cold:
        server = Server("app.py", app_dir, {"SVMLAB_CACHE_DIR": cold})
        lecture.server = server
        try:
            page = lecture.load(
                "fresh clone: /Explore first (empty numba cache)",
                server.url + "/Explore",
                timeout_s=600,
            )
            out["explore_first"] = lecture.rows[-1]
            out["explore_first"]["numbers"] = page.evaluate(NUMBERS_JS)
        finally:
            lecture.close_pages()
            server.stop()
    for key, wait_s, directory in (
        ("preset_at_once", 0.0, None),
        ("preset_after_pause", pause, cache),
    ):
        with tempfile.TemporaryDirectory(prefix="svmlab_cold_") as cold:
            server = Server(
                "app.py", app_dir, {"SVMLAB_CACHE_DIR": str(directory or cold)}
            )
            lecture.server = server
            try:
                when = "at once" if not wait_s else f"{wait_s:g} s later"
                page = lecture.load(
                    f"fresh clone: the hub first (empty numba cache), preset {when}",
                    server.url,
                    timeout_s=600,
                )
                out[f"hub_{key}"] = lecture.rows[-1]
                time.sleep(wait_s)
                link = page.locator(
                    '[data-testid="stMain"] a[href*="preset=c_too_large"]'
                )
                lecture.act(
                    f"fresh clone: a preset clicked on the hub {when}",
                    page,
                    lambda link=link: link.first.click(),
                    timeout_s=600,
                )
                out[key] = lecture.rows[-1]
                out[key]["numbers"] = page.evaluate(NUMBERS_JS)
            finally:
                lecture.close_pages()
                server.stop()
    return out


def lecture_on(lecture: Lecture, app_dir: Path, cache: Path, args: Any) -> dict:
    """Everything after the fresh clone, on one server (second start)."""
    out: dict[str, Any] = {}
    server = Server("app.py", app_dir, {"SVMLAB_CACHE_DIR": str(cache)})
    lecture.server = server
    base = server.url
    try:
        page = lecture.load(
            "second start: /Explore first (filled cache)", base + "/Explore"
        )
        out["explore_second_start_numbers"] = page.evaluate(NUMBERS_JS)
        page = lecture.load("hub (new session)", base)
        for name, step in (
            ("c_too_large", "preset from the hub: C too large (Explore)"),
            ("losses_fig_27_17", "preset from the hub: outliers (Losses)"),
        ):
            link = page.locator(f'[data-testid="stMain"] a[href*="preset={name}"]')
            lecture.act(step, page, lambda link=link: link.first.click())
            hub = page.locator('[data-testid="stSidebar"] a', has_text="Lecture hub")
            lecture.act(
                "back to the hub (sidebar)", page, lambda hub=hub: hub.first.click()
            )
        lecture.close_pages()

        page = lecture.load("Explore (new session)", base + "/Explore")
        out["C_moves"] = moves(
            lecture, page, "explore_C_slider", "ArrowRight", args.moves, args.warmup,
            "Explore: C move, key press to every chart drawn",
        )  # fmt: skip
        out["sigma_moves"] = moves(
            lecture, page, "explore_sigma_slider", "ArrowLeft", args.moves,
            args.warmup, "Explore: σ move, key press to every chart drawn",
        )  # fmt: skip
        lecture.close_pages()

        for title, path in PAGES.items():
            if title != "Explore":
                lecture.load(f"{title}: first visit (new session)", f"{base}/{path}")
                lecture.close_pages()
        for title, path in PAGES.items():
            lecture.load(f"{title}: warm load (new session)", f"{base}/{path}")
            lecture.close_pages()
        page = lecture.load("hub (new session, for the switches)", base)
        lecture.rows.pop()
        for title in PAGES:
            link = page.locator('[data-testid="stSidebar"] a', has_text=title)
            lecture.act(
                f"{title}: page switch (sidebar)",
                page,
                lambda link=link: link.first.click(),
            )
        lecture.close_pages()

        buttons(lecture, base, args.skip_scaling)
    finally:
        lecture.close_pages()
        server.stop()
    return out


#: Each page's main button: (page path, button key, step, timeout in seconds).
BUTTONS = (
    ("Losses", "losses_run_sweep", "Losses: Run sweep", 180),
    ("Model_selection", "selection_run", "Model selection: Run sweep", 300),
    ("Solvers", "solvers_run_scaling", "Solvers: Run scaling (60 s budget)", 300),
)


def buttons(lecture: Lecture, base: str, skip_scaling: bool = False) -> None:
    """Every button of the lecture, each in a new session on a loaded page:
    a preset from the hub, Explore's "Compute the path", each page's main
    button (each row says when the first partial result was drawn,
    ``partial_s``, beside the complete wait)."""
    page = lecture.load("hub (new session, for the preset)", base)
    lecture.rows.pop()
    link = page.locator('[data-testid="stMain"] a[href*="preset=c_too_large"]')
    lecture.act("preset from the hub: C too large (Explore)", page, link.first.click)
    lecture.close_pages()
    page = lecture.load("Explore for the path", base + "/Explore")
    lecture.rows.pop()
    tool = page.locator(".st-key-explore_tool").get_by_text(
        "Regularisation path", exact=True
    )
    lecture.act("Explore: tool 'Regularisation path'", page, tool.click)
    run = page.locator(".st-key-explore_path_run button")
    lecture.act("Explore: Compute the path", page, run.click, 180)
    lecture.close_pages()
    for path, key, step, timeout in BUTTONS:
        if skip_scaling and key == "solvers_run_scaling":
            continue
        page = lecture.load(f"{path} for its button", f"{base}/{path}")
        lecture.rows.pop()
        button = page.locator(f".st-key-{key} button")
        lecture.act(step, page, button.click, timeout)
        lecture.close_pages()
    # The Multiclass page has no button: its three fits run as it loads.
    page = lecture.load("hub (new session, for Multiclass)", base)
    lecture.rows.pop()
    link = page.locator('[data-testid="stSidebar"] a', has_text="Multiclass")
    lecture.act("Multiclass: page switch (its three fits)", page, link.first.click)
    lecture.close_pages()


def buttons_only(browser: Any, app_dir: Path, rounds: int, skip: bool) -> dict:
    """Only the buttons, ``rounds`` times, each round on a server of its own (a
    second round on the same server would be served the first's shared
    results): every page loaded once first (its imports and compiled code),
    then :func:`buttons`. Medians per button over the rounds."""
    per_step: dict[str, list[dict[str, Any]]] = {}
    for r in range(rounds):
        print(f"round {r + 1} of {rounds}:", flush=True)
        lecture = Lecture(browser)
        server = Server("app.py", app_dir)
        lecture.server = server
        try:
            for path in ("", *PAGES.values()):
                lecture.load(f"warm {path or 'hub'}", f"{server.url}/{path}")
                lecture.close_pages()
            lecture.rows.clear()
            buttons(lecture, server.url, skip)
        finally:
            lecture.close_pages()
            server.stop()
        for row in lecture.rows:
            per_step.setdefault(row["step"], []).append(row)
    table = []
    for step, samples in per_step.items():

        def med(key: str, samples=samples) -> float | None:
            values = [s[key] for s in samples if s[key] is not None]
            return round(statistics.median(values), 3) if values else None

        table.append(
            {
                "button": step,
                "rounds": len(samples),
                "partial_s": med("partial_s"),
                "complete_s": med("wait_s"),
                "script_s": med("script_s"),
                "server_cpu_s": med("server_cpu_s"),
                "browser_cpu_s": med("browser_cpu_s"),
                "charts": samples[-1]["charts"],
                "KB": med("kb"),
                "load1": med("load1"),
                "samples": samples,
            }
        )
    return {"buttons": table}


def first_visits(browser: Any, app_dir: Path, rounds: int) -> dict:
    """A fresh clone's first Explore, ``rounds`` times beside the floor's first
    load, each on a server of its own: the floor page with one small Plotly chart;
    a fresh ``git clone`` of ``app_dir`` (no bytecode) installed as the README
    says (``python -m svmlab.compiled.precompile`` into an empty numba cache, timed as
    the install's step, then ``streamlit run``); and a fresh clone started without
    that step (an empty cache: the solvers compile while the first page loads).
    Medians per step over the rounds."""
    per_step: dict[str, list[dict[str, Any]]] = {}
    install: list[float] = []
    for r in range(rounds):
        print(f"round {r + 1} of {rounds}:", flush=True)
        lecture = Lecture(browser)
        server = Server(str(FLOORS / "plotly_chart.py"), ROOT)
        lecture.server = server
        try:
            lecture.load("floor plotly_chart: first load", server.url)
            lecture.rows[-1]["server_start_s"] = round(server.healthy_s, 3)
        finally:
            lecture.close_pages()
            server.stop()
        for label, precompile in (
            ("fresh clone, README install: /Explore first", True),
            ("fresh clone, no precompile: /Explore first", False),
        ):
            with (
                tempfile.TemporaryDirectory(prefix="svmlab_clone_") as clone,
                tempfile.TemporaryDirectory(prefix="svmlab_cold_") as cache,
            ):
                subprocess.run(["git", "clone", "-q", str(app_dir), clone], check=True)
                env = {"SVMLAB_CACHE_DIR": cache}
                if precompile:
                    began = time.perf_counter()
                    subprocess.run(
                        [sys.executable, "-m", "svmlab.compiled.precompile"],
                        cwd=clone,
                        env={**os.environ, **env, "OPENBLAS_NUM_THREADS": "1"},
                        capture_output=True,
                        check=True,
                    )
                    install.append(round(time.perf_counter() - began, 2))
                server = Server("app.py", Path(clone), env)
                lecture.server = server
                try:
                    page = lecture.load(label, server.url + "/Explore", timeout_s=600)
                    lecture.rows[-1]["numbers"] = page.evaluate(NUMBERS_JS)
                    lecture.rows[-1]["server_start_s"] = round(server.healthy_s, 3)
                finally:
                    lecture.close_pages()
                    server.stop()
        for row in lecture.rows:
            per_step.setdefault(row["step"], []).append(row)
    floor = statistics.median(
        s["wait_s"] for s in per_step["floor plotly_chart: first load"]
    )
    table = []
    for step, samples in per_step.items():
        wait = statistics.median(s["wait_s"] for s in samples)
        table.append(
            {
                "step": step,
                "rounds": len(samples),
                "wait_s": round(wait, 3),
                "x_floor": round(wait / floor, 2),
                "script_s": round(statistics.median(s["script_s"] for s in samples), 3),
                "server_cpu_s": round(
                    statistics.median(s["server_cpu_s"] for s in samples), 3
                ),
                "load1": round(statistics.median(s["load1"] for s in samples), 2),
                # From `streamlit run` to the server's health answer: what the
                # server does at its start (svmlab's imports) is not hidden.
                "server_start_s": round(
                    statistics.median(s["server_start_s"] for s in samples), 3
                ),
                "samples": samples,
            }
        )
    return {
        "first_visits": table,
        "precompile_install_s": install,
    }


# -- the table ----------------------------------------------------------------------


def report(result: dict[str, Any]) -> None:
    f0, f1 = result["floors_before"], result["floors_after"]

    def floor(name: str, part: str) -> float:
        return statistics.median([f0[name][part]["wait_s"], f1[name][part]["wait_s"]])

    rows = []
    for row in result["waits"]:
        step = row["step"]
        # A key press against the floors' slider moves, a first visit against
        # their first load, any other load or switch against their warm load.
        part = (
            "move"
            if "move" in step
            else "first_load"
            if "first" in step or "fresh clone" in step
            else "warm_load"
        )
        rows.append(
            {
                "what the lecturer does": step,
                "wait_s": row["wait_s"],
                "p90_s": row.get("p90_s", ""),
                "first_msg_s": row.get("first_msg_s", ""),
                "script_s": row["script_s"],
                "charts": row["charts"],
                "KB": row["kb"],
                "server_cpu_s": row["server_cpu_s"],
                "browser_cpu_s": row["browser_cpu_s"],
                "load1": row["load1"],
                "floor": part,
                "floor_bare_s": floor("bare", part),
                "floor_plotly_s": floor("plotly_chart", part),
                "x_plotly": round(row["wait_s"] / floor("plotly_chart", part), 2),
                "naive_svc_s": floor("naive_svc", part),
            }
        )
    print()
    print_table(rows, list(rows[0]))
    print()
    floor_rows = []
    for label, fl in (("before", f0), ("after", f1)):
        for name, parts in fl.items():
            floor_rows.append(
                {
                    "floor": f"{name} ({label})",
                    "first_load_s": parts["first_load"]["wait_s"],
                    "warm_load_s": parts["warm_load"]["wait_s"],
                    "move_p50_s": parts["move"]["wait_s"],
                    "move_p90_s": parts["move"]["p90_s"],
                    "move_KB": parts["move"]["kb"],
                    "load1": parts["move"]["load1"],
                }
            )
    print_table(floor_rows, list(floor_rows[0]))
    fresh = result["fresh_clone"]
    for key in ("explore_first", "preset_at_once", "preset_after_pause"):
        numbers = fresh[key].get("numbers", {})
        print(f"{fresh[key]['step']}: the page's fit time {numbers.get('fit time')}")
    numbers = result["lecture"].get("explore_second_start_numbers", {})
    print(
        f"second start, /Explore first: the page's fit time {numbers.get('fit time')}"
    )
    if result.get("precompile"):
        for label, part in result["precompile"].items():
            print(f"python -m svmlab.compiled.precompile, {label}: {part}")
    print(f"\nload at start {result['load_start']}, at end {result['load_end']}")


def _alone(run: Any, table: str) -> dict[str, Any]:
    """One of the single-part modes (``--first-visit-only``, ``--buttons-only``):
    ``run(browser)`` in Chromium, the load before and after, its ``table``
    printed without the samples."""
    from playwright.sync_api import sync_playwright

    load_start = machine_load()
    print(f"load at start: {load_start}", flush=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        result = run(browser)
        browser.close()
    result.update(load_start=load_start, load_end=machine_load())
    print()
    print_table(result[table], [c for c in result[table][0] if c != "samples"])
    return result


def _finish_alone(result: dict[str, Any], args: Any, suffix: str) -> None:
    result["app_dir"] = str(args.app_dir)
    print(f"\nload at start {result['load_start']}, at end {result['load_end']}")
    print(f"wrote {write_json('lecture_flow', result, mode=suffix)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--skip-scaling", action="store_true")
    parser.add_argument(
        "--pause",
        type=float,
        default=20.0,
        help="seconds on the hub before the preset, fresh clone (the introduction)",
    )
    parser.add_argument("--app-dir", type=Path, default=ROOT)
    parser.add_argument(
        "--buttons-only",
        action="store_true",
        help="time only the buttons (first partial result and complete), "
        "--rounds times, each round on a new server; mode buttons in "
        "results/lecture_flow.json",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--first-visit-only",
        action="store_true",
        help="time only a fresh clone's first Explore (README install, and without "
        "its precompile step) beside the floor's first load, --rounds times; "
        "mode first_visit in results/lecture_flow.json",
    )
    parser.add_argument(
        "--ports", help="a range FIRST-LAST the servers take their ports from"
    )
    args = parser.parse_args()
    if args.ports:
        global PORTS
        first, last = (int(v) for v in args.ports.split("-"))
        PORTS = range(first, last + 1)

    from playwright.sync_api import sync_playwright

    if args.first_visit_only:
        result = _alone(
            lambda browser: first_visits(browser, args.app_dir, args.rounds),
            "first_visits",
        )
        print(f"install's precompile step: {result['precompile_install_s']} s")
        _finish_alone(result, args, "first_visit")
        return
    if args.buttons_only:
        result = _alone(
            lambda browser: buttons_only(
                browser, args.app_dir, args.rounds, args.skip_scaling
            ),
            "buttons",
        )
        _finish_alone(result, args, "buttons")
        return

    result: dict[str, Any] = {
        "app_dir": str(args.app_dir),
        "load_start": machine_load(),
        "settings": {
            "moves": args.moves,
            "warmup": args.warmup,
            "quiet_ms": QUIET_MS,
            "pause_s": args.pause,
        },
    }
    print(f"load at start: {result['load_start']}", flush=True)
    print("precompile:", flush=True)
    result["precompile"] = precompile_times(args.app_dir)
    with sync_playwright() as pw, tempfile.TemporaryDirectory(prefix="svmlab_c_") as c:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        lecture = Lecture(browser)
        print("floors (before):", flush=True)
        result["floors_before"] = floors(lecture, args.moves, args.warmup, "before")
        lecture.rows.clear()
        print("fresh clone:", flush=True)
        result["fresh_clone"] = fresh_clone(lecture, args.app_dir, Path(c), args.pause)
        print("lecture:", flush=True)
        result["lecture"] = lecture_on(lecture, args.app_dir, Path(c), args)
        waits = list(lecture.rows)
        for key in ("C_moves", "sigma_moves"):
            waits.append(
                {k: v for k, v in result["lecture"][key].items() if k != "samples"}
            )
        result["waits"] = waits
        print("floors (after):", flush=True)
        lecture.rows = []
        result["floors_after"] = floors(lecture, args.moves, args.warmup, "after")
        browser.close()
    result["load_end"] = machine_load()
    report(result)
    path = write_json("lecture_flow", result, mode="lecture")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

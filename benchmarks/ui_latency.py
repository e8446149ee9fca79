"""Explore and Regression latency in Chromium: C-slider key press -> charts redrawn.

    python -m benchmarks ui_latency [--moves 20] [--warmup 3] [--sizes 200 1000]
        [--regression-sizes 100 500]

Starts ``streamlit run app.py`` on a free 127.0.0.1 port (one BLAS thread, no
file watcher), opens ``/Explore?n=<n>&loss=<loss>`` in headless Debian Chromium
(Playwright, ``/usr/bin/chromium``, the flags of ``benchmarks/harness/app_server.py``)
for every loss whose default ("auto") solver is registered, and presses
ArrowRight on the C slider ``--moves`` times, always in the same direction (a
value seen before may come back as a cached reference and flatter the numbers).

One move is timed from the keydown event, in the page, to the last of: the
script state going ``running`` -> ``notRunning``, and the last DOM mutation
(plus the next animation frame) inside the main chart's element, once the page
has been quiet for 250 ms. The other charts (alpha histogram, loss panel) are
timed too ("all charts"): the page draws them when the browser is idle after
the main one (svmlab.ui.frame.chart). A chart is a ``st.plotly_chart`` element or a
Plotly div (``.js-plotly-plot``) inside one. Streamlit may skip showing
``running`` for a short rerun handled in one render; the server's messages
since the key press then stand for it (and the last one for the script's end).
The mouse stays off the charts (hover changes the DOM). The Regression page is
timed the same way beside Explore (``/Regression?n=<n>``: ε-SVR on sinc, its
tube chart the main one, the stems and the loss the others). Prints a p50 / p90
table and writes ``benchmarks/results/ui_latency.json``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness.app_server import CHROMIUM, CHROMIUM_ARGS, start_server, stop  # noqa: E402
from benchmarks.harness.report import print_table, write_json  # noqa: E402
from benchmarks.harness.script_states import with_state_log  # noqa: E402
from svmlab import losses, solvers  # noqa: E402

QUIET_MS = 250

#: The main chart of each timed page (Explore's plane, Regression's tube).
MAIN_CHART = '[class*="st-key-explore_chart"], [class*="st-key-regression_chart"]'

INIT_JS = r"""
(() => {
  const MAIN_CHART = '__MAIN__';
  if (window.__lat) return;
  const now = () => performance.now();
  const L = window.__lat = {
    t0: null, states: [], main: 0, charts: 0, bytes: 0, lastMsg: 0,
  };
  window.addEventListener('keydown', () => { if (L.t0 === null) L.t0 = now(); }, true);
  const Orig = window.WebSocket;
  window.WebSocket = class extends Orig {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (e) => {
        const d = e.data;
        L.lastMsg = now();
        if (L.t0 !== null) L.bytes += (d && (d.byteLength || d.size)) || 0;
      });
    }
  };
  new MutationObserver((records) => {
    const t = now();
    let main = false, chart = false;
    for (const r of records) {
      __LOG_STATE__
      if (el.closest('[data-testid="stPlotlyChart"], .js-plotly-plot')) {
        chart = true;
        if (el.closest(MAIN_CHART)) main = true;
      }
    }
    if (chart) {
      L.charts = t;
      requestAnimationFrame(() => { L.charts = Math.max(L.charts, now()); });
    }
    if (main) {
      L.main = t;
      requestAnimationFrame(() => { L.main = Math.max(L.main, now()); });
    }
  }).observe(document, {subtree: true, childList: true, attributes: true,
                        attributeOldValue: true,
                        characterData: true});
})();
"""

ARM_JS = "() => { const L = window.__lat; L.t0 = null; L.bytes = 0; }"

DONE_JS = """([quiet]) => {
  const L = window.__lat, t = performance.now();
  if (L.t0 === null) return false;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const after = L.states.filter(([ts]) => ts >= L.t0);
  // Streamlit may never show `running` for a short rerun handled in one render
  // (see tests/browser/conftest.py): server messages since t0 tell it ran.
  if (!after.some(([, s]) => s === 'running') && !(L.lastMsg > L.t0)) return false;
  if (!(L.main > L.t0)) return false;
  const states = after.length ? after[after.length - 1][0] : 0;
  const last = Math.max(L.main, L.charts, states, L.lastMsg);
  return t - last >= quiet;
}"""

RESULT_JS = """() => {
  const L = window.__lat;
  const after = L.states.filter(([ts]) => ts >= L.t0);
  const done = [...after].reverse().find(([, s]) => s === 'notRunning');
  const run = after.find(([, s]) => s === 'running');
  const script = done ? done[0] : L.lastMsg;
  return {
    main_ms: Math.max(script, L.main) - L.t0,
    all_ms: Math.max(script, L.main, L.charts) - L.t0,
    script_done_ms: script - L.t0,
    running_ms: run ? run[0] - L.t0 : null,
    bytes: L.bytes,
  };
}"""

LOADED_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const main = document.querySelector(
    '[class*="st-key-explore_chart"] .main-svg, '
    + '[class*="st-key-regression_chart"] .main-svg');
  return !!main;
}"""


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _cpu_ms(pid: int) -> float:
    """User + system CPU time of a process (and its finished children), in ms."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields[11:15]) * 1000.0 / os.sysconf("SC_CLK_TCK")


def _chromium_pids() -> list[int]:
    """This process's Chromium descendants (browser, renderers, GPU, utility).

    Other helpers may run Chromium too: only our own process tree counts.
    """
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    found, stack = [], [os.getpid()]
    while stack:
        for child in children.get(stack.pop(), []):
            stack.append(child)
            try:
                if Path(f"/proc/{child}/comm").read_text().startswith("chrom"):
                    found.append(child)
            except OSError:
                continue
    return found


def _browser_cpu_ms(pids: list[int]) -> float:
    """CPU time of the Chromium processes: what the browser did, whatever the
    load of the machine (wall times stretch when other work takes the cores)."""
    total = 0.0
    for pid in pids:
        try:
            total += _cpu_ms(pid)
        except (OSError, IndexError, ValueError):
            continue
    return total


def _task_ms(cdp) -> float:
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return 1000.0 * next(m["value"] for m in metrics if m["name"] == "TaskDuration")


INIT_JS = with_state_log(INIT_JS).replace("__MAIN__", MAIN_CHART)

#: Each page's C slider (its element key).
C_SLIDERS = {
    "explore": ".st-key-explore_C_slider",
    "regression": ".st-key-regression_C",
}


def measure(
    page,
    url: str,
    moves: int,
    warmup: int,
    server_pid: int,
    slider_key: str = C_SLIDERS["explore"],
) -> list[dict]:
    """Time ``warmup + moves`` C-slider steps; return the last ``moves``.

    Besides wall times, each sample holds the CPU the work took, which other
    load on the machine does not inflate: ``server_cpu_ms`` (the Streamlit
    process) and ``browser_cpu_ms`` (every Chromium process of this run), and
    ``browser_task_ms`` (the renderer's main-thread task time, Chrome's
    ``TaskDuration`` metric: wall time, so it stretches under load).
    """
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.goto(url)
    page.wait_for_function(LOADED_JS, timeout=120_000)
    page.wait_for_timeout(1000)  # plotly.js parsed, every chart drawn
    page.mouse.move(2, 2)
    slider = page.locator(slider_key).get_by_role("slider")
    slider.focus()
    pids = _chromium_pids()
    samples = []
    for i in range(warmup + moves):
        page.evaluate(ARM_JS)
        cpu0, task0 = _cpu_ms(server_pid), _task_ms(cdp)
        browser0 = _browser_cpu_ms(pids)
        slider.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function(DONE_JS, arg=[QUIET_MS], timeout=120_000, polling=10)
        result = page.evaluate(RESULT_JS)
        result["server_cpu_ms"] = _cpu_ms(server_pid) - cpu0
        result["browser_task_ms"] = _task_ms(cdp) - task0
        result["browser_cpu_ms"] = _browser_cpu_ms(pids) - browser0
        if i >= warmup:
            samples.append(result)
    return samples


def warm_start_rows(sizes: list[int], steps: int = 10) -> list[dict]:
    """Fit time of C-slider steps, cold and warm-started from the previous alpha.

    The page passes the last ``alpha_`` as ``init`` when only C or sigma moved
    (svmlab.ui.explore.cache.fit_settings); this measures what that buys per solver.
    """
    import numpy as np

    from svmlab import SVC, datasets
    from svmlab.ui.frame.link_values import C_GRID

    rows = []
    start = C_GRID.index(10.0)
    grid = C_GRID[start : start + steps + 1]
    for n in sizes:
        X, y = datasets.make("spiral", n_samples=n, random_state=0)
        for name, spec in solvers.SOLVERS.items():
            if not spec.iterative:
                continue
            loss = sorted(spec.losses)[0]
            bias = "unregularized" if spec.with_intercept else "none"

            def model(C: float, name=name, loss=loss, bias=bias) -> SVC:
                return SVC(C=C, sigma=3.3, loss=loss, solver=name, bias=bias)

            previous = model(grid[0]).fit(X, y).alpha_
            cold, warm = [], []
            for C in grid[1:]:
                t = time.perf_counter()
                model(C).fit(X, y)
                cold.append(time.perf_counter() - t)
                t = time.perf_counter()
                previous = model(C).fit(X, y, init=previous).alpha_
                warm.append(time.perf_counter() - t)
            rows.append(
                {
                    "n": n,
                    "solver": name,
                    "loss": loss,
                    "cold_ms": round(1000 * float(np.median(cold)), 1),
                    "warm_ms": round(1000 * float(np.median(warm)), 1),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="*", default=[200, 1000])
    parser.add_argument("--losses", nargs="*", default=list(losses.LOSSES))
    parser.add_argument(
        "--regression-sizes",
        type=int,
        nargs="*",
        default=[100, 500],
        help="n of the Regression page's runs (none: Explore only)",
    )
    parser.add_argument("--query", default="", help="extra query, e.g. data=moons")
    parser.add_argument(
        "--app-dir", type=Path, default=ROOT, help="directory holding app.py"
    )
    parser.add_argument(
        "--mode", default="default", help="the run's name in results/ui_latency.json"
    )
    parser.add_argument("--no-warm", action="store_true", help="skip warm starts")
    parser.add_argument(
        "--blas-threads", type=int, default=1, help="BLAS threads of the server"
    )
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    warm_rows = [] if args.no_warm else warm_start_rows(args.sizes)
    if warm_rows:
        print("Warm start (C slider steps, median fit time):")
        print_table(warm_rows, list(warm_rows[0]))
        print()

    runs: list[tuple[str, str]] = []
    skipped: dict[str, str] = {}
    for loss in args.losses:
        try:
            name = solvers.resolve_solver(
                "auto", loss, fit_intercept=True, hard_margin=False
            )
        except solvers.IncompatibleLossError:
            skipped[loss] = "no registered solver"
            print(f"skipped {loss}: no registered solver for it yet")
            continue
        runs.append((loss, name))

    rows, raw = [], []
    load_start = os.getloadavg()
    print(f"load average at start: {load_start}")
    threads = str(args.blas_threads)
    proc, base = start_server(
        args.app_dir,
        env={
            "OPENBLAS_NUM_THREADS": threads,
            "OMP_NUM_THREADS": threads,
            "SVMLAB_BLAS_THREADS": threads,
        },
    )
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            context = browser.new_context(
                viewport={"width": 1400, "height": 1000}, device_scale_factor=1
            )
            context.add_init_script(INIT_JS)
            page = context.new_page()
            plan = [
                ("explore", n, loss, solver, f"{base}/Explore?n={n}&loss={loss}")
                for n in args.sizes
                for loss, solver in runs
            ] + [
                ("regression", n, "epsilon_insensitive", "box SMO", "")
                for n in args.regression_sizes
            ]
            for page_name, n, loss, solver, url in plan:
                if page_name == "regression":
                    url = f"{base}/Regression?n={n}"
                url += f"&{args.query}" if args.query and page_name == "explore" else ""
                samples = measure(
                    page,
                    url,
                    args.moves,
                    args.warmup,
                    proc.pid,
                    C_SLIDERS[page_name],
                )
                main_ms = [s["main_ms"] for s in samples]
                all_ms = [s["all_ms"] for s in samples]
                script = [s["script_done_ms"] for s in samples]
                row = {
                    "page": page_name,
                    "n": n,
                    "loss": loss,
                    "solver": solver,
                    "moves": len(samples),
                    "p50_ms": round(statistics.median(main_ms), 1),
                    "p90_ms": round(_pct(main_ms, 0.9), 1),
                    "all_charts_p50_ms": round(statistics.median(all_ms), 1),
                    "script_done_p50_ms": round(statistics.median(script), 1),
                    "server_cpu_p50_ms": round(
                        statistics.median(s["server_cpu_ms"] for s in samples), 1
                    ),
                    "browser_cpu_p50_ms": round(
                        statistics.median(s["browser_cpu_ms"] for s in samples), 1
                    ),
                    "browser_task_p50_ms": round(
                        statistics.median(s["browser_task_ms"] for s in samples), 1
                    ),
                    "kB_per_move": round(
                        statistics.median(s["bytes"] for s in samples) / 1000, 1
                    ),
                }
                rows.append(row)
                raw.append({**row, "samples": samples})
                print_table([row], list(row))
            browser.close()
    finally:
        stop(proc)
    print()
    print_table(rows, list(rows[0]) if rows else ["n"])
    path = write_json(
        "ui_latency",
        {
            "what": "C slider ArrowRight -> main Plotly chart redrawn (ms), "
            "Explore and Regression",
            "targets_ms": {"200": 150, "1000": 400},
            "skipped": skipped,
            "warm_start": warm_rows,
            "blas_threads": args.blas_threads,
            "load_average_at_start": load_start,
            "load_average_at_end": os.getloadavg(),
            "rows": raw,
        },
        mode=args.mode,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

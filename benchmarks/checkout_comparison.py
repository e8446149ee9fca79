"""Two checkouts of the app side by side in Chromium: page loads, slider moves
and buttons, interleaved, with lecture_flow's waits and floors (issue 28).

    python -m benchmarks checkout_comparison --a DIR --b DIR [--rounds 3]
        [--moves 10] [--parts moves,loads,buttons] [--mode NAME]

One server per checkout (``--a``, ``--b``) and the bare, naive SVC and
small-Plotly floors (``benchmarks/floors/``), all started once; then
``--rounds`` rounds, each measuring, for A then B (then B then A in the next
round, so neither always goes first on a machine whose load drifts):

* ``moves``: Explore in a new session, ``--moves`` C moves (ArrowRight) and σ
  moves (ArrowLeft) after two warm-up presses each, beside the slider moves of
  the naive page, the bare page (Streamlit's own floor for a rerun on this
  machine at this load) and svmlab's own chart floor (``svmlab_charts.py``:
  Explore's decision chart alone, then with the α histogram and the loss
  chart, in a fragment, with nothing else of the page);
* ``loads``: every page's warm load in a new browser session (the hub, Explore,
  Losses, Solvers, Model selection, Multiclass), beside the small-Plotly floor's;
* ``buttons``: a preset from the hub (C too large, Explore) and the Multiclass
  page from the hub by the sidebar (its three fits), each on a server of its
  own started for it (a second click on one server would be served the first's
  shared results), after the pages were loaded once.

Waits are lecture_flow's (``Lecture.wait``: action to every chart of the main
pane drawn and quiet). Prints the medians per (checkout, step) with the load
average; the JSON goes to ``results/checkout_comparison.json`` (mode: ``--mode``, else
the parts). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness.app_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from benchmarks.harness.report import machine_load, print_table, write_json  # noqa: E402
from benchmarks.lecture_flow import (  # noqa: E402
    FLOORS,
    PAGES,
    Lecture,
    Server,
)

KEYS = ("wait_s", "script_s", "first_msg_s", "kb", "server_cpu_s", "browser_cpu_s")


def _moves(lecture: Lecture, url: str, slider: str, key: str, n: int, tag: str):
    page = lecture.load(f"{tag} page", url)
    lecture.rows.pop()
    handle = page.locator(f".st-key-{slider}").get_by_role("slider")
    for i in range(n + 2):
        handle.focus()
        lecture.act(f"{tag} #{i}", page, lambda: page.keyboard.press(key))
        row = lecture.rows.pop()
        if i >= 2:
            lecture.rows.append({**row, "step": tag})
    lecture.close_pages()


def moves(
    lecture: Lecture,
    who: str,
    server: Server,
    floors: dict[str, tuple[Server, str]],
    n: int,
) -> None:
    lecture.server = server
    _moves(lecture, server.url + "/Explore", "explore_C_slider", "ArrowRight", n,
           f"{who}: Explore C move")  # fmt: skip
    _moves(lecture, server.url + "/Explore", "explore_sigma_slider", "ArrowLeft", n,
           f"{who}: Explore σ move")  # fmt: skip
    for name, (floor, query) in floors.items():
        lecture.server = floor
        _moves(lecture, floor.url + query, "floor_C", "ArrowRight", n,
               f"floor {name}: move")  # fmt: skip


def loads(lecture: Lecture, who: str, server: Server, floor: Server) -> None:
    lecture.server = server
    for title, path in {"hub": "", **PAGES}.items():
        lecture.load(f"{who}: {title} warm load", f"{server.url}/{path}")
        lecture.close_pages()
    lecture.server = floor
    lecture.load("floor plotly_chart: warm load", floor.url)
    lecture.close_pages()


def buttons(lecture: Lecture, who: str, app_dir: Path) -> None:
    server = Server("app.py", app_dir)
    lecture.server = server
    try:
        for path in ("", *PAGES.values()):
            lecture.load("warm", f"{server.url}/{path}")
            lecture.rows.pop()
            lecture.close_pages()
        page = lecture.load("hub", server.url)
        lecture.rows.pop()
        link = page.locator('[data-testid="stMain"] a[href*="preset=c_too_large"]')
        lecture.act(f"{who}: preset from the hub", page, link.first.click)
        lecture.close_pages()
        page = lecture.load("hub", server.url)
        lecture.rows.pop()
        link = page.locator('[data-testid="stSidebar"] a', has_text="Multiclass")
        lecture.act(f"{who}: Multiclass from the hub", page, link.first.click)
        lecture.close_pages()
    finally:
        lecture.close_pages()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--a", type=Path, required=True)
    parser.add_argument("--b", type=Path, default=ROOT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--parts", default="moves,loads,buttons")
    parser.add_argument(
        "--mode",
        help="the run's name in results/checkout_comparison.json "
        "(default: the parts measured, e.g. moves)",
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    from playwright.sync_api import sync_playwright

    result: dict[str, Any] = {
        "a": str(args.a), "b": str(args.b), "load_start": machine_load(),
    }  # fmt: skip
    dirs = {"A": args.a, "B": args.b}
    servers = {who: Server("app.py", d) for who, d in dirs.items()}
    naive = Server(str(FLOORS / "naive_svc.py"), ROOT)
    bare = Server(str(FLOORS / "bare.py"), ROOT)
    small = Server(str(FLOORS / "plotly_chart.py"), ROOT)
    own = Server(str(FLOORS / "svmlab_charts.py"), ROOT)
    move_floors = {
        "naive_svc": (naive, ""),
        "bare": (bare, ""),
        "svmlab one chart": (own, "/?charts=1"),
        "svmlab three charts": (own, "/?charts=3"),
    }
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            lecture = Lecture(browser)
            for server in servers.values():  # imports, compiled code, caches
                lecture.server = server
                for path in ("", *PAGES.values()):
                    lecture.load("warm", f"{server.url}/{path}")
                    lecture.close_pages()
            lecture.rows.clear()
            for r in range(args.rounds):
                order = ("A", "B") if r % 2 == 0 else ("B", "A")
                print(f"round {r + 1}: {order}", flush=True)
                for who in order:
                    if "moves" in parts:
                        moves(
                            lecture,
                            who,
                            servers[who],
                            move_floors,
                            args.moves,
                        )
                    if "loads" in parts:
                        loads(lecture, who, servers[who], small)
                    if "buttons" in parts:
                        buttons(lecture, who, dirs[who])
            browser.close()
    finally:
        for server in (*servers.values(), naive, bare, small, own):
            server.stop()
    per: dict[str, list[dict[str, Any]]] = {}
    for row in lecture.rows:
        per.setdefault(row["step"], []).append(row)
    table = []
    for step in sorted(per):
        samples = per[step]
        line: dict[str, Any] = {"step": step, "n": len(samples)}
        for key in KEYS:
            values = [s[key] for s in samples if s.get(key) is not None]
            line[key] = round(statistics.median(values), 3) if values else None
        line["load1"] = round(statistics.median(s["load1"] for s in samples), 2)
        table.append(line)
    result.update(table=table, rows=lecture.rows, load_end=machine_load())
    print_table(table, list(table[0]))
    print(f"load {result['load_start']} -> {result['load_end']}; {os.getloadavg()}")
    mode = args.mode or args.parts.replace(",", "+")
    print(f"wrote {write_json('checkout_comparison', result, mode=mode)}")


if __name__ == "__main__":
    main()

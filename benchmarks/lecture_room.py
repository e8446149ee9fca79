"""A lecture room on one server: N students moving C and sigma at once (issue 21).

    python -m benchmarks lecture_room [--sessions 1 10 30 60] [--duration 120]
        [--slow 0] [--url http://127.0.0.1:8501 | --start-server] [--seed 0]

Each session is a real Streamlit session spoken to in Streamlit's own websocket
protocol (``/_stcore/stream``, protobuf ``BackMsg`` / ``ForwardMsg``, the
classes Streamlit ships): it opens the Explore page with a URL's settings, then
moves the C and sigma sliders at a human pace (one move every 1-3 s, drawn from
the seed), waiting for each rerun to finish as a student waits for the picture.
Headless Chromium pages were the other option; sixty browsers would need more
CPU and memory than the server they measure on a two-core machine, so the
generator measures the server alone: a move's latency is the time from the
rerun request to Streamlit's ``script_finished`` (the browser's drawing, about
30 ms for the chart, comes on top and is the student's own machine's work).

It reports per-move latency (p50, p90, p99) for each N, the moves that showed an
error (an exception or an ``st.error`` box) or never finished, and the server's
memory (RSS) and CPU over time when it knows the server's process (``--start-server``
or ``--server-pid``). ``--slow K`` makes K of the sessions ask for the slowest
settings the page allows (n = 2000, the squared ramp, C = 10^4) and reports the
others' latency apart. Loopback only; at most 200 sessions and one hour; it
stops by itself. Writes ``benchmarks/results/lecture_room.json`` with the load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlparse

import numpy as np

from benchmarks.harness.streamlit_client import _protocol, connect

MAX_SESSIONS = 200
MAX_SECONDS = 3600.0
#: A rerun that has not finished by then counts as lost.
MOVE_TIMEOUT_S = 60.0
ROOT = Path(__file__).resolve().parents[1]

#: The URL settings of an ordinary session and of a slow one (the page's limits).
ORDINARY = {"data": "two_circles"}
SLOW = {"data": "two_circles", "n": "2000", "loss": "squared_ramp", "C": "10000"}


@dataclass
class SessionLog:
    """What one session saw."""

    slow: bool
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lost: int = 0
    first_load_s: float = float("nan")


async def _rerun(
    ws,
    query: str,
    states: dict[str, list[str]],
    log: SessionLog,
    fragment: str = "",
):
    """One rerun of the Explore page; returns (seconds, the select sliders drawn
    (label -> id, options, default index, fragment id), the number inputs' values).

    ``fragment``: a moved widget that lives in a fragment reruns that fragment
    only, as the browser asks (its ``fragment_id``), not the whole page.
    """
    BackMsg, ForwardMsg = _protocol()
    msg = BackMsg()
    msg.rerun_script.query_string = query
    msg.rerun_script.page_name = "Explore"
    msg.rerun_script.fragment_id = fragment
    for wid, value in states.items():
        w = msg.rerun_script.widget_states.widgets.add()
        w.id = wid
        w.string_array_value.data.extend(value)  # select sliders send labels
    start = time.perf_counter()
    await ws.send(msg.SerializeToString())
    sliders: dict[str, tuple[str, list[str], int, str]] = {}
    numbers: dict[str, float] = {}
    while True:
        fm = ForwardMsg()
        fm.ParseFromString(await asyncio.wait_for(ws.recv(), MOVE_TIMEOUT_S))
        kind = fm.WhichOneof("type")
        if kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
            el = fm.delta.new_element
            what = el.WhichOneof("type")
            if what == "slider" and el.slider.options:
                at = int(el.slider.default[0]) if el.slider.default else 0
                sliders[el.slider.label] = (
                    el.slider.id,
                    list(el.slider.options),
                    at,
                    fm.delta.fragment_id,
                )
            elif what == "number_input":
                numbers[el.number_input.label] = el.number_input.value
            elif what == "exception":
                log.errors.append(f"exception: {el.exception.message[:120]}")
            elif what == "alert" and el.alert.format == 1:  # ERROR
                log.errors.append(f"error box: {el.alert.body[:120]}")
        elif kind == "script_finished":
            return time.perf_counter() - start, sliders, numbers


def move(
    sliders: dict[str, tuple[str, list[str], int, str]],
    states: dict[str, list[str]],
    name: str,
    index: int,
) -> str:
    """Set slider ``name`` to its option ``index`` in ``states`` (the widget
    states the next rerun sends) and return the fragment to rerun: what the
    browser sends when a student drags that slider."""
    wid, options, _, fragment = sliders[name]
    states[wid] = [options[index]]
    return fragment


async def _session(
    url: str, query: str, slow: bool, until: float, rng: random.Random
) -> SessionLog:
    import websockets

    log = SessionLog(slow=slow)
    try:
        async with connect(url) as ws:
            log.first_load_s, sliders, _ = await _rerun(ws, query, {}, log)
            if "C" not in sliders or "σ" not in sliders:
                log.errors.append("the C and σ sliders were not drawn")
                return log
            # Start where the page drew each slider (its default index).
            position = {name: sliders[name][2] for name in ("C", "σ")}
            states: dict[str, list[str]] = {}
            while time.perf_counter() < until:
                await asyncio.sleep(rng.uniform(1.0, 3.0))
                if time.perf_counter() >= until:
                    break
                name = rng.choice(("C", "σ"))
                step = rng.choice((-3, -2, -1, 1, 2, 3))
                last = len(sliders[name][1]) - 1
                position[name] = min(max(position[name] + step, 0), last)
                fragment = move(sliders, states, name, position[name])
                try:
                    seconds, _, _ = await _rerun(ws, query, states, log, fragment)
                except TimeoutError:
                    log.lost += 1
                    continue
                log.latencies.append(seconds)
    except (OSError, websockets.exceptions.WebSocketException) as error:
        log.errors.append(f"connection: {type(error).__name__}: {error}")
    return log


def _check_loopback(url: str) -> None:
    host = urlparse(url).hostname
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"refusing {url}: the load generator speaks to loopback only")


def _query(settings: dict[str, str]) -> str:
    return urlencode(settings)


class ServerProbe:
    """RSS and CPU of the server process, sampled once a second (Linux /proc)."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.samples: list[dict[str, float]] = []
        self._task: asyncio.Task | None = None

    def _read(self) -> dict[str, float] | None:
        if self.pid is None:
            return None
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
            stat = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        rss_kb = next(
            int(line.split()[1])
            for line in status.splitlines()
            if line.startswith("VmRSS")
        )
        ticks = os.sysconf("SC_CLK_TCK")
        cpu_s = (int(stat[11]) + int(stat[12])) / ticks
        return {"t": time.perf_counter(), "rss_mb": rss_kb / 1024, "cpu_s": cpu_s}

    async def _loop(self) -> None:
        while True:
            sample = self._read()
            if sample is not None:
                self.samples.append(sample)
            await asyncio.sleep(1.0)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        sample = self._read()
        if sample is not None:
            self.samples.append(sample)

    def summary(self) -> dict[str, Any]:
        if len(self.samples) < 2:
            return {}
        first, last = self.samples[0], self.samples[-1]
        rss = [s["rss_mb"] for s in self.samples]
        half = self.samples[len(self.samples) // 2]
        return {
            "rss_start_mb": first["rss_mb"],
            "rss_end_mb": last["rss_mb"],
            "rss_max_mb": max(rss),
            # Growth over the second half: flat means no leak while the room works.
            "rss_growth_second_half_mb": last["rss_mb"] - half["rss_mb"],
            "cpu_percent": 100
            * (last["cpu_s"] - first["cpu_s"])
            / (last["t"] - first["t"]),
        }


def _percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50_s": float("nan"), "p90_s": float("nan"), "p99_s": float("nan")}
    a = np.asarray(values)
    return {
        "p50_s": float(np.percentile(a, 50)),
        "p90_s": float(np.percentile(a, 90)),
        "p99_s": float(np.percentile(a, 99)),
    }


async def run_room(
    url: str,
    sessions: int,
    duration: float,
    *,
    slow: int = 0,
    seed: int = 0,
    server_pid: int | None = None,
    ramp_seconds: float = 5.0,
) -> dict[str, Any]:
    """``sessions`` students for ``duration`` seconds; the room's numbers.

    Sessions join over ``ramp_seconds`` (a room does not click at the same
    millisecond); the first ``slow`` of them ask for the slowest settings.
    """
    _check_loopback(url)
    if not 1 <= sessions <= MAX_SESSIONS:
        raise SystemExit(f"sessions must be 1..{MAX_SESSIONS}")
    duration = min(float(duration), MAX_SECONDS)
    # The lecturer opens the page first: the server's one-time start-up work
    # (imports, compiled loops) is not the room's latency.
    await _session(url, _query(ORDINARY), False, 0.0, random.Random(seed))
    probe = ServerProbe(server_pid)
    probe.start()
    until = time.perf_counter() + ramp_seconds + duration

    async def one(k: int) -> SessionLog:
        await asyncio.sleep(ramp_seconds * k / max(sessions, 1))
        query = _query(SLOW if k < slow else ORDINARY)
        return await _session(
            url, query, k < slow, until, random.Random(seed * 1000 + k)
        )

    logs = await asyncio.gather(*(one(k) for k in range(sessions)))
    await probe.stop()
    ordinary = [x for log in logs if not log.slow for x in log.latencies]
    every = [x for log in logs for x in log.latencies]
    return {
        "sessions": sessions,
        "slow_sessions": slow,
        "duration_s": duration,
        "moves": len(every),
        **_percentiles(every),
        **{f"others_{k}": v for k, v in _percentiles(ordinary).items()},
        "first_load_p50_s": float(np.nanmedian([log.first_load_s for log in logs])),
        "sessions_with_errors": sum(bool(log.errors) for log in logs),
        "errors": sorted({e for log in logs for e in log.errors})[:20],
        "lost_moves": sum(log.lost for log in logs),
        "sessions_that_moved": sum(bool(log.latencies) for log in logs),
        **probe.summary(),
    }


def main() -> None:
    from benchmarks.harness.app_server import start_server, stop
    from benchmarks.harness.report import machine_load, print_table, write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30, 60])
    parser.add_argument("--duration", type=float, default=120.0, help="seconds per N")
    parser.add_argument("--slow", type=int, default=0, help="slow sessions per run")
    parser.add_argument("--url", default=None)
    parser.add_argument("--server-pid", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--mode", default="default", help="the run's name in results/lecture_room.json"
    )
    parser.add_argument(
        "--room", action="store_true", help="start the server in room mode"
    )
    args = parser.parse_args()
    proc = None
    url, pid = args.url, args.server_pid
    if url is None:
        proc, url = start_server(
            env={"OPENBLAS_NUM_THREADS": "1", "SVMLAB_ROOM": "1" if args.room else "0"}
        )
        pid = proc.pid
    rows = []
    load_start = machine_load()
    try:
        for n in args.sessions:
            row = asyncio.run(
                run_room(
                    url,
                    n,
                    args.duration,
                    slow=min(args.slow, n),
                    seed=args.seed,
                    server_pid=pid,
                )
            )
            rows.append(row)
            print(
                f"N = {n} done: p50 {row['p50_s']:.3f} s, errors "
                f"{row['sessions_with_errors']}",
                flush=True,
            )
    finally:
        if proc is not None:
            stop(proc)
    columns = [
        "sessions",
        "slow_sessions",
        "moves",
        "p50_s",
        "p90_s",
        "p99_s",
        "others_p50_s",
        "first_load_p50_s",
        "sessions_with_errors",
        "lost_moves",
        "rss_start_mb",
        "rss_max_mb",
        "rss_growth_second_half_mb",
        "cpu_percent",
    ]
    print_table(rows, [c for c in columns if c in rows[0]])
    path = write_json(
        "lecture_room",
        {
            "description": __doc__,
            "settings": {
                "ordinary": ORDINARY,
                "slow": SLOW,
                "duration_s": args.duration,
                "pace_s": [1, 3],
                "seed": args.seed,
                "room_mode": bool(args.room) if args.url is None else "unknown",
            },
            "load_at_start": load_start,
            "load_at_end": machine_load(),
            "rows": rows,
        },
        mode=args.mode,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

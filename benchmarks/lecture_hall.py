"""A lecture hall following the lecturer (issue 45): N followers, a lecturer
moving C or σ every 2 s, M students exploring, on P processes.

    python -m benchmarks lecture_hall --followers 300 [--explorers 0]
        [--processes 1] [--seconds 60] [--json PATH] [--mode NAME]

It starts P ``streamlit run app.py`` processes on free loopback ports (room
mode on; with P > 1 also Debian's ``redis-server`` on a free port, and every
process gets ``SVMLAB_REDIS_URL``), then:

- the lecturer: one Streamlit session in Streamlit's own protocol
  (:mod:`benchmarks.harness.streamlit_client`) on the first process opens
  Explore on two circles and a room, and moves C or σ by one stop every 2 s
  (C up, σ down, C down, σ up, ...), each move a rerun of the page's fragment
  as Chromium asks for it;
- N followers, spread over the processes as a sticky proxy would spread them,
  each an HTTP connection reading the room's server-sent events with a visitor
  cookie of its own (:mod:`benchmarks.harness.sse_client`), as the follower's
  page does;
- M explorers (``--explorers``), the lecture-room benchmark's students
  (:func:`benchmarks.lecture_room._session`: their own Explore sessions moving C
  and σ every 1-3 s), spread over the processes too.

Measured: for each move and each follower, the time from the lecturer's rerun
request to the follower's receipt of the view that move made (p50, p90, p99);
the bytes each follower received per update (all of its stream's bytes over
the moves, framing included, divided by the updates); the servers' CPU over the
moves divided by followers x updates (the lecturer's own reruns included); each
process's RSS; the updates a follower never showed (``lost``: no view of that
version or later within 10 s); and the explorers' latencies. All clients run
in this one process, on the same two cores as the servers. Loopback only;
at most 1000 followers, 100 explorers and 15 minutes; it stops by itself.
Writes ``benchmarks/results/lecture_hall.json`` (mode ``fN_eM_pP``) and, with
``--json``, the row alone to PATH.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import secrets
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from benchmarks.harness.sse_client import Follower
from benchmarks.harness.streamlit_client import Client, connect, move_slider, open_room
from benchmarks.lecture_room import ORDINARY, ServerProbe, _query, _session

MAX_FOLLOWERS = 1000
MAX_EXPLORERS = 100
MAX_SECONDS = 900.0
MOVE_SECONDS = 2.0
#: How long after a move a follower may still show it before it counts as lost.
GRACE_S = 10.0
LECTURER_QUERY = "data=two_circles"
#: The lecturer's moves, in turn: (slider, stops).
MOVES = (("C", 1), ("σ", -1), ("C", -1), ("σ", 1))


def _percentiles(values: list[float], prefix: str = "") -> dict[str, float]:
    a = np.asarray(values if values else [np.nan], dtype=np.float64)
    return {
        f"{prefix}p50_s": float(np.percentile(a, 50)),
        f"{prefix}p90_s": float(np.percentile(a, 90)),
        f"{prefix}p99_s": float(np.percentile(a, 99)),
    }


async def _join(urls: list[str], code: str, n: int, ramp_s: float) -> list[Follower]:
    """``n`` followers over ``urls`` (round robin), joined over ``ramp_s``."""
    followers = []
    for k in range(n):
        url = urlparse(urls[k % len(urls)])
        follower = Follower(
            url.hostname, url.port, f"/room/{code}/events", secrets.token_urlsafe(18)
        )
        followers.append(follower)
    batch = 25
    for start in range(0, n, batch):
        await asyncio.gather(*(f.open() for f in followers[start : start + batch]))
        await asyncio.sleep(ramp_s * batch / max(n, 1))
    return followers


async def run_hall(
    urls: list[str],
    followers: int,
    seconds: float,
    *,
    explorers: int = 0,
    pids: list[int] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """The hall on the servers at ``urls``; the numbers (see the module)."""
    for url in urls:
        if urlparse(url).hostname not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit(f"refusing {url}: loopback only")
    followers = min(max(int(followers), 0), MAX_FOLLOWERS)
    explorers = min(max(int(explorers), 0), MAX_EXPLORERS)
    seconds = min(float(seconds), MAX_SECONDS)
    async with connect(urls[0], cookie=secrets.token_urlsafe(18)) as ws:
        lecturer = Client(ws)
        code, first, opened = await open_room(lecturer, LECTURER_QUERY)
        if code is None:
            raise RuntimeError(f"no room opened: {opened.text()[:300]}")
        sliders, position = first.sliders, {}
        hall = await _join(urls, code, followers, ramp_s=min(10.0, followers / 30))
        try:
            await asyncio.gather(
                *(f.wait_for(lambda f: f.version >= 0, 60) for f in hall)
            )
        except TimeoutError:
            pass
        start_versions = [f.version for f in hall]
        start_bytes = [f.received for f in hall]
        probes = [ServerProbe(pid) for pid in (pids or [])]
        for probe in probes:
            probe.start()
        until = time.perf_counter() + seconds
        rng = random.Random(seed)
        explorer_tasks = [
            asyncio.ensure_future(
                _explore(urls[k % len(urls)], until, random.Random(seed * 7919 + k))
            )
            for k in range(explorers)
        ]
        moves: list[float] = []
        lecturer_runs: list[float] = []
        k = 0
        while time.perf_counter() + MOVE_SECONDS < until:
            next_at = time.perf_counter() + MOVE_SECONDS
            name, step = MOVES[k % len(MOVES)]
            fragment = move_slider(lecturer, sliders, position, name, step)
            moves.append(time.perf_counter())
            seen = await lecturer.run(fragment=fragment)
            lecturer_runs.append(seen.seconds)
            k += 1
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
        await asyncio.sleep(min(GRACE_S, 3.0 + rng.random()))
        for probe in probes:
            await probe.stop()
        explored = await asyncio.gather(*explorer_tasks)
        for f in hall:
            await f.close()
    base = int(np.median(start_versions)) if hall else 0
    latencies: list[float] = []
    lost = 0
    for f, v0 in zip(hall, start_versions, strict=True):
        for j, sent in enumerate(moves):
            version = max(base, v0) + j + 1
            shown = next((t for v, t in f.shown if v >= version), None)
            if shown is None or shown - sent > GRACE_S:
                lost += 1
            else:
                latencies.append(max(0.0, shown - sent))
    updates = len(moves)
    per_update = followers * updates > 0
    received = sum(f.received - b for f, b in zip(hall, start_bytes, strict=True))
    cpu_s = sum(
        (p.samples[-1]["cpu_s"] - p.samples[0]["cpu_s"])
        for p in probes
        if len(p.samples) >= 2
    )
    explore_latencies = [x for log in explored for x in log.latencies]
    return {
        "followers": followers,
        "explorers": explorers,
        "processes": len(urls),
        "seconds": seconds,
        "updates": updates,
        **_percentiles(latencies),
        # Per follower update: none without followers (not the explorers' CPU / 1).
        "bytes_per_update": received / (followers * updates) if per_update else None,
        "cpu_ms_per_follower_update": (
            1000 * cpu_s / (followers * updates) if per_update else None
        ),
        "server_cpu_percent": 100 * cpu_s / max(1e-9, seconds),
        "lecturer_run_p50_s": float(np.median(lecturer_runs or [np.nan])),
        "lost": lost,
        "followers_connected": sum(f.status == 200 and f.version >= 0 for f in hall),
        "rss_max_mb": [
            max((s["rss_mb"] for s in p.samples), default=float("nan")) for p in probes
        ],
        **_percentiles(explore_latencies, "explorers_"),
        "explorer_moves": len(explore_latencies),
        "explorer_errors": sorted({e for log in explored for e in log.errors})[:10],
        "explorers_lost": sum(log.lost for log in explored),
    }


async def _explore(url: str, until: float, rng: random.Random) -> Any:
    return await _session(url, _query(ORDINARY), False, until, rng)


def main() -> None:
    from benchmarks.harness.app_server import start_server, stop
    from benchmarks.harness.redis_server import redis_server
    from benchmarks.harness.report import machine_load, print_table, write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=300)
    parser.add_argument("--explorers", type=int, default=0)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--json", type=Path, default=None, help="also write the row")
    parser.add_argument("--mode", default=None, help="the run's name in the results")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    load_start = machine_load()
    with ExitStack() as stack:
        env = {"OPENBLAS_NUM_THREADS": "1", "SVMLAB_ROOM": "1"}
        if args.processes > 1:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            env["SVMLAB_REDIS_URL"] = stack.enter_context(redis_server(workdir))
        servers = []
        for _ in range(max(1, args.processes)):
            proc, url = start_server(env=env)
            stack.callback(stop, proc)
            servers.append((proc, url))
        row = asyncio.run(
            run_hall(
                [url for _, url in servers],
                args.followers,
                args.seconds,
                explorers=args.explorers,
                pids=[proc.pid for proc, _ in servers],
                seed=args.seed,
            )
        )
    load_end = machine_load()
    # No explorers: their percentiles are empty (null in the JSON, not NaN).
    row = {k: None if isinstance(v, float) and v != v else v for k, v in row.items()}
    row["load_start"] = load_start["load_average"]
    row["load_end"] = load_end["load_average"]
    columns = [
        "followers",
        "explorers",
        "processes",
        "updates",
        "p50_s",
        "p90_s",
        "p99_s",
        "bytes_per_update",
        "cpu_ms_per_follower_update",
        "lost",
        "explorers_p99_s",
    ]
    print_table([row], columns)
    print(f"rss_max_mb {row['rss_max_mb']}, load {load_start} -> {load_end}")
    mode = args.mode or f"f{row['followers']}_e{row['explorers']}_p{row['processes']}"
    path = write_json(
        "lecture_hall",
        {
            "description": __doc__,
            "settings": {
                "lecturer": LECTURER_QUERY,
                "move_every_s": MOVE_SECONDS,
                "room_mode": True,
                "seed": args.seed,
            },
            "load_at_start": load_start,
            "load_at_end": load_end,
            "row": row,
        },
        mode=mode,
    )
    print(f"wrote {path}")
    if args.json is not None:
        args.json.write_text(json.dumps(row, indent=2) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()

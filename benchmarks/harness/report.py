"""Timing and reporting shared by the benchmarks: medians, tables, the
machine's load, and the one results file per benchmark (:func:`write_json`)."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Where each benchmark's one results file lives: ``results/<name>.json``.
RESULTS = Path(__file__).resolve().parents[1] / "results"
#: The package whose modules are the benchmarks (their names name the files).
BENCHMARKS = Path(__file__).resolve().parents[1]


def median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median wall time of ``repeats`` calls, and the last call's result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def print_table(rows: list[dict[str, Any]], columns: list[str]) -> None:
    """A fixed-width table on stdout."""

    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1e-2 or abs(v) >= 1e4 else f"{v:.4f}"
        return str(v)

    cells = [[fmt(r.get(c, "")) for c in columns] for r in rows]
    widths = [
        max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)
    ]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths, strict=True)))
    for row in cells:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)))


def machine() -> dict[str, Any]:
    """What a timing ran on and beside: cores, Python, BLAS threads, load."""
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        # Timings depend on BLAS threading and on what else ran beside them.
        "threads": {
            k: os.environ.get(k)
            for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS")
        },
        "load_average_at_write": os.getloadavg(),
    }


def write_json(name: str, payload: dict[str, Any], mode: str = "default") -> Path:
    """Put ``payload`` (with :func:`machine` attached) into ``results/<name>.json``
    as the current run of ``mode``, keeping the file's other modes: one file per
    benchmark, each mode its latest run (the history is git's). ``name`` must be
    a benchmark's (a module ``benchmarks/<name>.py``), so no loose file appears."""
    if not (BENCHMARKS / f"{name}.py").is_file() or name.startswith("_"):
        raise ValueError(f"{name!r} is not a benchmark of {BENCHMARKS}")
    if not mode or not mode.replace("_", "").replace("+", "").isalnum():
        raise ValueError(f"a mode is a word (letters, digits, _ and +): {mode!r}")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    document = read_json(name) if path.exists() else {"benchmark": name, "runs": {}}
    document["runs"][mode] = {"machine": machine(), **payload}
    document["runs"] = dict(sorted(document["runs"].items()))
    path.write_text(json.dumps(document, indent=2) + "\n")
    return path


def read_json(name: str) -> dict[str, Any]:
    """``results/<name>.json``: ``{"benchmark": name, "runs": {mode: run}}``."""
    return json.loads((RESULTS / f"{name}.json").read_text())


def machine_load() -> dict[str, Any]:
    """The load averages now and the BLAS threading: what a timing ran beside."""
    return {
        "load_average": os.getloadavg(),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS"),
    }


def interleaved_medians(
    fns: dict[str, Callable[[], Any]],
    repeats: int,
    cpu: dict[str, float] | None = None,
) -> tuple[dict[str, float], dict[str, Any]]:
    """Median wall time of each function, the calls interleaved round by round
    (so that a change in the machine's load hits every contender alike), and
    each function's last result. ``cpu`` (optional) receives the median CPU
    time of this process per function: on a shared machine a call that waits
    for a core loses wall time but not CPU time."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    cpu_times: dict[str, list[float]] = {k: [] for k in fns}
    results: dict[str, Any] = {}
    for _ in range(repeats):
        for name, fn in fns.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            results[name] = fn()
            times[name].append(time.perf_counter() - start)
            cpu_times[name].append(time.process_time() - start_cpu)
    if cpu is not None:
        cpu.update({k: statistics.median(v) for k, v in cpu_times.items()})
    return {k: statistics.median(v) for k, v in times.items()}, results


def versus(times: dict[str, float], reference: str, ratios: dict[str, str]) -> dict:
    """A timing table's columns for contenders against one reference:
    ``<reference>_ms``, then for each contender ``<name>_ms`` and its time over
    the reference's under the column name ``ratios`` gives it."""
    row = {f"{reference}_ms": 1e3 * times[reference]}
    for name, column in ratios.items():
        row[f"{name}_ms"] = 1e3 * times[name]
        row[column] = times[name] / times[reference]
    return row

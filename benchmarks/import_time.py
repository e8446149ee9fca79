"""What ``import svmlab`` costs a fresh Python, in two checkouts side by side.

    python -m benchmarks import_time [--a DIR] [--b DIR] [--repeats 15]

Each repeat starts ``python -c "import svmlab"`` once in checkout A and once in
checkout B (A then B, then B then A: neither always goes first while the
machine's load drifts), each with its checkout as the working directory and the
only svmlab on the path. Reported per checkout: the median wall time and the
median CPU time of the child (user + system, from the kernel's accounting of
finished children, which waiting for a core does not inflate), beside the same
for ``import sklearn.svm`` (a peer every checkout shares: the ratio to it is
what compares across runs on a loaded machine). ``--b`` defaults to this
checkout, ``--a`` to none (B alone). Writes ``results/import_time.json``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.harness.report import machine_load, print_table, write_json

ROOT = Path(__file__).resolve().parents[1]
PEER = "sklearn.svm"


def one_import(module: str, cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -c "import <module>"`` run in ``cwd``."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", f"import {module}"], cwd=cwd, env=env, check=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", type=Path, default=None, help="the checkout before")
    parser.add_argument("--b", type=Path, default=ROOT, help="the checkout after")
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    checkouts = {"b": args.b.resolve()}
    if args.a is not None:
        checkouts = {"a": args.a.resolve(), **checkouts}
    load_start = machine_load()
    # One import of each first: the file system's cache warm for both.
    for cwd in checkouts.values():
        one_import("svmlab", cwd)
    samples: dict[str, list[tuple[float, float]]] = {
        **{k: [] for k in checkouts},
        "peer": [],
    }
    for r in range(args.repeats):
        order = list(checkouts) if r % 2 == 0 else list(reversed(checkouts))
        for key in order:
            samples[key].append(one_import("svmlab", checkouts[key]))
        samples["peer"].append(one_import(PEER, args.b.resolve()))
    rows = []
    peer_cpu = statistics.median(c for _, c in samples["peer"])
    for key, values in samples.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        rows.append(
            {
                "checkout": "peer" if key == "peer" else key,
                "what": f"import {PEER}" if key == "peer" else "import svmlab",
                "dir": str(args.b.resolve() if key == "peer" else checkouts[key]),
                "wall_s": wall,
                "cpu_s": cpu,
                "cpu_over_peer": cpu / peer_cpu,
            }
        )
    print_table(rows, ["checkout", "what", "wall_s", "cpu_s", "cpu_over_peer"])
    load_end = machine_load()
    print(f"load {load_start['load_average']} -> {load_end['load_average']}")
    write_json(
        "import_time",
        {
            "repeats": args.repeats,
            "load_start": load_start,
            "load_end": load_end,
            "rows": rows,
        },
    )


if __name__ == "__main__":
    main()

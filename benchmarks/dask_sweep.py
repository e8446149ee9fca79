"""An exact-LOO sweep on a Dask LocalCluster against one local process (issue 20).

    python -m benchmarks dask_sweep [--n 200] [--axis 10] [--workers 2]
        [--overhead-tasks 200] [--fits lee|converged]

``--fits converged`` sweeps the Model selection page's default since issue 29
(every fit and refit converged by the entropy dual at a KKT residual of 1e-6)
instead of Lee's IRWLS under his rule; issue 29's row is
``--n 400 --axis 20 --fits converged`` (each ``--fits`` is a mode of
results/dask_sweep.json).

The sweep: Lee's SVC_irwls (the model-selection benchmark's estimator) on two
circles (n points, seed 0), exact leave-one-out and the approximations over an
``axis x axis`` sub-grid of that benchmark's (C, sigma) grid. Timed once in this
process (``executor=None``) and once on a ``LocalCluster`` of ``--workers``
single-threaded worker processes (cluster start-up not counted, the scatter of
the data counted); the surfaces must be identical. The per-task overhead: the
wall time of ``--overhead-tasks`` tasks that do nothing, submitted together,
divided by their number (scheduler round trips, serialisation, bookkeeping).
Prints a table and writes ``benchmarks/results/dask_sweep.json`` with the
machine's load.
"""

from __future__ import annotations

import argparse
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"

import time
import warnings

import dask
import numpy as np
from distributed import Client, LocalCluster
from sklearn.exceptions import ConvergenceWarning

from benchmarks.harness.lee_grid import CS, SIGMAS, STOP, estimator, sub_axis
from benchmarks.harness.report import machine_load, print_table, write_json
from svmlab.datasets import make_two_circles
from svmlab.experiments.criterion_grid import grid_sweep
from svmlab.experiments.executors import run_tasks

CRITERIA = ("lee", "plugin", "alo", "span", "loo")


def _nothing(i: int) -> int:
    return i


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--axis", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--overhead-tasks", type=int, default=200)
    parser.add_argument("--fits", choices=["lee", "converged"], default="lee")
    parser.add_argument(
        "--dask-default-env",
        action="store_true",
        help="keep Dask's MALLOC_TRIM_THRESHOLD_=65536 for the workers",
    )
    args = parser.parse_args()
    if args.fits == "converged":
        STOP.update(stop="converged")
    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y = make_two_circles(args.n, random_state=0)
    ai, aj = sub_axis(len(SIGMAS), args.axis), sub_axis(len(CS), args.axis)
    Cs, sigmas = CS[aj], SIGMAS[ai]
    load_start = machine_load()

    start = time.perf_counter()
    here = grid_sweep(estimator(), X, y, Cs, sigmas, criteria=CRITERIA)
    t_here = time.perf_counter() - start
    print(f"this process: {t_here:.1f} s", flush=True)

    # Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which makes
    # this allocation-heavy work about 1.4x slower (a row: 7.0 s against 5.0 s;
    # the same slowdown in one process with that variable set): leave glibc's
    # own, dynamic threshold alone. ``--dask-default-env`` measures Dask as is.
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ"))
    if not args.dask_default_env:
        environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    with (
        dask.config.set({"distributed.nanny.pre-spawn-environ": environ}),
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(os.environ.__setitem__, "OPENBLAS_NUM_THREADS", "1")
        start = time.perf_counter()
        remote = grid_sweep(
            estimator(), X, y, Cs, sigmas, criteria=CRITERIA, executor=client
        )
        t_cluster = time.perf_counter() - start
        print(f"{remote.where}: {t_cluster:.1f} s", flush=True)
        start = time.perf_counter()
        out = run_tasks(
            _nothing, [(i,) for i in range(args.overhead_tasks)], executor=client
        )
        t_overhead = time.perf_counter() - start
        assert out.results == list(range(args.overhead_tasks))

    identical = all(
        np.array_equal(here.scores[c], remote.scores[c], equal_nan=True)
        for c in CRITERIA
    )
    rows = [
        {
            "n": args.n,
            "fits": args.fits,
            "grid": f"{sigmas.size}x{Cs.size}",
            "tasks (sigma rows)": sigmas.size,
            "one process s": t_here,
            f"LocalCluster {args.workers} workers s": t_cluster,
            "speed-up": t_here / t_cluster,
            "per-task overhead ms": 1000 * t_overhead / args.overhead_tasks,
            "identical": identical,
        }
    ]
    print_table(rows, list(rows[0]))
    path = write_json(
        "dask_sweep",
        {
            "description": __doc__,
            "load_at_start": load_start,
            "load_at_end": machine_load(),
            "criteria": CRITERIA,
            "worker_environ": environ,
            "rows": rows,
        },
        mode=args.fits,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""The regularisation path scrubber's cost: a 30-value C path, warm against cold.

    python -m benchmarks path [--repeats 3] [--sizes 200 1000]

For each n, two circles with 10 % label noise (seed 0), Gaussian kernel σ = 0.39
(Explore's default for the data set), hinge, SMO, tol 1e-3: the 30 values of C
from 0.01 to 10⁴ on a log grid, fitted in ascending order by
:func:`svmlab.experiments.path.regularization_path`, each fit warm-started from the
previous α (``warm``) or from zero (``cold``); medians of ``--repeats`` runs, the two
interleaved so a change in the machine's load hits both. The Gram matrix is
computed once per path in both. Also reported: the largest difference in
objective between the warm and the cold answers (relative), the slowest single
fit of each, and what a scrub costs once the path is cached (a lookup, no fit).

Writes benchmarks/results/path.json with the machine's load.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks.harness.report import (
    interleaved_medians,
    machine_load,
    print_table,
    write_json,
)
from svmlab import datasets
from svmlab.experiments.path import log_values, regularization_path

PARAMS = {"kernel": "gaussian", "sigma": 0.39, "loss": "hinge", "solver": "smo"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    args = parser.parse_args()
    values = log_values(0.01, 1e4, 30)
    rows = []
    load_before = machine_load()
    for n in args.sizes:
        X, y = datasets.make_two_circles(n, noise=0.1, random_state=0)

        def run(warm: bool, X=X, y=y):
            return regularization_path(
                X, y, param="C", values=values, params=PARAMS, warm=warm
            )

        run(True)  # compile and warm the caches once
        times, results = interleaved_medians(
            {"warm": lambda: run(True), "cold": lambda: run(False)}, args.repeats
        )
        warm, cold = results["warm"], results["cold"]
        gap = np.max(np.abs(warm.objective - cold.objective) / np.abs(cold.objective))
        tic = time.perf_counter()
        for C in np.geomspace(0.01, 1e4, 200):  # a scrub: nearest stored model
            warm.models[warm.nearest(C)]
        scrub = (time.perf_counter() - tic) / 200
        rows.append(
            {
                "n": n,
                "values": values.size,
                "warm_s": times["warm"],
                "cold_s": times["cold"],
                "warm/cold": times["warm"] / times["cold"],
                "max_fit_warm_s": float(np.max(warm.fit_time)),
                "max_fit_cold_s": float(np.max(cold.fit_time)),
                "objective_rel_diff": float(gap),
                "scrub_us": scrub * 1e6,
            }
        )
    print_table(rows, list(rows[0]))
    path = write_json(
        "path",
        {
            "rows": rows,
            "params": PARAMS,
            "C": [float(v) for v in values],
            "repeats": args.repeats,
            "load_before": load_before,
            "load_after": machine_load(),
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""How far Lee's stopping rule leaves IRWLS from the optimum, over Lee's grid.

    python -m benchmarks lee_rule [--seeds 0 1 ... 9] [--n 100]

Two circles (Lee 2006 section 4: n = 100 per training seed), Lee's SVC_irwls
(modified hinge, delta = 1e-4, no bias, stopped when the mean squared change of
the multipliers is below 1e-3), on the 8 x 8 grid of the Lee experiment
(svmlab.experiments.lee2006: C in {1, ..., 5000}, Lee's sigma^2 in {0.1, ...,
2}). For every cell: the relative objective gap ``(P_lee - P*) / P*`` against the
optimum ``P*`` of the entropy dual solved to a KKT residual of 1e-9 (its own
duality gap is printed too), and the KKT residual Lee's rule leaves. The
numbers docs/corrections.md quotes ("Lee (2006)" item 4) come from here.
"""

from __future__ import annotations

import argparse
import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"

import warnings

import numpy as np

from benchmarks.harness.report import machine_load, print_table, write_json
from svmlab import SVC
from svmlab.datasets import make_two_circles
from svmlab.experiments.lee2006 import (
    DEFAULT_CS,
    DEFAULT_LEE_SIGMA2S,
    exact_loo_estimator,
    irwls_estimator,
)


def reference(C: float, s2: float) -> SVC:
    """Lee's model solved by the entropy dual to a KKT residual of 1e-9."""
    return exact_loo_estimator(C, s2).set_params(tol=1e-9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    parser.add_argument("--n", type=int, default=100)
    args = parser.parse_args()
    load_start = machine_load()
    rows = []
    for seed in args.seeds:
        X, y = make_two_circles(args.n, random_state=seed)
        for s2 in DEFAULT_LEE_SIGMA2S:
            for C in DEFAULT_CS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    lee = irwls_estimator(C, s2).fit(X, y)
                    best = reference(C, s2).fit(X, y)
                rows.append(
                    {
                        "seed": seed,
                        "C": C,
                        "lee_sigma2": s2,
                        "gap": (lee.objective_ - best.objective_)
                        / abs(best.objective_),
                        "lee_kkt": float(lee.kkt_violation_),
                        "lee_iter": int(lee.n_iter_),
                        "ref_kkt": float(best.kkt_violation_),
                        "ref_duality_gap": float(best.duality_gap_)
                        / abs(best.objective_),
                    }
                )
        print(f"seed {seed} done", flush=True)
    gaps = np.array([r["gap"] for r in rows])
    kkts = np.array([r["lee_kkt"] for r in rows])
    worst = rows[int(np.argmax(gaps))]
    summary = {
        "cells": len(rows),
        "gap_median": float(np.median(gaps)),
        "gap_p90": float(np.percentile(gaps, 90)),
        "gap_max": float(gaps.max()),
        "gap_max_at": {k: worst[k] for k in ("seed", "C", "lee_sigma2")},
        "kkt_median": float(np.median(kkts)),
        "kkt_max": float(kkts.max()),
        "ref_duality_gap_max": float(max(r["ref_duality_gap"] for r in rows)),
    }
    print_table(
        [summary],
        ["cells", "gap_median", "gap_p90", "gap_max", "kkt_median", "kkt_max"],
    )
    print(f"worst cell: {summary['gap_max_at']}; load {os.getloadavg()}")
    path = write_json(
        "lee_rule",
        {
            "description": __doc__,
            "load_at_start": load_start,
            "load_at_end": machine_load(),
            "summary": summary,
            "rows": rows,
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""The Model selection page's sweeps timed: exact leave-one-out warm and cold,
every approximation, and Lee's IRWLS as the page ran it before (issue 29).

    python -m benchmarks model_selection [--settings page n200 n400]
        [--before-budget 120] [--repeats 3] [--no-cold]

Three settings, two circles (Lee 2006 section 4; seed 0), the modified hinge with
Lee's delta = 1e-4 and no bias:

- ``page``: the Model selection page's default sweep (n = 100, 7 C from 0.1 to
  1000 x 7 sigma from 0.1 to 1.78, every criterion);
- ``n200``: the 10 x 10 exact-LOO grid at n = 200 (every other value of the
  20 x 20 grid below; the Dask benchmark's grid);
- ``n400``: the 20 x 20 grid at n = 400 (C in 10^[-1, 4], Lee's sigma^2 in
  10^[-1.5, 1]).

**After** (the page's default since issue 29): every fit and refit converged,
the entropy dual at a KKT residual of 1e-6. Timed: the whole sweep (every
criterion, the wall time a visitor waits, median of ``--repeats``), each
criterion's total (its time includes the full fits it starts from, as
:func:`svmlab.experiments.criterion_grid.grid_sweep` counts it), and exact leave-one-out
with *cold* refits (every refit from the cold start instead of from the full
solution): the same LOO error must come out in every cell. The
approximations' speed-up is over the *warm* exact LOO. Then the Spearman /
argmin / regret table of the approximations against exact LOO on these
converged fits, with the test error of each choice on 10,000 fresh points.

**Before**: Lee's IRWLS (his stop rule, mean squared change < 1e-3), as the page
swept it, every criterion; stopped after ``--before-budget`` seconds between
sigma rows and extrapolated to the whole grid by the mean time per cell (the
table says which).

Every table records the machine's load average (os.getloadavg) at its start and
end; results go to ``benchmarks/results/model_selection.json`` (the Model
selection page reads its speed sentence there).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmlab import SVC
from svmlab.datasets import make_two_circles
from svmlab.experiments.criterion_grid import SweepResult, grid_sweep
from svmlab.experiments.lee2006 import EXACT_TOL, exact_loo_estimator, irwls_estimator
from svmlab.experiments.selection import APPROXIMATIONS, fit_quietly, misclassification
from svmlab.solvers.entropy_refit import Refitter

__all__ = ["converged_estimator", "main"]

CRITERIA = (*APPROXIMATIONS, "loo")
#: The KKT tolerance of converged fits (the page's, svmlab.ui.selection.requests).
KKT_TOL = EXACT_TOL
N_TEST = 10_000


def converged_estimator() -> SVC:
    """Lee's model solved to its KKT measure at 1e-6 by the entropy dual (C and
    sigma are set per cell)."""
    return exact_loo_estimator()


def lee_estimator() -> SVC:
    """Lee's SVC_irwls as the page ran it before issue 29 (C and sigma are set
    per cell)."""
    return irwls_estimator()


def _page_grid(low: float, high: float, count: int) -> np.ndarray:
    values = np.logspace(np.log10(low), np.log10(high), count)
    return np.array([float(f"{v:.4g}") for v in values])


def settings() -> dict[str, dict]:
    from benchmarks.harness.lee_grid import CS, SIGMAS, sub_axis

    ten = sub_axis(20, 10)
    return {
        "page": {
            "n": 100,
            "Cs": _page_grid(0.1, 1000.0, 7),
            "sigmas": _page_grid(0.1, 1.78, 7),
            "label": "page default, n=100, 7x7",
        },
        "n200": {
            "n": 200,
            "Cs": CS[ten],
            "sigmas": SIGMAS[ten],
            "label": "n=200, 10x10",
        },
        "n400": {"n": 400, "Cs": CS, "sigmas": SIGMAS, "label": "n=400, 20x20"},
    }


def cold_loo(X, y, Cs, sigmas) -> tuple[float, np.ndarray, np.ndarray]:
    """Exact LOO with every refit from the cold start: (seconds, errors, margins)
    over the grid; the full fit of each cell is timed too, as in the sweep."""
    est = converged_estimator()
    errors = np.full((len(sigmas), len(Cs)), np.nan)
    margins = np.full((len(sigmas), len(Cs), len(y)), np.nan)
    start = time.perf_counter()
    for i, sigma in enumerate(sigmas):
        base = SVC(**est.get_params()).set_params(sigma=float(sigma))
        K = base._gram(X)
        for j, C in enumerate(Cs):
            model = fit_quietly(base.set_params(C=float(C)), X, y, K=K)
            m = model.margins_.copy()
            refitter = Refitter(
                K, model.y_fit_, float(C), 1e-4, KKT_TOL, False, model.alpha_
            )
            matter = np.flatnonzero(model.alpha_ > 1e-12 * C)
            for k in matter:
                f, _ = refitter.refit(np.array([k]), warm=False)
                m[k] = model.y_fit_[k] * f[0]
            errors[i, j] = misclassification(m)
            margins[i, j] = m
    return time.perf_counter() - start, errors, margins


def test_error_at(X, y, X_test, y_test, C, sigma) -> float:
    model = converged_estimator().set_params(C=float(C), sigma=float(sigma))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    return misclassification(y_test * model.decision_function(X_test))


def after(name: str, spec: dict, repeats: int, cold: bool) -> tuple[list, dict]:
    X, y = make_two_circles(spec["n"], random_state=0)
    Cs, sigmas = spec["Cs"], spec["sigmas"]
    load0 = os.getloadavg()
    walls, sweep = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        sweep = grid_sweep(converged_estimator(), X, y, Cs, sigmas, criteria=CRITERIA)
        walls.append(time.perf_counter() - start)
        print(f"  {name}: converged sweep {walls[-1]:.2f} s", flush=True)
    assert sweep is not None
    record: dict = {
        "setting": spec["label"],
        "sweep_wall_s_median": statistics.median(walls),
        "sweep_wall_s_all": walls,
        "loo_warm_s": sweep.total_seconds("loo"),
        "loo_converged_cells": int(sweep.converged["loo"].sum()),
        "cells": int(sweep.converged["loo"].size),
    }
    for c in APPROXIMATIONS:
        record[f"{c}_s"] = sweep.total_seconds(c)
        record[f"{c}_speedup_over_warm_loo"] = sweep.speedup(c)
    if cold:
        t_cold, errors, margins = cold_loo(X, y, Cs, sigmas)
        same = np.abs(errors - sweep.errors["loo"]) < 1e-12
        record.update(
            loo_cold_s=t_cold,
            cold_over_warm=t_cold / max(sweep.total_seconds("loo"), 1e-12),
            warm_equals_cold_cells=f"{int(same.sum())}/{same.size}",
            max_margin_diff_warm_cold=float(
                np.nanmax(np.abs(margins - sweep.margins["loo"]))
            ),
        )
        print(f"  {name}: cold LOO {t_cold:.1f} s", flush=True)
    X_test, y_test = make_two_circles(N_TEST, random_state=10_000)
    quality = []
    loo = sweep.scores["loo"]
    for c in CRITERIA:
        i, j = sweep.argmin(c)
        quality.append(
            {
                "setting": spec["label"],
                "criterion": c,
                "spearman": sweep.spearman(c) if c != "loo" else 1.0,
                "argmin_dist": sweep.argmin_distance(c),
                "loo_regret": float(loo[i, j] - np.nanmin(loo)),
                "test_error": test_error_at(X, y, X_test, y_test, Cs[j], sigmas[i]),
                "C": float(Cs[j]),
                "lee_sigma2": float(2 * sigmas[i] ** 2),
            }
        )
    record["load_start"], record["load_end"] = load0, os.getloadavg()
    return quality, record


def before(name: str, spec: dict, budget: float | None) -> dict:
    X, y = make_two_circles(spec["n"], random_state=0)
    Cs, sigmas = spec["Cs"], spec["sigmas"]
    load0 = os.getloadavg()
    rows: list[SweepResult] = []
    start = time.perf_counter()
    for i in range(len(sigmas)):
        rows.append(
            grid_sweep(lee_estimator(), X, y, Cs, sigmas[i : i + 1], criteria=CRITERIA)
        )
        elapsed = time.perf_counter() - start
        print(f"  {name}: Lee's IRWLS row {i + 1}/{len(sigmas)} {elapsed:.0f} s")
        if budget is not None and elapsed > budget and i + 1 < len(sigmas):
            break
    done = len(rows)
    wall = time.perf_counter() - start
    scale = len(sigmas) / done
    record = {
        "setting": spec["label"],
        "rows_run": f"{done}/{len(sigmas)}",
        "sweep_wall_s": wall * scale,
        "extrapolated": done < len(sigmas),
        "loo_s": scale * sum(r.total_seconds("loo") for r in rows),
        "load_start": load0,
        "load_end": os.getloadavg(),
    }
    for c in APPROXIMATIONS:
        record[f"{c}_s"] = scale * sum(r.total_seconds(c) for r in rows)
    return record


AFTER_COLUMNS = [
    "setting",
    "sweep_wall_s_median",
    "loo_warm_s",
    "loo_cold_s",
    "cold_over_warm",
    "warm_equals_cold_cells",
    "lee_s",
    "plugin_s",
    "alo_s",
    "span_s",
    "lee_speedup_over_warm_loo",
    "plugin_speedup_over_warm_loo",
    "alo_speedup_over_warm_loo",
    "span_speedup_over_warm_loo",
]
BEFORE_COLUMNS = [
    "setting",
    "rows_run",
    "sweep_wall_s",
    "extrapolated",
    "loo_s",
    "lee_s",
    "plugin_s",
    "alo_s",
    "span_s",
]
#: What a criterion's choice of cell is worth (model_selection.py reports it too).
CHOICE_COLUMNS = [
    "spearman",
    "argmin_dist",
    "loo_regret",
    "test_error",
    "C",
    "lee_sigma2",
]
QUALITY_COLUMNS = ["setting", "criterion", *CHOICE_COLUMNS]


def main() -> None:
    from benchmarks.harness.report import machine_load, print_table, write_json

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--settings", nargs="+", default=["page", "n200", "n400"], choices=SETTINGS
    )
    parser.add_argument("--before-budget", type=float, default=120.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-cold", action="store_true")
    parser.add_argument("--no-before", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    specs = settings()
    # Compile every numba loop once, outside the timings.
    X, y = make_two_circles(60, random_state=1)
    grid_sweep(converged_estimator(), X, y, [1.0, 100.0], [0.5], criteria=CRITERIA)
    load_start = machine_load()
    after_rows, quality_rows, before_rows = [], [], []
    for name in args.settings:
        quality, record = after(name, specs[name], args.repeats, not args.no_cold)
        after_rows.append(record)
        quality_rows += quality
        if not args.no_before:
            before_rows.append(before(name, specs[name], args.before_budget))
        write_json(
            "model_selection",
            {
                "description": __doc__,
                "load_at_start": load_start,
                "after": after_rows,
                "quality_converged": quality_rows,
                "before": before_rows,
            },
        )
    print("\nAFTER: converged fits (entropy dual, KKT 1e-6); seconds, medians")
    print_table(after_rows, AFTER_COLUMNS)
    if before_rows:
        print("\nBEFORE: Lee's IRWLS (change < 1e-3), as the page ran it")
        print_table(before_rows, BEFORE_COLUMNS)
    print("\nApproximations against exact LOO on converged fits")
    print_table(quality_rows, QUALITY_COLUMNS)
    print(f"load at start {load_start['load_average']}, now {os.getloadavg()}")


SETTINGS = ("page", "n200", "n400")

"""Approximate leave-one-out against exact leave-one-out under Lee's stop rule.

    python -m benchmarks loo_approximations [--sizes 100 200 400]
        [--loo-axis 20 7 4]
    python -m benchmarks loo_approximations --sizes 100 --seeds 0 1 ... --mode seeds
    python -m benchmarks loo_approximations ... --scheduler tcp://HOST:8786

The study of the approximations (Lee's ACV, plug-in, ALO, span) over a 20 x 20
(C, sigma) grid that came before issue 29's converged fits; the Model selection
page's own before/after tables are :mod:`benchmarks.model_selection`.

Two circles (Lee 2006 section 4, radii 0.5 / 0.75, seed 0), Lee's SVC_irwls: the
modified hinge with delta = 1e-4 by IRWLS, no bias, his stop rule (mean squared
change of the multipliers < 1e-3). The grid: C in 10^[-1, 4] and Lee's kernel width
sigma_L^2 in 10^[-1.5, 1] (``exp(-||x - z||^2 / sigma_L^2)``), 20 log-spaced values
each. For every size it reports, per criterion, the median time of one cell (each
criterion's time includes the full fit it starts from), the speed-up of each
approximation over exact leave-one-out (total over the same cells), the Spearman
rank correlation of each surface with exact LOO's and the distance between their
argmins in grid steps ``max(|di|, |dj|)``.

Exact LOO costs n refits per cell, so for n > 100 it runs on an evenly spaced
sub-grid (``--loo-axis`` values per axis, ends included); the approximations are
then compared with it on those cells, and distances are in steps of that sub-grid
(the JSON also gives them in full-grid steps). The approximations are always timed
on the full 20 x 20 grid too. Target (issue 5): at n = 100 the best approximation
>= 50x faster than exact LOO, Spearman >= 0.8, argmin within one grid step.

``--seeds`` repeats everything on several training sets (``random_state`` of the
data) and ends with a summary per criterion over the seeds: one draw of 100 points
says little about how often an approximation picks the exact-LOO model.

What a choice is worth is its error on fresh data: every cell of the exact-LOO grid
is also fitted once and scored on a test set of 10,000 points from the same
generator (``random_state = 10_000 + seed``). ``test_error`` is that error at each
criterion's choice; the ``test`` row is the best cell in hindsight (an oracle no
criterion can see), and its ``argmin_dist`` says how far exact LOO's own choice is
from it.

With ``--scheduler`` (or ``$SVMLAB_DASK_SCHEDULER``) exact LOO's sigma rows run as
tasks on that Dask cluster's workers (:mod:`svmlab.experiments.executors`), and
``--loo-budget`` drops the rows not finished in time instead of stopping between
rows; the numbers are the same as on this machine.
"""

from __future__ import annotations

import argparse

# One BLAS thread, whatever the shell says (before NumPy loads it): the page
# runs so (svmlab.ui), and small multi-threaded solves thrash on two cores.
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from benchmarks.harness.lee_grid import (
    CS,
    LEE_SIGMA2S,
    SIGMAS,
    STOP,
    estimator,
    grid_steps,
    sub_axis,
)
from benchmarks.harness.report import print_table, write_json
from benchmarks.model_selection import CHOICE_COLUMNS
from svmlab.datasets import make_two_circles
from svmlab.experiments.criterion_grid import SweepResult, grid_sweep
from svmlab.experiments.executors import add_scheduler_argument
from svmlab.experiments.selection import APPROXIMATIONS, misclassification


def meets_target(speedup, spearman, argmin_dist):
    """Issue 5's target at n = 100; scalars or arrays (elementwise)."""
    return (speedup >= 50) & (spearman >= 0.8) & (argmin_dist <= 1)


def stack(rows: list[SweepResult]) -> SweepResult:
    """One SweepResult from per-sigma-row sweeps (same Cs and criteria)."""

    def cat(field: str) -> dict[str, np.ndarray]:
        return {
            c: np.concatenate([getattr(r, field)[c] for r in rows])
            for c in rows[0].criteria
        }

    return SweepResult(
        Cs=rows[0].Cs,
        sigmas=np.concatenate([r.sigmas for r in rows]),
        criteria=rows[0].criteria,
        scores=cat("scores"),
        errors=cat("errors"),
        seconds=cat("seconds"),
        converged=cat("converged"),
        margins=cat("margins"),
    )


def take_rows(sweep: SweepResult, keep: list[int]) -> SweepResult:
    """The sigma rows ``keep`` of ``sweep`` (the ones that finished)."""

    def pick(field: str) -> dict[str, np.ndarray]:
        return {c: getattr(sweep, field)[c][keep] for c in sweep.criteria}

    return SweepResult(
        Cs=sweep.Cs,
        sigmas=sweep.sigmas[keep],
        criteria=sweep.criteria,
        scores=pick("scores"),
        errors=pick("errors"),
        seconds=pick("seconds"),
        converged=pick("converged"),
        margins=pick("margins"),
    )


def one_size(
    n: int,
    loo_axis: int,
    approx_axis: int,
    budget: float | None,
    seed: int = 0,
    executor: object = None,
) -> tuple[list[dict], dict]:
    X, y = make_two_circles(n, random_state=seed)
    ai, aj = sub_axis(len(LEE_SIGMA2S), approx_axis), sub_axis(len(CS), approx_axis)
    start = time.perf_counter()
    approx = grid_sweep(estimator(), X, y, CS[aj], SIGMAS[ai], criteria=APPROXIMATIONS)
    print(
        f"n={n}: approximations on {ai.size} x {aj.size} in "
        f"{time.perf_counter() - start:.1f} s",
        flush=True,
    )
    rows_i, cols_j = sub_axis(len(LEE_SIGMA2S), loo_axis), sub_axis(len(CS), loo_axis)
    start, done = time.perf_counter(), []
    if executor is not None:
        # Every row a task on the cluster; the budget drops the unfinished rows.
        full = grid_sweep(
            estimator(),
            X,
            y,
            CS[cols_j],
            SIGMAS[rows_i],
            criteria=(*APPROXIMATIONS, "loo"),
            executor=executor,
            max_seconds=budget,
        )
        keep = [k for k in range(rows_i.size) if k not in full.missing_rows]
        print(f"  n={n} exact LOO on {full.where}: {len(keep)}/{rows_i.size} rows")
        done = [take_rows(full, keep)]
        rows_i = rows_i[keep]
    # Row by row, so that a time budget can stop between rows (n = 400).
    for i in rows_i if executor is None else ():
        done.append(
            grid_sweep(
                estimator(),
                X,
                y,
                CS[cols_j],
                SIGMAS[i : i + 1],
                criteria=(*APPROXIMATIONS, "loo"),
            )
        )
        elapsed = time.perf_counter() - start
        print(f"  n={n} exact LOO row {len(done)}/{rows_i.size}: {elapsed:.0f} s")
        if budget is not None and elapsed > budget and len(done) < rows_i.size:
            print(f"  n={n}: time budget {budget:.0f} s spent; stopping here")
            break
    if executor is None:
        rows_i = rows_i[: len(done)]
    sweep = stack(done)
    X_test, y_test = make_two_circles(N_TEST, random_state=10_000 + seed)
    test = test_errors(X, y, X_test, y_test, CS[cols_j], SIGMAS[rows_i])
    loo = sweep.scores["loo"]
    loo_min = float(np.nanmin(loo))

    def choice(name: str, i: int, j: int) -> dict:
        """What a choice of cell (i, j) is worth, for a criterion or the oracle."""
        return {
            "n": n,
            "seed": seed,
            "criterion": name,
            "loo_cells": f"{rows_i.size}x{cols_j.size}",
            # How much worse exact LOO is at this choice.
            "loo_regret": float(loo[i, j]) - loo_min,
            "loo_error_at_choice": float(sweep.errors["loo"][i, j]),
            "test_error": float(test[i, j]),
            "C": float(CS[cols_j[j]]),
            "lee_sigma2": float(LEE_SIGMA2S[rows_i[i]]),
        }

    rows, detail = [], {}
    for name in (*APPROXIMATIONS, "loo"):
        row = {
            **choice(name, *sweep.argmin(name)),
            "median_cell_s": float(np.median(sweep.seconds[name])),
            "total_s": sweep.total_seconds(name),
            "speedup": sweep.speedup(name),
            "spearman": sweep.spearman(name) if loo.size >= 3 else float("nan"),
            "argmin_dist": sweep.argmin_distance(name),
            "converged": float(np.mean(sweep.converged[name])),
        }
        rows.append(row)
        detail[name] = {
            **row,
            "scores_on_loo_cells": np.round(sweep.scores[name], 6).tolist(),
            "errors_on_loo_cells": np.round(sweep.errors[name], 6).tolist(),
        }
        if name != "loo":
            detail[name]["approx_grid"] = {
                "total_s": approx.total_seconds(name),
                "median_cell_s": float(np.median(approx.seconds[name])),
            }
    # The oracle: the cell with the least test error, and how far exact LOO's is.
    best = np.unravel_index(int(np.argmin(test)), test.shape)
    oracle = {
        **choice("test", *best),
        "argmin_dist": grid_steps(best, sweep.argmin("loo")),
    }
    rows.append(oracle)
    detail["test"] = {**oracle, "errors_on_loo_cells": np.round(test, 6).tolist()}
    detail["loo"]["extrapolated_20x20_total_s"] = float(
        np.mean(sweep.seconds["loo"]) * CS.size * LEE_SIGMA2S.size
    )
    detail["grid"] = {
        "Cs": CS.tolist(),
        "lee_sigma2s": LEE_SIGMA2S.tolist(),
        "loo_rows": rows_i.tolist(),
        "loo_cols": cols_j.tolist(),
        "approx_rows": ai.tolist(),
        "approx_cols": aj.tolist(),
    }
    return rows, detail


#: Size of the fresh test set drawn for every training set.
N_TEST = 10_000


def test_errors(
    X: np.ndarray,
    y: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    Cs: np.ndarray,
    sigmas: np.ndarray,
) -> np.ndarray:
    """Test misclassification of the full fit at every (sigma, C) cell."""
    out = np.empty((sigmas.size, Cs.size))
    for i, sigma in enumerate(sigmas):
        for j, C in enumerate(Cs):
            model = estimator().set_params(C=float(C), sigma=float(sigma))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(X, y)
            out[i, j] = misclassification(y_test * model.decision_function(X_test))
    return out


COLUMNS = [
    "n",
    "seed",
    "criterion",
    "loo_cells",
    "median_cell_s",
    "total_s",
    "speedup",
    *CHOICE_COLUMNS,
]


def per_size(values: list[int], sizes: list[int], name: str) -> list[int]:
    if len(values) != len(sizes):
        raise SystemExit(f"give one --{name} value per size")
    return values


#: The options that take one value per size: flag, type, default, help.
PER_SIZE_OPTIONS = (
    (
        "loo-axis",
        int,
        [20, 7, 3],
        "exact-LOO grid values per axis, one per size (20 = the full grid)",
    ),
    (
        "approx-axis",
        int,
        [20, 20, 5],
        "grid values per axis on which the approximations alone are timed",
    ),
    (
        "loo-budget",
        float,
        None,
        "seconds per size after which exact LOO stops (between sigma rows)",
    ),
)


def study_main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 200, 400])
    for flag, kind, default, help in PER_SIZE_OPTIONS:
        parser.add_argument(
            f"--{flag}", type=kind, nargs="+", default=default, help=help
        )
    parser.add_argument(
        "--stop",
        choices=["change", "kkt", "converged"],
        default="change",
        help="IRWLS stop rule: Lee's change of the multipliers, or the KKT "
        "residual; converged: the entropy dual at tol 1e-6 (the page's default)",
    )
    parser.add_argument("--tol", type=float, default=1e-3, help="its tolerance")
    parser.add_argument(
        "--mode",
        default="default",
        help="the run's name in results/loo_approximations.json (kkt for a "
        "--stop kkt run)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0],
        help="training-set seeds (make_two_circles random_state); each is one run",
    )
    add_scheduler_argument(parser, "exact LOO's rows run", "row by row here")
    args = parser.parse_args(argv)
    STOP.update(stop=args.stop, tol=args.tol)
    loo_axis = per_size(args.loo_axis, args.sizes, "loo-axis")
    approx_axis = per_size(args.approx_axis, args.sizes, "approx-axis")
    budgets = args.loo_budget or [None] * len(args.sizes)
    budgets = per_size(budgets, args.sizes, "loo-budget")
    all_rows, details, best = [], {}, {}
    for n, k, a, budget in zip(args.sizes, loo_axis, approx_axis, budgets, strict=True):
        for seed in args.seeds:
            # The single-seed key stays "n" so that older results read the same.
            key = str(n) if args.seeds == [0] else f"{n}/seed{seed}"
            rows, detail = one_size(n, k, a, budget, seed, args.scheduler)
            all_rows += rows
            details[key] = detail
            print_table(rows, COLUMNS)
            best[key] = best_of(detail)
            summary = over_seeds(all_rows) if len(args.seeds) > 1 else None
            # Written after every run, so that a long run keeps what it finished.
            path = write_json(
                "loo_approximations",
                {
                    "description": __doc__,
                    "settings": {
                        "data": "make_two_circles(n, random_state=seed)",
                        "seeds": args.seeds,
                        "estimator": estimator().get_params(),
                        "sizes": args.sizes,
                        "loo_axis": loo_axis,
                        "approx_axis": approx_axis,
                        "loo_budget_s": budgets,
                        "note": "timings on a shared 2-core machine",
                    },
                    "rows": all_rows,
                    "detail": details,
                    "best_approximation": best,
                    **({"over_seeds": summary} if summary else {}),
                },
                mode=args.mode,
            )
    print(
        f"\nTwo circles (seeds {args.seeds}), modified hinge delta=1e-4, IRWLS, "
        "no bias, "
        f"stop {args.stop} < {args.tol:g};\nmedian seconds per cell (each "
        "including its full fit), "
        "speed-up = LOO total / total\non the same cells, Spearman, argmin "
        "distance and LOO regret against exact LOO on those cells."
    )
    print_table(all_rows, COLUMNS)
    for key, b in best.items():
        print(f"{key}: best approximation by Spearman: {b}")
    if len(args.seeds) > 1:
        print(
            "\nOver the seeds (medians; 'within 1' counts seeds with argmin <= 1 step):"
        )
        print_table(summary, SUMMARY_COLUMNS)
    print(f"wrote {path}")


def best_of(detail: dict) -> dict:
    """The approximation with the highest Spearman, and whether it meets the target."""
    name = max(APPROXIMATIONS, key=lambda c: np.nan_to_num(detail[c]["spearman"]))
    d = detail[name]
    return {
        "criterion": name,
        "speedup": d["speedup"],
        "spearman": d["spearman"],
        "argmin_dist": d["argmin_dist"],
        "meets_target": bool(
            meets_target(d["speedup"], d["spearman"], d["argmin_dist"])
        ),
    }


SUMMARY_COLUMNS = [
    "n",
    "criterion",
    "seeds",
    "speedup",
    "spearman",
    "spearman_min",
    "argmin_dist",
    "within_1",
    "loo_regret",
    "test_error",
    "meets_target",
]


def over_seeds(rows: list[dict]) -> list[dict]:
    """Per size and approximation: medians over the seeds, how often goals hold."""
    out = []
    for n in sorted({r["n"] for r in rows}):
        for name in (*APPROXIMATIONS, "loo", "test"):
            mine = [r for r in rows if r["n"] == n and r["criterion"] == name]
            if not mine:
                continue
            col = {
                c: np.array([r[c] for r in mine], float)
                for c in mine[0]
                if isinstance(mine[0][c], (int, float))
            }
            # The oracle row has no timing or Spearman of its own.
            nan = np.full(len(mine), np.nan)
            speedup, spearman = col.get("speedup", nan), col.get("spearman", nan)
            meets = meets_target(speedup, spearman, col["argmin_dist"])
            out.append(
                {
                    "n": n,
                    "criterion": name,
                    "seeds": len(mine),
                    "speedup": float(np.median(speedup)),
                    "spearman": float(np.median(spearman)),
                    "spearman_min": float(np.min(spearman)),
                    "argmin_dist": float(np.median(col["argmin_dist"])),
                    "within_1": f"{int(np.sum(col['argmin_dist'] <= 1))}/{len(mine)}",
                    "loo_regret": float(np.median(col["loo_regret"])),
                    "test_error": float(np.median(col["test_error"])),
                    "meets_target": f"{int(meets.sum())}/{len(mine)}"
                    if name in APPROXIMATIONS
                    else "-",
                }
            )
    return out


def main() -> None:
    study_main()


if __name__ == "__main__":
    main()

"""Every registered solver against the exact QP and scikit-learn's SVC.

    python -m benchmarks.solvers [--sizes 100 200 400 1000 2000] [--repeats 3]
                                 [--sweep-sizes 400 1000] [--lee-repeats 5]

Three tables, also written to benchmarks/results/solvers.json:

1. fit time (``SVC.fit_time_``: kernel + solve, median of ``--repeats``; one fit for
   a solver whose first fit takes > 2 s; a solver is skipped at a size once its fit
   at the previous size, scaled by (n / n_prev)^2, would exceed 20 s), iterations,
   objective, convergence and max |f - f_ref| / max |f_ref| on the training points,
   on two circles, Gaussian sigma = 0.5, C = 10, all at the default tol = 1e-3.
   The reference is the QP fit of the same loss and bias (hinge, squared hinge) or
   IRWLS at tol 1e-8 with the KKT stopping rule (modified hinge); the non-convex
   ramp losses have none. Bias "unregularized" where the solver supports it, else
   "none" (column ``bias``). scikit-learn SVC (rbf, gamma = 1 / (2 sigma^2),
   default tol 1e-3) is timed for the hinge rows.
2. warm vs cold: 20 log-spaced C in [0.1, 100] (sigma = 0.5) and 20 log-spaced
   sigma in [0.1, 3] (C = 10), each fit from scratch vs from the previous alpha_.
3. Lee (2006) Table 1: IRWLS (modified hinge, delta = 1e-4, Lee's stopping rule)
   vs QP (hinge), no bias, Lee's (C, sigma_L^2) = (500, 0.7), beside the paper.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import time
import warnings
from typing import Any

import numpy as np
from sklearn.svm import SVC as LibSVC

from benchmarks.common import median_time, print_table, write_json
from svmlab import SVC, datasets
from svmlab.kernels import gamma_from_sigma, sigma_from_lee_sigma2
from svmlab.solvers import SOLVERS

C_MAIN, SIGMA_MAIN = 10.0, 0.5
LOSSES = ("hinge", "squared_hinge", "modified_hinge", "ramp", "squared_ramp")
SKIP_S = 20.0
SLOW_S = 2.0

#: Lee (2006) Table 1, CPU seconds, MATLAB 6.5 on a Pentium IV.
LEE_PAPER = {
    100: (0.609, 1.313),
    200: (2.640, 16.563),
    300: (10.375, 65.875),
    400: (49.968, 303.500),
}


def fit(X, y, init=None, **params: Any) -> SVC:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SVC(kernel="gaussian", **params).fit(X, y, init=init)


def rel_diff(f: np.ndarray, f_ref: np.ndarray) -> float:
    return float(np.abs(f - f_ref).max() / np.abs(f_ref).max())


def warm_up() -> None:
    """Compile / import everything once so the first timed fit is not charged."""
    X, y = datasets.make_two_circles(60, random_state=0)
    for loss in LOSSES:
        for name, spec in SOLVERS.items():
            if loss in spec.losses:
                bias = "unregularized" if spec.with_intercept else "none"
                fit(X, y, C=C_MAIN, sigma=SIGMA_MAIN, loss=loss, solver=name, bias=bias)
                if spec.without_intercept:
                    fit(
                        X,
                        y,
                        C=C_MAIN,
                        sigma=SIGMA_MAIN,
                        loss=loss,
                        solver=name,
                        bias="none",
                    )
    LibSVC(C=C_MAIN, gamma=gamma_from_sigma(SIGMA_MAIN)).fit(X, y)


def reference(X, y, loss: str, bias: str) -> np.ndarray | None:
    if loss in ("hinge", "squared_hinge"):
        m = fit(X, y, C=C_MAIN, sigma=SIGMA_MAIN, loss=loss, solver="qp", bias=bias)
    elif loss == "modified_hinge":
        m = fit(
            X,
            y,
            C=C_MAIN,
            sigma=SIGMA_MAIN,
            loss=loss,
            solver="irwls",
            bias=bias,
            tol=1e-8,
            solver_options={"stop": "kkt"},
        )
    else:
        return None
    return m.decision_function(X)


def table_sizes(sizes: list[int], repeats: int) -> tuple[list[dict], list[dict]]:
    rows: list[dict] = []
    ratios: list[dict] = []
    last: dict[tuple[str, str], tuple[int, float]] = {}
    for n in sizes:
        X, y = datasets.make_two_circles(n, random_state=0)
        gamma = gamma_from_sigma(SIGMA_MAIN)
        t_sk, _ = median_time(
            lambda: LibSVC(C=C_MAIN, gamma=gamma).fit(X, y), max(repeats, 5)
        )
        refs: dict[tuple[str, str], np.ndarray | None] = {}
        fastest: tuple[float, str] | None = None
        for loss in LOSSES:
            for name, spec in SOLVERS.items():
                if loss not in spec.losses:
                    continue
                bias = "unregularized" if spec.with_intercept else "none"
                row: dict[str, Any] = {
                    "n": n,
                    "loss": loss,
                    "solver": name,
                    "bias": bias,
                }
                if (loss, name) in last:
                    n0, t0 = last[(loss, name)]
                    if t0 * (n / n0) ** 2 > SKIP_S:
                        row["time_s"] = f"skipped (>{SKIP_S:.0f} s)"
                        rows.append(row)
                        continue
                params = dict(
                    C=C_MAIN, sigma=SIGMA_MAIN, loss=loss, solver=name, bias=bias
                )
                t1, m = median_time(lambda: fit(X, y, **params), 1)
                t_fit = m.fit_time_
                if t1 < SLOW_S and repeats > 1:
                    times = [t_fit]
                    for _ in range(repeats - 1):
                        m = fit(X, y, **params)
                        times.append(m.fit_time_)
                    t_fit = float(np.median(times))
                last[(loss, name)] = (n, t_fit)
                if (loss, bias) not in refs:
                    refs[(loss, bias)] = reference(X, y, loss, bias)
                f_ref = refs[(loss, bias)]
                row.update(
                    time_s=t_fit,
                    n_iter=int(m.n_iter_),
                    objective=float(m.objective_),
                    converged=bool(m.converged_),
                    max_rel_diff_f=(
                        "" if f_ref is None else rel_diff(m.decision_function(X), f_ref)
                    ),
                )
                if loss == "hinge":
                    row["sklearn_s"] = t_sk
                    row["ratio_to_sklearn"] = t_fit / t_sk
                    if fastest is None or t_fit < fastest[0]:
                        fastest = (t_fit, f"{name} ({bias})")
                rows.append(row)
        assert fastest is not None
        ratios.append(
            {
                "n": n,
                "fastest_hinge": fastest[1],
                "fastest_s": fastest[0],
                "sklearn_s": t_sk,
                "ratio": fastest[0] / t_sk,
            }
        )
        print(f"table 1: n={n} done", flush=True)
    return rows, ratios


SWEEP_CONFIGS = (
    ("hinge", "smo", "unregularized"),
    ("hinge", "qp", "unregularized"),
    ("hinge", "coordinate", "none"),
    ("squared_hinge", "smo", "unregularized"),
    ("squared_hinge", "qp", "unregularized"),
    ("squared_hinge", "coordinate", "none"),
    ("squared_hinge", "retargeted_ls", "unregularized"),
    ("modified_hinge", "irwls", "none"),
    ("ramp", "cccp", "unregularized"),
)


def sweep(X, y, grid: list[dict[str, float]], warm: bool, **params) -> tuple:
    total_t, total_it, alpha = 0.0, 0, None
    for point in grid:
        m = fit(X, y, init=alpha if warm else None, **params, **point)
        total_t += m.fit_time_
        total_it += int(m.n_iter_)
        alpha = m.alpha_
    return total_t, total_it


def table_sweeps(sizes: list[int]) -> list[dict]:
    Cs = np.logspace(-1, 2, 20)
    sigmas = np.logspace(np.log10(0.1), np.log10(3.0), 20)
    grids = {
        "C in [0.1, 100], sigma 0.5": [
            {"C": float(c), "sigma": SIGMA_MAIN} for c in Cs
        ],
        "sigma in [0.1, 3], C 10": [{"C": C_MAIN, "sigma": float(s)} for s in sigmas],
    }
    rows = []
    for n in sizes:
        X, y = datasets.make_two_circles(n, random_state=0)
        start = time.perf_counter()
        for c in Cs:
            LibSVC(C=float(c), gamma=gamma_from_sigma(SIGMA_MAIN)).fit(X, y)
        t_sk = time.perf_counter() - start
        for sweep_name, grid in grids.items():
            for loss, name, bias in SWEEP_CONFIGS:
                params = dict(loss=loss, solver=name, bias=bias)
                t_cold, it_cold = sweep(X, y, grid, False, **params)
                t_warm, it_warm = sweep(X, y, grid, True, **params)
                row = {
                    "n": n,
                    "sweep": sweep_name,
                    "loss": loss,
                    "solver": name,
                    "bias": bias,
                    "cold_s": t_cold,
                    "warm_s": t_warm,
                    "speedup": t_cold / t_warm,
                    "iters_cold": it_cold,
                    "iters_warm": it_warm,
                }
                if sweep_name.startswith("C"):
                    row["sklearn_20_cold_s"] = t_sk
                    row["warm_vs_sklearn"] = t_warm / t_sk
                rows.append(row)
        print(f"table 2: n={n} done", flush=True)
    return rows


def table_lee(repeats: int) -> list[dict]:
    sigma = sigma_from_lee_sigma2(0.7)
    rows = []
    for n, (p_irwls, p_qp) in LEE_PAPER.items():
        X, y = datasets.make_two_circles(n, random_state=0)
        common = dict(C=500.0, sigma=sigma, bias="none")
        irwls_times, qp_times = [], []
        for _ in range(repeats):
            m_ir = fit(
                X, y, loss="modified_hinge", delta=1e-4, solver="irwls", **common
            )
            irwls_times.append(m_ir.fit_time_)
            m_qp = fit(X, y, loss="hinge", solver="qp", **common)
            qp_times.append(m_qp.fit_time_)
        t_ir, t_qp = float(np.median(irwls_times)), float(np.median(qp_times))
        rows.append(
            {
                "n": n,
                "irwls_s": t_ir,
                "irwls_iter": int(m_ir.n_iter_),
                "qp_s": t_qp,
                "qp/irwls": t_qp / t_ir,
                "irwls/qp": t_ir / t_qp,
                "paper_irwls_s": p_irwls,
                "paper_qp_s": p_qp,
                "paper_qp/irwls": p_qp / p_irwls,
                "max_rel_diff_f": rel_diff(
                    m_ir.decision_function(X), m_qp.decision_function(X)
                ),
            }
        )
    print("table 3 done", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--sizes", type=int, nargs="*", default=[100, 200, 400, 1000, 2000]
    )
    parser.add_argument("--sweep-sizes", type=int, nargs="*", default=[400, 1000])
    parser.add_argument("--lee-repeats", type=int, default=5)
    args = parser.parse_args()
    warm_up()
    rows1, ratios = table_sizes(args.sizes, args.repeats)
    rows2 = table_sweeps(args.sweep_sizes)
    rows3 = table_lee(args.lee_repeats)

    print(
        f"\nTable 1: two circles, Gaussian sigma={SIGMA_MAIN}, C={C_MAIN}, "
        "tol=1e-3 (defaults); time = median SVC.fit_time_ (kernel + solve)"
    )
    cols1 = [
        "n",
        "loss",
        "solver",
        "bias",
        "time_s",
        "n_iter",
        "objective",
        "converged",
        "max_rel_diff_f",
        "sklearn_s",
        "ratio_to_sklearn",
    ]
    print_table(rows1, cols1)
    print("\nFastest svmlab hinge solver / scikit-learn SVC (target <= 1.5 at n=2000)")
    print_table(ratios, list(ratios[0]))
    print("\nTable 2: warm vs cold 20-value sweeps (totals of SVC.fit_time_)")
    cols2 = [
        "n",
        "sweep",
        "loss",
        "solver",
        "bias",
        "cold_s",
        "warm_s",
        "speedup",
        "iters_cold",
        "iters_warm",
        "sklearn_20_cold_s",
        "warm_vs_sklearn",
    ]
    print_table(rows2, cols2)
    print(
        "\nTable 3: Lee (2006) Table 1, two circles, C=500, sigma_L^2=0.7, "
        f"delta=1e-4, bias none, median of {args.lee_repeats}"
    )
    print_table(rows3, list(rows3[0]))
    path = write_json(
        "solvers",
        {
            "data": "two_circles (random_state=0)",
            "kernel": "gaussian",
            "tol": 1e-3,
            "table1": {
                "C": C_MAIN,
                "sigma": SIGMA_MAIN,
                "repeats": args.repeats,
                "rows": rows1,
                "fastest_hinge_vs_sklearn": ratios,
            },
            "table2": {"rows": rows2},
            "table3": {
                "C": 500.0,
                "lee_sigma2": 0.7,
                "delta": 1e-4,
                "repeats": args.lee_repeats,
                "rows": rows3,
            },
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

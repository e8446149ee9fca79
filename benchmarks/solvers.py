"""Every registered solver against the exact QP and scikit-learn's SVC.

    python -m benchmarks solvers [--quick] [--panel-sizes 500 2000 5000]
        [--panel-repeats 5] [--path-n 2000] [--sizes ...] [--repeats 3]
        [--sweep-sizes 400 1000] [--lee-repeats 5]

Issue 16's tables first (all written to benchmarks/results/solvers.json with the
machine's load averages and BLAS threads; OPENBLAS_NUM_THREADS=1; every time a
median, svmlab and scikit-learn interleaved round by round):

A. the panel: six problems (well separated rings C = 3: two circles with the
   coin-flip band removed, so a gap of 0.25 separates the classes; two circles
   with label noise (Lee's band) C = 10; the same at C = 500; overlapping
   Gaussians (blobs, noise 1) C = 1; the spiral (sigma 1) C = 50; the outlier
   blobs C = 10; Gaussian sigma 0.5 unless said), n = 500, 2000, 5000, tol 1e-3.
   SMO with kernel rows on demand (no Gram matrix; the kernel work is in the
   time) against scikit-learn's SVC (its own kernel cache), the ratio, and SMO
   on the full Gram matrix as the estimator runs it (Gram computation included);
B. the solver family on the same data (Gram included): retargeted LS (squared
   hinge), IRWLS (modified hinge), coordinate ascent (hinge, no bias), CCCP
   (ramp), QP (hinge), each as a multiple of SMO's time on that problem;
C. agreement at tol 1e-8: max |f - f_sklearn| / max |f_sklearn| on the training
   points for SMO (rows on demand and dense) and QP;
D. a 21-value C path (log-spaced, 1 to 1000; two circles with label noise,
   n = ``--path-n``), warm-started from the previous alpha against cold fits,
   for every iterative solver, beside 21 cold scikit-learn fits.

Then, unless ``--quick``, the older tables:

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

# One BLAS thread, whatever the shell says: the timings are single-core.
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
from sklearn.svm import SVC as LibSVC

from benchmarks.harness.peers import (
    PEERS,
    fastest,
    missing,
    peer_fits,
    table_crammer_singer,
    table_nu_svr,
    table_one_vs_one,
    thread_counts,
)
from benchmarks.harness.report import (
    interleaved_medians,
    machine_load,
    median_time,
    print_table,
    versus,
    write_json,
)
from svmlab import SVC, datasets
from svmlab.experiments.solver_comparison import ModelSpec, compare_solvers, timed_solve
from svmlab.experiments.solver_scaling import LEE_PAPER, lee_table
from svmlab.kernels import KernelRows, gamma_from_sigma, gram
from svmlab.losses import make_loss
from svmlab.solvers import SOLVERS, Problem
from svmlab.solvers import solve as solve_with

C_MAIN, SIGMA_MAIN = 10.0, 0.5
LOSSES = ("hinge", "squared_hinge", "modified_hinge", "ramp", "squared_ramp")
SKIP_S = 20.0
SLOW_S = 2.0

#: Lee (2006) Table 1 (LEE_PAPER, imported above) lives in
#: svmlab.experiments.solver_scaling, beside the code that reruns it for the Solvers
#: page.


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
    """Lee's Table 1 by :func:`svmlab.experiments.solver_scaling.lee_table`, the Solvers
    page's own code (kernel + solve, median of ``repeats``)."""
    rows = []
    for r in lee_table(tuple(LEE_PAPER), repeats=repeats):
        rows.append(
            {
                "n": r.n,
                "irwls_s": r.irwls,
                "irwls_iter": r.irwls_iter,
                "qp_s": r.qp,
                "qp/irwls": r.qp / r.irwls,
                "irwls/qp": r.irwls / r.qp,
                "paper_irwls_s": r.paper_irwls,
                "paper_qp_s": r.paper_qp,
                "paper_qp/irwls": r.paper_ratio,
                "max_rel_diff_f": r.max_rel_diff_f,
            }
        )
    print("table 3 done", flush=True)
    return rows


def table_page(n: int) -> list[dict]:
    """E. The Solvers page's table (issue 17), from the page's own engine call
    :func:`svmlab.experiments.solver_comparison.compare_solvers`: two circles, Gaussian
    sigma 0.5, C = 10, tol 1e-3, hinge with an unregularized bias and with
    none, every valid solver and the library reference."""
    X, y = _circles(n)
    rows = []
    for bias in ("unregularized", "none"):
        model = ModelSpec(loss="hinge", C=C_MAIN, sigma=SIGMA_MAIN, bias=bias)
        result = compare_solvers(X, y, model, traces=False)
        for r in result.rows:
            if not r.valid or r.error:
                continue
            rows.append(
                {
                    "n": n,
                    "bias": bias,
                    "solver": r.name,
                    "time_ms": 1e3 * r.fit_time,
                    "n_iter": r.n_iter,
                    "objective": r.objective,
                    "kkt": r.kkt,
                    "gap": r.gap if r.gap is not None else "",
                    "sv_free": r.n_free,
                    "sv_bound": r.n_bound,
                    "max_f_diff": r.max_f_diff if r.max_f_diff is not None else "",
                    "met_tol": r.met_tol,
                }
            )
    print("page table done", flush=True)
    return rows


# -- issue 16: the panel, the family, agreement and the C path ---------------------


def make_rings(n: int, random_state: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two circles with the coin-flip band (0.5 <= r <= 0.75) removed: two
    classes separated by a gap of 0.25 (the first n points off the band)."""
    X, y = datasets.make_two_circles(3 * n, random_state=random_state)
    r = np.hypot(X[:, 0], X[:, 1])
    keep = (r < 0.5) | (r > 0.75)
    return X[keep][:n], y[keep][:n]


def _circles(n: int) -> tuple[np.ndarray, np.ndarray]:
    return datasets.make_two_circles(n, random_state=0)


#: name -> (generator of n, C, sigma).
PANEL: dict[str, tuple[Any, float, float]] = {
    "well separated rings": (make_rings, 3.0, 0.5),
    "two circles, label noise": (_circles, 10.0, 0.5),
    "two circles, C = 500": (_circles, 500.0, 0.5),
    "overlapping Gaussians": (
        lambda n: datasets.make_blobs(n, random_state=0),
        1.0,
        0.5,
    ),
    "spiral": (lambda n: datasets.make_spiral(n, random_state=0), 50.0, 1.0),
    "outlier blobs": (
        lambda n: datasets.make_outlier_blobs(n, random_state=0),
        10.0,
        0.5,
    ),
}


def panel_problems(n: int) -> Iterator[tuple[dict[str, Any], Any, Any, float, float]]:
    """The panel's problems at size ``n``, each as the first columns of its
    table row (problem, n, C), its data X and y, its C and its sigma."""
    for name, (make, C, sigma) in PANEL.items():
        X, y = make(n)
        yield {"problem": name, "n": n, "C": C}, X, y, C, sigma


#: The solver family of table B: solver, loss, bias (fit_intercept).
FAMILY = (
    ("retargeted_ls", "squared_hinge", True),
    ("irwls", "modified_hinge", True),
    ("entropy_dual", "modified_hinge", True),
    ("coordinate", "hinge", False),
    ("cccp", "ramp", True),
    ("qp", "hinge", True),
)
#: A family member is skipped at a size once its time at the previous size,
#: scaled by (n / n_prev)^3, would exceed this many seconds.
FAMILY_SKIP_S = 30.0


def _smo_lazy(X, y, C, sigma, tol=1e-3):
    rows = KernelRows(X, sigma=sigma)
    problem = Problem(None, y, make_loss("hinge"), C, True, kernel=rows)
    return solve_with(problem, method="smo", tol=tol)


def _smo_dense(X, y, C, sigma, tol=1e-3):
    problem = Problem(gram(X, sigma=sigma), y, make_loss("hinge"), C, True)
    return solve_with(problem, method="smo", tol=tol)


def _sklearn(X, y, C, sigma, tol=1e-3):
    return LibSVC(C=C, gamma=gamma_from_sigma(sigma), tol=tol).fit(X, y)


def _svc_fit(X, y, C, sigma, tol=1e-3):
    """svmlab.SVC.fit as a user calls it (issue 29: end to end, beside the
    solver alone): validation, kernel rows on demand, SMO, the model's numbers."""
    return SVC(C=C, sigma=sigma, tol=tol).fit(X, y)


#: Table A's contenders timed against scikit-learn, and their ratio columns.
PANEL_RATIOS = {"smo": "ratio", "svc_fit": "ratio_svc_fit", "smo_gram": "ratio_gram"}


#: Above this n the full Gram matrix is not formed (20,000 points: 3.2 GB):
#: SMO on the Gram matrix (table A) and the family (table B, every member
#: forms it) are left out.
GRAM_MAX_N = 5000


def table_panel(sizes: list[int], repeats: int) -> list[dict]:
    """Table A: every contender and every installed peer on each problem,
    interleaved round by round; times as ratios to scikit-learn (the older
    columns) and to the fastest peer of the same run (issue 48)."""
    rows = []
    for n in sizes:
        for head, X, y, C, sigma in panel_problems(n):
            reps = repeats if n <= 2000 else max(3, repeats // 2)
            fns = {
                **peer_fits(X, y, C, gamma_from_sigma(sigma)),
                "smo": lambda: _smo_lazy(X, y, C, sigma),
                "svc_fit": lambda: _svc_fit(X, y, C, sigma),
            }
            ratios = dict(PANEL_RATIOS)
            if n <= GRAM_MAX_N:
                fns["smo_gram"] = lambda: _smo_dense(X, y, C, sigma)
            else:
                ratios.pop("smo_gram")
            times, res = interleaved_medians(fns, reps)
            sol, lib = res["smo"], res["sklearn"]
            best, t_best = fastest(times)
            row = {
                **head,
                "sigma": sigma,
                **versus(times, "sklearn", ratios),
                **{f"{p}_ms": 1e3 * times[p] for p in PEERS if p in times},
                "fastest_peer": best,
                "svc_fit/fastest": times["svc_fit"] / t_best,
                "smo/fastest": times["smo"] / t_best,
                "smo_iter": int(sol.n_iter),
                "sklearn_iter": int(lib.n_iter_[0]),
                "n_sv": int(np.count_nonzero(sol.alpha)),
                "converged": bool(sol.converged),
                "load_1min": os.getloadavg()[0],
            }
            rows.append(row)
            print(
                f"panel: n={n} {head['problem']} done: SVC.fit / {best} "
                f"{row['svc_fit/fastest']:.2f}",
                flush=True,
            )
    return rows


def table_family(sizes: list[int], panel_rows: list[dict]) -> list[dict]:
    smo_ms = {(r["problem"], r["n"]): r["smo_ms"] for r in panel_rows}
    rows = []
    last: dict[tuple[str, str], tuple[int, float]] = {}
    for n in sizes:
        for name, (make, C, sigma) in PANEL.items():
            X, y = make(n)
            for solver, loss, fit_intercept in FAMILY:
                key = (name, solver)
                row: dict[str, Any] = {"problem": name, "n": n, "solver": solver}
                row["loss"] = loss
                if key in last:
                    n0, t0 = last[key]
                    if t0 * (n / n0) ** 3 > FAMILY_SKIP_S:
                        row["time_ms"] = f"skipped (>{FAMILY_SKIP_S:.0f} s)"
                        rows.append(row)
                        continue

                # The Solvers page's timing
                # (svmlab.experiments.solver_comparison.timed_solve: median of 3 under
                # 50 ms), the Gram matrix's time added.
                start = time.perf_counter()
                K = gram(X, sigma=sigma)
                problem = Problem(K, y, make_loss(loss), C, fit_intercept)
                t_gram = time.perf_counter() - start
                sol, t_solve = timed_solve(problem, solver, tol=1e-3, max_seconds=None)
                t = t_gram + t_solve
                last[key] = (n, t)
                row.update(
                    time_ms=1e3 * t,
                    x_smo=1e3 * t / smo_ms[(name, n)],
                    n_iter=int(sol.n_iter),
                    converged=bool(sol.converged),
                    stop_reason=sol.stop_reason,
                )
                rows.append(row)
            print(f"family: n={n} {name} done", flush=True)
    return rows


def table_agreement(sizes: list[int]) -> list[dict]:
    rows = []
    for n in sizes:
        for row, X, y, C, sigma in panel_problems(n):
            lib = _sklearn(X, y, C, sigma, tol=1e-8)
            f_ref = lib.decision_function(X)
            K = gram(X, sigma=sigma)
            fits = {
                "smo": _smo_lazy(X, y, C, sigma, tol=1e-8),
                "smo_gram": _smo_dense(X, y, C, sigma, tol=1e-8),
            }
            if n <= 2000:
                problem = Problem(K, y, make_loss("hinge"), C, True)
                fits["qp"] = solve_with(problem, method="qp", tol=1e-8)
            fs = {key: K @ (sol.alpha * y) + sol.b for key, sol in fits.items()}
            for key, f in fs.items():
                row[f"{key}_vs_sklearn"] = rel_diff(f, f_ref)
            if "qp" in fs:
                # scikit-learn's float32 kernel cache limits its own accuracy at
                # large C (docs/corrections.md); the exact QP is the referee.
                row["smo_vs_qp"] = rel_diff(fs["smo"], fs["qp"])
            rows.append(row)
        print(f"agreement: n={n} done", flush=True)
    return rows


#: The C path's iterative solvers: label, solver, loss, bias, options.
PATH_SOLVERS = (
    ("smo (rows on demand)", "smo", "hinge", True, {}),
    ("smo (Gram once)", "smo", "hinge", True, {}),
    ("coordinate", "coordinate", "hinge", False, {}),
    ("retargeted_ls", "retargeted_ls", "squared_hinge", True, {}),
    ("irwls", "irwls", "modified_hinge", True, {}),
    ("entropy_dual", "entropy_dual", "modified_hinge", True, {}),
    ("cccp (hinge start)", "cccp", "ramp", True, {"start": "hinge"}),
    # CCCP's own default with init: start from the previous alpha (cold: hinge).
    ("cccp (start from init)", "cccp", "ramp", True, {}),
)


def table_paths(n: int) -> list[dict]:
    X, y = _circles(n)
    sigma = 0.5
    Cs = [float(c) for c in np.logspace(0, 3, 21)]
    start = time.perf_counter()
    for C in Cs:
        _sklearn(X, y, C, sigma)
    t_sk = time.perf_counter() - start
    rows = []
    for label, solver, loss, fit_intercept, options in PATH_SOLVERS:
        totals = {}
        for warm in (False, True):
            start = time.perf_counter()
            # The Gram matrix once per path (the Explore page caches it), or
            # kernel rows on demand for the first SMO row.
            lazy = label.startswith("smo (rows")
            K = None if lazy else gram(X, sigma=sigma)
            kernel = KernelRows(X, sigma=sigma) if lazy else None
            alpha, iters, converged = None, 0, 0
            for C in Cs:
                problem = Problem(K, y, make_loss(loss), C, fit_intercept, kernel)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sol = solve_with(
                        problem,
                        method=solver,
                        init=alpha if warm else None,
                        **options,
                    )
                alpha = sol.alpha
                iters += int(sol.n_iter)
                converged += bool(sol.converged)
            # The last C's objective: a non-convex loss may end elsewhere warm.
            totals[warm] = (
                time.perf_counter() - start,
                iters,
                converged,
                sol.objective,
            )
        rows.append(
            {
                "n": n,
                "solver": label,
                "loss": loss,
                "cold_s": totals[False][0],
                "warm_s": totals[True][0],
                "warm/cold": totals[True][0] / totals[False][0],
                "sklearn_21_cold_s": t_sk,
                "warm/sklearn": totals[True][0] / t_sk,
                "iters_cold": totals[False][1],
                "iters_warm": totals[True][1],
                "converged_warm": f"{totals[True][2]}/21",
                "objective_last_C_cold": float(totals[False][3]),
                "objective_last_C_warm": float(totals[True][3]),
                "load_1min": os.getloadavg()[0],
            }
        )
        print(f"path: {label} done", flush=True)
    return rows


def table_svc_path(n: int, repeats: int = 3) -> list[dict]:
    """The 21-value C path through ``SVC.fit`` with the Gram matrix handed in
    (issue 29, item 4): warm (``init`` = the previous ``alpha_``) against 21
    cold scikit-learn fits, medians of ``repeats`` interleaved rounds. The
    Gram matrix is computed once per path and counted in ``with_gram``."""
    X, y = _circles(n)
    sigma = 0.5
    Cs = [float(c) for c in np.logspace(0, 3, 21)]

    def sklearn_path() -> None:
        for C in Cs:
            _sklearn(X, y, C, sigma)

    def svc_path(K: np.ndarray | None) -> None:
        K = gram(X, sigma=sigma) if K is None else K
        alpha = None
        for C in Cs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                alpha = SVC(C=C, sigma=sigma).fit(X, y, init=alpha, K=K).alpha_

    K = gram(X, sigma=sigma)
    times, _ = interleaved_medians(
        {
            "sklearn_21_cold": sklearn_path,
            "svc_warm_K_given": lambda: svc_path(K),
            "svc_warm_with_gram": lambda: svc_path(None),
        },
        repeats,
    )
    return [
        {
            "n": n,
            "sklearn_21_cold_s": times["sklearn_21_cold"],
            "svc_warm_K_given_s": times["svc_warm_K_given"],
            "ratio_K_given": times["svc_warm_K_given"] / times["sklearn_21_cold"],
            "svc_warm_with_gram_s": times["svc_warm_with_gram"],
            "ratio_with_gram": times["svc_warm_with_gram"] / times["sklearn_21_cold"],
            "load_1min": os.getloadavg()[0],
        }
    ]


def _median(rows: list[dict], key: str, **where: Any) -> float:
    vals = [
        r[key]
        for r in rows
        if isinstance(r.get(key), float) and all(r[k] == v for k, v in where.items())
    ]
    return float(np.median(vals)) if vals else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="issue 16 tables only")
    parser.add_argument(
        "--panel-sizes", type=int, nargs="*", default=[2000, 5000, 20000]
    )
    parser.add_argument("--panel-repeats", type=int, default=5)
    parser.add_argument("--path-n", type=int, default=2000)
    parser.add_argument("--page-n", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--sizes", type=int, nargs="*", default=[100, 200, 400, 1000, 2000]
    )
    parser.add_argument("--sweep-sizes", type=int, nargs="*", default=[400, 1000])
    parser.add_argument("--lee-repeats", type=int, default=5)
    parser.add_argument(
        "--mode",
        default="default",
        help="the run's name in results/solvers.json (the Model selection page "
        "reads the default)",
    )
    parser.add_argument(
        "--only-peers",
        action="store_true",
        help="issue 48's tables only (table A against the peers, and P), "
        "written under the mode 'peers'",
    )
    parser.add_argument(
        "--only-targets",
        action="store_true",
        help="issue 48's table P alone (one-vs-one, NuSVR, linear "
        "Crammer-Singer against their peers), written under the mode "
        "'peers_targets'",
    )
    args = parser.parse_args()
    load_start = machine_load()
    if args.only_targets:
        run_targets(args, load_start)
        return
    warm_up()
    for n in (60, 300):  # compile the on-demand paths too
        X, y = make_rings(n)
        _smo_lazy(X, y, 3.0, 0.5)
        _smo_dense(X, y, 3.0, 0.5)
    if args.only_peers:
        run_peers(args, load_start)
        return

    panel = table_panel(args.panel_sizes, args.panel_repeats)
    family = table_family([n for n in args.panel_sizes if n <= GRAM_MAX_N], panel)
    agreement = table_agreement([n for n in args.panel_sizes if n <= 2000])
    paths = table_paths(args.path_n)
    svc_path = table_svc_path(args.path_n)
    page = table_page(args.page_n)
    load_end = machine_load()

    print(
        "\nA. SMO (kernel rows on demand, kernel work included) vs scikit-learn SVC; "
        "smo_gram: SMO on the full Gram matrix, its computation included; "
        "Gaussian kernel, tol 1e-3, medians"
    )
    cols = [
        "problem", "n", "C", "sigma", "sklearn_ms", "smo_ms", "ratio",
        "svc_fit_ms", "ratio_svc_fit", "smo_gram_ms", "ratio_gram", "smo_iter",
        "sklearn_iter", "n_sv", "converged", "load_1min",
    ]  # fmt: skip
    print_table(panel, cols)
    summary = []
    for n in args.panel_sizes:
        ratios = [r["ratio"] for r in panel if r["n"] == n]
        summary.append(
            {
                "n": n,
                "median_ratio": float(np.median(ratios)),
                "max_ratio": float(np.max(ratios)),
                "median_ratio_gram": _median(panel, "ratio_gram", n=n),
                "median_ratio_svc_fit": _median(panel, "ratio_svc_fit", n=n),
                "max_ratio_svc_fit": max(
                    r["ratio_svc_fit"] for r in panel if r["n"] == n
                ),
            }
        )
    print(
        "\nSMO alone and SVC.fit end to end / scikit-learn over the panel "
        "(target: median <= 1.0, max <= 1.5)"
    )
    print_table(summary, list(summary[0]))
    print("\nB. the solver family (Gram included), x_smo = time / SMO's (table A)")
    cols = ["problem", "n", "solver", "loss", "time_ms", "x_smo", "n_iter"]
    print_table(family, [*cols, "converged", "stop_reason"])
    family_summary = [
        {
            "n": n,
            "solver": solver,
            "median_x_smo": _median(family, "x_smo", n=n, solver=solver),
            "max_ms": max(
                (
                    r["time_ms"]
                    for r in family
                    if r["n"] == n
                    and r["solver"] == solver
                    and isinstance(r.get("time_ms"), float)
                ),
                default=float("nan"),
            ),
        }
        for n in args.panel_sizes
        for solver, _, _ in FAMILY
    ]
    print("\nB, summary (target: x_smo <= 5; no fit at n = 2000 over 2 s)")
    print_table(family_summary, list(family_summary[0]))
    print("\nC. agreement with scikit-learn at tol 1e-8: max |f - f_sk| / max |f_sk|")
    print_table(agreement, list(agreement[0]))
    print(
        f"\nD. 21-value C path (1 to 1000), two circles with label noise, "
        f"n = {args.path_n}: warm vs cold (target: SMO warm <= 0.5 x sklearn)"
    )
    print_table(paths, list(paths[0]))
    print(
        "\nD'. the same path through SVC.fit with K handed in, warm, against 21 "
        "cold scikit-learn fits (target: <= 0.5)"
    )
    print_table(svc_path, list(svc_path[0]))
    print(
        f"\nE. the Solvers page's table (compare_solvers), two circles n = "
        f"{args.page_n}, hinge, C = {C_MAIN}, sigma = {SIGMA_MAIN}, tol 1e-3"
    )
    print_table(page, list(page[0]))
    payload: dict[str, Any] = {
        "load_at_start": load_start,
        "load_at_end": load_end,
        "kernel": "gaussian",
        "tol": 1e-3,
        "issue16": {
            "panel": {"rows": panel, "summary": summary},
            "family": {"rows": family, "summary": family_summary},
            "agreement_tol_1e-8": agreement,
            "c_path": {
                "n": args.path_n,
                "C": "21 log-spaced in [1, 1000]",
                "rows": paths,
            },
        },
        "issue29": {"svc_fit_c_path_K_given": svc_path},
        "issue17": {"page_table": page},
    }
    if not args.quick:
        rows1, ratios = table_sizes(args.sizes, args.repeats)
        rows2 = table_sweeps(args.sweep_sizes)
        rows3 = table_lee(args.lee_repeats)
        print_legacy(args, rows1, ratios, rows2, rows3)
        payload.update(
            data="two_circles (random_state=0)",
            table1={
                "C": C_MAIN,
                "sigma": SIGMA_MAIN,
                "repeats": args.repeats,
                "rows": rows1,
                "fastest_hinge_vs_sklearn": ratios,
            },
            table2={"rows": rows2},
            table3={
                "C": 500.0,
                "lee_sigma2": 0.7,
                "delta": 1e-4,
                "repeats": args.lee_repeats,
                "rows": rows3,
            },
        )
    else:
        # The older tables take long; --quick keeps the last full run's (the Model
        # selection page reads table 3, Lee's Table 1) and says where they are from.
        payload.update(_previous_full_run())
    path = write_json("solvers", payload, mode=args.mode)
    print(f"wrote {path}")


def print_peers(panel: list[dict], targets: list[dict], threads: dict) -> None:
    """Issue 48's table: each time as a ratio to the fastest peer of the run."""
    print(f"\nthreads: {threads}; peers not installed: {missing() or 'none'}")
    print(
        "\nA'. SVC.fit end to end and SMO alone against the fastest peer of the "
        "same run (scikit-learn, LIBSVM 3.37, oneDAL); Gaussian kernel, tol 1e-3, "
        "medians (target: svc_fit/fastest <= 1.0 at n = 20,000; at n <= 5,000 "
        "no slower than before)"
    )
    cols = [
        "problem", "n", *(f"{p}_ms" for p in PEERS), "fastest_peer", "svc_fit_ms",
        "svc_fit/fastest", "smo_ms", "smo/fastest", "smo_iter", "sklearn_iter",
        "load_1min",
    ]  # fmt: skip
    print_table(panel, cols)
    summary = [
        {
            "n": n,
            "median_svc_fit/fastest": _median(panel, "svc_fit/fastest", n=n),
            "max_svc_fit/fastest": max(
                r["svc_fit/fastest"] for r in panel if r["n"] == n
            ),
            "median_svc_fit/sklearn": _median(panel, "ratio_svc_fit", n=n),
        }
        for n in sorted({r["n"] for r in panel})
    ]
    print_table(summary, list(summary[0]))
    print("\nP. the other targets, against the peer named")
    for rows in _by_target(targets):
        print_table(rows, list(rows[0]))


def _by_target(rows: list[dict]) -> list[list[dict]]:
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["target"], []).append(r)
    return list(groups.values())


def run_peers(args: argparse.Namespace, load_start: dict) -> None:
    """Issue 48's tables alone (``--only-peers``): table A with the peers at
    ``--panel-sizes`` and table P, written under the mode ``peers``."""
    panel = table_panel(args.panel_sizes, args.panel_repeats)
    targets = issue48_targets(args.panel_repeats)
    threads = thread_counts()
    print_peers(panel, targets, threads)
    payload = {
        "load_at_start": load_start,
        "load_at_end": machine_load(),
        "threads": threads,
        "peers_missing": missing(),
        "kernel": "gaussian",
        "tol": 1e-3,
        "issue48": {"panel": panel, "targets": targets},
    }
    path = write_json("solvers", payload, mode="peers")
    print(f"wrote {path}")


def issue48_targets(repeats: int) -> list[dict]:
    """Table P: the one-vs-one, NuSVR and linear Crammer-Singer targets, each
    row with the load it ran beside."""
    rows = []
    for table, reps in (
        (table_one_vs_one, max(5, repeats)),
        (table_nu_svr, max(3, repeats // 2)),
        (table_crammer_singer, max(5, repeats)),
    ):
        for row in table(reps):
            rows.append({**row, "load_1min": os.getloadavg()[0]})
    return rows


def run_targets(args: argparse.Namespace, load_start: dict) -> None:
    """Table P alone (``--only-targets``), under the mode ``peers_targets``:
    minutes where the panel at n = 20,000 takes an hour on a shared machine."""
    targets = issue48_targets(args.panel_repeats)
    threads = thread_counts()
    print(f"\nthreads: {threads}")
    print("\nP. issue 48's other targets, against the peer named (medians)")
    for rows in _by_target(targets):
        print_table(rows, list(rows[0]))
    payload = {
        "load_at_start": load_start,
        "load_at_end": machine_load(),
        "threads": threads,
        "issue48": {"targets": targets},
    }
    path = write_json("solvers", payload, mode="peers_targets")
    print(f"wrote {path}")


def _previous_full_run() -> dict[str, Any]:
    """Tables 1-3 of the JSON written by the last full run, if there is one."""
    import json
    from pathlib import Path

    path = Path(__file__).parent / "results" / "solvers.json"
    try:
        old = json.loads(path.read_text())["runs"]["default"]
    except (OSError, ValueError, KeyError):
        return {}
    keep = {k: old[k] for k in ("data", "table1", "table2", "table3") if k in old}
    if keep:
        keep["tables_1_to_3_from"] = old.get(
            "tables_1_to_3_from",
            {"load_at_start": old.get("load_at_start"), "machine": old.get("machine")},
        )
    return keep


def print_legacy(args, rows1, ratios, rows2, rows3) -> None:
    print(
        f"\nTable 1: two circles, Gaussian sigma={SIGMA_MAIN}, C={C_MAIN}, "
        "tol=1e-3 (defaults); time = median SVC.fit_time_ (kernel + solve)"
    )
    cols1 = [
        "n", "loss", "solver", "bias", "time_s", "n_iter", "objective",
        "converged", "max_rel_diff_f", "sklearn_s", "ratio_to_sklearn",
    ]  # fmt: skip
    print_table(rows1, cols1)
    print("\nFastest svmlab hinge solver / scikit-learn SVC")
    print_table(ratios, list(ratios[0]))
    print("\nTable 2: warm vs cold 20-value sweeps (totals of SVC.fit_time_)")
    cols2 = [
        "n", "sweep", "loss", "solver", "bias", "cold_s", "warm_s", "speedup",
        "iters_cold", "iters_warm", "sklearn_20_cold_s", "warm_vs_sklearn",
    ]  # fmt: skip
    print_table(rows2, cols2)
    print(
        "\nTable 3: Lee (2006) Table 1, two circles, C=500, sigma_L^2=0.7, "
        f"delta=1e-4, bias none, median of {args.lee_repeats}"
    )
    print_table(rows3, list(rows3[0]))


if __name__ == "__main__":
    main()

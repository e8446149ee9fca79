"""SVC.fit against scikit-learn, the modified hinge against the hinge, and a warm
C path against cold LIBSVM fits, at n = 2000, in a minute (issue 29's targets;
benchmarks/solvers.py measures them among its many tables, in about ten).

    python -m benchmarks fit_speed [--n 2000] [--repeats 5] [--path-repeats 5]

Every time a median of ``--repeats`` rounds, the contenders interleaved round
by round (a change in the machine's load hits them alike), one BLAS thread;
the machine's load averages at start and end and beside each row, as the
machine is shared. Written to benchmarks/results/fit_speed.json.

A. ``svmlab.SVC.fit`` end to end (hinge, as a user calls it: validation,
   kernel rows on demand, SMO, the model's numbers) against scikit-learn's SVC
   (LIBSVM) on the solvers' panel (benchmarks/solvers.py ``PANEL``), Gaussian
   kernel, tol 1e-3. Target: median at most 1.0, worst at most 1.5.
B. The modified hinge (Lee's C^1 form, delta 0.1; the entropy dual) against
   the hinge (SMO) on the same problem, both as ``SVC.fit`` runs them (kernel
   rows on demand), and both solvers alone on a Gram matrix handed in (the
   Gram matrix's time left out: the solvers' own work). Target: at most 2x
   SMO's hinge time.
C. A 21-value C path (log-spaced, 1 to 1000; two circles with label noise,
   sigma 0.5) through ``SVC.fit`` with the Gram matrix handed in, each fit
   warm-started from the previous ``alpha_``, against 21 cold scikit-learn
   fits. Target: at most 0.5.
D. What B compares: the decision values of each loss's fit at tol 1e-3
   against its fit at tol 1e-9, the largest error in bands of the tight
   ``|f|``. The two KKT measures have different units (the hinge's is in
   margin units, the modified hinge's in multiplier units, ``|a_k / C -
   psi(m_k)|``), so equal tols are not equal accuracies; this says where each
   is the more accurate. Not timed.
"""

from __future__ import annotations

import argparse
import os

# One BLAS thread, whatever the shell says: the timings are single-core.
os.environ["OPENBLAS_NUM_THREADS"] = "1"

import warnings
from typing import Any

import numpy as np

from benchmarks.harness.report import (
    interleaved_medians,
    machine_load,
    print_table,
    versus,
    write_json,
)
from benchmarks.solvers import _circles, _sklearn, _svc_fit, panel_problems, warm_up
from svmlab import SVC
from svmlab.kernels import gram
from svmlab.losses import make_loss
from svmlab.solvers import Problem
from svmlab.solvers import solve as solve_with


def _load() -> float:
    return os.getloadavg()[0]


def table_svc_fit(n: int, repeats: int) -> list[dict[str, Any]]:
    rows = []
    for head, X, y, C, sigma in panel_problems(n):
        times, res = interleaved_medians(
            {
                "sklearn": lambda: _sklearn(X, y, C, sigma),
                "svc_fit": lambda: _svc_fit(X, y, C, sigma),
            },
            repeats,
        )
        rows.append(
            {
                **head,
                **versus(times, "sklearn", {"svc_fit": "ratio"}),
                "svc_iter": int(res["svc_fit"].n_iter_),
                "sklearn_iter": int(res["sklearn"].n_iter_[0]),
                "load_1min": _load(),
            }
        )
        print(f"A: {head['problem']} done", flush=True)
    return rows


def _solver(K, y, C, loss: str, method: str):
    return solve_with(Problem(K, y, make_loss(loss), C, True), method=method, tol=1e-3)


def table_modified_hinge(n: int, repeats: int) -> list[dict[str, Any]]:
    rows = []
    for head, X, y, C, sigma in panel_problems(n):
        K = gram(X, sigma=sigma)
        cpu: dict[str, float] = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            times, res = interleaved_medians(
                {
                    "hinge_fit": lambda: SVC(C=C, sigma=sigma).fit(X, y),
                    "mh_fit": lambda: SVC(C=C, sigma=sigma, loss="modified_hinge").fit(
                        X, y
                    ),
                    "smo_K": lambda: _solver(K, y, C, "hinge", "smo"),
                    "entropy_K": lambda: _solver(
                        K, y, C, "modified_hinge", "entropy_dual"
                    ),
                },
                repeats,
                cpu,
            )
        mh = res["mh_fit"]
        rows.append(
            {
                **head,
                **versus(times, "hinge_fit", {"mh_fit": "x_hinge_fit"}),
                # The same ratio in CPU time of this process (less moved by
                # other processes on a shared machine).
                "x_hinge_fit_cpu": cpu["mh_fit"] / cpu["hinge_fit"],
                **versus(times, "smo_K", {"entropy_K": "x_smo_K"}),
                "hinge_iter": int(res["hinge_fit"].n_iter_),
                "mh_steps": int(mh.n_iter_),
                "hinge_rows": int(res["smo_K"].extras.get("kernel_evaluations", 0)),
                "hinge_sv": int(np.count_nonzero(res["hinge_fit"].alpha_)),
                "mh_sv_above_tolC": int(np.count_nonzero(mh.alpha_ > 1e-3 * C)),
                "load_1min": _load(),
            }
        )
        print(f"B: {head['problem']} done", flush=True)
    return rows


def table_c_path(n: int, repeats: int) -> list[dict[str, Any]]:
    X, y = _circles(n)
    sigma = 0.5
    Cs = [float(c) for c in np.logspace(0, 3, 21)]
    K = gram(X, sigma=sigma)

    def sklearn_path() -> None:
        for C in Cs:
            _sklearn(X, y, C, sigma)

    def svc_path() -> None:
        alpha = None
        for C in Cs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                alpha = SVC(C=C, sigma=sigma).fit(X, y, init=alpha, K=K).alpha_

    times, _ = interleaved_medians(
        {"sklearn_21_cold": sklearn_path, "svc_warm_K_given": svc_path}, repeats
    )
    return [
        {
            "n": n,
            "sklearn_21_cold_s": times["sklearn_21_cold"],
            "svc_warm_K_given_s": times["svc_warm_K_given"],
            "ratio": times["svc_warm_K_given"] / times["sklearn_21_cold"],
            "load_1min": _load(),
        }
    ]


#: The bands of the tight fit's |f| in table D: the boundary and the margins
#: (|f| < 1), the band just beyond them, and the rest.
BANDS = ((0.0, 1.0), (1.0, 1.5), (1.5, np.inf))


def table_accuracy(n: int) -> list[dict[str, Any]]:
    rows = []
    for head, X, y, C, sigma in panel_problems(n):
        row: dict[str, Any] = dict(head)
        for loss, short in (("hinge", "hinge"), ("modified_hinge", "mh")):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tight = SVC(C=C, sigma=sigma, loss=loss, tol=1e-9, max_iter=10**8)
                ref = tight.fit(X, y).decision_function(X)
                f = SVC(C=C, sigma=sigma, loss=loss).fit(X, y).decision_function(X)
            err = np.abs(f - ref)
            for lo, hi in BANDS:
                band = (np.abs(ref) >= lo) & (np.abs(ref) < hi)
                name = f"{short}_err_f{lo:g}_{hi:g}".replace("inf", "up")
                # None: no point of the tight fit in the band.
                row[name] = float(err[band].max()) if band.any() else None
        rows.append(row)
        print(f"D: {head['problem']} done", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--path-repeats", type=int, default=5)
    args = parser.parse_args()
    load_start = machine_load()
    warm_up()
    for n in (60, 300):  # compile every path timed below
        X, y = _circles(n)
        for loss in ("hinge", "modified_hinge"):
            SVC(C=3.0, sigma=0.5, loss=loss).fit(X, y)
            SVC(C=3.0, sigma=0.5, loss=loss).fit(X, y, K=gram(X, sigma=0.5))
    svc = table_svc_fit(args.n, args.repeats)
    mh = table_modified_hinge(args.n, args.repeats)
    path = table_c_path(args.n, args.path_repeats)
    load_end = machine_load()
    accuracy = table_accuracy(args.n)

    ratios = [r["ratio"] for r in svc]
    svc_summary = {"median": float(np.median(ratios)), "max": float(np.max(ratios))}
    mh_summary = {
        "median_x_hinge_fit": float(np.median([r["x_hinge_fit"] for r in mh])),
        "max_x_hinge_fit": float(np.max([r["x_hinge_fit"] for r in mh])),
        "median_x_hinge_fit_cpu": float(np.median([r["x_hinge_fit_cpu"] for r in mh])),
        "max_x_hinge_fit_cpu": float(np.max([r["x_hinge_fit_cpu"] for r in mh])),
        "median_x_smo_K": float(np.median([r["x_smo_K"] for r in mh])),
    }
    print(f"\nA. SVC.fit / scikit-learn SVC, n = {args.n} (target: median <= 1.0,")
    print("max <= 1.5)")
    print_table(svc, list(svc[0]))
    print(svc_summary)
    print(
        f"\nB. modified hinge (entropy dual) / hinge (SMO), n = {args.n} (target <= 2)"
    )
    print_table(mh, list(mh[0]))
    print(mh_summary)
    print("\nC. 21-value warm C path through SVC.fit, K given / 21 cold scikit-learn")
    print("fits (target <= 0.5)")
    print_table(path, list(path[0]))
    print("\nD. largest |f(tol 1e-3) - f(tol 1e-9)| by band of the tight |f|")
    print_table(accuracy, list(accuracy[0]))
    payload = {
        "load_at_start": load_start,
        "load_at_end": load_end,
        "kernel": "gaussian",
        "tol": 1e-3,
        "repeats": args.repeats,
        "svc_fit": {"rows": svc, "summary": svc_summary},
        "modified_hinge": {"rows": mh, "summary": mh_summary},
        "c_path_K_given": {"repeats": args.path_repeats, "rows": path},
        "accuracy_at_tol": {"tight_tol": 1e-9, "rows": accuracy},
    }
    print(f"wrote {write_json('fit_speed', payload)}")


if __name__ == "__main__":
    main()

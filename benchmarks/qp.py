"""QP fit time against scikit-learn's SVC (Gaussian kernel), n = 100 ... 2000.

    python -m benchmarks qp [--repeats 3]

Prints a table and writes benchmarks/results/qp.json. Both fits include the
kernel computation; scikit-learn runs LIBSVM at its default tol (1e-3) and at
tol=1e-8, svmlab's QP runs Clarabel to 1e-10 and polishes the active set.
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.svm import SVC as LibSVC

from benchmarks.harness.report import median_time, print_table, write_json
from svmlab import SVC, datasets
from svmlab.kernels import gamma_from_sigma


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--sizes", type=int, nargs="*", default=[100, 200, 400, 1000, 2000]
    )
    args = parser.parse_args()
    rows = []
    C, sigma = 1.0, 1.0
    for n in args.sizes:
        X, y = datasets.make_spiral(n, random_state=0)
        grid = np.random.default_rng(1).uniform(-12, 12, size=(400, 2))
        t_qp, ours = median_time(
            lambda: SVC(C=C, sigma=sigma, solver="qp").fit(X, y), args.repeats
        )

        def lib_fit(tol: float, X=X, y=y):
            return LibSVC(C=C, gamma=gamma_from_sigma(sigma), tol=tol).fit(X, y)

        t_sk, _ = median_time(lambda: lib_fit(1e-3), max(args.repeats, 5))
        t_sk8, lib8 = median_time(lambda: lib_fit(1e-8), max(args.repeats, 5))
        f, f_lib = ours.decision_function(grid), lib8.decision_function(grid)
        rows.append(
            {
                "n": n,
                "qp_s": t_qp,
                "sklearn_s": t_sk,
                "sklearn_tol1e-8_s": t_sk8,
                "ratio": t_qp / t_sk,
                "n_SV": int(ours.support_.size),
                "sklearn_n_SV": int(lib8.support_.size),
                "max_rel_diff_f": float(np.abs(f - f_lib).max() / np.abs(f_lib).max()),
                "polished": bool(ours.solution_.extras["polished"]),
            }
        )
        print(f"n={n} done", flush=True)
    columns = list(rows[0])
    print_table(rows, columns)
    path = write_json("qp", {"C": C, "sigma": sigma, "data": "spiral", "rows": rows})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

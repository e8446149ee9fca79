"""Which QP library for the exact solver: Clarabel, CVXOPT or OSQP.

    python -m benchmarks qp_backends [--sizes 200 1000 2000]

Each solves the same hinge dual (Gaussian kernel, C = 10, with the bias equality)
to ~1e-10; the table gives the median time and the relative error of the dual
objective against LIBSVM run at tol 1e-10. Writes results/qp_backends.json.
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.sparse as sp
from sklearn.svm import SVC as LibSVC

from benchmarks.harness.report import median_time, print_table, write_json
from svmlab.kernels import gram


def _clarabel(Q, y, C):
    import clarabel

    n = y.size
    A = sp.vstack([sp.csc_matrix(y[None, :]), -sp.eye(n), sp.eye(n)]).tocsc()
    b = np.r_[0.0, np.zeros(n), C * np.ones(n)]
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(2 * n)]
    s = clarabel.DefaultSettings()
    s.verbose = False
    s.tol_gap_abs = s.tol_gap_rel = s.tol_feas = 1e-10
    return np.array(
        clarabel.DefaultSolver(sp.csc_matrix(np.triu(Q)), -np.ones(n), A, b, cones, s)
        .solve()
        .x
    )


def _cvxopt(Q, y, C):
    import cvxopt

    cvxopt.solvers.options.update(
        show_progress=False, abstol=1e-10, reltol=1e-10, feastol=1e-10
    )
    n = y.size
    G = cvxopt.spmatrix([-1.0] * n + [1.0] * n, list(range(2 * n)), list(range(n)) * 2)
    h = cvxopt.matrix(np.r_[np.zeros(n), C * np.ones(n)])
    r = cvxopt.solvers.qp(
        cvxopt.matrix(Q),
        cvxopt.matrix(-np.ones(n)),
        G,
        h,
        cvxopt.matrix(y[None, :]),
        cvxopt.matrix(0.0),
    )
    return np.array(r["x"]).ravel()


def _osqp(Q, y, C):
    import osqp

    n = y.size
    m = osqp.OSQP()
    A = sp.vstack([sp.csc_matrix(y[None, :]), sp.eye(n)]).tocsc()
    m.setup(
        P=sp.csc_matrix(np.triu(Q)),
        q=-np.ones(n),
        A=A,
        l=np.r_[0.0, np.zeros(n)],
        u=np.r_[0.0, C * np.ones(n)],
        verbose=False,
        eps_abs=1e-9,
        eps_rel=1e-9,
        max_iter=200_000,
        polishing=True,
    )
    return m.solve().x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000, 2000])
    args = parser.parse_args()
    rows = []
    C = 10.0
    for n in args.sizes:
        rng = np.random.default_rng(0)
        X = rng.normal(size=(n, 2))
        y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
        Q = np.outer(y, y) * gram(X, sigma=1.0)
        lib = LibSVC(C=C, kernel="precomputed", tol=1e-10).fit(gram(X, sigma=1.0), y)
        a_ref = np.zeros(n)
        a_ref[lib.support_] = np.abs(lib.dual_coef_[0])
        ref = a_ref.sum() - 0.5 * a_ref @ Q @ a_ref
        row = {"n": n}
        for name, fn in (("clarabel", _clarabel), ("cvxopt", _cvxopt), ("osqp", _osqp)):
            try:
                t, a = median_time(lambda fn=fn: fn(Q, y, C), 1 if n >= 1000 else 3)
            except ImportError:
                row[f"{name}_s"] = "not installed"
                continue
            row[f"{name}_s"] = t
            row[f"{name}_relerr"] = abs((a.sum() - 0.5 * a @ Q @ a) - ref) / abs(ref)
        rows.append(row)
        print(f"n={n} done", flush=True)
    print_table(rows, list(rows[0]))
    print(f"wrote {write_json('qp_backends', {'C': C, 'rows': rows})}")


if __name__ == "__main__":
    main()

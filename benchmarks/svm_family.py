"""The SVM family's fit times against scikit-learn's LIBSVM.

    python -m benchmarks svm_family [--repeats 5] [--sizes 1000]

For each n: ν-SVC (ν = 0.5; below about 0.45 these data leave r near 0,
C = 1/r above 10⁴ and f accurate only to tol/r), the one-class SVM (ν = 0.1)
and a class-weighted C-SVC ("balanced", C = 1) on two circles with 10 % label
noise (seed 0; the weighted one on imbalanced blobs, ratio 5), ε-SVR (C = 3,
ε = 0.1) and ν-SVR (C = 3, ν = 0.3) on sinc with noise 0.1; Gaussian kernel
σ = 0.5 (gamma = 2), tol 1e-3, svmlab's default float64 kernel cache
(LIBSVM's is float32), kernel rows on demand in both. Medians of
``--repeats`` fits, svmlab and scikit-learn interleaved so a change in the
machine's load hits both; also each one's iterations and the largest
difference of the decision values on 500 held-out points.

Writes benchmarks/results/svm_family.json with the machine's load.
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn import svm as sk
from sklearn.base import is_regressor

from benchmarks.harness.report import (
    interleaved_medians,
    machine_load,
    print_table,
    write_json,
)
from svmlab import SVC, EpsilonSVR, NuSVC, NuSVR, OneClassSVM, datasets
from svmlab.datasets import regression
from svmlab.kernels import gamma_from_sigma

SIGMA = 0.5
GAMMA = gamma_from_sigma(SIGMA)


def _cases(n: int) -> list[tuple[str, object, object, tuple, np.ndarray, str]]:
    X, y = datasets.make_two_circles(n, noise=0.1, random_state=0)
    Xt, _ = datasets.make_two_circles(500, noise=0.1, random_state=1)
    Xi, yi = datasets.make_imbalanced(n, ratio=5.0, random_state=0)
    Xit, _ = datasets.make_imbalanced(500, ratio=5.0, random_state=1)
    x, t = regression.make_sinc(n, noise=0.1, random_state=0)
    xt = np.linspace(-3, 3, 500)[:, None]
    common = {"sigma": SIGMA, "tol": 1e-3}
    ref = {"gamma": GAMMA, "tol": 1e-3}
    # (name, svmlab's machine, LIBSVM's, their own parameters, training data, test X)
    machines = (
        ("nu_svc", NuSVC, sk.NuSVC, {"nu": 0.5}, (X, y), Xt),
        ("one_class", OneClassSVM, sk.OneClassSVM, {"nu": 0.1}, (X,), Xt),
        ("svc_balanced", SVC, sk.SVC, {"class_weight": "balanced"}, (Xi, yi), Xit),
        ("epsilon_svr", EpsilonSVR, sk.SVR, {"C": 3.0, "epsilon": 0.1}, (x, t), xt),
        ("nu_svr", NuSVR, sk.NuSVR, {"C": 3.0, "nu": 0.3}, (x, t), xt),
    )
    # The regressions are compared by their predictions, the rest by f.
    return [
        (
            name,
            ours(**params, **common),
            libsvm(**params, **ref),
            data,
            test,
            "predict" if is_regressor(ours()) else "df",
        )
        for name, ours, libsvm, params, data, test in machines
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000])
    args = parser.parse_args()
    rows = []
    for n in args.sizes:
        for name, ours, ref, data, test, how in _cases(n):
            ours.fit(*data)  # compile and warm up
            medians, fitted = interleaved_medians(
                {
                    "svmlab": lambda o=ours, d=data: o.fit(*d),
                    "libsvm": lambda r=ref, d=data: r.fit(*d),
                },
                args.repeats,
            )
            a, b = fitted["svmlab"], fitted["libsvm"]
            fa = a.decision_function(test) if how == "df" else a.predict(test)
            fb = b.decision_function(test) if how == "df" else b.predict(test)
            rows.append(
                {
                    "machine": name,
                    "n": n,
                    "svmlab_ms": 1000 * medians["svmlab"],
                    "libsvm_ms": 1000 * medians["libsvm"],
                    "ratio": medians["svmlab"] / medians["libsvm"],
                    "svmlab_iter": int(a.n_iter_),
                    "libsvm_iter": int(np.sum(b.n_iter_)),
                    "max_df": float(np.max(np.abs(fa - fb))),
                }
            )
    columns = list(rows[0])
    print_table(rows, columns)
    path = write_json("svm_family", {"load": machine_load(), "rows": rows})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

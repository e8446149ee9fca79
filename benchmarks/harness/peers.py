"""The libraries svmlab's solvers are timed against, in the same process.

- scikit-learn's ``SVC``, ``NuSVR`` and ``LinearSVC`` (LIBSVM 3.x and LIBLINEAR
  inside, one thread);
- oneDAL's ``SVC`` (scikit-learn-intelex, ``sklearnex.svm.SVC``: its own
  solver, threaded over every core);
- LIBSVM 3.37 itself (``libsvm-official``, built with OpenMP: its kernel
  columns and its predictions on every core).

scikit-learn-intelex and libsvm-official are benchmark dependencies
(``benchmarks/requirements.txt``), not the test suite's: a peer that is not
installed is left out of the run and said so (:func:`missing`). Each peer is a
function ``fit(X, y, C, gamma, tol)`` that trains on its own data structure,
built outside the timed call where the library needs one (LIBSVM's
``svm_problem``: the command-line tool reads its file before it trains too).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = [
    "PEERS",
    "fastest",
    "missing",
    "peer_fits",
    "perturbed_copies",
    "thread_counts",
]

#: The peers of the SVC panel, in the order of the table's columns.
PEERS = ("sklearn", "libsvm", "onedal")


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def missing() -> list[str]:
    """The peers not installed here (``pip install -r benchmarks/requirements.txt``)."""
    wanted = {"libsvm": "libsvm.svmutil", "onedal": "sklearnex"}
    return [name for name, module in wanted.items() if not _has(module)]


def thread_counts() -> dict[str, Any]:
    """How many threads each contender may use in this process."""
    from svmlab.compiled import threads

    counts: dict[str, Any] = {
        "svmlab": threads.threads(),
        "svmlab_layer": threads.LAYER or "none (one core)",
        # scikit-learn's bundled LIBSVM and LIBLINEAR are single-threaded.
        "sklearn": 1,
        "libsvm": int(os.environ.get("OMP_NUM_THREADS", os.cpu_count() or 1)),
    }
    if _has("daal4py"):
        import daal4py

        counts["onedal"] = int(daal4py.num_threads())
    return counts


def peer_fits(
    X: np.ndarray, y: np.ndarray, C: float, gamma: float, tol: float = 1e-3
) -> dict[str, Callable[[], Any]]:
    """One closure per installed peer that trains a Gaussian-kernel C-SVC
    (``exp(-gamma |x - z|^2)``) on ``(X, y)`` with 200 MB of kernel cache."""
    from sklearn.svm import SVC

    fits: dict[str, Callable[[], Any]] = {
        "sklearn": lambda: SVC(C=C, gamma=gamma, tol=tol).fit(X, y),
    }
    if _has("libsvm.svmutil"):
        from libsvm import svmutil

        labels = np.where(y == np.max(y), 1.0, -1.0)
        problem = svmutil.svm_problem(labels, np.ascontiguousarray(X))
        options = f"-q -s 0 -t 2 -c {C!r} -g {gamma!r} -e {tol!r} -m 200"
        fits["libsvm"] = lambda: svmutil.svm_train(problem, options)
    if _has("sklearnex"):
        from sklearnex.svm import SVC as OneDalSVC

        fits["onedal"] = lambda: OneDalSVC(C=C, gamma=gamma, tol=tol).fit(X, y)
    return fits


def fastest(times: dict[str, float]) -> tuple[str, float]:
    """The fastest peer among ``times`` (peer name -> seconds) and its time."""
    name = min((p for p in PEERS if p in times), key=lambda p: times[p])
    return name, times[name]


# -- the other targets of issue 48: one-vs-one, NuSVR, linear Crammer-Singer ----------


def _standardised(loader: Callable[..., Any]) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.preprocessing import StandardScaler

    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def multiclass_sets() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """iris, wine and digits (scikit-learn's copies), standardised."""
    from sklearn.datasets import load_digits, load_iris, load_wine

    return {
        name: _standardised(loader)
        for name, loader in (
            ("iris", load_iris),
            ("wine", load_wine),
            ("digits", load_digits),
        )
    }


def _classifier_row(
    target: str,
    data: str,
    X: np.ndarray,
    times: dict[str, float],
    fitted: dict[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    """A classifier's row against its one peer (the other key of ``times``):
    the times and their ratio, ``extra``, and how often the two predict alike
    on X."""
    (peer,) = set(times) - {"svmlab"}
    ours, theirs = fitted["svmlab"].predict(X), fitted[peer].predict(X)
    return {
        "target": target,
        "data": data,
        "n": X.shape[0],
        f"{peer}_ms": 1e3 * times[peer],
        "svmlab_ms": 1e3 * times["svmlab"],
        "ratio": times["svmlab"] / times[peer],
        **extra,
        "same_predictions": float(np.mean(ours == theirs)),
    }


def table_one_vs_one(repeats: int) -> list[dict]:
    """``OneVsOneSVC.fit`` and ``SVC.fit`` with k classes (both one solve per
    pair of classes, :mod:`svmlab.svm.machine_solve`) against scikit-learn's
    ``SVC`` (one-vs-one inside) on iris, wine and digits: Gaussian kernel with
    scikit-learn's ``gamma="scale"`` (``1 / (d var X)``, 1/d here), C = 1, tol
    1e-3."""
    from sklearn.svm import SVC as SklearnSVC

    from benchmarks.harness.report import interleaved_medians
    from svmlab import SVC, OneVsOneSVC
    from svmlab.kernels import sigma_from_gamma

    rows = []
    for name, (X, y) in multiclass_sets().items():
        gamma = 1.0 / (X.shape[1] * X.var())
        ours = {
            "OneVsOneSVC <= 1.0x sklearn": lambda: OneVsOneSVC(
                C=1.0, sigma=sigma_from_gamma(gamma)
            ).fit(X, y),
            "SVC (k classes) <= 1.0x sklearn": lambda: SVC(
                C=1.0, kernel="rbf", gamma=gamma
            ).fit(X, y),
        }
        for target, fit in ours.items():
            cpu: dict[str, float] = {}
            times, res = interleaved_medians(
                {
                    "sklearn": lambda: SklearnSVC(C=1.0, gamma=gamma).fit(X, y),
                    "svmlab": fit,
                },
                repeats,
                cpu,
            )
            rows.append(
                _classifier_row(
                    target,
                    name,
                    X,
                    times,
                    res,
                    # CPU time of the process: robust to waiting for a core.
                    cpu_ratio=cpu["svmlab"] / cpu["sklearn"],
                )
            )
    return rows


def diabetes_scalings() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """diabetes three ways: scikit-learn's copy (features centred and scaled
    to unit norm, the target raw), the raw data (``scaled=False``), and
    features and target standardised. LIBSVM's iterations differ by three
    orders of magnitude between them (213, 115,580 and 29,630)."""
    from sklearn.datasets import load_diabetes
    from sklearn.preprocessing import StandardScaler

    X, t = load_diabetes(return_X_y=True)
    raw, t_raw = load_diabetes(return_X_y=True, scaled=False)
    return {
        "diabetes (sklearn's)": (X, t),
        "diabetes (raw)": (raw, t_raw),
        "diabetes (X, t standardised)": (
            StandardScaler().fit_transform(raw),
            (t_raw - t_raw.mean()) / t_raw.std(),
        ),
    }


#: Copies of standardised diabetes in the NuSVR table's median row, and the
#: relative size of their perturbation (far below the data's precision).
PERTURBED_COPIES, PERTURBATION = 41, 1e-6


def perturbed_copies(
    X: np.ndarray,
    t: np.ndarray,
    count: int = PERTURBED_COPIES,
    scale: float = PERTURBATION,
    seed: int = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` copies of ``(X, t)``, every entry times ``1 + scale z`` (z
    standard normal, one draw per entry).

    Why (issue 48): on standardised diabetes with a linear kernel the ν-SVR
    dual is degenerate (K has rank 10, a dozen free variables) and SMO's path
    turns on last-bit ties: LIBSVM's own count ranges from 27,661 to 60,461
    over such copies (its float32 kernel cache), from 27,127 to 178,937 with
    a float64 one, so one copy's ratio is a draw and the median over copies
    is what compares two solvers' working-set rules. Forty-one copies: the
    ratio of the two medians then stays within 0.94-1.06 over four draws of
    the copies, where eleven gave 0.85-1.26."""
    rng = np.random.default_rng(seed)
    return [
        (
            X * (1.0 + scale * rng.standard_normal(X.shape)),
            t * (1.0 + scale * rng.standard_normal(t.shape)),
        )
        for _ in range(count)
    ]


def _nu_svr_row(name: str, fits: list[tuple[dict, dict, np.ndarray]]) -> dict:
    """One row of :func:`table_nu_svr` from ``(times, models, X)`` per data set:
    the medians over the data sets (one data set: its own figures)."""
    sk_iter = [int(np.sum(res["sklearn"].n_iter_)) for _, res, _ in fits]
    our_iter = [int(res["svmlab"].n_iter_) for _, res, _ in fits]
    sk_ms = float(np.median([1e3 * times["sklearn"] for times, _, _ in fits]))
    our_ms = float(np.median([1e3 * times["svmlab"] for times, _, _ in fits]))
    f_diff = 0.0
    for _, res, X in fits:
        f_ours, f_theirs = res["svmlab"].predict(X), res["sklearn"].predict(X)
        f_diff = max(
            f_diff, float(np.abs(f_ours - f_theirs).max() / np.abs(f_theirs).max())
        )
    return {
        "target": "NuSVR iterations <= 1.2x LIBSVM's",
        "data": name,
        "n": fits[0][2].shape[0],
        "sklearn_iter": int(np.median(sk_iter)),
        "svmlab_iter": int(np.median(our_iter)),
        "iter_ratio": float(np.median(our_iter) / np.median(sk_iter)),
        "sklearn_ms": sk_ms,
        "svmlab_ms": our_ms,
        "ratio": our_ms / sk_ms,
        "max_rel_f_diff": f_diff,
    }


def table_nu_svr(repeats: int) -> list[dict]:
    """``NuSVR`` against scikit-learn's (LIBSVM's ``Solver_NU``, shrinking on) on
    diabetes (:func:`diabetes_scalings`): linear kernel, C = 1, nu = 0.5, tol
    1e-6; iterations and time. A fourth row holds the medians over
    :func:`perturbed_copies` of the standardised data (one fit each), where a
    single copy's iteration count is a draw."""
    from sklearn.svm import NuSVR as SklearnNuSVR

    from benchmarks.harness.report import interleaved_medians
    from svmlab import NuSVR

    settings = {"kernel": "linear", "C": 1.0, "nu": 0.5, "tol": 1e-6}

    def fit(X: np.ndarray, t: np.ndarray, reps: int) -> tuple[dict, dict, np.ndarray]:
        times, res = interleaved_medians(
            {
                "sklearn": lambda: SklearnNuSVR(**settings).fit(X, t),
                "svmlab": lambda: NuSVR(**settings).fit(X, t),
            },
            reps,
        )
        return times, res, X

    scalings = diabetes_scalings()
    rows = [
        _nu_svr_row(name, [fit(X, t, repeats)]) for name, (X, t) in scalings.items()
    ]
    copies = perturbed_copies(*scalings["diabetes (X, t standardised)"])
    name = (
        f"diabetes (X, t standardised), median of {len(copies)} copies "
        f"x (1 + {PERTURBATION:g} z)"
    )
    rows.append(_nu_svr_row(name, [fit(X, t, 1) for X, t in copies]))
    return rows


def table_crammer_singer(repeats: int) -> list[dict]:
    """``CrammerSingerSVC(kernel="linear", bias="regularized")`` against
    LIBLINEAR's ``-s 4`` (scikit-learn's ``LinearSVC(multi_class=
    "crammer_singer")``, its intercept the same regularized bias) on iris,
    wine and digits: C = 1 and the same tol, 1e-3 (both stop on the largest
    block violation of a sweep over every point)."""
    from sklearn.svm import LinearSVC

    from benchmarks.harness.report import interleaved_medians
    from svmlab import CrammerSingerSVC

    rows = []
    for name, (X, y) in multiclass_sets().items():
        times, res = interleaved_medians(
            {
                "liblinear": lambda: LinearSVC(
                    C=1.0, multi_class="crammer_singer", tol=1e-3, max_iter=100_000
                ).fit(X, y),
                "svmlab": lambda: CrammerSingerSVC(
                    C=1.0, kernel="linear", bias="regularized", tol=1e-3
                ).fit(X, y),
            },
            repeats,
        )
        rows.append(
            _classifier_row(
                "Crammer-Singer linear <= 3x LIBLINEAR",
                name,
                X,
                times,
                res,
                svmlab_sweeps=int(res["svmlab"].n_iter_),
            )
        )
    return rows

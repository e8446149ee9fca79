"""Lee (2006) section 4 reproduced: ACV for IRWLS against CV for the hinge QP.

The paper's experiment: one training set of 100 two-circle points and 100 test sets
of 100 points; (C, sigma_L^2) chosen for SVC_irwls (modified hinge, delta = 1e-4,
IRWLS stopped when the mean squared change of the multipliers is below 1e-3) by the
ACV function, eq. (11), and for SVC_qp (hinge) by the CV function, eq. (10) with the
hinge in place of h_delta, i.e. exact leave-one-out; both models without a bias
(docs/corrections.md "Lee (2006)" item 9). The paper reports mean test misclassification
0.1252 (SVC_irwls, chose (500, 0.7)) and 0.1315 (SVC_qp, chose (500, 0.5)).

Here the whole experiment is repeated for several training seeds (one draw says
little) over a grid containing the paper's two choices. For each seed it records
the cell each criterion picks (Lee's corrected ACV, the plug-in, ALO and span variants
and exact leave-one-out of h_delta, every fit and refit converged by the
entropy dual, :func:`exact_loo_estimator`; exact leave-one-out with the hinge
for the QP),
every test-set error of the chosen models (the paper's Figure 2 is a boxplot of
these), the mean test error of *every* cell (so the best cell on the test sets is
known, and whether a criterion picked it or a neighbour), and the criterion
surfaces. The paper's own (C, sigma_L^2) are evaluated on the same test sets too.

Kernel widths are Lee's: ``k(x, z) = exp(-||x - z||^2 / sigma_L^2)``, i.e.
svmlab's sigma = sqrt(sigma_L^2 / 2) (:func:`svmlab.kernels.sigma_from_lee_sigma2`).
Data: :func:`svmlab.datasets.make_two_circles` with radii 0.5 / 0.75 (the paper
gives none; these give the Bayes error 0.1227, docs/corrections.md item 7), x uniform on
(-1, 1)^2, labels a coin flip between the circles. Misclassification counts a tie
as 1/2 (docs/corrections.md item 8).

Run ``python -m svmlab.experiments.lee2006`` (``--seeds``, ``--out``, ``--quick``);
the page reads the cached :data:`DEFAULT_PATH` with :func:`load`.
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from svmlab.datasets.two_class import make_two_circles, two_circles_bayes_error
from svmlab.errors import DataError, ParameterError
from svmlab.experiments.criterion_grid import SweepResult, grid_sweep
from svmlab.experiments.executors import add_scheduler_argument, describe_executor
from svmlab.experiments.selection import misclassification
from svmlab.kernels import sigma_from_lee_sigma2
from svmlab.svm.classifier import SVC

__all__ = [
    "DEFAULT_CS",
    "DEFAULT_LEE_SIGMA2S",
    "DEFAULT_PATH",
    "EXACT_TOL",
    "PAPER",
    "SELECTORS",
    "exact_loo_estimator",
    "irwls_estimator",
    "load",
    "main",
    "qp_estimator",
    "run",
]

DEFAULT_PATH = Path(__file__).parent / "results" / "lee2006.json"

#: The paper's numbers (Lee 2006, section 4) and the Bayes error of our radii.
PAPER: dict[str, Any] = {
    "irwls_acv_error": 0.1252,
    "qp_cv_error": 0.1315,
    "irwls_choice": {"C": 500.0, "lee_sigma2": 0.7},
    "qp_choice": {"C": 500.0, "lee_sigma2": 0.5},
    "delta": 1e-4,
    "irwls_tol": 1e-3,
    "n_train": 100,
    "n_test": 100,
    "n_test_sets": 100,
    "bayes_error": two_circles_bayes_error(0.5, 0.75),
    "radii": [0.5, 0.75],
}

#: C in half-decade steps (x5, x2) and Lee's sigma^2 from 0.1 to 2; both of the
#: paper's choices, (500, 0.7) and (500, 0.5), are cells.
DEFAULT_CS: tuple[float, ...] = (1.0, 5.0, 10.0, 50.0, 100.0, 500.0, 1000.0, 5000.0)
DEFAULT_LEE_SIGMA2S: tuple[float, ...] = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0)

#: selector -> (model, criterion): which model's grid and which criterion picks.
SELECTORS: dict[str, tuple[str, str]] = {
    "irwls_lee": ("irwls", "lee"),  # the paper's SVC_irwls: Lee's ACV (corrected)
    "irwls_plugin": ("irwls", "plugin"),
    "irwls_alo": ("irwls", "alo"),
    "irwls_span": ("irwls", "span"),
    # Exact eq. (10) with h_delta: every fit and refit converged (the entropy
    # dual at EXACT_TOL), not stopped by Lee's rule; the surface sits in the
    # IRWLS sweep's "loo" so that the approximations are ranked against it.
    "irwls_loo": ("irwls", "loo"),
    "qp_loo": ("qp", "loo"),  # the paper's SVC_qp: eq. (10) with the hinge
}

IRWLS_CRITERIA = ("lee", "plugin", "alo", "span")

#: KKT tolerance of the exact leave-one-out fits and refits (the stationarity
#: residual max |a_i + C h'(m_i)| / C of the modified hinge).
EXACT_TOL = 1e-6

Progress = Callable[[float, str], None]


def _lee_model(C: float, lee_sigma2: float, **how: Any) -> SVC:
    """Lee's model at (C, sigma_L^2): the modified hinge with his delta, no bias;
    ``how``: the solver and its stop."""
    return SVC(
        C=C,
        sigma=sigma_from_lee_sigma2(lee_sigma2),
        loss="modified_hinge",
        delta=PAPER["delta"],
        bias="none",
        **how,
    )


def irwls_estimator(C: float = 500.0, lee_sigma2: float = 0.7) -> SVC:
    """SVC_irwls as in the paper: modified hinge, delta 1e-4, IRWLS, no bias,
    stopped when the mean squared change of the multipliers is below 1e-3."""
    return _lee_model(
        C, lee_sigma2, solver="irwls", tol=PAPER["irwls_tol"], max_iter=1000
    )


def exact_loo_estimator(C: float = 500.0, lee_sigma2: float = 0.7) -> SVC:
    """Lee's model (modified hinge, delta 1e-4, no bias) solved to its KKT
    measure at :data:`EXACT_TOL` by the entropy dual: what exact leave-one-out
    refits (before issue 29 the column refitted IRWLS with Lee's rule, which
    differed from exact leave-one-out by up to 0.026, e.g. 0.3404 against
    0.3143 at C = 1, sigma_L^2 = 0.1)."""
    return _lee_model(C, lee_sigma2, solver="entropy_dual", tol=EXACT_TOL)


def _with_exact_loo(irwls: SweepResult, exact: SweepResult) -> SweepResult:
    """The IRWLS sweep with the exact sweep's leave-one-out as its ``"loo"``."""

    def merged(name: str) -> dict:
        return {**getattr(irwls, name), "loo": getattr(exact, name)["loo"]}

    return replace(
        irwls,
        criteria=(*irwls.criteria, "loo"),
        scores=merged("scores"),
        errors=merged("errors"),
        seconds=merged("seconds"),
        converged=merged("converged"),
        margins=merged("margins"),
        missing_rows={**irwls.missing_rows, **exact.missing_rows},
    )


def qp_estimator(C: float = 500.0, lee_sigma2: float = 0.5) -> SVC:
    """SVC_qp as in the paper: the hinge by the QP solver, no bias."""
    return SVC(
        C=C,
        sigma=sigma_from_lee_sigma2(lee_sigma2),
        loss="hinge",
        solver="qp",
        bias="none",
    )


def _test_sets(seed: int, n_test: int, n_test_sets: int) -> list[tuple]:
    # One generator per training seed, separate from the training draw.
    rng = np.random.default_rng([seed, 2006])
    return [make_two_circles(n_test, random_state=rng) for _ in range(n_test_sets)]


def _test_errors(model: SVC, tests: Sequence[tuple]) -> NDArray[np.float64]:
    """Misclassification ``(1/2n) sum (1 - sign(y f))`` on each test set."""
    X = np.vstack([t[0] for t in tests])
    y = np.concatenate([t[1] for t in tests])
    f = model.decision_function(X)
    y_pm = np.where(y == model.classes_[1], 1.0, -1.0)
    return np.array(
        [misclassification(m) for m in np.split(y_pm * f, len(tests))],
        dtype=np.float64,
    )


def _fit(estimator: SVC, X, y) -> SVC:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return estimator.fit(X, y)


def _test_surface(make: Callable[..., SVC], X, y, Cs, s2s, tests) -> NDArray:
    """Mean test error of every cell, shape (n_sigma, n_C)."""
    out = np.empty((len(s2s), len(Cs)))
    for i, s2 in enumerate(s2s):
        for j, C in enumerate(Cs):
            out[i, j] = _test_errors(_fit(make(C, s2), X, y), tests).mean()
    return out


def _cell(Cs, s2s, ij: tuple[int, int]) -> dict[str, Any]:
    i, j = int(ij[0]), int(ij[1])
    return {"C": float(Cs[j]), "lee_sigma2": float(s2s[i]), "index": [i, j]}


def _distance(a: Sequence[int], b: Sequence[int]) -> int:
    return int(max(abs(a[0] - b[0]), abs(a[1] - b[1])))


def _round(a: NDArray) -> list:
    return np.round(np.asarray(a, dtype=np.float64), 6).tolist()


def _one_seed(
    seed: int,
    Cs: Sequence[float],
    s2s: Sequence[float],
    n_train: int,
    n_test: int,
    n_test_sets: int,
    progress: Progress | None,
    n_jobs: int,
    executor: object = None,
) -> dict[str, Any]:
    start = time.perf_counter()
    X, y = make_two_circles(n_train, random_state=seed)
    tests = _test_sets(seed, n_test, n_test_sets)
    sigmas = [sigma_from_lee_sigma2(s) for s in s2s]

    def sub(lo: float, hi: float) -> Progress | None:
        if progress is None:
            return None
        return lambda f, m: progress(lo + (hi - lo) * f, m)

    def sweep(
        estimator: SVC, criteria: tuple[str, ...], lo: float, hi: float
    ) -> SweepResult:
        """The grid sweep of ``estimator``, its progress mapped to [lo, hi]."""
        return grid_sweep(
            estimator,
            X,
            y,
            Cs,
            sigmas,
            criteria=criteria,
            progress=sub(lo, hi),
            n_jobs=n_jobs,
            executor=executor,
        )

    sweeps: dict[str, SweepResult] = {
        "irwls": _with_exact_loo(
            sweep(irwls_estimator(), IRWLS_CRITERIA, 0.0, 0.4),
            sweep(exact_loo_estimator(), ("loo",), 0.4, 0.7),
        ),
        "qp": sweep(qp_estimator(), ("loo",), 0.7, 0.9),
    }
    surfaces = {
        "irwls": _test_surface(irwls_estimator, X, y, Cs, s2s, tests),
        "qp": _test_surface(qp_estimator, X, y, Cs, s2s, tests),
    }
    if progress is not None:
        progress(1.0, f"seed {seed}: test errors of every cell done")
    best_on_test = {
        model: np.unravel_index(int(np.argmin(s)), s.shape)
        for model, s in surfaces.items()
    }
    selectors = {}
    for name, (model, criterion) in SELECTORS.items():
        ij = sweeps[model].argmin(criterion)
        C, s2 = float(Cs[ij[1]]), float(s2s[ij[0]])
        make = irwls_estimator if model == "irwls" else qp_estimator
        errors = _test_errors(_fit(make(C, s2), X, y), tests)
        selectors[name] = {
            **_cell(Cs, s2s, ij),
            "test_errors": _round(errors),
            "mean_test_error": float(errors.mean()),
            "criterion_value": float(sweeps[model].scores[criterion][ij]),
            "steps_from_best_on_test": _distance(ij, best_on_test[model]),
            "loo_rank_spearman": (
                float(sweeps[model].spearman(criterion)) if criterion != "loo" else 1.0
            ),
        }
    paper_cells = {}
    for model, make in (("irwls", irwls_estimator), ("qp", qp_estimator)):
        choice = PAPER[f"{model}_choice"]
        errors = _test_errors(
            _fit(make(choice["C"], choice["lee_sigma2"]), X, y), tests
        )
        paper_cells[model] = {
            **choice,
            "test_errors": _round(errors),
            "mean_test_error": float(errors.mean()),
        }
    return {
        "seed": int(seed),
        "n_positive": int(np.sum(y > 0)),
        "selectors": selectors,
        "paper_cells": paper_cells,
        "best_on_test": {
            model: {
                **_cell(Cs, s2s, ij),
                "mean_test_error": float(surfaces[model][ij]),
            }
            for model, ij in best_on_test.items()
        },
        "test_error_surfaces": {m: _round(s) for m, s in surfaces.items()},
        "criterion_surfaces": {
            f"{model}_{c}": _round(sweeps[model].scores[c])
            for model in sweeps
            for c in sweeps[model].criteria
        },
        "criterion_seconds": {
            f"{model}_{c}": sweeps[model].total_seconds(c)
            for model in sweeps
            for c in sweeps[model].criteria
        },
        "all_converged": {
            f"{model}_{c}": bool(np.all(sweeps[model].converged[c]))
            for model in sweeps
            for c in sweeps[model].criteria
        },
        "seconds": time.perf_counter() - start,
    }


def _summary(per_seed: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean and sd over seeds of each selector's mean test error, and hit rates."""
    out: dict[str, Any] = {}
    for name in SELECTORS:
        means = np.array([s["selectors"][name]["mean_test_error"] for s in per_seed])
        steps = np.array(
            [s["selectors"][name]["steps_from_best_on_test"] for s in per_seed]
        )
        choices: dict[str, int] = {}
        for s in per_seed:
            cell = s["selectors"][name]
            key = f"({cell['C']:g}, {cell['lee_sigma2']:g})"
            choices[key] = choices.get(key, 0) + 1
        out[name] = {
            "mean_test_error": float(means.mean()),
            "sd_test_error": float(means.std(ddof=1)) if means.size > 1 else 0.0,
            "picks_best_on_test": float(np.mean(steps == 0)),
            "within_one_step": float(np.mean(steps <= 1)),
            "choices": choices,
        }
    for model in ("irwls", "qp"):
        for key, values in (
            (
                "paper_cell",
                [s["paper_cells"][model]["mean_test_error"] for s in per_seed],
            ),
            (
                "best_on_test",
                [s["best_on_test"][model]["mean_test_error"] for s in per_seed],
            ),
        ):
            v = np.array(values)
            out[f"{model}_{key}"] = {
                "mean_test_error": float(v.mean()),
                "sd_test_error": float(v.std(ddof=1)) if v.size > 1 else 0.0,
            }
    return out


def _scaled(
    progress: Progress | None, lo: float, hi: float, seed: int
) -> Progress | None:
    """``progress`` for one seed's share ``[lo, hi]`` of the whole run."""
    if progress is None:
        return None
    return lambda f, m: progress(lo + (hi - lo) * f, f"seed {seed}: {m}")


def run(
    seeds: Sequence[int] = tuple(range(10)),
    *,
    Cs: Sequence[float] = DEFAULT_CS,
    lee_sigma2s: Sequence[float] = DEFAULT_LEE_SIGMA2S,
    n_train: int = 100,
    n_test: int = 100,
    n_test_sets: int = 100,
    progress: Progress | None = None,
    n_jobs: int = 1,
    executor: object = None,
) -> dict[str, Any]:
    """Run the experiment for every training seed; a JSON-serialisable dict.

    Parameters
    ----------
    seeds
        Training-set seeds (each also seeds its own 100 test sets).
    Cs, lee_sigma2s
        The grid: C values and Lee's kernel widths sigma_L^2 (module docstring).
    n_train, n_test, n_test_sets
        Training size, test-set size and number of test sets (Lee: 100 each).
    progress
        ``progress(fraction_done, message)``, called as the grid sweeps advance.
    n_jobs
        joblib workers for the sigma rows of each sweep.
    executor
        Where the sigma rows of each sweep run instead (a number of local
        processes, a Dask scheduler's address or client:
        :func:`svmlab.experiments.executors.run_tasks`); the numbers do not depend on
        it.

    Returns
    -------
    dict
        ``paper`` (the published numbers), ``settings``, ``seeds`` (one record per
        seed: choices, test errors, surfaces) and ``summary`` (mean and sd over
        seeds, how often each criterion picks the best cell on the test sets).
    """
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ParameterError("Give at least one training seed.")
    Cs = sorted(float(c) for c in Cs)
    s2s = [float(s) for s in lee_sigma2s]
    if len(Cs) < 2 or len(s2s) < 2:
        raise ParameterError("The grid needs at least two C and two sigma^2 values.")
    per_seed = []
    for k, seed in enumerate(seeds):
        per_seed.append(
            _one_seed(
                seed,
                Cs,
                s2s,
                n_train,
                n_test,
                n_test_sets,
                _scaled(progress, k / len(seeds), (k + 1) / len(seeds), seed),
                n_jobs,
                executor,
            )
        )
    return {
        "paper": PAPER,
        "settings": {
            "Cs": Cs,
            "lee_sigma2s": s2s,
            "sigmas": [sigma_from_lee_sigma2(s) for s in s2s],
            "kernel": "exp(-||x - z||^2 / sigma_L^2) (Lee's convention)",
            "n_train": n_train,
            "n_test": n_test,
            "n_test_sets": n_test_sets,
            "seeds": seeds,
            "irwls": irwls_estimator().get_params(),
            "qp": qp_estimator().get_params(),
            "selectors": {k: list(v) for k, v in SELECTORS.items()},
        },
        "seeds": per_seed,
        "summary": _summary(per_seed),
    }


def load(path: str | Path = DEFAULT_PATH) -> dict[str, Any]:
    """The cached result of :func:`run` (written by the command)."""
    path = Path(path)
    if not path.is_file():
        raise DataError(
            f"No cached Lee (2006) results at {path}; run "
            "`python -m svmlab.experiments.lee2006` to compute them."
        )
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise DataError(
            f"The cached Lee (2006) results at {path} are not valid JSON ({error}); "
            "run `python -m svmlab.experiments.lee2006` again."
        ) from error


def save(result: dict[str, Any], path: str | Path = DEFAULT_PATH) -> Path:
    """Write ``result`` as JSON (NaN, which JSON lacks, as null)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_finite(result), indent=1, allow_nan=False))
    return path


def _finite(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_finite(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _print_table(result: dict[str, Any]) -> None:
    summary, paper = result["summary"], result["paper"]
    n = len(result["seeds"])
    print(f"\nLee (2006) two circles, {n} training seeds, mean test misclassification")
    print(f"(each seed: mean over {result['settings']['n_test_sets']} test sets)")
    print(f"{'selector':<16}{'ours':>18}{'paper':>8}{'best':>7}{'<=1 step':>10}")
    papers = {"irwls_lee": paper["irwls_acv_error"], "qp_loo": paper["qp_cv_error"]}
    for name in SELECTORS:
        s = summary[name]
        ours = f"{s['mean_test_error']:.4f} +- {s['sd_test_error']:.4f}"
        ref = f"{papers[name]:.4f}" if name in papers else ""
        print(
            f"{name:<16}{ours:>18}{ref:>8}{s['picks_best_on_test']:>7.0%}"
            f"{s['within_one_step']:>10.0%}"
        )
    for key in (
        "irwls_paper_cell",
        "qp_paper_cell",
        "irwls_best_on_test",
        "qp_best_on_test",
    ):
        s = summary[key]
        print(f"{key:<16}{s['mean_test_error']:.4f} +- {s['sd_test_error']:.4f}")
    print(f"Bayes error {paper['bayes_error']:.4f}")
    for name in SELECTORS:
        print(f"{name} choices (C, sigma_L^2): {summary[name]['choices']}")


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m svmlab.experiments.lee2006 [--seeds N] [--out PATH] [--quick]
    [--n-jobs N] [--scheduler tcp://HOST:8786]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="training seeds 0..N-1")
    parser.add_argument("--out", type=Path, default=None, help="JSON path")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="2 seeds, a 3 x 3 grid, 10 test sets; writes only with --out",
    )
    parser.add_argument("--n-jobs", type=int, default=1)
    add_scheduler_argument(parser, "the grid rows run", "this machine")
    args = parser.parse_args(argv)
    kwargs: dict[str, Any] = {}
    if args.quick:
        kwargs = dict(
            Cs=(10.0, 100.0, 500.0), lee_sigma2s=(0.3, 0.5, 0.7), n_test_sets=10
        )
    seeds = range(2 if args.quick else args.seeds)

    def report(fraction: float, message: str) -> None:
        print(f"\r{fraction:6.1%} {message[:70]:<70}", end="", flush=True)

    print(f"sweeps run on {describe_executor(args.scheduler or args.n_jobs)}")
    result = run(
        seeds,
        progress=report,
        n_jobs=args.n_jobs,
        executor=args.scheduler,
        **kwargs,
    )
    print()
    _print_table(result)
    out = args.out if args.out is not None or args.quick else DEFAULT_PATH
    if out is not None:
        print(f"wrote {save(result, out)}")


if __name__ == "__main__":
    main()

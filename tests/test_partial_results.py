"""Partial results of the long engine calls (issue 28, item 4: a button shows
something within a second): each ``on_partial`` hands over the part done so far,
and that part equals the same part of the finished result, computed by the same
call without partials (the reference); the parts not done are NaN or absent and
a partial grid says so in ``missing_rows``.
"""

from __future__ import annotations

import numpy as np

from svmlab import SVC, datasets
from svmlab.experiments.criterion_grid import grid_sweep
from svmlab.experiments.path import log_values, regularization_path
from svmlab.experiments.robustness import FitSettings, Outliers, sweep_outliers
from svmlab.experiments.solver_comparison import ModelSpec
from svmlab.experiments.solver_scaling import scaling
from tests.test_robustness import LINEAR, clean


def test_a_partial_grid_is_the_finished_grid_so_far() -> None:
    X, y = datasets.make_two_circles(40, noise=0.1, random_state=2)
    Cs, sigmas = [0.1, 1.0, 10.0], [0.3, 1.0]
    partials = []
    model = SVC(loss="modified_hinge", bias="none", solver="irwls")
    args = (model, X, y, Cs, sigmas)
    whole = grid_sweep(*args, criteria=("lee", "loo"), on_partial=partials.append)
    reference = grid_sweep(*args, criteria=("lee", "loo"))
    assert len(partials) == 6  # one per cell
    for k, part in enumerate(partials, start=1):
        done = np.zeros((2, 3), dtype=bool)
        done.ravel()[:k] = True  # rows are σ, filled along C
        for c in ("lee", "loo"):
            np.testing.assert_array_equal(
                part.scores[c][done], reference.scores[c][done]
            )
            assert np.isnan(part.scores[c][~done]).all()
        unfinished = {i for i in range(2) if not done[i].all()}
        assert set(part.missing_rows) == unfinished
    np.testing.assert_array_equal(whole.scores["loo"], reference.scores["loo"])
    assert not whole.missing_rows


def test_a_partial_loss_sweep_holds_the_seeds_done() -> None:
    kwargs = dict(
        axis="distance", values=(0.0, 8.0), seeds=(0, 1, 2), losses=("hinge", "ramp")
    )
    partials = []
    reference = sweep_outliers(clean, Outliers(3, 6.0), LINEAR, **kwargs)
    sweep_outliers(
        clean, Outliers(3, 6.0), LINEAR, on_partial=partials.append, **kwargs
    )
    # One partial per (value, seed) but the last: 2 values x 3 seeds.
    assert [p.seeds for p in partials] == [(0,), (0,), (0, 1), (0, 1), (0, 1, 2)]
    for k, part in enumerate(partials, start=1):
        # (value, seed) fitted: seeds outer, values inner, k of them.
        done = np.array(
            [[s * 2 + v < k for s in range(len(part.seeds))] for v in range(2)]
        )
        for measure in ("test_error", "shift_data", "angle"):
            got = getattr(part, measure)
            want = getattr(reference, measure)[:, : len(part.seeds)]
            np.testing.assert_array_equal(got[done], want[done])
            assert np.isnan(got[~done]).all()
    assert isinstance(LINEAR, FitSettings)


def test_a_partial_path_is_the_path_so_far() -> None:
    X, y = datasets.make_two_circles(50, noise=0.1, random_state=3)
    params = {"kernel": "gaussian", "sigma": 0.5, "tol": 1e-6}
    values = log_values(0.1, 10.0, 5)
    partials = []
    reference = regularization_path(X, y, param="C", values=values, params=params)
    regularization_path(
        X, y, param="C", values=values, params=params, on_partial=partials.append
    )
    assert [len(p.models) for p in partials] == [1, 2, 3, 4]
    for part in partials:
        k = len(part.models)
        assert not part.complete
        for name in ("margin_width", "n_free", "train_error", "objective"):
            np.testing.assert_array_equal(
                getattr(part, name)[:k], getattr(reference, name)[:k]
            )
            assert np.isnan(getattr(part, name)[k:]).all()


def test_a_partial_scaling_run_holds_the_sizes_done() -> None:
    partials = []
    whole = scaling(
        lambda n: datasets.make_two_circles(n, random_state=0),
        ModelSpec(loss="hinge", C=3.0, sigma=0.5),
        (30, 60, 90),
        on_partial=partials.append,
    )
    assert [p.sizes for p in partials] == [[30], [30, 60]]
    for part in partials:
        assert set(part.times) == set(whole.times)
        assert all(len(row) == len(part.sizes) for row in part.times.values())
        assert all(t is not None and t > 0 for row in part.times.values() for t in row)

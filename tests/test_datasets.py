"""Tests for svmlab.datasets: the label/shape contract, determinism (STYLE 13(d)),
each generator's geometry against an independent computation, and the UI tables."""

from __future__ import annotations

import dataclasses
import inspect
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from svmlab import datasets as ds
from svmlab.errors import ParameterError, SvmlabError, UnknownNameError

NAMES = [
    "spiral",
    "two_circles",
    "outlier_blobs",
    "linear",
    "xor",
    "moons",
    "blobs",
    "imbalanced",
]


def _kw(name: str, n: int) -> dict[str, int]:
    """Extra keywords that make a tiny n valid (outliers need n - 2 free points)."""
    return {"n_outliers": min(3, n - 2)} if name == "outlier_blobs" else {}


# --------------------------------------------------------------------------------------
# The contract shared by every generator.


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [2, 3, 7, 200])
def test_shape_dtype_labels(name: str, n: int) -> None:
    for seed in range(20):
        X, y = ds.GENERATORS[name](n, random_state=seed, **_kw(name, n))
        assert X.shape == (n, 2) and y.shape == (n,)
        assert X.dtype == np.float64 and y.dtype == np.float64
        assert set(np.unique(y)) == {-1.0, 1.0}, (seed, y)
        assert np.isfinite(X).all()


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_arrays_and_different_seed_differs(name: str) -> None:
    f = ds.GENERATORS[name]
    X1, y1 = f(random_state=7)
    X2, y2 = f(random_state=7)
    assert_array_equal(X1, X2)
    assert_array_equal(y1, y2)
    X3, _ = f(random_state=8)
    assert not np.array_equal(X1, X3)


@pytest.mark.parametrize("name", NAMES)
def test_generator_seed_is_used_once_and_global_state_untouched(name: str) -> None:
    f = ds.GENERATORS[name]
    # The legacy global generator is what must stay untouched, hence NPY002.
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    X_int, y_int = f(random_state=5)
    rng = np.random.default_rng(5)
    X_gen, y_gen = f(random_state=rng)
    assert_array_equal(X_int, X_gen)
    assert_array_equal(y_int, y_gen)
    X_next, _ = f(random_state=rng)  # the passed Generator was advanced
    assert not np.array_equal(X_gen, X_next)
    assert_array_equal(np.random.get_state()[1], before)  # noqa: NPY002


@pytest.mark.parametrize("name", NAMES)
def test_make_equals_direct_call(name: str) -> None:
    X1, y1 = ds.make(name, n_samples=50, random_state=0)
    X2, y2 = ds.GENERATORS[name](50, random_state=0)
    assert_array_equal(X1, X2)
    assert_array_equal(y1, y2)


def test_make_spiral_by_name() -> None:
    X1, y1 = ds.make("spiral", n_samples=50, random_state=0)
    X2, y2 = ds.make_spiral(50, random_state=0)
    assert_array_equal(X1, X2)
    assert_array_equal(y1, y2)


# --------------------------------------------------------------------------------------
# Spiral: Sugiyama Fig. 27.10 / 27.15.


def _spiral_arms(n1: int, n2: int) -> tuple[np.ndarray, np.ndarray]:
    a = np.linspace(0, 4 * np.pi, n1)
    b = np.linspace(0, 4 * np.pi, n2)
    u = np.r_[a * np.cos(a), (b + np.pi) * np.cos(b)]
    v = np.r_[a * np.sin(a), (b + np.pi) * np.sin(b)]
    return u, v


@pytest.mark.parametrize("n", [200, 50, 2])
def test_spiral_noise_free_is_the_closed_form(n: int) -> None:
    X, y = ds.make_spiral(n, noise=0.0, random_state=0)
    u, v = _spiral_arms(n // 2, n // 2)
    assert_array_equal(X[:, 0], u)
    assert_array_equal(X[:, 1], v)
    assert_array_equal(y, np.r_[np.ones(n // 2), -np.ones(n // 2)])


def test_spiral_odd_n_gives_first_arm_the_extra_point() -> None:
    X, y = ds.make_spiral(7, noise=0.0)
    u, v = _spiral_arms(4, 3)
    assert_array_equal(X, np.column_stack([u, v]))
    assert_array_equal(y, [1, 1, 1, 1, -1, -1, -1])


def test_spiral_second_arm_is_a_plus_pi_times_cos_a() -> None:
    X, _ = ds.make_spiral(200, noise=0.0)
    a = np.linspace(0, 4 * np.pi, 100)
    # not cos(a + pi): at a = 0 the second arm starts at (pi, 0), not (-pi, 0)
    assert_allclose(X[100], [np.pi, 0.0])
    assert_allclose(np.hypot(X[100:, 0], X[100:, 1]), a + np.pi)


@pytest.mark.parametrize("noise", [1.0, 2.5])
def test_spiral_jitter_is_uniform_on_zero_to_noise(noise: float) -> None:
    n = 4000
    X, _ = ds.make_spiral(n, noise=noise, random_state=3)
    u, v = _spiral_arms(n // 2, n // 2)
    jitter = X - np.column_stack([u, v])
    assert (jitter >= 0.0).all() and (jitter < noise).all()
    assert_allclose(jitter.mean(axis=0), [noise / 2, noise / 2], atol=0.03 * noise)
    assert jitter.max() > 0.99 * noise and jitter.min() < 0.01 * noise


def test_spiral_jitter_is_drawn_u_first_then_v() -> None:
    # The docstring: one generator call, noise * rand for all u, then for all v.
    n, noise = 50, 0.7
    X, _ = ds.make_spiral(n, noise=noise, random_state=21)
    rng = np.random.default_rng(21)
    ju, jv = noise * rng.random(n), noise * rng.random(n)
    u, v = _spiral_arms(n // 2, n // 2)
    assert_allclose(X, np.column_stack([u + ju, v + jv]), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------
# Two circles: Lee (2006) section 4.


def _bayes_rule(X: np.ndarray, r1: float, r2: float) -> np.ndarray:
    return np.where(np.hypot(X[:, 0], X[:, 1]) < (r1 + r2) / 2, 1.0, -1.0)


@pytest.mark.parametrize(("r1", "r2"), [(0.5, 0.75), (0.3, 1.2), (1.0, 1.4)])
def test_two_circles_labels_are_certain_outside_the_band(r1: float, r2: float) -> None:
    X, y = ds.make_two_circles(5000, r_inner=r1, r_outer=r2, random_state=1)
    r = np.hypot(X[:, 0], X[:, 1])
    assert (np.abs(X) < 1.0).all()
    assert (y[r < r1] == 1).all() and (y[r > r2] == -1).all()
    band = (r >= r1) & (r <= r2)
    assert 0.4 < (y[band] == 1).mean() < 0.6


def test_two_circles_tiny_n_keeps_regions_honest() -> None:
    for r1, r2 in [(0.05, 0.1), (1.3, 1.4)]:
        for seed in range(30):
            X, y = ds.make_two_circles(2, r_inner=r1, r_outer=r2, random_state=seed)
            r = np.hypot(X[:, 0], X[:, 1])
            assert set(y) == {-1.0, 1.0}
            assert (np.abs(X) < 1.0).all()
            assert (y[r < r1] == 1).all() and (y[r > r2] == -1).all()


def test_two_circles_error_of_bayes_rule_matches_formula() -> None:
    n = 200_000
    X, y = ds.make_two_circles(n, random_state=2)
    r = np.hypot(X[:, 0], X[:, 1])
    band = ((r > 0.5) & (r < 0.75)).mean()
    bayes = ds.two_circles_bayes_error(0.5, 0.75)
    assert abs(0.5 * band - bayes) < 0.005
    assert abs((y != _bayes_rule(X, 0.5, 0.75)).mean() - bayes) < 0.005


def test_two_circles_noise_flips_labels_outside_the_band() -> None:
    n, noise = 200_000, 0.2
    X, y = ds.make_two_circles(n, noise=noise, r_inner=0.4, r_outer=0.9, random_state=4)
    r = np.hypot(X[:, 0], X[:, 1])
    clean = np.where(r < 0.4, 1.0, -1.0)
    outside = (r < 0.4) | (r > 0.9)
    assert abs((y[outside] != clean[outside]).mean() - noise) < 0.005
    bayes = ds.two_circles_bayes_error(0.4, 0.9, noise=noise)
    assert abs((y != _bayes_rule(X, 0.4, 0.9)).mean() - bayes) < 0.005


@pytest.mark.parametrize("noise", [0.1, 0.3, 0.5])
def test_two_circles_noise_flips_only_outside_the_band(noise: float) -> None:
    # Lee's definition: inside r_inner +1, outside r_outer -1, a fair coin in the
    # band; ``noise`` is an extra flip "for points outside the band". A flip of a
    # fair coin is still a fair coin, so no statistic of one sample can tell a
    # generator that also flips band labels from a correct one. The same seed
    # does: it draws the same points, coins and flip draws for every noise, so
    # raising the noise may change labels outside the band only.
    n, r1, r2 = 20_000, 0.4, 0.9
    X0, y0 = ds.make_two_circles(n, r_inner=r1, r_outer=r2, random_state=11)
    X, y = ds.make_two_circles(n, noise=noise, r_inner=r1, r_outer=r2, random_state=11)
    assert_array_equal(X, X0)  # noise moves no point
    r = np.hypot(X[:, 0], X[:, 1])
    band = (r >= r1) & (r <= r2)
    assert_array_equal(y[band], y0[band])
    clean = np.where(r < r1, 1.0, -1.0)
    assert_array_equal(y0[~band], clean[~band])  # noise 0: the noiseless rule
    flipped = (y != clean)[~band]
    se = math.sqrt(noise * (1 - noise) / flipped.size)
    assert abs(flipped.mean() - noise) < 5 * se
    # Both regions outside the band are flipped at the same rate.
    for region in (r < r1, r > r2):
        rate = (y[region] != clean[region]).mean()
        assert abs(rate - noise) < 5 * math.sqrt(noise * (1 - noise) / region.sum())


def test_two_circles_points_are_uniform_on_the_square() -> None:
    n = 160_000
    X, _ = ds.make_two_circles(n, random_state=12)
    assert (np.abs(X) < 1.0).all()
    counts, _, _ = np.histogram2d(X[:, 0], X[:, 1], bins=4, range=[[-1, 1], [-1, 1]])
    # 16 cells of expected n/16 = 10_000 (standard deviation below 100).
    assert np.abs(counts - n / 16).max() < 500


def test_two_circles_band_is_a_fair_coin_and_bayes_error_matches_monte_carlo() -> None:
    n, r1, r2 = 200_000, 0.3, 1.2
    X, y = ds.make_two_circles(n, r_inner=r1, r_outer=r2, random_state=13)
    r = np.hypot(X[:, 0], X[:, 1])
    band = (r >= r1) & (r <= r2)
    assert abs((y[band] == 1).mean() - 0.5) < 5 * 0.5 / math.sqrt(band.sum())
    # The best rule errs only in the band, half the time: its empirical error is
    # a Monte Carlo estimate of the closed form.
    err = (y != _bayes_rule(X, r1, r2)).mean()
    bayes = ds.two_circles_bayes_error(r1, r2)
    assert abs(err - bayes) < 5 * math.sqrt(bayes * (1 - bayes) / n)


def test_bayes_error_default_radii() -> None:
    assert abs(ds.two_circles_bayes_error() - 0.1227) < 1e-4
    exact = 0.5 * np.pi * (0.75**2 - 0.5**2) / 4
    assert abs(ds.two_circles_bayes_error(0.5, 0.75) - exact) < 1e-12


@pytest.mark.parametrize(("r1", "r2"), [(0.9, 1.3), (1.1, 1.35), (0.5, 2.0), (1.2, 3)])
def test_bayes_error_beyond_the_square_matches_monte_carlo(
    r1: float, r2: float
) -> None:
    x = np.random.default_rng(0).uniform(-1, 1, size=(1_000_000, 2))
    r = np.hypot(x[:, 0], x[:, 1])
    mc = 0.5 * ((r > r1) & (r < r2)).mean()  # standard error < 2.5e-4
    assert abs(ds.two_circles_bayes_error(r1, r2) - mc) < 1.5e-3


def test_bayes_error_is_continuous_where_the_circle_leaves_the_square() -> None:
    f = ds.two_circles_bayes_error
    for r in (1.0, math.sqrt(2.0)):
        assert abs(f(0.1, r - 1e-10) - f(0.1, r + 1e-10)) < 1e-8
    assert f(0.1, 5.0) == pytest.approx(0.5 * (1 - np.pi * 0.01 / 4), abs=1e-12)


# --------------------------------------------------------------------------------------
# Outliers: Sugiyama Fig. 27.17.


@pytest.mark.parametrize(("k", "distance"), [(3, 6.0), (0, 6.0), (1, 4.0), (8, 10.0)])
def test_outliers_sit_far_behind_the_negative_class(k: int, distance: float) -> None:
    n = 100
    X, y = ds.make_outlier_blobs(
        n, noise=0.5, n_outliers=k, outlier_distance=distance, random_state=5
    )
    near = np.hypot(X[:, 0] + distance, X[:, 1]) < 1.0
    assert near.sum() == k
    assert near[n - k :].all()  # the last k rows
    assert (y[near] == 1).all()
    assert (X[near, 0] < X[y == -1, 0].mean() - 1.5).all()  # beyond the -1 class
    m = n - k
    assert (y[:m] == 1).sum() == m - m // 2 and (y[:m] == -1).sum() == m // 2
    assert_allclose(X[:m][y[:m] == 1].mean(axis=0), [1.5, 0], atol=0.3)
    assert_allclose(X[:m][y[:m] == -1].mean(axis=0), [-1.5, 0], atol=0.3)


def test_outlier_blobs_spreads_are_noise_and_noise_over_four() -> None:
    n, k, noise = 8000, 2000, 0.8
    X, y = ds.make_outlier_blobs(
        n, noise=noise, n_outliers=k, outlier_distance=9.0, random_state=22
    )
    m = n - k
    assert_allclose(X[:m][y[:m] == 1].std(axis=0), [noise, noise], rtol=0.05)
    assert_allclose(X[:m][y[:m] == -1].std(axis=0), [noise, noise], rtol=0.05)
    assert_allclose(X[m:].mean(axis=0), [-9.0, 0.0], atol=0.02)
    assert_allclose(X[m:].std(axis=0), [noise / 4, noise / 4], rtol=0.05)
    assert (y[m:] == 1).all()


# --------------------------------------------------------------------------------------
# Linear: Sugiyama Fig. 27.6.


@pytest.mark.parametrize("margin", [0.0, 0.5, 2.0])
def test_linear_gap_along_the_normal_is_margin(margin: float) -> None:
    w = np.asarray(ds.LINEAR_NORMAL)
    assert np.linalg.norm(w) == pytest.approx(1.0)
    X, y = ds.make_linear(2000, margin=margin, random_state=6)
    s = X @ w
    gap = s[y == 1].min() - s[y == -1].max()
    assert gap >= margin - 1e-12
    assert gap < margin + 0.05  # the gap is not much wider than asked
    assert (y * s >= margin / 2 - 1e-12).all()
    assert (y == 1).sum() == (y == -1).sum() == 1000


def test_linear_is_separable_by_a_hard_margin_svm_with_few_support_vectors() -> None:
    from sklearn.svm import SVC

    X, y = ds.make_linear(200, margin=0.5, random_state=0)
    clf = SVC(kernel="linear", C=1e6).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert 2.0 / np.linalg.norm(clf.coef_) >= 0.5 - 1e-3
    assert clf.n_support_.sum() <= 4  # Sugiyama Fig. 27.6 shows 3 of 200


def test_linear_noise_is_a_label_flip_rate() -> None:
    X, y = ds.make_linear(20_000, noise=0.2, random_state=7)
    clean = np.where(X @ np.asarray(ds.LINEAR_NORMAL) > 0, 1.0, -1.0)
    assert abs((y != clean).mean() - 0.2) < 0.015


def test_linear_noise_flips_labels_and_moves_no_point() -> None:
    X0, y0 = ds.make_linear(20_000, random_state=23)
    X, y = ds.make_linear(20_000, noise=0.3, random_state=23)
    assert_array_equal(X, X0)
    assert_array_equal(y0, np.r_[np.ones(10_000), -np.ones(10_000)])
    flipped = (y != y0).mean()
    assert abs(flipped - 0.3) < 5 * math.sqrt(0.3 * 0.7 / 20_000)


def test_linear_points_before_the_push_are_in_the_box() -> None:
    # Uniform on [-2, 2]^2, reflected through the origin (which keeps the box),
    # then pushed margin / 2 along y w.
    margin = 1.0
    X, y = ds.make_linear(4000, margin=margin, random_state=24)
    base = X - (0.5 * margin * y)[:, None] * np.asarray(ds.LINEAR_NORMAL)
    assert (np.abs(base) <= 2.0).all()
    assert (np.abs(base) > 1.9).any()  # the whole box is used
    assert (y * (base @ np.asarray(ds.LINEAR_NORMAL)) >= 0).all()


@pytest.mark.parametrize("n", [2, 3])
def test_linear_flips_never_leave_one_class(n: int) -> None:
    for seed in range(200):
        _, y = ds.make_linear(n, noise=0.5, random_state=seed)
        assert set(y) == {-1.0, 1.0}, seed


# --------------------------------------------------------------------------------------
# XOR, moons, blobs.


def test_xor_clusters_and_labels() -> None:
    X, y = ds.make_xor(8, noise=0.0)
    assert_array_equal(np.abs(X), np.ones((8, 2)))
    assert_array_equal(y, np.sign(X[:, 0] * X[:, 1]))
    X, y = ds.make_xor(2000, noise=0.3, random_state=8)
    assert (y == np.sign(X[:, 0] * X[:, 1])).mean() > 0.99
    assert (y == 1).sum() == 1000
    assert_allclose(np.abs(X).mean(axis=0), [1, 1], atol=0.05)


def test_xor_point_i_is_in_cluster_i_mod_4() -> None:
    centres = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    n, noise = 4002, 0.6
    X, y = ds.make_xor(n, noise=noise, random_state=25)
    c = centres[np.arange(n) % 4]
    assert_array_equal(y, np.resize([1.0, -1.0, 1.0, -1.0], n))
    assert_allclose((X - c).std(axis=0), [noise, noise], rtol=0.05)
    assert_allclose((X - c).mean(axis=0), [0.0, 0.0], atol=0.05)


@pytest.mark.parametrize("n", [200, 7])
def test_moons_noise_free_match_scikit_learn(n: int) -> None:
    from sklearn.datasets import make_moons

    X_sk, y_sk = make_moons(n, shuffle=False, noise=None)
    X, y = ds.make_moons(n, noise=0.0, random_state=0)
    assert_allclose(X, X_sk, atol=1e-15)
    assert_array_equal(y, 2.0 * y_sk - 1.0)


def test_moons_noise_has_the_requested_spread() -> None:
    X0, _ = ds.make_moons(4000, noise=0.0)
    X, _ = ds.make_moons(4000, noise=0.2, random_state=9)
    assert abs((X - X0).std() - 0.2) < 0.01


def test_blobs_centres_and_spread() -> None:
    X, y = ds.make_blobs(20_000, noise=0.7, separation=4.0, random_state=10)
    assert_allclose(X[y == 1].mean(axis=0), [2.0, 0.0], atol=0.03)
    assert_allclose(X[y == -1].mean(axis=0), [-2.0, 0.0], atol=0.03)
    assert_allclose(X[y == 1].std(axis=0), [0.7, 0.7], atol=0.02)


@pytest.mark.parametrize("name", ["blobs", "linear", "spiral"])
def test_odd_n_gives_the_extra_point_to_class_plus_one_first(name: str) -> None:
    _, y = ds.GENERATORS[name](7, random_state=0)
    assert_array_equal(y, [1, 1, 1, 1, -1, -1, -1])


@pytest.mark.parametrize("ratio", [1.0, 2.5, 9.0, 20.0])
def test_imbalanced_has_the_ratio_it_is_asked_for(ratio: float) -> None:
    X, y = ds.make_imbalanced(1000, ratio=ratio, noise=0.5, random_state=3)
    n_pos = int(np.sum(y > 0))
    assert n_pos == round(1000 / (ratio + 1))
    assert (1000 - n_pos) / n_pos == pytest.approx(ratio, rel=0.02)
    assert_array_equal(y[:n_pos], 1.0)  # the minority comes first
    assert_allclose(X[y > 0].mean(axis=0), [1.25, 0.0], atol=0.15)
    with pytest.raises(ParameterError, match="ratio must be at least 1"):
        ds.make_imbalanced(50, ratio=0.5)


def test_moons_odd_n_gives_the_extra_point_to_the_lower_moon() -> None:
    _, y = ds.make_moons(7, random_state=0)
    assert_array_equal(y, [-1, -1, -1, 1, 1, 1, 1])


# --------------------------------------------------------------------------------------
# Bad parameters.


@pytest.mark.parametrize(
    ("name", "params", "word"),
    [
        ("spiral", {"n_samples": 1}, "at least 2"),
        ("spiral", {"n_samples": 2.5}, "whole number"),
        ("xor", {"n_samples": True}, "whole number"),
        ("spiral", {"noise": -1}, "noise must be at least 0"),
        ("moons", {"noise": float("nan")}, "finite"),
        ("blobs", {"noise": float("inf")}, "finite"),
        ("xor", {"noise": "a lot"}, "number"),
        ("two_circles", {"r_inner": 0.8}, "smaller than r_outer"),
        ("two_circles", {"r_inner": 0.75}, "smaller than r_outer"),
        ("two_circles", {"r_inner": 0.0}, "greater than 0"),
        ("two_circles", {"r_outer": 1.5}, "sqrt(2)"),
        ("two_circles", {"noise": 0.6}, "between 0 and 0.5"),
        ("outlier_blobs", {"n_samples": 10, "n_outliers": 9}, "at most n_samples - 2"),
        ("outlier_blobs", {"n_outliers": -1}, "n_outliers must be at least 0"),
        ("outlier_blobs", {"outlier_distance": -1.0}, "outlier_distance"),
        ("linear", {"margin": -0.1}, "margin"),
        ("linear", {"noise": 0.7}, "between 0 and 0.5"),
        ("blobs", {"separation": -1.0}, "separation"),
        ("spiral", {"random_state": -1}, "random_state"),
        ("spiral", {"random_state": "seed"}, "random_state"),
        ("spiral", {"sigma": 1.0}, "no parameter 'sigma'"),
    ],
)
def test_bad_parameters_raise_plain_parameter_errors(
    name: str, params: dict[str, object], word: str
) -> None:
    with pytest.raises(ParameterError) as info:
        ds.make(name, **params)
    assert word in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, SvmlabError)


def test_bayes_error_validates_radii() -> None:
    with pytest.raises(ParameterError, match="smaller than r_outer"):
        ds.two_circles_bayes_error(0.9, 0.5)
    with pytest.raises(ParameterError, match="greater than 0"):
        ds.two_circles_bayes_error(-0.1, 0.5)


def test_unknown_name_lists_the_valid_names() -> None:
    with pytest.raises(UnknownNameError) as info:
        ds.make("spirals", n_samples=10)
    message = str(info.value)
    assert "spirals" in message
    for name in NAMES:
        assert name in message


# --------------------------------------------------------------------------------------
# Tables for the UI.


def test_tables_share_keys_in_selectbox_order() -> None:
    assert list(ds.GENERATORS) == NAMES
    assert list(ds.PARAMS) == NAMES
    assert list(ds.TITLES) == NAMES
    assert ds.TITLES["spiral"] == "Spiral (Sugiyama Fig. 27.11)"
    assert ds.TITLES["two_circles"] == "Two circles (Lee 2006)"


@pytest.mark.parametrize("name", NAMES)
def test_params_match_the_generator_signature(name: str) -> None:
    sig = inspect.signature(ds.GENERATORS[name]).parameters
    keywords = [p for p in sig if p != "random_state"]
    params = ds.PARAMS[name]
    assert [p.name for p in params] == keywords
    assert keywords[:2] == ["n_samples", "noise"]
    for p in params:
        assert p.default == sig[p.name].default, p.name
        assert type(p.default) is type(sig[p.name].default), p.name
        assert p.low <= p.default <= p.high and p.step > 0, p.name
        assert p.integer == (sig[p.name].annotation == "int"), p.name
        assert p.label


@pytest.mark.parametrize("name", NAMES)
def test_every_low_and_every_high_together_are_valid(name: str) -> None:
    for end in ("low", "high"):
        kwargs = {p.name: getattr(p, end) for p in ds.PARAMS[name]}
        X, y = ds.make(name, random_state=0, **kwargs)
        assert X.shape == (kwargs["n_samples"], 2)
        assert set(y) == {-1.0, 1.0}


def test_param_is_frozen() -> None:
    p = ds.PARAMS["spiral"][0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.default = 5  # type: ignore[misc]

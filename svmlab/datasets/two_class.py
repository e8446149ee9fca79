"""Two-dimensional data sets for the lab, one generator per picture in the sources.

Every generator has the same shape (STYLE rule 11)::

    make_<name>(n_samples, *, noise=..., random_state=None, **shape) -> (X, y)

with ``X`` of shape ``(n_samples, 2)`` and ``y`` in {-1.0, +1.0}, both float64. Each
one calls ``np.random.default_rng(random_state)`` exactly once and never touches
global randomness, so the same seed always gives the same arrays (pages cache on it).
Both classes always appear, even for ``n_samples = 2``. Points come grouped by class,
not shuffled.

:data:`GENERATORS` maps names to generators (its order drives the page's selectbox),
:func:`make` calls one by name, and :data:`PARAMS` / :data:`TITLES` describe their
parameters and titles so a page can build its widgets without knowing them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from svmlab.datasets.generator_contract import (
    Param,
    Seed,
    check_n,
    check_real,
    make_from,
    noise_param,
    random_generator,
    sample_count_param,
)
from svmlab.errors import ParameterError

__all__ = [
    "GENERATORS",
    "LINEAR_NORMAL",
    "PARAMS",
    "TITLES",
    "Param",
    "consistent_params",
    "make",
    "make_blobs",
    "make_from",
    "make_imbalanced",
    "make_linear",
    "make_moons",
    "make_outlier_blobs",
    "make_spiral",
    "make_two_circles",
    "make_xor",
    "two_circles_bayes_error",
]

Dataset: TypeAlias = tuple[NDArray[np.float64], NDArray[np.float64]]

#: Unit normal ``w`` of :func:`make_linear`'s separating line ``w'x = 0``.
LINEAR_NORMAL: tuple[float, float] = (0.6, 0.8)


# --------------------------------------------------------------------------------------
# Validation: plain sentences for a student.


def _labels(n_pos: int, n_neg: int) -> NDArray[np.float64]:
    return np.concatenate([np.ones(n_pos), -np.ones(n_neg)])


# --------------------------------------------------------------------------------------
# Generators.


def make_spiral(
    n_samples: int = 200, *, noise: float = 1.0, random_state: Seed = None
) -> Dataset:
    """Two interleaved spiral arms: Sugiyama (2015) Figs. 27.10 and 27.15, MATLAB
    listing, typos corrected.

    Exactly the book's generator (``linspace(0.4*pi.n/2)`` read as
    ``linspace(0,4*pi,n/2)``, docs/corrections.md)::

        a = linspace(0, 4*pi, n/2);
        u = [a.*cos(a) (a+pi).*cos(a)]' + rand(n,1);
        v = [a.*sin(a) (a+pi).*sin(a)]' + rand(n,1);
        y = [ones(1,n/2) -ones(1,n/2)]';

    The second arm is ``(a + pi) * (cos a, sin a)``: the same angle as the first arm
    at a radius larger by pi, not the first arm rotated by pi.

    Parameters
    ----------
    n_samples
        Number of points. The first arm (label +1) gets ``ceil(n_samples / 2)`` of
        them, the second arm (label -1) the rest; each arm runs its own
        ``linspace(0, 4 pi, size)``.
    noise
        Scale of the jitter ``noise * rand``: uniform on [0, noise) in each
        coordinate, drawn first for all u, then for all v. ``noise = 1`` is the
        book. The jitter is not centred, so the whole cloud is shifted by
        ``+noise / 2`` in each coordinate, as in the book.
    random_state
        Seed or ``numpy.random.Generator``; the same seed gives the same arrays.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Points ``(u, v)``, first arm then second arm.
    y : ndarray of shape (n_samples,)
        +1.0 on the first arm, -1.0 on the second.
    """
    n = check_n(n_samples)
    noise = check_real("noise", noise)
    rng = random_generator(random_state)
    n_pos = n - n // 2
    a1 = np.linspace(0.0, 4.0 * np.pi, n_pos)
    a2 = np.linspace(0.0, 4.0 * np.pi, n - n_pos)
    u = np.concatenate([a1 * np.cos(a1), (a2 + np.pi) * np.cos(a2)])
    v = np.concatenate([a1 * np.sin(a1), (a2 + np.pi) * np.sin(a2)])
    u = u + noise * rng.random(n)
    v = v + noise * rng.random(n)
    return np.column_stack([u, v]), _labels(n_pos, n - n_pos)


def _quarter_disc_in_unit_square(r: float) -> float:
    """Exact area of {x, y in [0, 1], x^2 + y^2 <= r^2}."""
    if r <= 1.0:
        return math.pi * r * r / 4.0
    if r >= math.sqrt(2.0):
        return 1.0
    a = math.sqrt(r * r - 1.0)  # for x < a the whole column [0, 1] is inside
    return a + 0.5 * r * r * (math.asin(1.0 / r) - math.asin(a / r))


def two_circles_bayes_error(
    r_inner: float = 0.5, r_outer: float = 0.75, *, noise: float = 0.0
) -> float:
    """Bayes error of :func:`make_two_circles`: Lee (2006) section 4, after Wahba,
    Lin & Zhang (1999).

    For x uniform on (-1, 1)^2 the best rule errs with probability 1/2 in the band
    between the circles and ``noise`` outside it::

        0.5 * P(r_inner < ||x|| < r_outer) + noise * (1 - P(band)),

    with ``P(band) = area(annulus & square) / 4``, computed exactly (a circle of
    radius above 1 leaves the square; above sqrt(2) it contains it). The defaults
    0.5 and 0.75 give 0.1227 (the paper gives no radii). That is the error of the
    best rule, not of a trained classifier: the paper's 0.1252 and 0.1315 are test
    errors of trained ones, which with these radii err about 0.14-0.15 at Lee's
    cells (docs/corrections.md, "Lee (2006)" item 7).

    Parameters
    ----------
    r_inner, r_outer
        Radii of the two circles, ``0 < r_inner < r_outer``.
    noise
        Label-flip probability outside the band, in [0, 0.5].

    Returns
    -------
    float
        The Bayes error, in [0, 0.5].
    """
    r_inner, r_outer = _check_radii(r_inner, r_outer, limit=math.inf)
    noise = check_real("noise", noise, high=0.5)
    band = _quarter_disc_in_unit_square(r_outer) - _quarter_disc_in_unit_square(r_inner)
    return 0.5 * band + noise * (1.0 - band)


def _check_radii(r_inner: object, r_outer: object, limit: float) -> tuple[float, float]:
    r1 = check_real("r_inner", r_inner, low=-math.inf)
    r2 = check_real("r_outer", r_outer)
    if r1 <= 0.0:
        raise ParameterError(f"r_inner must be greater than 0; got {r1:g}.")
    if r1 >= r2:
        raise ParameterError(
            f"r_inner must be smaller than r_outer; got r_inner={r1:g}, r_outer={r2:g}."
        )
    if r2 >= limit:
        raise ParameterError(
            "r_outer must be below sqrt(2) = 1.414 so that part of the square lies "
            f"outside the outer circle (class -1 lives there); got {r2:g}."
        )
    return r1, r2


def _draw_in_disc(rng: np.random.Generator, r: float) -> NDArray[np.float64]:
    """One point uniform on the disc of radius r intersected with (-1, 1)^2."""
    while True:
        rad = r * np.sqrt(rng.random(32))
        ang = 2.0 * np.pi * rng.random(32)
        pts = np.column_stack([rad * np.cos(ang), rad * np.sin(ang)])
        ok = np.flatnonzero(np.abs(pts).max(axis=1) < 1.0)
        if ok.size:
            return pts[ok[0]]


def _draw_outside_disc(rng: np.random.Generator, r: float) -> NDArray[np.float64]:
    """One point uniform on (-1, 1)^2 outside the disc of radius r < sqrt(2)."""
    a = math.sqrt(max(r * r - 1.0, 0.0))  # outside points have |x1|, |x2| > a
    while True:
        pts = rng.uniform(a, 1.0, size=(32, 2))
        ok = np.flatnonzero((pts**2).sum(axis=1) > r * r)
        if ok.size:
            return pts[ok[0]] * rng.choice([-1.0, 1.0], size=2)


def make_two_circles(
    n_samples: int = 100,
    *,
    noise: float = 0.0,
    r_inner: float = 0.5,
    r_outer: float = 0.75,
    random_state: Seed = None,
) -> Dataset:
    """Two circles with a coin-flip band: Lee (2006) section 4, after Wahba, Lin &
    Zhang (1999).

    x is uniform on (-1, 1)^2. Points inside the smaller circle are +1, points
    outside the larger one are -1, and between the circles the label is +1 or -1
    with probability 1/2 each, so no classifier beats
    :func:`two_circles_bayes_error`. The paper gives no radii; the defaults 0.5 and
    0.75 give a Bayes error of 0.1227 (the best rule's error; trained classifiers
    err more, docs/corrections.md, "Lee (2006)" item 7).

    If by chance one class is missing (only plausible for tiny ``n_samples``), the
    last point is redrawn uniformly from the region where the missing class is
    certain (inside ``r_inner`` or outside ``r_outer``) and given that label.

    Parameters
    ----------
    n_samples
        Number of points (Lee uses 100 for training and for each test set).
    noise
        Extra label-flip probability for points outside the band, in [0, 0.5];
        0 is Lee's setting.
    r_inner, r_outer
        Radii of the circles, ``0 < r_inner < r_outer < sqrt(2)``.
    random_state
        Seed or ``numpy.random.Generator``; the same seed gives the same arrays.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Points in (-1, 1)^2.
    y : ndarray of shape (n_samples,)
        Labels in {-1.0, +1.0}.
    """
    n = check_n(n_samples)
    noise = check_real("noise", noise, high=0.5)
    r1, r2 = _check_radii(r_inner, r_outer, limit=math.sqrt(2.0))
    rng = random_generator(random_state)
    X = rng.uniform(-1.0, 1.0, size=(n, 2))
    coin = rng.random(n) < 0.5
    flip = rng.random(n) < noise
    r = np.hypot(X[:, 0], X[:, 1])
    band = (r >= r1) & (r <= r2)
    y = np.where(band, np.where(coin, 1.0, -1.0), np.where(r < r1, 1.0, -1.0))
    y = np.where(flip & ~band, -y, y)
    if np.all(y == y[0]):
        missing = -y[0]
        X[-1] = _draw_in_disc(rng, r1) if missing > 0 else _draw_outside_disc(rng, r2)
        y[-1] = missing
    return X, y


def make_outlier_blobs(
    n_samples: int = 100,
    *,
    noise: float = 0.5,
    n_outliers: int = 3,
    outlier_distance: float = 6.0,
    random_state: Seed = None,
) -> Dataset:
    """Two Gaussian classes plus a few far outliers: Sugiyama (2015) Fig. 27.17
    (hinge vs ramp loss), layout ours.

    Class +1 is centred at (+1.5, 0), class -1 at (-1.5, 0), both with standard
    deviation ``noise``. ``n_outliers`` further points labelled +1 sit around
    ``(-outlier_distance, 0)``, on the far side of the -1 class (jitter standard
    deviation ``noise / 4``): the hinge loss grows without bound and lets them tilt
    and shift the boundary, the bounded ramp loss does not.

    Parameters
    ----------
    n_samples
        Number of points including the outliers; the other
        ``n_samples - n_outliers`` are split between the classes, +1 getting the
        odd one.
    noise
        Standard deviation of each class.
    n_outliers
        Number of outliers, between 0 and ``n_samples - 2``.
    outlier_distance
        Distance of the outliers from the origin, along the negative x1 axis (>= 0).
    random_state
        Seed or ``numpy.random.Generator``; the same seed gives the same arrays.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Class +1, then class -1, then the outliers (the last ``n_outliers`` rows).
    y : ndarray of shape (n_samples,)
        Labels in {-1.0, +1.0}; the outliers are +1.
    """
    n = check_n(n_samples)
    noise = check_real("noise", noise)
    k = check_n(n_outliers, "n_outliers", low=0)
    if k > n - 2:
        raise ParameterError(
            f"n_outliers must be at most n_samples - 2 = {n - 2} so that each class "
            f"keeps a point; got {k}."
        )
    distance = check_real("outlier_distance", outlier_distance)
    rng = random_generator(random_state)
    m = n - k
    n_pos = m - m // 2
    centres = np.repeat([[1.5, 0.0], [-1.5, 0.0]], [n_pos, m - n_pos], axis=0)
    X = centres + rng.normal(0.0, noise, size=(m, 2))
    outliers = np.array([-distance, 0.0]) + rng.normal(0.0, noise / 4.0, size=(k, 2))
    y = np.concatenate([_labels(n_pos, m - n_pos), np.ones(k)])
    return np.vstack([X, outliers]), y


def make_linear(
    n_samples: int = 200,
    *,
    noise: float = 0.0,
    margin: float = 0.5,
    random_state: Seed = None,
) -> Dataset:
    """Linearly separable data with a guaranteed gap: the setting of Sugiyama
    (2015) Fig. 27.6 (hard margin; 3 of 200 dual parameters nonzero).

    Points are uniform on the box [-2, 2]^2, each reflected through the origin if
    it lies on the wrong side of the line ``w'x = 0`` (``w =`` :data:`LINEAR_NORMAL`,
    no offset, so models without a bias fit too), then pushed ``margin / 2`` along
    ``y w``. Every point therefore has ``y w'x >= margin / 2``: the classes are
    separated by a gap at least ``margin`` wide (about that wide for large n).

    Parameters
    ----------
    n_samples
        Number of points; ``ceil(n_samples / 2)`` are +1, the rest -1.
    noise
        Label-flip probability in [0, 0.5]; 0 keeps the data separable. If flips
        would leave one class only, one flip is undone.
    margin
        Width of the empty gap between the classes along ``w`` (>= 0).
    random_state
        Seed or ``numpy.random.Generator``; the same seed gives the same arrays.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Class +1 first, then class -1.
    y : ndarray of shape (n_samples,)
        Labels in {-1.0, +1.0} (after the flips).
    """
    n = check_n(n_samples)
    noise = check_real("noise", noise, high=0.5)
    margin = check_real("margin", margin)
    rng = random_generator(random_state)
    n_pos = n - n // 2
    y = _labels(n_pos, n - n_pos)
    w = np.asarray(LINEAR_NORMAL)
    X = rng.uniform(-2.0, 2.0, size=(n, 2))
    wrong = (X @ w >= 0.0) != (y > 0.0)
    X[wrong] = -X[wrong]
    X += (0.5 * margin * y)[:, None] * w
    flip = rng.random(n) < noise
    if np.all(flip == (y > 0)) or np.all(flip == (y < 0)):
        flip[np.argmax(flip)] = False  # all of one class flipped, none of the other
    return X, np.where(flip, -y, y)


def make_xor(
    n_samples: int = 200, *, noise: float = 0.3, random_state: Seed = None
) -> Dataset:
    """Four Gaussian clusters in an XOR pattern: the TensorFlow Playground XOR set,
    as clusters.

    Point i belongs to cluster ``i mod 4`` with centres (1, 1), (-1, 1), (-1, -1),
    (1, -1), so the labels ``sign(c1 * c2)`` of the centres alternate +1, -1 and
    the clusters are as equal as possible. The label is the cluster's, so for large
    ``noise`` some points cross the axes and carry the other class's label.

    Parameters
    ----------
    n_samples
        Number of points.
    noise
        Standard deviation of each cluster.
    random_state
        Seed or ``numpy.random.Generator``; the same seed gives the same arrays.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Points, clusters interleaved.
    y : ndarray of shape (n_samples,)
        ``sign(c1 * c2)`` of each point's cluster centre c.
    """
    n = check_n(n_samples)
    noise = check_real("noise", noise)
    rng = random_generator(random_state)
    centres = np.array([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
    c = centres[np.arange(n) % 4]
    return c + rng.normal(0.0, noise, size=(n, 2)), c[:, 0] * c[:, 1]


def make_moons(
    n_samples: int = 200, *, noise: float = 0.1, random_state: Seed = None
) -> Dataset:
    """Two interleaving half circles: scikit-learn's ``make_moons`` (shuffle=False),
    labels mapped to {-1, +1}.

    The upper moon ``(cos t, sin t)`` has ``n_samples // 2`` points and label -1
    (scikit-learn's class 0); the lower moon ``(1 - cos t, 0.5 - sin t)`` has the
    rest and label +1; t runs over ``linspace(0, pi, size)``. Gaussian noise is
    drawn from this module's generator, so the numbers differ from scikit-learn's
    for the same seed.

    Parameters
    ----------
    n_samples
        Number of points.
    noise
        Standard deviation of the Gaussian noise added to each coordinate.
    random_state
        Seed or ``numpy.random.Generator``; the same seed gives the same arrays.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Upper moon, then lower moon.
    y : ndarray of shape (n_samples,)
        -1.0 on the upper moon, +1.0 on the lower.
    """
    n = check_n(n_samples)
    noise = check_real("noise", noise)
    rng = random_generator(random_state)
    n_out = n // 2
    t_out = np.linspace(0.0, np.pi, n_out)
    t_in = np.linspace(0.0, np.pi, n - n_out)
    x1 = np.concatenate([np.cos(t_out), 1.0 - np.cos(t_in)])
    x2 = np.concatenate([np.sin(t_out), 1.0 - np.sin(t_in) - 0.5])
    X = np.column_stack([x1, x2]) + rng.normal(0.0, noise, size=(n, 2))
    return X, -_labels(n_out, n - n_out)


def _two_blobs(
    n: int, n_pos: int, noise: float, separation: float, rng: np.random.Generator
) -> Dataset:
    """``n_pos`` points of class +1 around ``(separation / 2, 0)``, then the rest
    of class -1 around ``(-separation / 2, 0)``, both with standard deviation
    ``noise``."""
    h = separation / 2.0
    centres = np.repeat([[h, 0.0], [-h, 0.0]], [n_pos, n - n_pos], axis=0)
    return centres + rng.normal(0.0, noise, size=(n, 2)), _labels(n_pos, n - n_pos)


def make_blobs(
    n_samples: int = 200,
    *,
    noise: float = 1.0,
    separation: float = 3.0,
    random_state: Seed = None,
) -> Dataset:
    """Two isotropic Gaussian blobs: the textbook two-class picture (Sugiyama
    ch. 26-27 figures), in the style of scikit-learn's ``make_blobs``.

    Class +1 is centred at ``(separation / 2, 0)``, class -1 at
    ``(-separation / 2, 0)``, both with standard deviation ``noise``.

    Parameters
    ----------
    n_samples
        Number of points; ``ceil(n_samples / 2)`` are +1, the rest -1.
    noise
        Standard deviation of each blob.
    separation
        Distance between the centres (>= 0).
    random_state
        Seed or ``numpy.random.Generator``; the same seed gives the same arrays.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Class +1 first, then class -1.
    y : ndarray of shape (n_samples,)
        Labels in {-1.0, +1.0}.
    """
    n = check_n(n_samples)
    noise = check_real("noise", noise)
    separation = check_real("separation", separation)
    return _two_blobs(n, n - n // 2, noise, separation, random_generator(random_state))


def make_imbalanced(
    n_samples: int = 200,
    *,
    noise: float = 1.0,
    ratio: float = 5.0,
    separation: float = 2.5,
    random_state: Seed = None,
) -> Dataset:
    """Two Gaussian blobs, one ``ratio`` times as large as the other: the
    setting where class weights matter (LIBSVM's ``-wi``; Osuna et al. 1997).

    The minority class +1 (``round(n / (ratio + 1))`` points, at least one) is
    centred at ``(separation / 2, 0)``, the majority class -1 (the rest, at
    least one) at ``(-separation / 2, 0)``, both with standard deviation
    ``noise``. Unweighted, an SVM gives up more of the minority class's points
    than of the majority's; ``class_weight="balanced"`` weighs them back.

    Parameters
    ----------
    n_samples
        Number of points.
    noise
        Standard deviation of each blob.
    ratio
        Majority points per minority point, >= 1.
    separation
        Distance between the centres (>= 0).
    random_state
        Seed or ``numpy.random.Generator``; the same seed gives the same arrays.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
        Class +1 (the minority) first, then class -1.
    y : ndarray of shape (n_samples,)
        Labels in {-1.0, +1.0}.
    """
    n = check_n(n_samples)
    noise = check_real("noise", noise)
    ratio = check_real("ratio", ratio, low=1.0)
    separation = check_real("separation", separation)
    n_pos = min(n - 1, max(1, round(n / (ratio + 1.0))))
    return _two_blobs(n, n_pos, noise, separation, random_generator(random_state))


# --------------------------------------------------------------------------------------
# Tables that drive the UI.

GENERATORS: dict[str, Callable[..., Dataset]] = {
    "spiral": make_spiral,
    "two_circles": make_two_circles,
    "outlier_blobs": make_outlier_blobs,
    "linear": make_linear,
    "xor": make_xor,
    "moons": make_moons,
    "blobs": make_blobs,
    "imbalanced": make_imbalanced,
}

TITLES: dict[str, str] = {
    "spiral": "Spiral (Sugiyama Fig. 27.11)",
    "two_circles": "Two circles (Lee 2006)",
    "outlier_blobs": "Blobs with outliers (Sugiyama Fig. 27.17)",
    "linear": "Linearly separable (Sugiyama Fig. 27.6)",
    "xor": "XOR (four clusters)",
    "moons": "Two moons (scikit-learn)",
    "blobs": "Two Gaussian blobs",
    "imbalanced": "Imbalanced blobs (one class r times the other)",
}


def _n(default: int) -> Param:
    return sample_count_param(default, 10, 2000, 10)


PARAMS: dict[str, tuple[Param, ...]] = {
    "spiral": (
        _n(200),
        noise_param(
            1.0, 3.0, "Uniform jitter on [0, noise) per coordinate; 1 is the book."
        ),
    ),
    "two_circles": (
        _n(100),
        noise_param(0.0, 0.5, "Label-flip probability outside the band; 0 is Lee's."),
        Param("r_inner", "Inner radius", 0.5, 0.05, 1.3, 0.05, help="Inside: +1."),
        Param("r_outer", "Outer radius", 0.75, 0.1, 1.4, 0.05, help="Outside: -1."),
    ),
    "outlier_blobs": (
        _n(100),
        noise_param(0.5, 2.0, "Standard deviation of each class.", low=0.05),
        Param("n_outliers", "Outliers", 3, 0, 20, 1, integer=True, help="At most n-2."),
        Param("outlier_distance", "Outlier distance", 6.0, 0.0, 15.0, 0.5),
    ),
    "linear": (
        _n(200),
        noise_param(0.0, 0.5, "Label-flip probability; 0 keeps the data separable."),
        Param("margin", "Gap width", 0.5, 0.0, 3.0, 0.1, help="Empty strip width."),
    ),
    "xor": (_n(200), noise_param(0.3, 1.5, "Standard deviation of each cluster.")),
    "moons": (_n(200), noise_param(0.1, 0.5, "Standard deviation of the noise.")),
    "blobs": (
        _n(200),
        noise_param(1.0, 3.0, "Standard deviation of each blob.", low=0.05),
        Param("separation", "Separation", 3.0, 0.0, 8.0, 0.5, help="Centre distance."),
    ),
    "imbalanced": (
        _n(200),
        noise_param(1.0, 3.0, "Standard deviation of each blob.", low=0.05),
        Param(
            "ratio", "Imbalance ratio", 5.0, 1.0, 20.0, 0.5, help="Majority : minority."
        ),
        Param("separation", "Separation", 2.5, 0.0, 8.0, 0.5, help="Centre distance."),
    ),
}


def _on_step(value: float, spec: Param, up: bool) -> float:
    """``value`` moved onto ``spec``'s slider grid (up or down), inside its range."""
    steps = (value - spec.low) / spec.step
    k = math.ceil(steps - 1e-9) if up else math.floor(steps + 1e-9)
    out = min(max(spec.low + k * spec.step, spec.low), spec.high)
    return round(out) if spec.integer else round(out, 10)


def consistent_params(
    name: str, params: dict[str, Any], moved: str | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Generator parameters that can be made together, and what was changed.

    Each slider of :data:`PARAMS` is valid on its own, but two of them depend on
    each other: two circles need ``r_inner < r_outer``, blobs with outliers need
    ``n_outliers <= n_samples - 2``. The parameter the visitor just ``moved``
    keeps its value and the other one follows, on its own slider's grid; with no
    ``moved`` (a link, a preset) the later parameter of the pair follows. Returns
    the parameters and one sentence per change (empty when nothing changed).
    """
    out = dict(params)
    notes: list[str] = []
    spec = {p.name: p for p in PARAMS.get(name, ())}
    if name == "two_circles" and {"r_inner", "r_outer"} <= out.keys():
        r1, r2 = float(out["r_inner"]), float(out["r_outer"])
        if r1 >= r2:
            if moved == "r_outer":
                new = _on_step(r2 - spec["r_inner"].step, spec["r_inner"], up=False)
                out["r_inner"] = new
                notes.append(
                    f"Inner radius lowered from {r1:g} to {new:g}: it must stay "
                    f"inside the outer radius ({r2:g})."
                )
            else:
                new = _on_step(r1 + spec["r_outer"].step, spec["r_outer"], up=True)
                if new <= r1:  # the outer radius is at its top: move the inner
                    lower = _on_step(new - spec["r_inner"].step, spec["r_inner"], False)
                    out["r_inner"] = lower
                    notes.append(
                        f"Inner radius lowered from {r1:g} to {lower:g}: it must "
                        f"stay inside the outer radius ({new:g})."
                    )
                else:
                    notes.append(
                        f"Outer radius raised from {r2:g} to {new:g}: it must stay "
                        f"outside the inner radius ({r1:g})."
                    )
                out["r_outer"] = new
    if name == "outlier_blobs" and {"n_samples", "n_outliers"} <= out.keys():
        n, k = int(out["n_samples"]), int(out["n_outliers"])
        if k > n - 2:
            if moved == "n_outliers":
                new = _on_step(k + 2, spec["n_samples"], up=True)
                out["n_samples"] = new
                notes.append(
                    f"Number of points raised from {n} to {new}: {k} outliers "
                    "leave each class at least one point only then."
                )
            else:
                new = max(n - 2, 0)
                out["n_outliers"] = new
                notes.append(
                    f"Outliers lowered from {k} to {new}: with {n} points each "
                    "class must keep at least one point that is not an outlier."
                )
    return out, notes


def make(name: str, **params: Any) -> Dataset:
    """Generate the data set called ``name`` (a key of :data:`GENERATORS`).

    Parameters
    ----------
    name
        Generator name, e.g. ``"spiral"``.
    **params
        Keyword arguments of that generator (``n_samples``, ``noise``,
        ``random_state`` and its shape parameters, see :data:`PARAMS`).

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
    """
    return make_from(GENERATORS, name, **params)

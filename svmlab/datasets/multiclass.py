"""Generators with three or more classes, for the Multiclass page.

The same contract as :mod:`svmlab.datasets` (keyword-only parameters, one
``numpy.random.default_rng(random_state)`` per call, the same seed gives the
same arrays), except the labels: ``y`` holds class numbers ``0 .. k-1``
(int64), class 0 first. :data:`GENERATORS`, :data:`TITLES` and :data:`PARAMS`
drive the page's controls; :func:`make` calls one by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

from svmlab.datasets import generator_contract as contract
from svmlab.datasets.generator_contract import Param, Seed
from svmlab.errors import ParameterError

__all__ = [
    "GENERATORS",
    "MAX_CLASSES",
    "PARAMS",
    "TITLES",
    "make",
    "make_blobs",
    "make_ring_and_blobs",
    "make_spiral",
]

Dataset: TypeAlias = tuple[NDArray[np.float64], NDArray[np.int64]]

#: The most classes a generator makes (the page's palette has this many colours).
MAX_CLASSES = 6


def _check_classes(value: object, name: str = "n_classes", low: int = 2) -> int:
    k = contract.check_n(value, name, low=low)
    if k > MAX_CLASSES:
        raise ParameterError(f"{name} must be at most {MAX_CLASSES}; got {k}.")
    return k


def _sizes(n: int, k: int) -> NDArray[np.int64]:
    """``k`` class sizes as equal as possible, the first ones larger."""
    if n < k:
        raise ParameterError(
            f"n_samples must be at least the number of classes ({k}); got {n}."
        )
    return np.array([n // k + (c < n % k) for c in range(k)], dtype=np.int64)


def _labels(sizes: NDArray[np.int64]) -> NDArray[np.int64]:
    return np.repeat(np.arange(sizes.shape[0], dtype=np.int64), sizes)


def make_blobs(
    n_samples: int = 300,
    *,
    n_classes: int = 3,
    noise: float = 1.0,
    separation: float = 4.0,
    random_state: Seed = None,
) -> Dataset:
    """``n_classes`` isotropic Gaussian blobs with centres evenly spaced on a
    circle of radius ``separation / 2`` (class c at angle ``2 pi c / k + pi / 2``).

    Parameters
    ----------
    n_samples
        Number of points, split as evenly as possible (the first classes get
        one more).
    n_classes
        Number of classes k, 2 to :data:`MAX_CLASSES`.
    noise
        Standard deviation of each blob.
    separation
        Diameter of the circle of centres (>= 0).
    random_state
        Seed or ``numpy.random.Generator``.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        Class numbers 0 .. k-1, class 0 first.
    """
    n = contract.check_n(n_samples)
    k = _check_classes(n_classes)
    noise = contract.check_real("noise", noise)
    separation = contract.check_real("separation", separation)
    rng = contract.random_generator(random_state)
    sizes = _sizes(n, k)
    angle = 2.0 * np.pi * np.arange(k) / k + np.pi / 2.0
    centres = 0.5 * separation * np.column_stack([np.cos(angle), np.sin(angle)])
    X = np.repeat(centres, sizes, axis=0) + rng.normal(0.0, noise, size=(n, 2))
    return X, _labels(sizes)


def make_spiral(
    n_samples: int = 300,
    *,
    n_classes: int = 3,
    noise: float = 1.0,
    random_state: Seed = None,
) -> Dataset:
    """``n_classes`` interleaved spiral arms: Sugiyama's two-arm spiral
    (:func:`svmlab.datasets.make_spiral`) generalised.

    Arm c runs ``a = linspace(0, 4 pi, n_c)`` at radius ``a + 2 pi c / k``::

        u = (a + 2 pi c / k) cos a + noise * rand,
        v = (a + 2 pi c / k) sin a + noise * rand,

    so for k = 2 the arms are the book's (offsets 0 and pi), and for any k the
    arms are evenly spaced along every ray from the centre (the radius of one
    arm grows by 2 pi per turn). The jitter is uniform on [0, noise), as in the
    book (not centred), drawn first for all u, then for all v.

    Parameters
    ----------
    n_samples
        Number of points, split as evenly as possible.
    n_classes
        Number of arms k, 2 to :data:`MAX_CLASSES`.
    noise
        Scale of the uniform jitter; 1 is the book's.
    random_state
        Seed or ``numpy.random.Generator``.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        The arm's number 0 .. k-1, arm 0 first.
    """
    n = contract.check_n(n_samples)
    k = _check_classes(n_classes)
    noise = contract.check_real("noise", noise)
    rng = contract.random_generator(random_state)
    sizes = _sizes(n, k)
    a = np.concatenate([np.linspace(0.0, 4.0 * np.pi, int(s)) for s in sizes])
    r = a + 2.0 * np.pi * _labels(sizes) / k
    u = r * np.cos(a) + noise * rng.random(n)
    v = r * np.sin(a) + noise * rng.random(n)
    return np.column_stack([u, v]), _labels(sizes)


def make_ring_and_blobs(
    n_samples: int = 300,
    *,
    n_blobs: int = 2,
    noise: float = 0.3,
    radius: float = 3.0,
    random_state: Seed = None,
) -> Dataset:
    """A ring (class 0) around ``n_blobs`` Gaussian blobs (classes 1 .. k-1):
    one class that no straight line separates from the others.

    The ring's points sit at a uniform angle and radius ``radius`` plus a
    Gaussian radial jitter of sd ``noise``; the blobs (sd ``noise``) are centred
    at ``0.4 radius`` from the centre at evenly spaced angles (one blob: at the
    centre). The ring gets ``ceil(n / 2)`` of the points when ``n_blobs`` is 1,
    otherwise an equal share.

    Parameters
    ----------
    n_samples
        Number of points.
    n_blobs
        Blobs inside the ring, 1 to ``MAX_CLASSES - 1``.
    noise
        Radial sd of the ring and sd of each blob.
    radius
        The ring's radius (> 0).
    random_state
        Seed or ``numpy.random.Generator``.

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        0 on the ring, 1 .. n_blobs in the blobs; the ring first.
    """
    n = contract.check_n(n_samples)
    blobs = contract.check_n(n_blobs, "n_blobs", low=1)
    if blobs > MAX_CLASSES - 1:
        raise ParameterError(f"n_blobs must be at most {MAX_CLASSES - 1}; got {blobs}.")
    noise = contract.check_real("noise", noise)
    radius = contract.check_real("radius", radius)
    if radius <= 0:
        raise ParameterError(f"radius must be positive; got {radius:g}.")
    rng = contract.random_generator(random_state)
    sizes = _sizes(n, blobs + 1)
    theta = rng.uniform(0.0, 2.0 * np.pi, sizes[0])
    r = radius + rng.normal(0.0, noise, sizes[0])
    ring = np.column_stack([r * np.cos(theta), r * np.sin(theta)])
    if blobs == 1:
        centres = np.zeros((1, 2))
    else:
        angle = 2.0 * np.pi * np.arange(blobs) / blobs + np.pi / 2.0
        centres = 0.4 * radius * np.column_stack([np.cos(angle), np.sin(angle)])
    inner = np.repeat(centres, sizes[1:], axis=0)
    inner = inner + rng.normal(0.0, noise, size=inner.shape)
    return np.vstack([ring, inner]), _labels(sizes)


# -- tables that drive the page ----------------------------------------------------

GENERATORS: dict[str, Callable[..., Dataset]] = {
    "blobs": make_blobs,
    "spiral": make_spiral,
    "ring_and_blobs": make_ring_and_blobs,
}

TITLES: dict[str, str] = {
    "blobs": "Gaussian blobs (k classes)",
    "spiral": "Spiral, k arms (Sugiyama's)",
    "ring_and_blobs": "A ring around blobs",
}


def _n(default: int) -> Param:
    return contract.sample_count_param(default, 10, 1000, 10)


def _k(default: int = 3) -> Param:
    return Param(
        "n_classes", "Classes", default, 2, MAX_CLASSES, 1, integer=True, help="k."
    )


PARAMS: dict[str, tuple[Param, ...]] = {
    "blobs": (
        _n(300),
        _k(),
        Param("noise", "Noise", 1.0, 0.05, 3.0, 0.05, help="sd of each blob."),
        Param(
            "separation",
            "Separation",
            4.0,
            0.0,
            10.0,
            0.5,
            help="Diameter of the circle of centres.",
        ),
    ),
    "spiral": (
        _n(300),
        _k(),
        Param(
            "noise",
            "Noise",
            1.0,
            0.0,
            3.0,
            0.05,
            help="Uniform jitter on [0, noise) per coordinate; 1 is the book's.",
        ),
    ),
    "ring_and_blobs": (
        _n(300),
        Param(
            "n_blobs",
            "Blobs inside",
            2,
            1,
            MAX_CLASSES - 1,
            1,
            integer=True,
            help="Classes = blobs + 1 (the ring).",
        ),
        Param(
            "noise",
            "Noise",
            0.3,
            0.0,
            1.5,
            0.05,
            help="sd of the ring's radius and of each blob.",
        ),
        Param("radius", "Ring radius", 3.0, 1.0, 6.0, 0.5),
    ),
}


def make(name: str, **params: Any) -> Dataset:
    """Generate the data set called ``name`` (a key of :data:`GENERATORS`)."""
    return contract.make_from(GENERATORS, name, **params)

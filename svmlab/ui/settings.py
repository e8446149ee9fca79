"""The Explore page's whole state: one frozen dataclass, and its URL encoding.

:class:`ExploreSettings` is what the page's widgets read and write, what the URL
query string encodes (``to_query`` / ``from_query``), and what later features
(teaching presets, classroom mode, compare) set. It holds primitives only, so it is
hashable and its fields can be handed to cached functions (STYLE rule 12).

This module does not import streamlit: it is plain data plus parsing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields, replace
from typing import Any

from svmlab import datasets, kernels, losses, solvers
from svmlab.estimator import BIASES

__all__ = [
    "C_GRID",
    "MODEL_DEFAULTS",
    "SIGMA_GRID",
    "UPLOAD",
    "ExploreSettings",
    "is_upload_key",
    "log_grid",
    "nearest",
]


def log_grid(low_exp: int, high_exp: int) -> tuple[float, ...]:
    """Log-spaced values from ``10**low_exp`` to ``10**high_exp``: the E12 series
    (1, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2) in every decade.

    Twelve steps a decade (about 21 % each) read like the numbers people type.
    """
    e12 = (1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2)
    values = [
        float(f"{m * 10.0**e:.3g}") for e in range(low_exp, high_exp) for m in e12
    ]
    return (*values, float(10.0**high_exp))


#: Values of the C slider (typed values may lie anywhere in (0, inf)).
C_GRID: tuple[float, ...] = log_grid(-3, 5)
#: Values of the sigma slider.
SIGMA_GRID: tuple[float, ...] = log_grid(-2, 2)


#: The data source name of uploaded data (never a generator's name): the cached
#: data functions take it in place of a data set name.
UPLOAD = "upload"
_UPLOAD_KEY = re.compile(r"[0-9a-f]{12}")


def is_upload_key(value: object) -> bool:
    """Whether ``value`` looks like an upload key: 12 lowercase hex digits (the
    start of the SHA-256 of the uploaded data, see :mod:`svmlab.ui.upload`)."""
    return isinstance(value, str) and _UPLOAD_KEY.fullmatch(value) is not None


def nearest(grid: tuple[float, ...], value: float) -> float:
    """The grid value closest to ``value`` on a log scale (clamped to the ends)."""
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        return grid[0]
    target = math.log(value)
    return min(grid, key=lambda g: abs(math.log(g) - target))


def _dataset_defaults(name: str) -> dict[str, float | int]:
    return {p.name: p.default for p in datasets.PARAMS[name]}


#: The model each data set opens with: chosen by looking at the page so that the
#: first picture shows the point of the data set (see tests/browser artifacts).
MODEL_DEFAULTS: dict[str, dict[str, Any]] = {
    # The spiral boundary with free and bound SVs (sigma = 1 rings every point).
    "spiral": {"kernel": "gaussian", "C": 10.0, "sigma": 3.3},
    "two_circles": {"kernel": "gaussian", "C": 10.0, "sigma": 0.39},
    # Sugiyama Fig. 27.17: a linear boundary the outliers pull on (try ramp).
    "outlier_blobs": {"kernel": "linear", "C": 1.0, "sigma": 1.0},
    # Sugiyama Fig. 27.6: three support vectors (try the hard margin).
    "linear": {"kernel": "linear", "C": 10.0, "sigma": 1.0},
    "xor": {"kernel": "gaussian", "C": 1.0, "sigma": 0.82},
    "moons": {"kernel": "gaussian", "C": 10.0, "sigma": 0.39},
    "blobs": {"kernel": "gaussian", "C": 1.0, "sigma": 1.5},
}


@dataclass(frozen=True)
class ExploreSettings:
    """Everything the Explore page shows is a function of this object.

    ``n``, ``noise``, ``kernel``, ``C`` and ``sigma`` left as ``None`` become the
    data set's defaults (:data:`MODEL_DEFAULTS` for the model), and
    ``data_params`` (the generator's shape parameters, such as radii or outlier
    count, as ``(name, value)`` pairs) is completed with the defaults and put in
    :data:`svmlab.datasets.PARAMS` order, so two settings that mean the same
    picture compare equal.

    ``upload`` is empty for generated data, else the key of uploaded data this
    browser session holds (:mod:`svmlab.ui.upload`); the generator fields then
    stay as they were, so going back to the generator restores them. A URL can
    name an upload but never carries its data.
    """

    dataset: str = "spiral"
    n: int | None = None
    noise: float | None = None
    data_params: tuple[tuple[str, float], ...] = ()
    seed: int = 0
    test_fraction: float = 0.2
    kernel: str | None = None
    sigma: float | None = None
    degree: int = 3
    coef0: float = 1.0
    loss: str = "hinge"
    delta: float = 0.1
    solver: str = "auto"
    C: float | None = None
    bias: str = "unregularized"
    hard_margin: bool = False
    tol: float = 1e-3
    max_iter: int = 100_000
    log_count: bool = False
    show_test: bool = True
    playback: bool = False
    upload: str = ""

    def __post_init__(self) -> None:
        if self.dataset not in datasets.GENERATORS:
            raise ValueError(f"unknown data set {self.dataset!r}")
        if self.upload and not is_upload_key(self.upload):
            raise ValueError(f"malformed upload key {self.upload!r}")
        defaults = _dataset_defaults(self.dataset)
        if self.n is None:
            object.__setattr__(self, "n", int(defaults["n_samples"]))
        if self.noise is None:
            object.__setattr__(self, "noise", float(defaults["noise"]))
        for name, value in MODEL_DEFAULTS[self.dataset].items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        given = dict(self.data_params)
        shape = tuple(
            (name, given.get(name, value))
            for name, value in defaults.items()
            if name not in ("n_samples", "noise")
        )
        object.__setattr__(self, "data_params", shape)

    # -- derived values -------------------------------------------------------

    @property
    def fit_intercept(self) -> bool:
        """Whether the model has an unregularized bias (the solver list needs it)."""
        return self.bias == "unregularized"

    @property
    def source(self) -> str:
        """What the data come from: :data:`UPLOAD` or the generator's name (the
        first argument of the cached data functions)."""
        return UPLOAD if self.upload else self.dataset

    @property
    def effective_C(self) -> float:
        """``inf`` for the hard margin, else ``C``."""
        return math.inf if self.hard_margin and self.loss == "hinge" else self.C

    def data_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`svmlab.datasets.make` (seed included); for
        uploaded data, the upload key and the seed (which then only picks the test
        points)."""
        if self.upload:
            return {"upload": self.upload, "random_state": int(self.seed)}
        return {
            "n_samples": int(self.n),
            "noise": float(self.noise),
            **dict(self.data_params),
            "random_state": int(self.seed),
        }

    def with_dataset(self, name: str) -> ExploreSettings:
        """The same settings on another generated data set, with that data set's
        defaults (its parameters, and its kernel, C and sigma)."""
        return replace(
            self,
            dataset=name,
            upload="",
            n=None,
            noise=None,
            data_params=(),
            kernel=None,
            C=None,
            sigma=None,
        )

    # -- URL ------------------------------------------------------------------

    def to_query(self) -> dict[str, str]:
        """The URL query parameters for these settings.

        Only what differs from the defaults is written (the data set's own
        defaults for its parameters), so links stay short; ``from_query`` fills
        the rest back in.
        """
        base = ExploreSettings(dataset=self.dataset)
        out: dict[str, str] = {}
        if self.dataset != ExploreSettings.dataset:
            out["data"] = self.dataset
        for f in fields(self):
            if f.name in ("dataset", "data_params"):
                continue
            value = getattr(self, f.name)
            if value != getattr(base, f.name):
                out[_QUERY_NAMES.get(f.name, f.name)] = _encode(value)
        for (name, value), (_, default) in zip(
            self.data_params, base.data_params, strict=True
        ):
            if value != default:
                out[name] = _encode(value)
        return out

    @classmethod
    def from_query(cls, params: Any) -> ExploreSettings:
        """Settings from URL query parameters; never raises.

        ``params`` is any mapping of names to strings (``st.query_params``, a
        dict). Unknown names are ignored, and a value that is missing, malformed
        or out of range falls back to its default.
        """
        get = _getter(params)
        dataset = get("data")
        if dataset not in datasets.GENERATORS:
            dataset = cls.dataset
        base = cls(dataset=dataset)
        spec = {p.name: p for p in datasets.PARAMS[dataset]}
        values: dict[str, Any] = {"dataset": dataset}
        values["n"] = _param(get("n"), spec["n_samples"], base.n)
        values["noise"] = _param(get("noise"), spec["noise"], base.noise)
        values["data_params"] = tuple(
            (name, _param(get(name), spec[name], default))
            for name, default in base.data_params
        )
        checks = _FIELD_CHECKS
        for f in fields(cls):
            if f.name in values:
                continue
            raw = get(_QUERY_NAMES.get(f.name, f.name))
            default = getattr(base, f.name)
            values[f.name] = (
                checks[f.name](raw, default) if raw is not None else default
            )
        return cls(**values)


# -- parsing helpers (all total: they return the default instead of raising) --

_QUERY_NAMES = {"test_fraction": "test", "hard_margin": "hard"}


def _encode(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return (
            repr(value) if value != int(value) or abs(value) >= 1e16 else f"{value:g}"
        )
    return str(value)


def _getter(params: Any):
    def get(name: str) -> str | None:
        try:
            value = params.get(name)
        except Exception:
            return None
        if isinstance(value, list | tuple):
            value = value[-1] if value else None
        return value if isinstance(value, str) else None

    return get


def _float(raw: str | None) -> float | None:
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _int(raw: str | None) -> int | None:
    value = _float(raw)
    if value is None or value != int(value):
        return None
    return int(value)


def _param(raw: str | None, spec: datasets.Param, default: Any) -> Any:
    value = _int(raw) if spec.integer else _float(raw)
    if value is None or not spec.low <= value <= spec.high:
        return default
    return value


def _positive(raw: str | None, default: float) -> float:
    value = _float(raw)
    return value if value is not None and value > 0 else default


def _choice(table) -> Any:
    return lambda raw, default: raw if raw in table else default


def _bool(raw: str | None, default: bool) -> bool:
    return {"1": True, "true": True, "0": False, "false": False}.get(
        (raw or "").lower(), default
    )


def _in_range(low: float, high: float, *, integer: bool = False):
    def check(raw: str | None, default: Any) -> Any:
        value = _int(raw) if integer else _float(raw)
        return value if value is not None and low <= value <= high else default

    return check


def _solver(raw: str | None, default: str) -> str:
    # A solver not registered (yet) falls back to "auto", never to an error.
    return raw if raw == "auto" or raw in solvers.SOLVERS else default


_FIELD_CHECKS = {
    "seed": _in_range(0, 2**31 - 1, integer=True),
    "test_fraction": _in_range(0.0, 0.8),
    "kernel": _choice(kernels.KERNELS),
    "sigma": _positive,
    "degree": _in_range(1, 10, integer=True),
    "coef0": _in_range(0.0, 1e6),
    "loss": _choice(losses.LOSSES),
    "delta": lambda raw, default: (
        v if (v := _float(raw)) is not None and 0.0 < v < 1.0 else default
    ),
    "solver": _solver,
    "C": _positive,
    "bias": _choice(BIASES),
    "hard_margin": _bool,
    "tol": _positive,
    "max_iter": _in_range(1, 10_000_000, integer=True),
    "log_count": _bool,
    "show_test": _bool,
    "playback": _bool,
    "upload": lambda raw, default: raw if is_upload_key(raw) else default,
}

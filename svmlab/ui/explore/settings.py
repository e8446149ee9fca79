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
from svmlab.errors import SvmlabError
from svmlab.estimator import BIASES
from svmlab.ui import room
from svmlab.ui.link_values import (
    C_GRID,
    DELTA_GRID,
    SIGMA_GRID,
    encoded,
    nearest,
    parse_int,
    parse_number,
    query_getter,
    quoted,
    shown,
)

__all__ = [
    "COMPARE_GRIDS",
    "FIT_SECONDS",
    "MACHINES",
    "MODEL_DEFAULTS",
    "NU_TOOL_NOTE",
    "RANGES",
    "UPLOAD",
    "ExploreSettings",
    "compare_choice",
    "compare_text",
    "is_upload_key",
    "solver_refusal",
]


#: What the Explore widgets accept. A value from a link or from another page
#: outside its range is clamped to the nearest end with a message
#: (:meth:`ExploreSettings.clamped`), never handed to a widget that would refuse it
#: with a traceback. C and sigma may be typed anywhere in their range; the sliders
#: cover the usual part of it.
RANGES: dict[str, tuple[float, float]] = {
    "C": (1e-6, 1e10),
    "sigma": (1e-3, 1e3),
    "tol": (1e-12, 1.0),
    "max_iter": (1, 1_000_000),
    "delta": (DELTA_GRID[0], DELTA_GRID[-1]),
    "seed": (0, 2**31 - 1),
    "test_fraction": (0.0, 0.8),
    "degree": (1, 10),
    "coef0": (0.0, 1e6),
    "nu": (0.01, 1.0),
    "sig_a": (1e-3, 10.0),
    "sig_r": (-10.0, 10.0),
}
#: Wall-clock budget of one fit on the page, in seconds: a fit that needs longer
#: stops there and says so (the page stays live; the engine's ``max_seconds``).
#: Room mode lowers it (:func:`svmlab.ui.room.fit_seconds`).
FIT_SECONDS = room.FIT_SECONDS


def ranges() -> dict[str, tuple[float, float]]:
    """:data:`RANGES`, with room mode's iteration cap when it is on."""
    limits = room.limits()
    if limits is None:
        return RANGES
    return {**RANGES, "max_iter": (1, limits.max_iter)}


def room_param(spec: datasets.Param) -> datasets.Param:
    """A data set's slider, the number of points capped in room mode."""
    limits = room.limits()
    if limits is None or spec.name != "n_samples" or spec.high <= limits.n_max:
        return spec
    return replace(spec, high=limits.n_max, default=min(spec.default, limits.n_max))


#: The data source name of uploaded data (never a generator's name): the cached
#: data functions take it in place of a data set name.
UPLOAD = "upload"
_UPLOAD_KEY = re.compile(r"[0-9a-f]{12}")


def is_upload_key(value: object) -> bool:
    """Whether ``value`` looks like an upload key: 12 lowercase hex digits (the
    start of the SHA-256 of the uploaded data, see :mod:`svmlab.ui.explore.upload`)."""
    return isinstance(value, str) and _UPLOAD_KEY.fullmatch(value) is not None


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
    # A linear boundary pushed into the small class (class weights, issue 31).
    "imbalanced": {"kernel": "linear", "C": 1.0, "sigma": 1.5},
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
    browser session holds (:mod:`svmlab.ui.explore.upload`); the generator fields then
    stay as they were, so going back to the generator restores them. A URL can
    name an upload but never carries its data.

    ``preset`` names the teaching preset (:mod:`svmlab.ui.presets`) these
    settings came from, kept while the lecturer moves away from it so the page
    can say what changed; ``classroom`` is the projector layout (bigger text,
    markers and lines, the advanced controls hidden). ``compare`` is compare
    mode's B while that tool is open, ``"<field>:<value>"`` (``"C:100"``,
    ``"loss:ramp"``; :func:`compare_choice` reads it), else empty.
    ``sig_a`` and ``sig_r`` are the sigmoid kernel's ``tanh(a x'z + r)`` (``a``
    and ``r`` in a link). ``machine`` is ``"C"`` (C-SVC, every loss and
    solver) or ``"nu"`` (ν-SVC, the hinge with ``nu`` in (0, 1] in place of C;
    :data:`MACHINES`).
    """

    dataset: str = "spiral"
    n: int | None = None
    noise: float | None = None
    data_params: tuple[tuple[str, float], ...] = ()
    seed: int = 0
    test_fraction: float = 0.2
    machine: str = "C"
    nu: float = 0.5
    kernel: str | None = None
    sigma: float | None = None
    degree: int = 3
    coef0: float = 1.0
    sig_a: float = 0.1
    sig_r: float = 0.0
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
    preset: str = ""
    classroom: bool = False
    compare: str = ""

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

    @property
    def is_nu(self) -> bool:
        """Whether the machine is ν-SVC (ν in place of C; the hinge loss, an
        unregularized bias and LIBSVM's ν solver, whatever the loss, bias and
        solver fields say: they wait for C)."""
        return self.machine == "nu"

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

    def with_dataset(self, name: str, keep: bool = False) -> ExploreSettings:
        """The same settings on another generated data set.

        The new data set's own noise and shape parameters always come in (they
        mean different things on each). With ``keep`` the number of points,
        the kernel, C and σ stay wherever they were moved away from the old
        data set's defaults (what the visitor chose) and follow the new data
        set's defaults otherwise; without it they all take the new defaults
        (the data set's suggested model).
        """
        old = ExploreSettings(dataset=self.dataset)

        def kept(field: str) -> Any:
            value = getattr(self, field)
            return value if keep and value != getattr(old, field) else None

        return replace(
            self,
            dataset=name,
            upload="",
            n=kept("n"),
            noise=None,
            data_params=(),
            kernel=kept("kernel"),
            C=kept("C"),
            sigma=kept("sigma"),
        )

    def model_differences(self, other: ExploreSettings) -> list[str]:
        """Phrases for this model's kernel, C, σ and number of points where they
        differ from ``other``'s ("C = 100", "linear kernel")."""
        out = []
        if self.kernel != other.kernel:
            name = "Gaussian" if self.kernel == "gaussian" else self.kernel
            out.append(f"{name} kernel")
        for field in ("C", "sigma", "n"):
            if field == "sigma" and self.kernel != "gaussian":
                continue
            value = getattr(self, field)
            if value != getattr(other, field):
                out.append(f"{_LABELS.get(field, field)} = {shown(value)}")
        return out

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
                out[_QUERY_NAMES.get(f.name, f.name)] = encoded(value)
        for (name, value), (_, default) in zip(
            self.data_params, base.data_params, strict=True
        ):
            if value != default:
                out[name] = encoded(value)
        return out

    @classmethod
    def from_query(cls, params: Any, notes: list[str] | None = None) -> ExploreSettings:
        """Settings from URL query parameters; never raises.

        ``params`` is any mapping of names to strings (``st.query_params``, a
        dict). Unknown names are ignored. A value that is malformed or not among
        the choices falls back to its default, and a number outside the widget's
        range (:data:`RANGES`, the generator's :class:`~svmlab.datasets.Param`) is
        clamped to the nearest end; each such change appends a plain sentence to
        ``notes`` (when given), for the page to show.
        """
        notes = [] if notes is None else notes
        get = query_getter(params, notes)
        dataset = get("data")
        if dataset is not None and dataset not in datasets.GENERATORS:
            notes.append(
                f"The link's data set {quoted(dataset)} is not one of "
                f"{', '.join(datasets.GENERATORS)}; showing {cls.dataset}."
            )
            dataset = None
        dataset = dataset or cls.dataset
        base = cls(dataset=dataset)
        spec = {p.name: room_param(p) for p in datasets.PARAMS[dataset]}
        values: dict[str, Any] = {"dataset": dataset}
        values["n"] = _param(get("n"), spec["n_samples"], base.n, notes)
        values["noise"] = _param(get("noise"), spec["noise"], base.noise, notes)
        values["data_params"] = tuple(
            (name, _param(get(name), spec[name], default, notes))
            for name, default in base.data_params
        )
        for f in fields(cls):
            if f.name in values:
                continue
            name = _QUERY_NAMES.get(f.name, f.name)
            raw = get(name)
            default = getattr(base, f.name)
            if raw is None:
                values[f.name] = default
                continue
            value = _FIELD_PARSERS[f.name](raw)
            if value is None:
                notes.append(
                    f"The link's {name} = {quoted(raw)} is not understood; "
                    f"using {shown(default)}."
                )
                value = default
            values[f.name] = value
        settings, clamped = cls(**values).clamped()
        notes.extend(clamped)
        return settings

    def clamped(self) -> tuple[ExploreSettings, list[str]]:
        """These settings with every number inside its widget's range.

        Returns the settings (``self`` when nothing changed) and one sentence per
        clamped value. Pages call it on whatever they are handed (a link, a preset,
        another page's choice) before the widgets see it.
        """
        notes: list[str] = []
        changes: dict[str, Any] = {}
        for name, (low, high) in ranges().items():
            value = getattr(self, name)
            if value is None or low <= value <= high:
                continue
            end = low if value < low else high
            integer = isinstance(value, int) or name in _INTEGER_FIELDS
            end = int(end) if integer else float(end)
            if value > high and high < RANGES[name][1]:  # room mode's cap
                # The page's own default (max_iter's 100,000) is capped silently:
                # nobody asked for it.
                if value != _DEFAULTS.get(name):
                    notes.append(_room_note(_LABELS.get(name, name), value, high))
                changes[name] = end
                continue
            notes.append(
                f"{_LABELS.get(name, name)} = {shown(value)} is outside the range "
                f"{shown(low)} to {shown(high)} that this page offers; "
                f"using {shown(end)}."
            )
            changes[name] = end
        n_spec = next(p for p in datasets.PARAMS[self.dataset] if p.name == "n_samples")
        n_high = room_param(n_spec).high
        if not self.upload and self.n is not None and self.n > n_high:
            notes.append(_room_note(n_spec.label, self.n, n_high))
            changes["n"] = int(n_high)
        delta = changes.get("delta", self.delta)
        if delta not in DELTA_GRID:
            on_grid = nearest(DELTA_GRID, delta)
            changes["delta"] = on_grid
        if delta not in DELTA_GRID and self.loss == "modified_hinge":
            notes.append(
                f"δ = {shown(delta)} is not on the δ slider; using the nearest "
                f"value on it, {shown(on_grid)}."
            )
        nu = changes.get("nu", self.nu)
        if round(nu, 2) != nu:  # the ν slider's steps are 0.01
            notes.append(
                f"ν = {shown(nu)} is not on the ν slider; using the nearest value "
                f"on it, {shown(round(nu, 2))}."
            )
            changes["nu"] = round(nu, 2)
        choice = compare_choice(self.compare)
        if choice is not None and choice[0] in COMPARE_GRIDS:
            field, value = choice
            stop = nearest(COMPARE_GRIDS[field], value)
            if stop != value:
                notes.append(
                    f"B's {_LABELS.get(field, field)} = {shown(value)} is not on "
                    f"its slider; using the nearest value on it, {shown(stop)}."
                )
                changes["compare"] = compare_text(field, stop)
        if self.solver != "auto" and not self.is_nu:
            why = solver_refusal(
                self.solver, self.loss, self.bias, math.isinf(self.effective_C)
            )
            if why:
                notes.append(f"{why} Using auto instead.")
                changes["solver"] = "auto"
        if not self.upload:  # sliders valid one by one may not be valid together
            params = {
                "n_samples": changes.get("n", self.n),
                "noise": self.noise,
                **dict(self.data_params),
            }
            fixed, said = datasets.consistent_params(self.dataset, params)
            if said:
                notes.extend(said)
                changes["n"] = int(fixed["n_samples"])
                changes["data_params"] = tuple(
                    (name, fixed[name]) for name, _ in self.data_params
                )
        return (replace(self, **changes) if changes else self), notes


#: Compare mode's numeric fields and the grids of their sliders.
COMPARE_GRIDS: dict[str, tuple[float, ...]] = {"C": C_GRID, "sigma": SIGMA_GRID}


def compare_text(field: str, value: Any) -> str:
    """Compare mode's B as the ``compare`` field writes it."""
    return f"{field}:{encoded(float(value)) if field in COMPARE_GRIDS else value}"


def compare_choice(text: str) -> tuple[str, Any] | None:
    """``(field, value)`` of compare mode's B, or None (empty or malformed)."""
    field, sep, raw = text.partition(":")
    if not sep:
        return None
    if field in COMPARE_GRIDS:
        value = parse_number(raw)
        return (field, value) if value is not None and value > 0 else None
    if field == "loss":
        return (field, raw) if raw in losses.LOSSES else None
    if field == "solver":
        return (field, raw) if _solver(raw) else None
    return None


def solver_refusal(solver: str, loss: str, bias: str, hard: bool) -> str | None:
    """Why ``solver`` cannot fit this loss, bias and margin, in one sentence that
    names the solvers that can; None when it can."""
    try:
        solvers.check_solver(
            solver, loss, fit_intercept=bias == "unregularized", hard_margin=hard
        )
    except SvmlabError as error:
        return f"The link's solver: {error}"
    return None


#: Each field's default, to tell a value asked for from one nobody chose.
_DEFAULTS = {f.name: f.default for f in fields(ExploreSettings)}


# -- parsing helpers (all total: they return None or the default, never raise) --

_QUERY_NAMES = {
    "test_fraction": "test",
    "hard_margin": "hard",
    "sig_a": "a",
    "sig_r": "r",
}
#: Fields whose widgets hold whole numbers (a clamped value stays whole).
_INTEGER_FIELDS = frozenset({"seed", "max_iter", "degree"})
_LABELS = {
    "sigma": "σ",
    "delta": "δ",
    "nu": "ν",
    "sig_a": "The sigmoid's a",
    "sig_r": "The sigmoid's r",
    "test_fraction": "The test fraction",
}


def _room_note(label: str, value: Any, high: Any) -> str:
    return (
        f"{label} = {shown(value)} is more than this server allows in room mode "
        f"(at most {shown(high)}, so that a room of students shares it well); "
        f"using {shown(high)}."
    )


def _param(
    raw: str | None, spec: datasets.Param, default: Any, notes: list[str]
) -> Any:
    """A generator parameter from the link: parsed, clamped to its slider."""
    if raw is None:
        return default
    value = parse_int(raw, True) if spec.integer else parse_number(raw, True)
    if value is None:
        notes.append(
            f"The link's {spec.name} = {quoted(raw)} is not understood; "
            f"using {shown(default)}."
        )
        return default
    if value > spec.high and room.limits() and spec.name == "n_samples":
        notes.append(_room_note(spec.label, value, spec.high))
        return int(spec.high)
    if not spec.low <= value <= spec.high:
        end = spec.low if value < spec.low else spec.high
        end = int(end) if spec.integer else float(end)
        notes.append(
            f"{spec.label} = {shown(value)} is outside the range {shown(spec.low)} "
            f"to {shown(spec.high)} of its slider; using {shown(end)}."
        )
        return end
    return value


def _number(*, integer: bool = False, positive: bool = False):
    """A parser of a number (clamping to :data:`RANGES` happens afterwards)."""

    def parse(raw: str) -> float | int | None:
        value = parse_int(raw, True) if integer else parse_number(raw, True)
        if value is None or (positive and value <= 0):
            return None
        return value

    return parse


def _choice(table) -> Any:
    return lambda raw: raw if raw in table else None


def _bool(raw: str) -> bool | None:
    return {"1": True, "true": True, "0": False, "false": False}.get(raw.lower())


def _solver(raw: str) -> str | None:
    return raw if raw == "auto" or raw in solvers.SOLVERS else None


#: What the path and compare tools say under ν-SVC (they sweep and vary C-SVC's
#: settings: C, the loss, the solver).
NU_TOOL_NOTE = (
    "This tool sweeps and varies C-SVC's settings (C, σ, the loss, the solver): "
    'switch "C or ν" in the sidebar to C-SVC to use it. ν-SVC\'s own path, '
    "the two fractions at every ν, is on the SVM family page (Along ν)."
)


#: The Explore machines: C-SVC (every loss and solver) or ν-SVC.
MACHINES = {"C": "C-SVC (C)", "nu": "ν-SVC (ν)"}


def _nu(raw: str) -> float | None:
    value = parse_number(raw)
    return value if value is not None and value > 0.0 else None


def _delta(raw: str) -> float | None:
    value = parse_number(raw)
    return value if value is not None and 0.0 < value < 1.0 else None


#: The names of Explore's teaching presets. The preset table
#: (:mod:`svmlab.ui.presets`, whose presets are :class:`ExploreSettings`)
#: registers them when it is imported, so this module never imports it.
EXPLORE_PRESETS: set[str] = set()


def _preset(raw: str) -> str | None:
    """An Explore preset's name (registered in :data:`EXPLORE_PRESETS`), else
    None."""
    return raw if raw in EXPLORE_PRESETS else None


_FIELD_PARSERS = {
    "seed": _number(integer=True),
    "test_fraction": _number(),
    "machine": _choice(MACHINES),
    "nu": _nu,
    "kernel": _choice(kernels.KERNELS),
    "sig_a": _number(positive=True),
    "sig_r": _number(),
    "sigma": _number(positive=True),
    "degree": _number(integer=True),
    "coef0": _number(),
    "loss": _choice(losses.LOSSES),
    "delta": _delta,
    "solver": _solver,
    "C": _number(positive=True),
    "bias": _choice(BIASES),
    "hard_margin": _bool,
    "tol": _number(positive=True),
    "max_iter": _number(integer=True),
    "log_count": _bool,
    "show_test": _bool,
    "playback": _bool,
    "upload": lambda raw: raw if is_upload_key(raw) else None,
    "preset": _preset,
    "classroom": _bool,
    "compare": lambda raw: (
        compare_text(*choice) if (choice := compare_choice(raw)) else None
    ),
}

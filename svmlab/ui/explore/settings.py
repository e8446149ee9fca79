"""The Explore page's whole state as one frozen value, built from its declared
fields (:data:`svmlab.ui.explore.fields.EXPLORE_STATE`).

:class:`ExploreSettings` is what the page's widgets show, what the page's cache,
presets, undo, compare and rooms hold, and what the URL query string encodes.
The link is read and written by the shared schema (:meth:`PageState.values` /
:meth:`PageState.query`): one set of parsers, ranges and sentences for every
page. What is left here is what no single field can say: the room's caps, the
solver that cannot fit the loss, compare mode's B off its slider and the data
set's sliders that are valid one by one but not together. It holds primitives
only, so it is hashable and its fields can be handed to cached functions
(STYLE rule 12).

This module does not import streamlit: it is plain data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from svmlab import datasets, solvers
from svmlab.errors import SvmlabError
from svmlab.ui.explore.fields import (
    ATTRIBUTES,
    COMPARE_GRIDS,
    DEFAULTS,
    EXPLORE_PRESETS,
    EXPLORE_STATE,
    KEYS,
    MACHINES,
    MODEL_DEFAULTS,
    compare_choice,
    compare_text,
    is_upload_key,
    param_key,
)
from svmlab.ui.frame import room
from svmlab.ui.frame.link_values import nearest, shown

__all__ = [
    "COMPARE_GRIDS",
    "EXPLORE_PRESETS",
    "FIT_SECONDS",
    "MACHINES",
    "MODEL_DEFAULTS",
    "NU_TOOL_NOTE",
    "UPLOAD",
    "ExploreSettings",
    "compare_choice",
    "compare_text",
    "is_upload_key",
    "max_iter_cap",
    "solver_refusal",
]

#: Wall-clock budget of one fit on the page, in seconds: a fit that needs longer
#: stops there and says so (the page stays live; the engine's ``max_seconds``).
#: Room mode lowers it (:func:`svmlab.ui.frame.room.fit_seconds`).
FIT_SECONDS = room.FIT_SECONDS


def max_iter_cap() -> int:
    """The iteration cap's top: the field's, or room mode's when it is on."""
    limits = room.limits()
    high = int(ATTRIBUTES["max_iter"].high)
    return high if limits is None else min(high, limits.max_iter)


def room_param(spec: datasets.Param) -> datasets.Param:
    """A data set's slider, the number of points capped in room mode."""
    limits = room.limits()
    if limits is None or spec.name != "n_samples" or spec.high <= limits.n_max:
        return spec
    return replace(spec, high=limits.n_max, default=min(spec.default, limits.n_max))


#: The data source name of uploaded data (never a generator's name): the cached
#: data functions take it in place of a data set name.
UPLOAD = "upload"


def _dataset_defaults(name: str) -> dict[str, float | int]:
    return {p.name: p.default for p in datasets.PARAMS[name]}


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

    ``preset`` names the teaching preset (:mod:`svmlab.ui.frame.presets`) these
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

    # Every default is the schema's (kernel, C and σ: the data set's).
    dataset: str = EXPLORE_STATE.dataset
    n: int | None = None
    noise: float | None = None
    data_params: tuple[tuple[str, float], ...] = ()
    seed: int = 0
    test_fraction: float = DEFAULTS["test_fraction"]
    machine: str = DEFAULTS["machine"]
    nu: float = DEFAULTS["nu"]
    kernel: str | None = None
    sigma: float | None = None
    degree: int = DEFAULTS["degree"]
    coef0: float = DEFAULTS["coef0"]
    sig_a: float = DEFAULTS["sig_a"]
    sig_r: float = DEFAULTS["sig_r"]
    loss: str = DEFAULTS["loss"]
    delta: float = DEFAULTS["delta"]
    solver: str = DEFAULTS["solver"]
    C: float | None = None
    bias: str = DEFAULTS["bias"]
    hard_margin: bool = DEFAULTS["hard_margin"]
    tol: float = DEFAULTS["tol"]
    max_iter: int = DEFAULTS["max_iter"]
    log_count: bool = DEFAULTS["log_count"]
    show_test: bool = DEFAULTS["show_test"]
    playback: bool = DEFAULTS["playback"]
    upload: str = DEFAULTS["upload"]
    preset: str = DEFAULTS["preset"]
    classroom: bool = DEFAULTS["classroom"]
    compare: str = DEFAULTS["compare"]

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

    @property
    def data_identity(self) -> tuple[str, tuple[tuple[str, Any], ...], float]:
        """What the points depend on: the source, the arguments of
        :meth:`data_kwargs` and the test fraction (the data's key in every
        cache, :func:`svmlab.ui.explore.cache.load_data`, and what the edits
        belong to)."""
        return (self.source, tuple(self.data_kwargs().items()), self.test_fraction)

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
            out.append(f"{_kernel_name(self.kernel)} kernel")
        for field in ("C", "sigma", "n"):
            if field == "sigma" and self.kernel != "gaussian":
                continue
            value = getattr(self, field)
            if value != getattr(other, field):
                label = ATTRIBUTES[field].label if field in ATTRIBUTES else field
                out.append(f"{label} = {shown(value)}")
        return out

    def model_changes(self, after: ExploreSettings) -> list[str]:
        """Phrases for the kernel, C, σ and number of points that differ in
        ``after`` ("kernel Gaussian → linear", "C 10 → 1"): what a data set
        switch changed."""
        out = []
        if self.kernel != after.kernel:
            out.append(
                f"kernel {_kernel_name(self.kernel)} → {_kernel_name(after.kernel)}"
            )
        for field in ("C", "sigma", "n"):
            if field == "sigma" and after.kernel != "gaussian":
                continue  # σ is the Gaussian kernel's
            before, now = getattr(self, field), getattr(after, field)
            if before != now and before is not None and now is not None:
                label = ATTRIBUTES[field].label if field in ATTRIBUTES else field
                out.append(f"{label} {shown(before)} → {shown(now)}")
        return out

    # -- URL ------------------------------------------------------------------

    def widget_values(self) -> dict[str, Any]:
        """Widget key -> value for every field of the schema (the data set's
        sliders included)."""
        values: dict[str, Any] = {
            key: getattr(self, name) for name, key in KEYS.items()
        }
        values.update(
            {param_key(self.dataset, name): value for name, value in self.data_params}
        )
        return values

    def to_query(self) -> dict[str, str]:
        """The URL query parameters for these settings, written by the schema
        (:meth:`PageState.query`): only what differs from the defaults (the
        data set's own), so links stay short."""
        return EXPLORE_STATE.query(self.widget_values())

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> ExploreSettings:
        """Settings from the schema's widget values (:meth:`PageState.values`)."""
        dataset = values[KEYS["dataset"]]
        return cls(
            dataset=dataset,
            data_params=tuple(
                (p.name, values[param_key(dataset, p.name)])
                for p in datasets.PARAMS[dataset]
                if p.name not in ("n_samples", "noise")
            ),
            **{
                name: values[key]
                for name, key in KEYS.items()
                if name != "dataset" and key in values
            },
        )

    @classmethod
    def from_query(
        cls,
        params: Any,
        notes: list[str] | None = None,
        errors: list[str] | None = None,
    ) -> ExploreSettings:
        """Settings from URL query parameters; never raises.

        ``params`` is any mapping of names to strings (``st.query_params``, a
        dict); unknown names are ignored. The schema reads every field
        (:meth:`PageState.values`): a malformed value keeps its default with a
        sentence in ``errors`` (in ``notes`` when no ``errors`` is given), a
        number outside its widget's range is clamped with a sentence in
        ``notes``; then :meth:`clamped`'s checks across fields add theirs.
        """
        notes = [] if notes is None else notes
        errors = notes if errors is None else errors
        settings = cls.from_values(EXPLORE_STATE.values(params, errors, notes))
        settings, said = settings._across()
        notes.extend(said)
        return settings

    def clamped(self) -> tuple[ExploreSettings, list[str]]:
        """These settings with every value one the widgets can show.

        Returns the settings (``self`` when nothing changed) and one sentence per
        change. Pages call it on whatever they are handed (a link, a preset,
        another page's choice, a room's snapshot) before the widgets see it: the
        settings go through the schema as their link would (one mechanism for
        the ranges), then through the checks across fields.
        """
        said: list[str] = []
        settings = self.from_query(self.to_query(), said)
        return (self if settings == self else settings), said

    def _across(self) -> tuple[ExploreSettings, list[str]]:
        """What no single field can say: room mode's caps, compare mode's B on
        its slider, a solver that cannot fit the loss, and the data set's
        sliders that are valid one by one but not together."""
        notes: list[str] = []
        changes: dict[str, Any] = {}
        cap = max_iter_cap()
        if self.max_iter > cap:
            # The page's own default (max_iter's 100,000) is capped silently:
            # nobody asked for it.
            if self.max_iter != DEFAULTS["max_iter"]:
                notes.append(_room_note("max_iter", self.max_iter, cap))
            changes["max_iter"] = cap
        n_spec = next(p for p in datasets.PARAMS[self.dataset] if p.name == "n_samples")
        n_high = room_param(n_spec).high
        if not self.upload and self.n is not None and self.n > n_high:
            notes.append(_room_note(n_spec.label, self.n, n_high))
            changes["n"] = int(n_high)
        choice = compare_choice(self.compare)
        if choice is not None and choice[0] in COMPARE_GRIDS:
            field, value = choice
            stop = nearest(COMPARE_GRIDS[field], value)
            if stop != value:
                label = ATTRIBUTES[field].label
                notes.append(
                    f"B's {label} = {shown(value)} is not on its slider; using the "
                    f"nearest value on it, {shown(stop)}."
                )
                changes["compare"] = compare_text(field, stop)
        if self.hard_margin and (self.is_nu or self.loss != "hinge"):
            # The checkbox is the hinge's (C-SVC's) alone and hidden otherwise:
            # a link's hard=1 beside another loss or ν-SVC would be kept unseen.
            under = "ν-SVC" if self.is_nu else f"the {self.loss.replace('_', ' ')} loss"
            notes.append(
                "The link's hard margin (C = ∞) is the hinge loss's, for C-SVC; "
                f"with {under} it does not apply, so C = {shown(self.C)} is used."
            )
            changes["hard_margin"] = False
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


def _kernel_name(kernel: str) -> str:
    return "Gaussian" if kernel == "gaussian" else kernel


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


def _room_note(label: str, value: Any, high: Any) -> str:
    return (
        f"{label} = {shown(value)} is more than this server allows in room mode "
        f"(at most {shown(high)}, so that a room of students shares it well); "
        f"using {shown(high)}."
    )


#: What the path and compare tools say under ν-SVC (they sweep and vary C-SVC's
#: settings: C, the loss, the solver).
NU_TOOL_NOTE = (
    "This tool sweeps and varies C-SVC's settings (C, σ, the loss, the solver): "
    'switch "C or ν" in the sidebar to C-SVC to use it. ν-SVC\'s own path, '
    "the two fractions at every ν, is on the SVM family page (Along ν)."
)

"""The URL state of every page with settings: widget keys <-> query.

Each page keeps its state in keyed widgets (``<prefix>_...``). A
:class:`PageState` lists a page's widgets as fields (the query name, the widget
key, the default and what the widget accepts; the kinds are in
:mod:`svmlab.ui.frame.page_fields`), and converts both ways:

- :meth:`PageState.values` reads query parameters into widget values; it never
  raises: a malformed value (not a number, not one of the choices) keeps its
  default with a sentence in ``errors``, and a number outside its widget's range
  is clamped to the nearest end (a log slider's value to the nearest stop) with a
  sentence in ``notes``;
- :meth:`PageState.query` writes widget values as query parameters, only those
  that differ from the defaults, so links stay short.

``query(values(q)) == q`` for every ``q`` that ``query`` wrote: a page's link
round-trips (``tests/test_presets.py``). The data set's own parameters (n, noise,
radii...) are fields too, named as in :mod:`svmlab.datasets` (``n`` for
``n_samples``), and only the chosen data set's are read or written. A page
whose model defaults follow the data set (Explore's, declared in
:mod:`svmlab.ui.explore.fields`) says so in ``model_defaults``.

This module does not import streamlit (:mod:`svmlab.ui.frame.page_url` does the
session side).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from svmlab import datasets
from svmlab.datasets import multiclass, regression
from svmlab.experiments import selection
from svmlab.ui.frame.link_values import log_grid, query_getter, quoted
from svmlab.ui.frame.model_fields import (
    NU_FINE_GRID,
    bias,
    c_slider,
    classroom,
    degree,
    delta,
    kernel,
    loss,
    nu_slider,
    sigma_slider,
)
from svmlab.ui.frame.page_fields import (
    Choice,
    Field,
    Flag,
    Grid,
    Multi,
    Number,
    Range,
)

__all__ = [
    "LOSSES_STATE",
    "MULTICLASS_STATE",
    "PAGE_STATES",
    "SOLVERS_STATE",
    "PageState",
]

#: The link's name of the theme, the frame's on every page
#: (:mod:`svmlab.ui.frame.theme_choice` reads it; defined here, where Streamlit
#: is not imported, so the page states stay importable without it).
THEME_PARAM = "theme"

#: The data source radio's two options (every page with a ``<prefix>_source``).
GENERATOR, UPLOAD_CSV = "Generator", "Upload CSV"
#: The ``data`` value of uploaded data (a link names it, never carries it).
UPLOAD = "upload"


#: Query names Streamlit itself reads (``?embed=true``): never a page's, never
#: reported as unknown.
STREAMLIT_NAMES = frozenset({"embed", "embed_options"})
#: The most unknown names one sentence lists (a link may carry hundreds).
MAX_NAMES_LISTED = 5


#: The columns a wide CSV upload lets the visitor choose (svmlab.ui.frame.data_source).
CSV_COLUMNS = ("x1", "x2", "label")


def csv_column_key(prefix: str, column: str) -> str:
    """The key of the data source's box choosing a CSV column (``CSV_COLUMNS``);
    under ``{prefix}_csv_``, where no page field lives (:class:`PageState`
    refuses one that would)."""
    return f"{prefix}_csv_{column}"


def data_source_keys(
    prefix: str, catalogue: Any, param_key: Callable[[str, str], str] | None = None
) -> frozenset[str]:
    """Every session key the data source block (:mod:`svmlab.ui.frame.data_source`)
    makes on a page with this ``prefix``: the source radio, the generator box,
    every generator's sliders (``param_key(data set, parameter)``, by default
    ``<prefix>_<data set>_<parameter>``), the seed, the uploader, its column
    boxes and the held uploads."""
    keys = {
        f"{prefix}_{name}" for name in ("source", "dataset", "seed", "file", "drop")
    }
    keys.update({f"{prefix}_uploads", f"{prefix}_refusal"})
    keys.update(csv_column_key(prefix, c) for c in CSV_COLUMNS)
    for name, params in catalogue.PARAMS.items():
        keys.update(
            param_key(name, p.name) if param_key else f"{prefix}_{name}_{p.name}"
            for p in params
        )
    return frozenset(keys)


def _nearest_name(name: str, known: tuple[str, ...]) -> str | None:
    """The known query name ``name`` most likely misspells: one it starts (``eps``
    for ``epsilon``) or one at least 75 % alike (``sigam``); else None."""
    lower = name.lower()
    if len(lower) >= 2:
        starts = [k for k in known if k.lower().startswith(lower) and k != name]
        if len(starts) == 1:
            return starts[0]
    close = difflib.get_close_matches(lower, known, n=1, cutoff=0.75)
    return close[0] if close and close[0] != name else None


@dataclass(frozen=True)
class PageState:
    """One page's widgets as URL fields.

    ``prefix`` starts every widget key; ``catalogue`` is the generator table
    (:mod:`svmlab.datasets` or :mod:`svmlab.datasets.multiclass`); ``dataset`` the
    default generator; ``max_n`` the page's cap on the number of points;
    ``fixed`` the generator parameters the page pins itself (no slider, no
    field); ``fields`` the model's widgets; ``points`` the session key of the
    points clicked in (``""``: the page has none), which its undo history
    keeps with the fields (:mod:`svmlab.ui.frame.page_hands`) and a link never
    carries; ``model_defaults`` the fields whose default follows the data set
    (data set -> query name -> default); ``param_key`` the generator sliders'
    keys (data set, parameter -> key; None: ``<prefix>_<data set>_<param>``).
    """

    page: str
    prefix: str
    catalogue: Any
    dataset: str
    max_n: int
    fields: tuple[Field, ...]
    fixed: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    points: str = ""
    model_defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    param_key: Callable[[str, str], str] | None = None
    #: Query names the page reads outside its fields (Explore's ``follow``).
    extra_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Unique by construction: a page's declared fields and its data source
        # never share a widget key (two widgets with one key is a traceback).
        keys = [f.key for f in self.fields]
        taken = (
            data_source_keys(self.prefix, self.catalogue, self.param_key)
            if self.catalogue is not None
            else frozenset()
        )
        clashes = sorted({k for k in keys if keys.count(k) > 1 or k in taken})
        if clashes:
            raise ValueError(f"{self.page}: widget keys used twice: {clashes}")
        names = [f.query for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.page}: URL fields named twice: {names}")

    # -- keys ---------------------------------------------------------------------

    @property
    def source_key(self) -> str:
        return f"{self.prefix}_source"

    @property
    def dataset_key(self) -> str:
        return f"{self.prefix}_dataset"

    @property
    def seed_key(self) -> str:
        return f"{self.prefix}_seed"

    @property
    def seed_field(self) -> Number:
        """The data source's seed as a field (every page with data has it)."""
        return Number("seed", self.seed_key, 0, 0, 2**31 - 1, "The seed", True)

    def data_fields(self, name: str) -> tuple[Number, ...]:
        """The sliders of generator ``name`` (the pinned ones left out)."""
        pinned = self.fixed.get(name, {})
        out = []
        for p in self.catalogue.PARAMS[name]:
            if p.name in pinned:
                continue
            key = (
                self.param_key(name, p.name)
                if self.param_key
                else f"{self.prefix}_{name}_{p.name}"
            )
            if p.name == "n_samples":
                default = min(int(p.default), self.max_n)
                out.append(Number("n", key, default, 10, self.max_n, p.label, True))
            else:
                kind = int if p.integer else float
                out.append(
                    Number(
                        p.name,
                        key,
                        kind(p.default),
                        kind(p.low),
                        kind(p.high),
                        p.label,
                        p.integer,
                    )
                )
        return tuple(out)

    def model_fields(self, name: str) -> tuple[Field, ...]:
        """The page's fields with data set ``name``'s defaults (``model_defaults``)."""
        own = self.model_defaults.get(name, {})
        if not own:
            return self.fields
        return tuple(
            replace(f, default=own[f.query]) if f.query in own else f
            for f in self.fields
        )

    @property
    def classroom_key(self) -> str:
        """The classroom-mode toggle's key (every page state has the field)."""
        return f"{self.prefix}_classroom"

    def keys(self, values: Mapping[str, Any]) -> list[str]:
        """Every widget key the URL describes for these widget values."""
        if self.catalogue is None:
            return [f.key for f in self.fields]
        name = values.get(self.dataset_key, self.dataset)
        return [
            self.source_key,
            self.dataset_key,
            self.seed_key,
            *(f.key for f in self.data_fields(name)),
            *(f.key for f in self.fields),
        ]

    def names(self, dataset: str | None = None) -> tuple[str, ...]:
        """Every query name a link to this page may carry with data set
        ``dataset`` (the default one when None): its fields, the data set's own
        sliders, ``data``, ``seed``, ``preset``, ``theme`` and the page's
        ``extra_names``."""
        names = [f.query for f in self.fields]
        if self.catalogue is not None:
            name = dataset if dataset in self.catalogue.GENERATORS else self.dataset
            names += ["data", self.seed_field.query]
            names += [f.query for f in self.data_fields(name)]
        # theme= is the frame's, read on every page (theme_choice).
        frame = ("preset", THEME_PARAM)
        return tuple(dict.fromkeys([*names, *frame, *self.extra_names]))

    def unknown_sentence(self, params: Any, dataset: str | None = None) -> str | None:
        """One sentence naming the link's query names this page does not read
        (a misspelling, another page's field, another data set's slider), with
        the nearest name it does read; None when there is none. Streamlit's own
        names (``embed``) are not the page's to judge."""
        try:
            given = [str(k) for k in params]
        except Exception:
            return None
        known = self.names(dataset)
        unknown = [
            k
            for k in dict.fromkeys(given)
            if k not in known and k not in STREAMLIT_NAMES
        ]
        if not unknown:
            return None
        shown_names = [quoted(k) for k in unknown[:MAX_NAMES_LISTED]]
        more = len(unknown) - len(shown_names)
        if more > 0:
            shown_names.append(f"{more} more")
        listed = (
            shown_names[0]
            if len(shown_names) == 1
            else ", ".join(shown_names[:-1]) + " and " + shown_names[-1]
        )
        hints = [
            f"{close} for {quoted(k)}"
            for k in unknown[:MAX_NAMES_LISTED]
            if (close := _nearest_name(k, known))
        ]
        hint = f" (did you mean {'; '.join(hints)}?)" if hints else ""
        noun = "is not a setting" if len(unknown) == 1 else "are not settings"
        return f"The link's {listed} {noun} of this page{hint}; ignored."

    # -- the two directions -------------------------------------------------------

    def values(
        self,
        params: Mapping[str, Any],
        errors: list[str] | None = None,
        notes: list[str] | None = None,
    ) -> dict[str, Any]:
        """Widget key -> value for every widget the link describes (defaults
        where it says nothing); never raises. Malformed values add a sentence
        to ``errors``, clamped ones to ``notes``, and the names the page does
        not read one sentence to ``errors`` (:meth:`unknown_sentence`)."""
        errors = [] if errors is None else errors
        notes = [] if notes is None else notes
        get = query_getter(params, notes)
        data = get("data") if self.catalogue is not None else None
        unknown = self.unknown_sentence(params, data)
        if unknown:
            errors.append(unknown)
        if self.catalogue is None:  # a page without data (the Notes)
            return {
                f.key: (
                    f.default
                    if (raw := get(f.query)) is None
                    else f.parse(raw, errors, notes)
                )
                for f in self.fields
            }
        out: dict[str, Any] = {
            self.source_key: GENERATOR,
            self.dataset_key: self.dataset,
        }
        if data == UPLOAD:
            out[self.source_key] = UPLOAD_CSV
        elif data is not None:
            if data in self.catalogue.GENERATORS:
                out[self.dataset_key] = data
            else:
                errors.append(
                    f"The link's data set {quoted(data)} is not one of "
                    f"{', '.join(self.catalogue.GENERATORS)}; showing "
                    f"{self.dataset}."
                )
        seed = self.seed_field
        name = out[self.dataset_key]
        for f in (seed, *self.data_fields(name), *self.model_fields(name)):
            raw = get(f.query)
            out[f.key] = f.default if raw is None else f.parse(raw, errors, notes)
        return out

    def query(self, values: Mapping[str, Any], every: bool = False) -> dict[str, str]:
        """Query parameters for widget values (missing keys: their defaults);
        only what differs from the defaults is written (a link), or, with
        ``every``, every value the page shows, defaults too (said in words)."""
        out: dict[str, str] = {}
        if self.catalogue is None:
            for f in self.fields:
                text = f.encode(values.get(f.key, f.default))
                if every or text != f.encode(f.default):
                    out[f.query] = text
            return out
        name = values.get(self.dataset_key, self.dataset)
        if values.get(self.source_key, GENERATOR) == UPLOAD_CSV:
            out["data"] = UPLOAD
        elif every or name != self.dataset:
            out["data"] = str(name)
        seed = self.seed_field
        for f in (seed, *self.data_fields(name), *self.model_fields(name)):
            # Compared as written: a multiselect's list equals its tuple default.
            text = f.encode(values.get(f.key, f.default))
            if every or text != f.encode(f.default):
                out[f.query] = text
        return out


# -- the pages -----------------------------------------------------------------

#: tol's select slider on the Solvers page.
TOLS: tuple[float, ...] = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8)

LOSSES_STATE = PageState(
    page="pages/4_Losses.py",
    prefix="losses",
    catalogue=datasets,
    dataset="outlier_blobs",
    max_n=400,
    # The page's own outliers replace the generator's.
    fixed={"outlier_blobs": {"n_outliers": 0, "outlier_distance": 0.0}},
    fields=(
        Number("count", "losses_count", 5, 0, 60, "The number of outliers", True),
        Number("distance", "losses_distance", 6.0, 0.0, 20.0, "The distance"),
        Choice("label", "losses_label", (1, -1), 1, "Their class"),
        Choice("side", "losses_side", ("other", "own"), "other", "Their side"),
        kernel("losses", ("linear", "gaussian"), "linear"),
        c_slider("losses", 1.0),
        sigma_slider("losses", 1.0),
        delta("losses"),
        classroom("losses"),
    ),
)

SOLVERS_STATE = PageState(
    page="pages/5_Solvers.py",
    prefix="solvers",
    catalogue=datasets,
    dataset="two_circles",
    max_n=500,
    fields=(
        kernel("solvers", ("gaussian", "linear", "polynomial"), "gaussian"),
        loss("solvers"),
        bias("solvers"),
        c_slider("solvers", 10.0),
        Flag("hard", "solvers_hard", False, "Hard margin"),
        sigma_slider("solvers", 0.5),
        degree("solvers"),
        delta("solvers"),
        Grid("tol", "solvers_tol", TOLS, 1e-3, "tol"),
        classroom("solvers"),
    ),
)

#: ε stops (0 and a log grid) of the Regression page.
EPSILON_GRID: tuple[float, ...] = (0.0, *log_grid(-3, 1))

MULTICLASS_STATE = PageState(
    page="pages/6_Multiclass.py",
    prefix="multiclass",
    catalogue=multiclass,
    dataset="blobs",
    max_n=600,
    fields=(
        kernel("multiclass", ("gaussian", "polynomial", "linear"), "gaussian"),
        c_slider("multiclass", 1.0),
        sigma_slider("multiclass", 1.0),
        degree("multiclass"),
        Choice("machine", "multiclass_machine", ("C", "nu"), "C", "Binary machine"),
        nu_slider("multiclass", 0.3),
        loss("multiclass"),
        bias("multiclass"),
        classroom("multiclass"),
    ),
)

#: Model selection's grid ends (half decades) and δ stops.
SELECTION_C = tuple(float(f"{10.0**e:.3g}") for e in np.arange(-2.0, 4.01, 0.5))
SELECTION_SIGMA = tuple(float(f"{10.0**e:.3g}") for e in np.arange(-2.0, 1.51, 0.25))
SELECTION_DELTAS = (1e-4, 1e-3, 0.01, 0.1, 0.5)
#: Every approximation the page offers (exact leave-one-out is always computed).
SELECTION_CRITERIA = tuple(c for c in selection.CRITERIA if c != "loo")

SELECTION_STATE = PageState(
    page="pages/2_Model_selection.py",
    prefix="selection",
    catalogue=datasets,
    dataset="two_circles",
    max_n=400,
    fields=(
        Range("C", "selection_C_range", SELECTION_C, (0.1, 1000.0), "The C range"),
        Number("nC", "selection_n_C", 7, 2, 15, "The number of C values", True),
        Range(
            "sigma",
            "selection_sigma_range",
            SELECTION_SIGMA,
            (0.1, 1.78),
            "The σ range",
        ),
        Number("nsigma", "selection_n_sigma", 7, 2, 15, "The number of σ", True),
        Multi(
            "criteria",
            "selection_criteria",
            SELECTION_CRITERIA,
            ("lee", "plugin", "alo", "span"),
            "Criteria",
        ),
        # Lee's own δ by default: the page asks whether *his* ACV tracks LOO.
        Grid("delta", "selection_delta", SELECTION_DELTAS, 1e-4, "δ"),
        Choice("bias", "selection_bias", ("none", "regularized"), "none", "Bias"),
        # Converged fits by default; Lee's stop rule as an option.
        Choice("fits", "selection_stop", ("kkt", "lee"), "kkt", "Fits"),
        classroom("selection"),
    ),
)

REGRESSION_STATE = PageState(
    page="pages/7_Regression.py",
    prefix="regression",
    catalogue=regression,
    dataset="sinc",
    max_n=500,
    points="regression_added",
    fields=(
        Choice("machine", "regression_machine", ("epsilon", "nu"), "epsilon", "SVR"),
        kernel(
            "regression", ("gaussian", "polynomial", "linear", "sigmoid"), "gaussian"
        ),
        c_slider("regression", 10.0),
        Grid("epsilon", "regression_epsilon", EPSILON_GRID, 0.1, "ε"),
        nu_slider("regression", 0.5),
        sigma_slider("regression", 0.5),
        degree("regression"),
        loss("regression", ("epsilon_insensitive", "squared_epsilon_insensitive")),
        classroom("regression"),
    ),
)

NOTES_STATE = PageState(
    page="pages/3_Notes.py",
    prefix="notes",
    catalogue=None,
    dataset="",
    max_n=0,
    fields=(classroom("notes"),),
)

#: The family page's class weights (C_+ = C w_+, C_- = C w_-) and the sigmoid's
#: slope a (a positive grid); r and the threshold on f are plain sliders.
WEIGHT_GRID: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
SCALE_GRID: tuple[float, ...] = log_grid(-3, 1)

FAMILY_STATE = PageState(
    page="pages/8_Family.py",
    prefix="family",
    catalogue=datasets,
    dataset="imbalanced",
    max_n=400,
    points="family_added",
    fields=(
        Choice(
            "machine",
            "family_machine",
            ("C", "nu", "one_class"),
            "C",
            "The machine",
        ),
        kernel("family", ("gaussian", "polynomial", "linear", "sigmoid"), "linear"),
        c_slider("family", 1.0),
        # Steps of 0.01: the slider ends at the data's largest feasible ν.
        nu_slider("family", 0.2, NU_FINE_GRID),
        sigma_slider("family", 1.0),
        degree("family"),
        Grid("a", "family_a", SCALE_GRID, 0.1, "The sigmoid's a"),
        Number("r", "family_r", 0.0, -5.0, 5.0, "The sigmoid's r", step=0.1),
        Choice(
            "weights",
            "family_weights",
            ("none", "balanced", "manual"),
            "none",
            "The class weights",
        ),
        Grid("wpos", "family_wpos", WEIGHT_GRID, 1.0, "w₊"),
        Grid("wneg", "family_wneg", WEIGHT_GRID, 1.0, "w₋"),
        Choice("train", "family_train", ("all", "pos", "neg"), "all", "Fit on"),
        Choice("shade", "family_shade", ("f", "p"), "f", "The shading"),
        Number(
            "t", "family_threshold", 0.0, -3.0, 3.0, "The threshold on f", step=0.05
        ),
        classroom("family"),
    ),
)

#: Page name (as in :data:`svmlab.ui.frame.presets.Preset.page`) -> its URL state.
PAGE_STATES: dict[str, PageState] = {
    "losses": LOSSES_STATE,
    "solvers": SOLVERS_STATE,
    "selection": SELECTION_STATE,
    "multiclass": MULTICLASS_STATE,
    "regression": REGRESSION_STATE,
    "family": FAMILY_STATE,
    "notes": NOTES_STATE,
}

"""The Explore page's fields, declared once in the schema every page uses
(:class:`~svmlab.ui.frame.page_state.PageState`).

:data:`EXPLORE_STATE` is to Explore what ``LOSSES_STATE`` is to Losses: each
field is its widget key, its URL name, its range or choices and its default, and
the shared mechanism reads a link (a malformed value said in ``errors``, a
clamped one in ``notes``, in the same sentences as on every page) and writes one.
What is Explore's own: the model's defaults follow the data set
(:data:`MODEL_DEFAULTS`), the generator sliders share one key across data sets
(``explore_n``, ``explore_noise``, ``explore_dp_<name>``), and three values of
its own kind are :class:`~svmlab.ui.frame.page_fields.Text` fields (an upload's key, a
preset's name, compare mode's B).

:class:`svmlab.ui.explore.settings.ExploreSettings` is built from these values
(the frozen, hashable object the page's cache, presets, undo and rooms use); its
defaults are read from here. No streamlit.
"""

from __future__ import annotations

import re
from typing import Any

from svmlab import datasets, kernels, losses, solvers
from svmlab.ui.frame import model_fields
from svmlab.ui.frame.link_values import C_GRID, SIGMA_GRID, encoded, parse_number
from svmlab.ui.frame.page_fields import Choice, Flag, Number, Text
from svmlab.ui.frame.page_state import PageState

__all__ = [
    "ATTRIBUTES",
    "COMPARE_GRIDS",
    "DEFAULTS",
    "EXPLORE_PRESETS",
    "EXPLORE_STATE",
    "KEYS",
    "MACHINES",
    "MODEL_DEFAULTS",
    "compare_choice",
    "compare_text",
    "field",
    "is_upload_key",
    "param_key",
]

PREFIX = "explore"
P = PREFIX + "_"

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

#: The Explore machines: C-SVC (every loss and solver) or ν-SVC.
MACHINES = {"C": "C-SVC (C)", "nu": "ν-SVC (ν)"}

_UPLOAD_KEY = re.compile(r"[0-9a-f]{12}")


def is_upload_key(value: object) -> bool:
    """Whether ``value`` looks like an upload key: 12 lowercase hex digits (the
    start of the SHA-256 of the uploaded data, see :mod:`svmlab.ui.explore.upload`)."""
    return isinstance(value, str) and _UPLOAD_KEY.fullmatch(value) is not None


#: The names of Explore's teaching presets. The preset table
#: (:mod:`svmlab.ui.frame.presets`, whose presets are ``ExploreSettings``) registers
#: them when it is imported, so this module never imports it.
EXPLORE_PRESETS: set[str] = set()

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
        return (field, raw) if raw == "auto" or raw in solvers.SOLVERS else None
    return None


def param_key(dataset: str, name: str) -> str:
    """A generator slider's key: one per parameter name across data sets (the
    number of points and the noise keep their values through a switch)."""
    del dataset
    return P + {"n_samples": "n", "noise": "noise"}.get(name, f"dp_{name}")


_SPIRAL = MODEL_DEFAULTS["spiral"]

EXPLORE_STATE = PageState(
    page="pages/1_Explore.py",
    prefix=PREFIX,
    catalogue=datasets,
    dataset="spiral",
    max_n=2000,
    param_key=param_key,
    model_defaults=MODEL_DEFAULTS,
    # An old room link's code (?follow=CODE: the hall's routes send it to the room).
    extra_names=("follow",),
    fields=(
        Number(
            "test",
            P + "test_fraction",
            0.2,
            0.0,
            0.8,
            "The test fraction",
            step=0.05,
            exact=True,
        ),
        Choice("machine", P + "machine", tuple(MACHINES), "C", "The machine"),
        Number(
            "nu", P + "nu", 0.5, 0.01, 1.0, "ν", step=0.01, positive=True, snap=True
        ),
        model_fields.kernel(PREFIX, tuple(kernels.KERNELS), _SPIRAL["kernel"]),
        # C and σ may be typed anywhere in their range; the sliders cover the
        # usual part of it (C_GRID, SIGMA_GRID).
        Number(
            "sigma",
            P + "sigma",
            _SPIRAL["sigma"],
            1e-3,
            1e3,
            "σ",
            positive=True,
            exact=True,
        ),
        Number("degree", P + "degree", 3, 1, 10, "The degree", integer=True),
        Number("coef0", P + "coef0", 1.0, 0.0, 1e6, "coef0", exact=True),
        Number(
            "a",
            P + "sig_a",
            0.1,
            1e-3,
            10.0,
            "The sigmoid's a",
            positive=True,
            exact=True,
        ),
        Number("r", P + "sig_r", 0.0, -10.0, 10.0, "The sigmoid's r", exact=True),
        model_fields.loss(PREFIX),
        model_fields.delta(PREFIX),
        # Read from the registry at each link: a solver registered later is
        # offered without touching this table (STYLE rule 3).
        Text(
            "solver",
            P + "solver",
            "auto",
            "The solver",
            lambda raw: raw if raw == "auto" or raw in solvers.SOLVERS else None,
            "auto or a registered solver's name",
        ),
        Number("C", P + "C", _SPIRAL["C"], 1e-6, 1e10, "C", positive=True, exact=True),
        model_fields.bias(PREFIX),
        Flag("hard", P + "hard_margin", False, "Hard margin"),
        Number("tol", P + "tol", 1e-3, 1e-12, 1.0, "tol", positive=True, exact=True),
        Number(
            "max_iter", P + "max_iter", 100_000, 1, 1_000_000, "max_iter", integer=True
        ),
        Flag("log_count", P + "log_count", False, "Log count"),
        Flag("show_test", P + "show_test", True, "Show test points"),
        Flag("playback", P + "playback", False, "Record iterations"),
        # Named by a link, never carried: the data stay in the browser session.
        Text(
            "upload",
            P + "upload",
            "",
            "The upload",
            lambda raw: raw if is_upload_key(raw) else None,
            "an upload's key (12 hex digits)",
        ),
        Text(
            "preset",
            P + "preset",
            "",
            "The preset",
            lambda raw: raw if raw in EXPLORE_PRESETS else None,
            "one of this page's presets",
        ),
        model_fields.classroom(PREFIX),
        # Compare mode's B; no widget of this key (the tool's own widgets).
        Text(
            "compare",
            P + "compare",
            "",
            "Compare mode's B",
            lambda raw: compare_text(*c) if (c := compare_choice(raw)) else None,
            "a field and a value such as C:100 or loss:ramp",
        ),
    ),
)

#: A field's query name -> its ExploreSettings attribute (where they differ).
_ATTRIBUTE = {
    "test": "test_fraction",
    "hard": "hard_margin",
    "a": "sig_a",
    "r": "sig_r",
}
#: ExploreSettings attribute -> the schema's field.
ATTRIBUTES: dict[str, Any] = {
    _ATTRIBUTE.get(f.query, f.query): f for f in EXPLORE_STATE.fields
}
#: ExploreSettings attribute -> widget key (the data set's and seed's too; a
#: generator parameter's is :func:`param_key`).
KEYS: dict[str, str] = {
    "dataset": EXPLORE_STATE.dataset_key,
    "n": param_key("", "n_samples"),
    "noise": param_key("", "noise"),
    "seed": EXPLORE_STATE.seed_key,
    **{name: f.key for name, f in ATTRIBUTES.items()},
}
#: ExploreSettings attribute -> its default (the spiral's for kernel, C and σ).
DEFAULTS: dict[str, Any] = {name: f.default for name, f in ATTRIBUTES.items()}


def field(name: str) -> Any:
    """The schema's field of ExploreSettings attribute ``name``."""
    return ATTRIBUTES[name]

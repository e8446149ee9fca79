"""The Explore page's sidebar: widgets that read and write :class:`ExploreSettings`.

Every widget has an explicit ``explore_``-prefixed key (AppTest finds them by key)
and gets its value from ``st.session_state`` only, never from a ``value=``
argument. :func:`sync_state` seeds the keys from a settings object: from the URL
on a session's first run, from the last settings for widgets that were hidden
(Streamlit forgets a widget's value while it is not drawn), and from any settings
a caller applies (presets, classroom mode). :func:`sidebar` draws the widgets and
returns the settings they show.

The data come from a generator or from an uploaded CSV file (the "Data source"
radio; :mod:`svmlab.ui.upload` draws the upload widgets and keeps the uploaded
data and their key in the session state).

The widget lists come from the engine's tables (STYLE rule 3): data sets from
``datasets.GENERATORS`` / ``PARAMS``, kernels from ``KERNELS``, losses from
``LOSSES`` and solvers from ``solvers.valid_solvers``, so a newly registered solver
appears without touching this module.
"""

from __future__ import annotations

import math
from typing import Any

import streamlit as st

from svmlab import datasets, kernels, losses, solvers
from svmlab.errors import SvmlabError
from svmlab.estimator import BIASES
from svmlab.ui import upload
from svmlab.ui.settings import C_GRID, SIGMA_GRID, ExploreSettings, nearest

__all__ = [
    "KEYS",
    "apply_settings",
    "current_settings",
    "live_controls",
    "sidebar",
    "sync_state",
]

P = "explore_"
#: Settings field -> widget key (data set shape parameters use ``explore_dp_<name>``).
KEYS: dict[str, str] = {
    "dataset": P + "dataset",
    "n": P + "n",
    "noise": P + "noise",
    "seed": P + "seed",
    "test_fraction": P + "test_fraction",
    "kernel": P + "kernel",
    "sigma": P + "sigma",
    "degree": P + "degree",
    "coef0": P + "coef0",
    "loss": P + "loss",
    "delta": P + "delta",
    "solver": P + "solver",
    "C": P + "C",
    "bias": P + "bias",
    "hard_margin": P + "hard_margin",
    "tol": P + "tol",
    "max_iter": P + "max_iter",
    "log_count": P + "log_count",
    "show_test": P + "show_test",
    "playback": P + "playback",
}
#: The log sliders beside the typed C and sigma inputs.
SLIDERS = {"C": (P + "C_slider", C_GRID), "sigma": (P + "sigma_slider", SIGMA_GRID)}
SETTINGS_KEY = P + "settings"


def _dp_key(name: str) -> str:
    return f"{P}dp_{name}"


def _widget_values(s: ExploreSettings) -> dict[str, Any]:
    values: dict[str, Any] = {
        key: getattr(s, field) for field, key in KEYS.items() if field != "data_params"
    }
    values.update({_dp_key(name): value for name, value in s.data_params})
    for field, (key, grid) in SLIDERS.items():
        values[key] = nearest(grid, getattr(s, field))
    values[KEYS["noise"]] = float(s.noise)
    values[upload.CURRENT_KEY] = s.upload
    values[upload.SOURCE_KEY] = upload.UPLOAD_CSV if s.upload else upload.GENERATOR
    return values


def apply_settings(s: ExploreSettings) -> None:
    """Make every widget show ``s`` on the next draw (presets, URL, tests).

    Call it before the widgets are drawn in a run, or from a callback.
    """
    st.session_state.update(_widget_values(s))
    st.session_state[SETTINGS_KEY] = s


def sync_state() -> ExploreSettings:
    """Seed the widget keys; returns the settings of the last run.

    On a session's first run the settings come from the URL
    (:meth:`ExploreSettings.from_query`); later, only keys missing from the
    session state (widgets hidden in the last run) are refilled.
    """
    last = st.session_state.get(SETTINGS_KEY)
    if last is None:
        last = ExploreSettings.from_query(st.query_params)
        apply_settings(last)
        return last
    for key, value in _widget_values(last).items():
        if key not in st.session_state:
            st.session_state[key] = value
    for p in datasets.PARAMS[st.session_state[KEYS["dataset"]]]:
        if p.name not in ("n_samples", "noise") and _dp_key(p.name) not in (
            st.session_state
        ):
            st.session_state[_dp_key(p.name)] = p.default
    return last


# -- callbacks ----------------------------------------------------------------------


def _dataset_changed() -> None:
    """A new data set starts from its own defaults (n, noise, shape)."""
    s = st.session_state[SETTINGS_KEY].with_dataset(st.session_state[KEYS["dataset"]])
    st.session_state.update(
        {k: v for k, v in _widget_values(s).items() if k != KEYS["dataset"]}
    )


def _slider_moved(field: str) -> None:
    st.session_state[KEYS[field]] = st.session_state[SLIDERS[field][0]]


def _typed(field: str) -> None:
    key, grid = SLIDERS[field]
    value = st.session_state[KEYS[field]]
    if value is not None and math.isfinite(value) and value > 0:
        st.session_state[key] = nearest(grid, value)


# -- widgets ------------------------------------------------------------------------


def _fmt(value: float) -> str:
    return f"{value:g}"


def _param_widget(p: datasets.Param, key: str) -> None:
    if p.integer:
        st.slider(
            p.label, int(p.low), int(p.high), step=int(p.step), key=key, help=p.help
        )
    else:
        st.slider(
            p.label,
            float(p.low),
            float(p.high),
            step=float(p.step),
            key=key,
            help=p.help or None,
        )


def _log_control(field: str, label: str, help: str, disabled: bool = False) -> None:
    """A log-spaced slider and, beside it, the exact value (typed values allowed)."""
    key, grid = SLIDERS[field]
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.select_slider(
        label,
        options=grid,
        format_func=_fmt,
        key=key,
        help=help,
        on_change=_slider_moved,
        args=(field,),
        disabled=disabled,
    )
    right.number_input(
        f"{label} (type a value)",
        key=KEYS[field],
        format="%g",
        step=None,
        on_change=_typed,
        args=(field,),
        label_visibility="collapsed",
        disabled=disabled,
    )


def _data_controls() -> None:
    st.header("Data")
    st.radio(
        "Data source",
        [upload.GENERATOR, upload.UPLOAD_CSV],
        key=upload.SOURCE_KEY,
        horizontal=True,
        label_visibility="collapsed",
    )
    upload.draw()
    if st.session_state[upload.SOURCE_KEY] == upload.GENERATOR:
        st.selectbox(
            "Data set",
            list(datasets.GENERATORS),
            format_func=datasets.TITLES.__getitem__,
            key=KEYS["dataset"],
            on_change=_dataset_changed,
        )
        for p in datasets.PARAMS[st.session_state[KEYS["dataset"]]]:
            field = {"n_samples": "n", "noise": "noise"}.get(p.name)
            _param_widget(p, KEYS[field] if field else _dp_key(p.name))
    left, right = st.columns(2)
    left.number_input("Seed", min_value=0, step=1, key=KEYS["seed"])
    right.slider(
        "Test fraction",
        0.0,
        0.8,
        step=0.05,
        key=KEYS["test_fraction"],
        help="Share of the points held out (hollow markers) for the test error.",
    )


#: The "auto" entry of the solver list. Labels must not depend on other widgets:
#: the browser sends a select box's choice back as its label, and Streamlit keeps
#: a label that is no longer among the options as the raw value (1.67), so a
#: label such as "auto (smo)" would come back as the solver's name after a loss
#: change (found by tests/browser/test_soak.py).
AUTO_LABEL = "auto (picked per loss)"


def _solver_label(name: str) -> str:
    if name == "auto":
        return AUTO_LABEL
    return f"{name}: {solvers.SOLVERS[name].title}"


def _auto_note(loss: str, fit_intercept: bool, hard: bool) -> str | None:
    """Which solver "auto" runs for this loss and bias, for a caption."""
    try:
        chosen = solvers.resolve_solver(
            "auto", loss, fit_intercept=fit_intercept, hard_margin=hard
        )
    except SvmlabError:
        return None
    return f"auto runs {chosen}: {solvers.SOLVERS[chosen].title}."


def _model_controls() -> None:
    state = st.session_state
    st.header("Model")
    kernel = st.selectbox(
        "Kernel",
        list(kernels.KERNELS),
        format_func=kernels.TITLES.__getitem__,
        key=KEYS["kernel"],
    )
    if kernel == "polynomial":
        left, right = st.columns(2)
        left.number_input("Degree p", min_value=1, max_value=10, key=KEYS["degree"])
        right.number_input(
            "Offset a", min_value=0.0, step=0.5, format="%g", key=KEYS["coef0"]
        )
    loss = st.selectbox(
        "Loss",
        list(losses.LOSSES),
        format_func=lambda name: losses.LOSSES[name].title,
        key=KEYS["loss"],
    )
    if loss == "modified_hinge":
        st.slider("δ (modified hinge)", 0.01, 0.99, step=0.01, key=KEYS["delta"])
    bias = st.selectbox(
        "Bias b", list(BIASES), format_func=BIASES.__getitem__, key=KEYS["bias"]
    )
    hard = False
    if loss == "hinge":
        hard = st.checkbox(
            "hard margin (C = ∞)",
            key=KEYS["hard_margin"],
            help="Only for separable data (e.g. the linearly separable set); "
            "otherwise the fit reports that no separating boundary exists.",
        )
    fit_intercept = bias == "unregularized"
    # With the hard margin only the solvers that take C = inf are offered (SMO
    # would stop with "cannot handle the hard margin"; found by the soak test).
    options = [
        "auto",
        *(
            name
            for name in solvers.valid_solvers(loss, fit_intercept=fit_intercept)
            if not hard or solvers.SOLVERS[name].hard_margin
        ),
    ]
    if state.get(KEYS["solver"]) not in options:
        state[KEYS["solver"]] = "auto"
    st.selectbox(
        "Solver",
        options,
        format_func=_solver_label,
        key=KEYS["solver"],
    )
    note = (
        _auto_note(loss, fit_intercept, hard)
        if state[KEYS["solver"]] == "auto"
        else None
    )
    if note:
        st.caption(note)


def _display_controls() -> None:
    st.header("Display")
    st.toggle("Show test points", key=KEYS["show_test"])
    st.toggle("Log count (α histogram)", key=KEYS["log_count"])
    st.toggle(
        "Record iterations (playback)",
        key=KEYS["playback"],
        help="Iterative solvers keep snapshots of α to replay the fit step by step.",
    )
    with st.expander("Solver tolerance and iteration cap"):
        st.number_input("tol", format="%g", step=None, key=KEYS["tol"])
        st.number_input("max_iter", min_value=1, step=100, key=KEYS["max_iter"])


def current_settings() -> ExploreSettings:
    """The settings the widgets show now (read from ``st.session_state``).

    A widget not drawn in the last full run (the generator's while an upload is
    shown) has lost its key by the next fragment run: its value is the last
    settings' then, as :func:`sync_state` would seed it.
    """
    state = st.session_state
    last = state.get(SETTINGS_KEY) or ExploreSettings()
    dataset = state.get(KEYS["dataset"], last.dataset)
    values = {
        field: state[key] if key in state else getattr(last, field)
        for field, key in KEYS.items()
        if field != "dataset"
    }
    if values["solver"] != "auto" and values["solver"] not in solvers.SOLVERS:
        values["solver"] = "auto"  # a stale label from the browser (see AUTO_LABEL)
    previous = dict(last.data_params) if last.dataset == dataset else {}
    shape = tuple(
        (p.name, state.get(_dp_key(p.name), previous.get(p.name, p.default)))
        for p in datasets.PARAMS[dataset]
        if p.name not in ("n_samples", "noise")
    )
    return ExploreSettings(
        dataset=dataset,
        data_params=shape,
        upload=state.get(upload.CURRENT_KEY, ""),
        **values,
    )


def sidebar() -> None:
    """Draw the data, model and display controls in the sidebar.

    C and sigma are not here: :func:`live_controls` draws them beside the chart,
    inside the page's fragment, so moving them reruns only the fragment.
    """
    sync_state()
    upload.resolve()
    with st.sidebar:
        _data_controls()
        _model_controls()
        _display_controls()


def live_controls() -> ExploreSettings:
    """Draw the C and sigma sliders (log scale, typed values allowed) in one row;
    return the settings every widget shows, and put them in the URL."""
    state = st.session_state
    for field in ("C", "sigma"):  # seeded again: a fragment run skips sync_state
        if KEYS[field] not in state:
            state[KEYS[field]] = getattr(state[SETTINGS_KEY], field)
            state[SLIDERS[field][0]] = nearest(SLIDERS[field][1], state[KEYS[field]])
    upload.hold_current(state.get(upload.CURRENT_KEY, ""))
    gaussian = state[KEYS["kernel"]] == "gaussian"
    hard = bool(state.get(KEYS["hard_margin"])) and state[KEYS["loss"]] == "hinge"
    left, right = st.columns(2, gap="large")
    with left:
        _log_control(
            "C",
            "C",
            "Cost of the loss term: small C, wide soft margin; large C, few "
            "training errors. Disabled with the hard margin (C = ∞).",
            disabled=hard,
        )
    if gaussian:
        with right:
            _log_control(
                "sigma", "σ", "Gaussian width: k(x, z) = exp(-‖x − z‖² / 2σ²)."
            )
    settings = current_settings()
    state[SETTINGS_KEY] = settings
    query = settings.to_query()
    if query != st.query_params.to_dict():
        st.query_params.from_dict(query)
    return settings

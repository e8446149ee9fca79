"""The Explore page's sidebar: widgets that read and write :class:`ExploreSettings`.

Every widget has an explicit ``explore_``-prefixed key, its declared field's
(:data:`svmlab.ui.explore.fields.EXPLORE_STATE`; AppTest finds them by key), and
takes its value from ``st.session_state``; the model's and display's widgets are
drawn by the shared :func:`svmlab.ui.frame.model_block.draw_field`, as on every page.
:func:`sync_state` seeds the keys from a settings object: from the URL on a
session's first run, from the last settings for widgets that were hidden, and
from any settings a caller applies (presets, classroom mode).
Every widget is also drawn with its current value as its default (``value=`` /
``index=``, :mod:`svmlab.ui.frame.keyed`): Streamlit sends a value set through the
session state to the browser only in the run that set it, and a widget the browser
mounts afresh later (after a run it cut short with a click) starts from its default and
sends that back; with the current value as the default, nothing changes by
itself. :func:`sidebar` draws the widgets and returns the settings they show.

Values that reach the page from outside the widgets (a link, another page, a
preset, a room) go through the schema first (``ExploreSettings.clamped``), and
what was malformed or changed is said once on the page by the shared
:func:`svmlab.ui.frame.page_url.messages` (:func:`show_notes`).

The data come from a generator or from an uploaded CSV file (the "Data source"
radio; :mod:`svmlab.ui.explore.upload` draws the upload widgets and keeps the uploaded
data and their key in the session state). The radio, the data set box and the
generator sliders (with their dependent rule) are every page's
(:mod:`svmlab.ui.frame.data_source`); the data set switch that keeps the visitor's
model is Explore's own (:func:`show_switch`).

The widget lists come from the engine's tables (STYLE rule 3): data sets from
``datasets.GENERATORS`` / ``PARAMS``, kernels from ``KERNELS``, losses from
``LOSSES`` and solvers from ``solvers.valid_solvers``, so a newly registered solver
appears without touching this module.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from svmlab import datasets, kernels, solvers
from svmlab.errors import SvmlabError
from svmlab.svm.classifier import BIASES
from svmlab.ui.explore import upload
from svmlab.ui.explore.fields import EXPLORE_STATE, param_key
from svmlab.ui.explore.fields import KEYS as _SCHEMA_KEYS
from svmlab.ui.explore.fields import field as schema_field
from svmlab.ui.explore.settings import (
    MACHINES,
    ExploreSettings,
    compare_choice,
    compare_text,
    max_iter_cap,
    room_param,
)
from svmlab.ui.frame import (  # noqa: F401 (presets: see EXPLORE_PRESETS)
    data_source,
    keyed,
    model_block,
    page_url,
    presets,
    theme_choice,
)
from svmlab.ui.frame.link_values import C_GRID, SIGMA_GRID

__all__ = [
    "KEYS",
    "apply_settings",
    "current_settings",
    "live_controls",
    "publish",
    "show_notes",
    "show_switch",
    "sidebar",
    "sync_state",
]

P = "explore_"
#: Settings field -> widget key, the schema's (:data:`EXPLORE_STATE`); the
#: upload and compare mode's B have widgets of their own (:mod:`upload`,
#: :mod:`svmlab.ui.explore.compare`). Data set shape parameters use
#: ``explore_dp_<name>``.
KEYS: dict[str, str] = {
    name: key for name, key in _SCHEMA_KEYS.items() if name not in ("upload", "compare")
}
#: The log sliders' grids beside the typed C and sigma boxes.
GRIDS = {"C": C_GRID, "sigma": SIGMA_GRID}
SETTINGS_KEY = P + "settings"
#: The lecture tool picker's key, and compare mode's (which field B changes,
#: and B's value: ``COMPARE_PREFIX + field``): the ``compare`` setting.
TOOL_KEY = P + "tool"
COMPARE_FIELD_KEY = P + "compare_field"
COMPARE_PREFIX = P + "compare_"
#: The last data set switch, ``(settings before, settings after)``, until shown.
SWITCH_KEY = P + "switch"


def _dp_key(name: str) -> str:
    """A generator parameter's widget key (the schema's, one across data sets)."""
    return param_key("", name)


def _widget_values(s: ExploreSettings) -> dict[str, Any]:
    values = s.widget_values()
    values.pop(_SCHEMA_KEYS["compare"])  # no widget: the tool's own below
    values[KEYS["noise"]] = float(s.noise)
    values[upload.SOURCE_KEY] = upload.UPLOAD_CSV if s.upload else upload.GENERATOR
    choice = compare_choice(s.compare)
    if choice is not None:  # a compare link opens the tool at its B
        field, value = choice
        values.update(
            {
                TOOL_KEY: "compare",
                COMPARE_FIELD_KEY: field,
                COMPARE_PREFIX + field: value,
            }
        )
    return values


def apply_settings(
    s: ExploreSettings,
    notes: list[str] | None = None,
    *,
    errors: list[str] | None = None,
) -> None:
    """Make every widget show ``s`` on the next draw (presets, URL, tests).

    ``s`` is clamped to the widgets' ranges first (through the schema,
    :meth:`ExploreSettings.clamped`); what was clamped (and the ``notes`` and
    ``errors`` the caller brings) is said once on the page by the shared
    mechanism (:func:`svmlab.ui.frame.page_url.messages`). Call it before the
    widgets are drawn in a run, or from a callback.
    """
    s, clamped = s.clamped()
    st.session_state.update(_widget_values(s))
    st.session_state[SETTINGS_KEY] = s
    # The URL follows at once: a preset's link in it must not look newer than s.
    query = theme_choice.with_theme(s.to_query())
    if query != st.query_params.to_dict():
        st.query_params.from_dict(query)
    page_url.say(EXPLORE_STATE, list(errors or ()), [*(notes or ()), *clamped])


def show_notes() -> None:
    """Say, once, what a link had wrong (``st.error``) and which values from a
    link or a preset were changed to fit (``st.info``): the shared mechanism."""
    page_url.messages(EXPLORE_STATE)


def sync_state() -> ExploreSettings:
    """Seed the widget keys; returns the settings of the last run.

    On a session's first run the settings come from the URL
    (:meth:`ExploreSettings.from_query`), and so they do when the URL is a
    preset's link to other settings (every page's rule,
    :func:`svmlab.ui.frame.page_url.link_wins`, comparing settings); otherwise only
    keys missing from the session state (widgets hidden in the last run) are
    refilled.
    """
    last = st.session_state.get(SETTINGS_KEY)
    params = theme_choice.page_params(st.query_params.to_dict())
    if page_url.link_wins(params, last, ExploreSettings.from_query):
        notes: list[str] = []
        errors: list[str] = []
        last = ExploreSettings.from_query(st.query_params, notes, errors)
        apply_settings(last, notes, errors=errors)
        return st.session_state[SETTINGS_KEY]
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
    """A new data set brings its own noise and shape; the number of points, the
    kernel, C and σ the visitor chose stay (:meth:`ExploreSettings.with_dataset`),
    and :func:`show_switch` says so with a way to the suggested model and back.

    Only when the data set really changed: Streamlit also calls this when the
    browser sends the select box's value back after the box was hidden (an upload
    shown), and the settings must then stay as they are.
    """
    last = st.session_state[SETTINGS_KEY]
    name = st.session_state[KEYS["dataset"]]
    if name == last.dataset:
        return
    s = last.with_dataset(name, keep=True)
    st.session_state.update(
        {k: v for k, v in _widget_values(s).items() if k != KEYS["dataset"]}
    )
    st.session_state[SWITCH_KEY] = (last, s)


def _apply_switch(target: ExploreSettings) -> None:
    st.session_state.pop(SWITCH_KEY, None)
    apply_settings(target)


def show_switch() -> None:
    """After a data set switch: what came with the new data set, what was kept,
    and one click to the data set's suggested model or back to the last data."""
    held = st.session_state.pop(SWITCH_KEY, None)
    if held is None:
        return
    old, new = held
    title = datasets.TITLES[new.dataset]
    suggested = new.with_dataset(new.dataset)
    kept = new.model_differences(suggested)
    text = f"**{title}**: its own noise and shape parameters."
    changed = old.model_changes(new)
    if changed:
        # The model moved with the data set (what the visitor had not chosen):
        # said, value by value, so nothing changes behind their back.
        text += f" The model follows it: {'; '.join(changed)}."
    if kept:
        wanted = ", ".join(suggested.model_differences(new))
        text += f" Kept your {', '.join(kept)}; this data set suggests: {wanted}."
    st.info(text, icon=":material/swap_horiz:")
    left, right, _ = st.columns([1, 1, 2])
    if kept:
        left.button(
            f"Use {title}'s suggested model",
            key=P + "switch_suggested",
            on_click=_apply_switch,
            args=(suggested,),
        )
    right.button(
        f"Back to {datasets.TITLES[old.dataset]}",
        key=P + "switch_back",
        on_click=_apply_switch,
        args=(old,),
    )


def _say(notes: list[str]) -> None:
    page_url.say(EXPLORE_STATE, [], notes)


def _param_widget(p: datasets.Param) -> None:
    """A generator slider: the shared one (:func:`data_source.param_slider`),
    the number of points capped in room mode."""
    data_source.param_slider(
        room_param(p), st.session_state[KEYS["dataset"]], _dp_key, _say
    )


def _dataset_box() -> None:
    """The shared data set box, with Explore's switch (:func:`_dataset_changed`)."""
    data_source.dataset_box(
        "explore", EXPLORE_STATE.dataset, on_change=_dataset_changed
    )


def _data_controls(classroom: bool = False) -> None:
    st.header("Data")
    if classroom:  # the data set only: shape, seed and split keep their values
        _dataset_box()
        return
    data_source.source_radio("explore")
    upload.draw()
    if st.session_state[upload.SOURCE_KEY] == upload.GENERATOR:
        _dataset_box()
        for p in datasets.PARAMS[st.session_state[KEYS["dataset"]]]:
            _param_widget(p)
    left, right = st.columns(2)
    model_block.draw_field(
        EXPLORE_STATE.seed_field, "Seed", where=left, widget="box", step=1
    )
    model_block.draw_field(
        schema_field("test_fraction"),
        "Test fraction",
        where=right,
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


def _model_controls(classroom: bool = False) -> None:
    """The model's widgets, each drawn from its declared field by the shared
    :func:`~svmlab.ui.frame.model_block.draw_field` (the solver's list, which follows
    the loss and the bias, is the page's own)."""
    state = st.session_state
    st.header("Model")
    machine = model_block.draw_field(
        schema_field("machine"),
        "C or ν",
        fmt=MACHINES.__getitem__,
        help="C-SVC takes C (every loss and solver). ν-SVC takes ν in (0, 1]: an "
        "upper bound on the fraction of margin errors and a lower bound on the "
        "fraction of support vectors (Schölkopf et al. 2000); it is the hinge "
        "with an unregularized bias, solved by LIBSVM's ν solver.",
    )
    nu = machine == "nu"
    # The sigmoid is not a Mercer kernel: the numbers then show the smallest
    # eigenvalue of its Gram matrix, and a sentence when it is negative.
    kernel = model_block.draw_field(
        schema_field("kernel"), "Kernel", fmt=kernels.TITLES.__getitem__
    )
    pairs = {
        "polynomial": (("degree", "Degree p", 1), ("coef0", "Offset a", 0.5)),
        "sigmoid": (("sig_a", "Slope a", 0.05), ("sig_r", "Offset r", 0.5)),
    }
    if kernel in pairs:
        for where, (name, label, step) in zip(
            st.columns(2), pairs[kernel], strict=True
        ):
            box = schema_field(name)
            model_block.draw_field(
                box,
                label,
                where=where,
                widget="box",
                step=step,
                **({} if box.integer else {"format": "%g"}),
            )
    loss = model_block.draw_field(schema_field("loss"), "Loss", disabled=nu)
    if nu:
        st.caption(
            "ν-SVC is the hinge with an unregularized bias and its own solver: "
            "the loss, bias and solver here wait for C-SVC."
        )
    if loss == "modified_hinge" and not nu:
        model_block.draw_field(
            schema_field("delta"),
            "δ (modified hinge)",
            help="Width of the smoothed corner of Lee's loss; Lee (2006) uses "
            "δ = 1e-4.",
        )
    hard = False
    if loss == "hinge" and not nu:
        hard = model_block.draw_field(
            schema_field("hard_margin"),
            "hard margin (C = ∞)",
            help="Only for separable data (e.g. the linearly separable set); "
            "otherwise the fit reports that no separating boundary exists.",
        )
    if classroom:  # bias and solver keep their values, out of sight
        return
    bias = model_block.draw_field(
        schema_field("bias"),
        "Bias b",
        disabled=nu,
        fmt=BIASES.__getitem__,
        widget="selectbox",
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
        index=keyed.index(KEYS["solver"], options),
        format_func=_solver_label,
        key=KEYS["solver"],
        disabled=nu,
    )
    note = (
        _auto_note(loss, fit_intercept, hard)
        if state[KEYS["solver"]] == "auto" and not nu
        else None
    )
    if note:
        st.caption(note)


def _display_controls() -> None:
    st.header("Display")
    for name, label, help in (
        ("show_test", "Show test points", None),
        ("log_count", "Log count (α histogram)", None),
        (
            "playback",
            "Record iterations (playback)",
            "Iterative solvers keep snapshots of α to replay the fit step by step.",
        ),
    ):
        model_block.draw_field(schema_field(name), label, help=help, widget="toggle")
    with st.expander("Solver tolerance and iteration cap"):
        tol = schema_field("tol")
        model_block.draw_field(
            tol,
            "tol",
            widget="box",
            format="%g",
            step=None,
            help="The solver stops when its optimality measure (the KKT "
            f"violation) is below tol; from {tol.low:g} to {tol.high:g}.",
        )
        cap = max_iter_cap()
        model_block.draw_field(
            schema_field("max_iter"),
            "max_iter",
            widget="box",
            cap=(
                cap,
                f"This server allows at most {cap:,} iterations in room mode; "
                f"using {cap:,}.",
            ),
            step=100,
            help=f"From {int(schema_field('max_iter').low):,} to {cap:,} iterations.",
        )


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
        compare=_compare_setting(last),
        **values,
    )


def _compare_setting(last: ExploreSettings) -> str:
    """Compare mode's B as the widgets show it ("" while the tool is closed)."""
    state = st.session_state
    if state.get(TOOL_KEY) != "compare":
        return ""
    field = state.get(COMPARE_FIELD_KEY)
    value = state.get(f"{COMPARE_PREFIX}{field}")
    if value is None:
        return last.compare  # not drawn yet in this session's runs
    return compare_text(str(field), value)


def publish(settings: ExploreSettings) -> None:
    """Make ``settings`` the page's settings and its URL (compare mode's B,
    drawn after the C and σ row, says so here)."""
    st.session_state[SETTINGS_KEY] = settings
    query = theme_choice.with_theme(settings.to_query())
    if query != st.query_params.to_dict():
        st.query_params.from_dict(query)


def sidebar() -> None:
    """Draw the data, model and display controls in the sidebar (under the
    frame's classroom toggle; the frame has loaded the settings, :func:`sync_state`).

    Classroom mode draws only the data set, the kernel, the loss and the hard
    margin (the other settings keep their values). C and sigma are not here:
    :func:`live_controls` draws them beside the chart, inside the page's
    fragment, so moving them reruns only the fragment.
    """
    classroom = bool(st.session_state.get(KEYS["classroom"]))
    with st.sidebar:
        _data_controls(classroom)
        _model_controls(classroom)
        if not classroom:
            _display_controls()


def live_controls() -> tuple[ExploreSettings, Any]:
    """Draw the C and sigma sliders (log scale, typed values allowed) in one row;
    return the settings every widget shows (and put them in the URL) and the
    row's last column (for the undo buttons, drawn once the run's edits are
    known)."""
    state = st.session_state
    for field in ("C", "sigma", "nu"):  # seeded again: a fragment run skips it
        if KEYS[field] not in state:
            state[KEYS[field]] = getattr(state[SETTINGS_KEY], field)
    upload.hold_current(state.get(upload.CURRENT_KEY, ""))
    gaussian = state[KEYS["kernel"]] == "gaussian"
    nu = state.get(KEYS["machine"]) == "nu"
    hard = bool(state.get(KEYS["hard_margin"])) and state[KEYS["loss"]] == "hinge"
    left, right, tools = st.columns([4.4, 4.4, 3.2], gap="medium")
    with left:
        if nu:
            model_block.draw_field(
                schema_field("nu"),
                "ν",
                help="At most a fraction ν of the training points are margin "
                "errors (at the bound, y f < 1), at least ν are support "
                "vectors; ν-SVC finds its margin ρ, and the C-SVC with C = 1/r "
                "draws the same f. At most 2 min(n₊, n₋)/n.",
            )
        else:
            model_block.draw_field(
                schema_field("C"),
                "C",
                grid=GRIDS["C"],
                help="Cost of the loss term: small C, wide soft margin; large C, "
                "few training errors. Disabled with the hard margin (C = ∞).",
                disabled=hard,
            )
    if gaussian:
        with right:
            model_block.draw_field(
                schema_field("sigma"),
                "σ",
                grid=GRIDS["sigma"],
                help="Gaussian width: k(x, z) = exp(-‖x − z‖² / 2σ²).",
            )
    for name in ("C", "sigma"):
        model_block.typed_note(schema_field(name))
    settings = current_settings()
    publish(settings)
    return settings, tools

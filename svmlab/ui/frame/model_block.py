"""Shared controls, written once from a page's declared fields: every declared
field's widget (:func:`draw_field`: Explore's kernel, C, σ, degree, δ, bias...
and the Losses, Solvers, Multiclass, Regression and Family pages' model blocks,
:func:`model_block`), and the guard around a page's one engine call.

Each widget is drawn from its :class:`~svmlab.ui.frame.page_state.PageState` field (key,
choices or grid, default), with its current value as its default
(:mod:`svmlab.ui.frame.keyed`), so the URL, the presets and the widgets agree by
construction; a page only says which fields its block has and what they are
called in its words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import streamlit as st

from svmlab.errors import FitCancelled, SvmlabError
from svmlab.losses import LOSSES
from svmlab.svm.classifier import BIASES
from svmlab.ui.frame import keyed, panels
from svmlab.ui.frame.link_values import nearest
from svmlab.ui.frame.page_fields import Choice, Flag, Grid, Number
from svmlab.ui.frame.page_state import PageState
from svmlab.user_text import for_markdown

__all__ = [
    "KERNEL_TITLES",
    "clicked_result",
    "draw_field",
    "engine_result",
    "kept_result",
    "model_block",
    "model_field",
    "typed_note",
]

T = TypeVar("T")
R = TypeVar("R", bound=Hashable)

#: The kernels' names in the model blocks.
KERNEL_TITLES = {
    "linear": "linear",
    "gaussian": "Gaussian",
    "polynomial": "polynomial",
    "sigmoid": "sigmoid tanh(a x·z + r)",
}
#: Widget labels of the model fields (a field's own label is for sentences).
LABELS = {
    "kernel": "Kernel",
    "C": "C",
    "sigma": "σ (Gaussian width)",
    "degree": "Degree (polynomial)",
    "delta": "δ of the modified hinge",
    "loss": "Loss",
    "bias": "Bias",
    "machine": "Machine",
    "epsilon": "ε (the tube's half-width)",
    "nu": "ν",
    "a": "a (the sigmoid's slope)",
    "r": "r (the sigmoid's offset)",
}
_FORMATS: dict[str, Callable[[Any], str]] = {
    "kernel": lambda k: KERNEL_TITLES.get(k, str(k)),
    "loss": lambda name: LOSSES[name].title if name in LOSSES else str(name),
    "bias": lambda b: BIASES.get(b, str(b)),
}


def _typed_note_key(key: str) -> str:
    return f"{key}_typed_note"


def _used_key(key: str) -> str:
    return f"{key}_used"


def _typed(field: Number, label: str, cap: tuple[float, str] | None) -> None:
    """A number typed into ``field``'s box: moved inside the field's range by
    the schema's own rule (:meth:`~svmlab.ui.frame.page_fields.Number.clamp`), then
    under ``cap`` (a limit of this server's, with its sentence); what changed is
    said once under the box. An emptied box keeps the value in use."""
    state = st.session_state
    value = state[field.key]
    notes: list[str] = []
    if value is None or not math.isfinite(float(value)):
        used = state.get(_used_key(field.key), field.default)
        notes.append(f"{label} must be a number; still using {used:g}.")
    else:
        used = field.clamp(value, notes)
        if cap is not None and used > cap[0]:
            used = type(used)(cap[0])
            notes.append(cap[1])
        if not notes:
            return
    state[field.key] = used
    state[_typed_note_key(field.key)] = " ".join(notes)


def typed_note(field: Number, where: Any = st) -> None:
    """Say, once, that the value typed into ``field``'s box was moved."""
    note = st.session_state.pop(_typed_note_key(field.key), None)
    if note:
        where.warning(note, icon=":material/tune:")


def _box(
    field: Number,
    label: str,
    where: Any,
    *,
    cap: tuple[float, str] | None = None,
    **kwargs: Any,
) -> float | int:
    """A number box for ``field`` with no min/max of Streamlit's (which would
    keep an out-of-range number in the box, outlined red, while the page used
    the old value): :func:`_typed` clamps it, and :func:`typed_note` says so
    where the caller puts it."""
    kind = int if field.integer else float
    current = kind(keyed.value(field.key, field.default))
    st.session_state[_used_key(field.key)] = current
    value = where.number_input(
        label,
        value=current,
        key=field.key,
        on_change=_typed,
        args=(field, label, cap),
        persist_state="session",
        **kwargs,
    )
    return value


def _typed_log(
    field: Number,
    label: str,
    grid: tuple[float, ...],
    where: Any,
    *,
    help: str | None,
    disabled: bool,
) -> float:
    """A log-spaced select slider over ``grid`` and, beside it, the exact value
    (typed values allowed anywhere in the field's range).

    The slider always shows the exact value: a typed value that is not on the
    grid becomes one more stop of the slider. A slider's value travels as an
    index into its options, so a slider with other options is another widget
    (its key names the extra stop) rather than the same one with shifted stops.
    """
    state = st.session_state
    value = float(keyed.value(field.key, field.default))
    base = f"{field.key}_slider"
    if value in grid:
        key, options = base, grid
    else:
        key, options = f"{base}_{value!r}", tuple(sorted({*grid, value}))
    if state.get(key) != value:
        state[key] = value
    left, right = where.columns([3, 2], vertical_alignment="bottom")
    left.select_slider(
        label,
        options=options,
        value=value,
        format_func=lambda v: f"{v:g}",
        key=key,
        help=help,
        on_change=_slider_moved,
        args=(field.key, key),
        disabled=disabled,
    )
    # No min/max on the box: the callback clamps a typed value instead, and a
    # sentence says what was typed and what is used (typed_note).
    return float(
        _box(
            field,
            f"{label} (type a value)",
            right,
            format="%g",
            step=None,
            label_visibility="collapsed",
            disabled=disabled,
            help=f"Any value from {field.low:g} to {field.high:g}.",
        )
    )


def _slider_moved(key: str, slider: str) -> None:
    st.session_state[key] = st.session_state[slider]


def draw_field(
    field: Any,
    label: str,
    disabled: bool = False,
    help: str | None = None,
    fmt: Callable[[Any], str] | None = None,
    *,
    where: Any = st,
    widget: str = "",
    grid: tuple[float, ...] = (),
    cap: tuple[float, str] | None = None,
    on_change: Callable[..., None] | None = None,
    args: tuple[Any, ...] = (),
    **kwargs: Any,
) -> Any:
    """The one widget of a declared field, on every page (its kind decides the
    widget; ``widget`` picks another: "selectbox" for a short choice, "box" for
    a number typed in, "toggle" for a flag). A number with a ``grid`` is a
    log slider over it with a box beside it for any value in the field's range
    (Explore's C and σ). Every widget is keyed by its field, drawn at its
    current value (:mod:`svmlab.ui.frame.keyed`) and kept while hidden
    (``persist_state="session"``)."""
    key = field.key
    change = {"on_change": on_change, "args": args} if on_change else {}
    # What every widget but the typed boxes takes alike.
    shared = {
        "key": key,
        "persist_state": "session",
        "disabled": disabled,
        "help": help,
        **change,
        **kwargs,
    }
    if isinstance(field, Choice):
        options = list(field.options)
        fmt = fmt or _FORMATS.get(field.query, str)
        index = keyed.index(key, options)
        if len(options) <= 3 and widget != "selectbox":
            return where.radio(
                label, options, index=index, format_func=fmt, horizontal=True, **shared
            )
        return where.selectbox(label, options, index=index, format_func=fmt, **shared)
    if isinstance(field, Grid):
        return float(
            where.select_slider(
                label,
                options=field.grid,
                value=nearest(field.grid, float(keyed.value(key, field.default))),
                format_func=fmt or (lambda v: f"{v:g}"),
                **shared,
            )
        )
    if isinstance(field, Number) and grid:
        return _typed_log(field, label, grid, where, help=help, disabled=disabled)
    if isinstance(field, Number) and widget == "box":
        value = _box(
            field, label, where, cap=cap, disabled=disabled, help=help, **kwargs
        )
        typed_note(field, where)  # under the box
        return value
    if isinstance(field, Number):
        kind = int if field.integer else float
        return kind(
            where.slider(
                label,
                kind(field.low),
                kind(field.high),
                value=kind(keyed.value(key, field.default)),
                step=None if field.step is None else kind(field.step),
                **shared,
            )
        )
    if isinstance(field, Flag):
        draw = where.toggle if widget == "toggle" else where.checkbox
        return bool(draw(label, value=bool(keyed.value(key, field.default)), **shared))
    raise TypeError(f"no widget for {type(field).__name__}")


def model_block(
    state: PageState,
    names: Sequence[str],
    *,
    heading: str,
    labels: Mapping[str, str] | None = None,
    helps: Mapping[str, str] | None = None,
    formats: Mapping[str, Callable[[Any], str]] | None = None,
    disabled: Sequence[str] = (),
    grids: Mapping[str, tuple[float, ...]] | None = None,
) -> dict[str, Any]:
    """The page's model fields ``names`` under ``heading`` (none when empty), in
    that order; their values by field name. A choice's options read as
    ``formats[name]`` says (else the shared names). σ is disabled unless the
    kernel is Gaussian, the degree unless it is polynomial, the sigmoid's a and r
    unless it is the sigmoid, and every name in ``disabled`` (each keeps its
    value for when it comes back). ``grids[name]`` replaces a grid field's
    stops for this run (the part of them these data allow: ν-SVC's feasible ν);
    the caller moves the field's value onto them first."""
    fields = {f.query: f for f in state.fields}
    for name, stops in (grids or {}).items():
        fields[name] = replace(fields[name], grid=tuple(stops))
    if heading:
        st.header(heading)
    values: dict[str, Any] = {}
    for name in names:
        kernel = values.get("kernel")
        off = (
            name in disabled
            or (name == "sigma" and kernel not in (None, "gaussian"))
            or (name == "degree" and kernel not in (None, "polynomial"))
            or (name in ("a", "r") and kernel not in (None, "sigmoid"))
        )
        label = (labels or {}).get(name, LABELS.get(name, name))
        help = (helps or {}).get(name)
        fmt = (formats or {}).get(name)
        values[name] = draw_field(fields[name], label, off, help, fmt)
    return values


def engine_result(call: Callable[[], T], *, stop: bool = True) -> T:
    """The page's one engine call, or the page stops with what went wrong said:
    nothing when a newer run superseded it (that run draws the page), the
    engine's sentence for an :class:`~svmlab.SvmlabError`, a plain message (and
    the traceback in the log) for a bug. With ``stop=False`` (a button's work,
    below which the page goes on) an error is said and None returned."""
    try:
        return call()
    except FitCancelled:
        st.stop()  # superseded: the next run draws the page
    except SvmlabError as error:
        st.error(for_markdown(error))
    except Exception as error:  # a bug: say so plainly, keep the page usable
        panels.internal_error(error)
    if stop:
        st.stop()
    return None  # type: ignore[return-value]


#: What a page under a refused fit says above the picture it keeps.
KEPT_NOTE = (
    "The picture below is the last one that could be drawn (with the settings "
    "it was drawn with); every setting in the sidebar is kept as you set it."
)


def kept_result(slot: str, request: R, call: Callable[[], T]) -> tuple[R, T]:
    """The page's main engine call, which a refusal never blanks: ``(request,
    call())`` when it succeeds (remembered in the session under ``slot``);
    when the engine refuses (an :class:`~svmlab.SvmlabError`, or a bug), its
    sentence (:func:`engine_result`) and the last ``(request, result)`` that
    succeeded in this session, with :data:`KEPT_NOTE`, so the picture and its
    numbers stay, drawn from the request they belong to, while every widget
    keeps the value just set. With nothing to keep (the session's first
    request refused) the page stops under the sentence, as before."""
    key = f"{slot}_last_good"
    sentinel = object()
    result: Any = sentinel

    def attempt() -> T:
        nonlocal result
        result = call()
        return result

    engine_result(attempt, stop=False)
    if result is not sentinel:
        st.session_state[key] = (request, result)
        return request, result
    held = st.session_state.get(key)
    if held is None:
        st.stop()
    st.caption(KEPT_NOTE)
    return held


def clicked_result(
    clicked: bool,
    call: Callable[[], object],
    stored: Callable[[], T | None],
    promise: str,
) -> T | None:
    """A button's long computation: ``call`` (which stores what it finds) in the
    run the button was ``clicked``, an error said as :func:`engine_result` says
    it; then the stored result, or None with ``promise`` (what a click gives)
    said."""
    if clicked:
        engine_result(call, stop=False)
    result = stored()
    if result is None:
        st.info(promise)
    return result


def model_field(
    state: PageState,
    name: str,
    *,
    heading: str = "",
    label: str | None = None,
    fmt: Callable[[Any], str] | None = None,
    help: str | None = None,
) -> Any:
    """One of the page's model fields, drawn as :func:`model_block` draws it
    (``label``, ``fmt`` and ``help`` its ``labels``, ``formats`` and ``helps``
    for this field): its value."""
    return model_block(
        state,
        (name,),
        heading=heading,
        labels=None if label is None else {name: label},
        formats=None if fmt is None else {name: fmt},
        helps=None if help is None else {name: help},
    )[name]

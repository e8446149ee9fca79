"""Shared sidebar controls, written once from a page's declared fields: the model
block (kernel, C, σ, degree, δ, loss, bias) of the Losses, Solvers and Multiclass
pages, and the guard around a page's one engine call.

Each widget is drawn from its :class:`~svmlab.ui.page_state.PageState` field (key,
choices or grid, default), with its current value as its default
(:mod:`svmlab.ui.keyed`), so the URL, the presets and the widgets agree by
construction; a page only says which fields its block has and what they are
called in its words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import streamlit as st

from svmlab.errors import FitCancelled, SvmlabError
from svmlab.estimator import BIASES
from svmlab.losses import LOSSES
from svmlab.ui import keyed, panels
from svmlab.ui.page_state import Choice, Flag, Grid, Number, PageState
from svmlab.user_text import for_markdown

__all__ = ["KERNEL_TITLES", "engine_result", "model_block"]

T = TypeVar("T")

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


def _draw(
    field: Any,
    label: str,
    disabled: bool,
    help: str | None,
    fmt: Callable[[Any], str] | None = None,
) -> Any:
    """One widget for ``field`` (its kind decides the widget)."""
    key = field.key
    if isinstance(field, Choice):
        options = list(field.options)
        fmt = fmt or _FORMATS.get(field.query, str)
        if len(options) <= 3:
            return st.radio(
                label,
                options,
                index=keyed.index(key, options),
                format_func=fmt,
                horizontal=True,
                key=key,
                persist_state="session",
                disabled=disabled,
                help=help,
            )
        return st.selectbox(
            label,
            options,
            index=keyed.index(key, options),
            format_func=fmt,
            key=key,
            persist_state="session",
            disabled=disabled,
            help=help,
        )
    if isinstance(field, Grid):
        return float(
            keyed.log_slider(
                label,
                key,
                field.grid,
                field.default,
                disabled=disabled,
                help=help,
            )
        )
    if isinstance(field, Number):
        kind = int if field.integer else float
        return kind(
            st.slider(
                label,
                kind(field.low),
                kind(field.high),
                value=kind(keyed.value(key, field.default)),
                step=None if field.step is None else kind(field.step),
                key=key,
                persist_state="session",
                disabled=disabled,
                help=help,
            )
        )
    if isinstance(field, Flag):
        return bool(
            st.checkbox(
                label,
                value=bool(keyed.value(key, field.default)),
                key=key,
                persist_state="session",
                disabled=disabled,
                help=help,
            )
        )
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
) -> dict[str, Any]:
    """The page's model fields ``names`` under ``heading`` (none when empty), in
    that order; their values by field name. A choice's options read as
    ``formats[name]`` says (else the shared names). σ is disabled unless the
    kernel is Gaussian, the degree unless it is polynomial, the sigmoid's a and r
    unless it is the sigmoid, and every name in ``disabled`` (each keeps its
    value for when it comes back)."""
    fields = {f.query: f for f in state.fields}
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
        values[name] = _draw(fields[name], label, off, help, fmt)
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

"""Defaults for keyed widgets: the value the widget shows now.

Streamlit (1.67) sends a value set through ``st.session_state`` to the browser only
in the run that set it; in every other run a widget's element carries its
*default* (the ``value=`` / ``index=`` argument, else the built-in 0, minimum,
first option or False). When the browser mounts a widget afresh in a later run
(its widget state was dropped after a run that a click cut short, or the widget
moved in the layout), it starts from that default and sends it back, and that
overrides the session state: a setting changes by itself (seen: a click on "Upload
CSV" right after a page load reset C, σ, tol, max_iter and the test points). With
the current value as the default, any mount agrees with the state.

Passing a default *and* setting the key through the session state makes Streamlit
print a warning; ``global.disableWidgetStateDuplicationWarning`` in
``.streamlit/config.toml`` turns it off, because here it is intended.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

__all__ = ["index", "radio", "value"]


def value(key: str, fallback: Any) -> Any:
    """The widget's current value (``fallback`` before it has one)."""
    return st.session_state.get(key, fallback)


def index(key: str, options: Sequence[Any], fallback: int = 0) -> int:
    """The position of the widget's current value among ``options``."""
    current = st.session_state.get(key)
    for i, option in enumerate(options):
        if option == current:
            return i
    return fallback


def radio(
    label: str, options: Sequence[Any], key: str, *, where: Any = st, **kw: Any
) -> Any:
    """A keyed radio (``where``: the page or a column) drawn at its current
    value, the first option until it has one; ``kw`` as ``st.radio``'s."""
    options = list(options)
    return where.radio(label, options, index=index(key, options), key=key, **kw)

"""Keyboard control on every page: shortcut-only buttons and the "Keys" help.

Every key is a Streamlit button's ``shortcut`` (``st.button(shortcut=...)``, no
JavaScript of ours). The buttons that only carry a key sit in a container the
page keeps out of sight (:func:`style`: Streamlit registers a button's shortcut
whether or not the button is shown), and the page lists each key once, in its
"Keys" popover (:func:`help`), from the same table the buttons are drawn from
(:class:`Key`), so the help cannot list a key the page lacks.

Streamlit reserves C and R and takes no punctuation keys; a shortcut does not
fire while the focus is in a text or number box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

__all__ = ["Key", "help", "hidden_buttons", "step_grid", "style"]


@dataclass(frozen=True)
class Key:
    """One shortcut-only button: its widget key, label, shortcut and the
    callback (with its arguments) a press runs before the rerun."""

    key: str
    label: str
    shortcut: str
    action: Callable[..., None]
    args: tuple[Any, ...] = ()


def step_grid(grid: Sequence[float], value: float, direction: int) -> float:
    """The next stop of ``grid`` above (``direction`` +1) or below (-1)
    ``value``; the end of the grid when there is none (a typed value off the
    grid goes to its neighbour on the grid)."""
    ordered = sorted(grid)
    if direction > 0:
        return next((g for g in ordered if g > value * (1 + 1e-12)), ordered[-1])
    return next((g for g in reversed(ordered) if g < value * (1 - 1e-12)), ordered[0])


def style(container: str, *hidden: str) -> str:
    """CSS that keeps the container keyed ``container`` (and the elements keyed
    ``hidden``) out of sight and out of the page's flow."""
    # The container's wrapper too: else it adds a gap of the page's flow.
    keys = (container, *hidden)
    return (
        f"div:has(> .st-key-{container}),"
        + ",".join(f".st-key-{k}" for k in keys)
        + "{display:none}"
    )


def hidden_buttons(container: str, table: Sequence[Key], css: str = "") -> None:
    """The shortcut-only buttons of ``table`` in the hidden container keyed
    ``container``, with the page's key ``css``."""
    with st.container(key=container):
        st.html(f"<style>{style(container)}{css}</style>")
        for k in table:
            st.button(
                k.label, key=k.key, on_click=k.action, args=k.args, shortcut=k.shortcut
            )


def help(
    rows: Sequence[tuple[str, str]], where: Any = st, note: str = "", key: str = ""
) -> None:
    """The "Keys" popover: every key of the page (``(keys, what they do)``)."""
    with where.popover(
        "Keys", help="The keyboard shortcuts of this page.", key=key or None
    ):
        table = "\n".join(f"| {k} | {a} |" for k, a in rows)
        st.markdown(f"| key | does |\n| --- | --- |\n{table}")
        st.caption(note or "Not while typing in a box.")

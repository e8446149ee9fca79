"""A refused upload said where the visitor looks (issue 27, item 8).

A file the reader refuses gets its message under the uploader, in the sidebar,
which on a projector's 720 lines is below the fold while the main pane keeps the
old picture with no hint. So the refusal is also remembered per page and said at
the top of the main pane (:func:`show_refusal`) until a file is accepted or the
uploader is emptied.
"""

from __future__ import annotations

import streamlit as st

from svmlab.user_text import for_markdown

__all__ = ["accept", "refuse", "show_refusal"]


def _refusal_key(prefix: str) -> str:
    return f"{prefix}_refusal"


def refuse(prefix: str, name: str, message: object) -> None:
    """Remember why the file ``name`` was refused, for :func:`show_refusal`."""
    st.session_state[_refusal_key(prefix)] = (name, str(message))


def accept(prefix: str) -> None:
    st.session_state.pop(_refusal_key(prefix), None)


def show_refusal(prefix: str, still: str = "") -> None:
    """In the main pane: the refused file's message (it also sits under the
    uploader in the sidebar, below the fold on a projector), and what the page
    shows instead."""
    held = st.session_state.get(_refusal_key(prefix))
    # Only while the page's data source is the upload (every page's source
    # radio is ``{prefix}_source``).
    if held is None or st.session_state.get(f"{prefix}_source") != "Upload CSV":
        return
    name, message = held
    st.error(
        f"The file {for_markdown(repr(name))} was not used: "
        f"{for_markdown(message)}" + (f" {still}" if still else "")
    )

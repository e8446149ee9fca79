""" "Code for this view": the popover that hands a page's view over as code.

Every page with a view calls :func:`popover` once with the page's
:class:`svmlab.snippets.Snippet` (written by the page's generator in
:mod:`svmlab.snippets`, from the same state the link encodes). The popover
holds one tab per flavour (svmlab; scikit-learn), each with the script in a
code block (Streamlit's code block has its own copy button, top right) and
the script as ``.py`` and as a notebook (``.ipynb``, one cell per section).
The downloads are made when clicked (deferred data), so a rerun pays only
for the text.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from svmlab.snippets import Snippet, notebook
from svmlab.ui.frame.download import download

__all__ = ["LABEL", "popover"]

#: The popover's button.
LABEL = "Code for this view"
#: The code block's height in pixels (it scrolls): the popover, its tabs and
#: buttons stay on a 720-line projector.
CODE_HEIGHT = 280


#: The popover holding the code is widened to about 80 columns of code, never
#: past the screen (``:has`` finds the one with the marker).
WIDE = (
    '<span class="svmlab-view-code"></span><style>'
    '[data-testid="stPopoverBody"]:has(.svmlab-view-code)'
    "{width:min(56rem,94vw) !important;max-width:94vw !important}"
    "</style>"
)


def _suffix(flavour: str) -> str:
    return "" if flavour == "svmlab" else "_sklearn"


def popover(snippet: Snippet, key: str, where: Any = None) -> None:
    """Draw the "Code for this view" popover (in ``where``, a container, or
    here) for ``snippet``; ``key`` (the page's prefix) keys its buttons."""
    place = st if where is None else where
    with place.popover(LABEL, icon=":material/code:"):
        # Wide enough for the scripts' 79 columns (Streamlit's popover is narrower).
        st.html(WIDE)
        st.caption(
            f"{snippet.title}: a script that fits and prints what this page "
            "shows, in a notebook or a plain Python session. Copy it (top right "
            "of the code) or download it."
        )
        flavours = snippet.flavours()
        tabs = st.tabs(list(flavours))
        for tab, (flavour, code) in zip(tabs, flavours.items(), strict=True):
            stem = snippet.stem + _suffix(flavour)
            with tab:
                left, right = st.columns(2)
                for column, kind, data in (
                    (left, "py", code),
                    (right, "ipynb", lambda code=code: notebook(code)),
                ):
                    name = f"{stem}.{kind}"
                    download(
                        column,
                        name,
                        data,
                        name,
                        f"{key}_code_{kind}_{flavour}",
                        icon=":material/download:",
                    )
                # Wrapped, not scrolled sideways: a long line of inline points
                # stays readable in the popover's width (the copy is unwrapped).
                st.code(code, language="python", height=CODE_HEIGHT, wrap_lines=True)

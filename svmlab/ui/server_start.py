"""What the server does once, at its start, before any visitor (issue 28 item 1).

``streamlit run app.py`` finds ``app = st.App(...)`` in app.py and serves it
(Streamlit's ASGI mode, 1.67): app.py is then imported once when the server
starts, and its start-up hook (``app.load_svmlab``) runs :func:`load_pages` in
one daemon thread: it imports what the pages import (svmlab's modules, and
through them scikit-learn, SciPy and numba: 2-7 s on this two-core machine)
and then starts the compiled solvers' warm-up
(:func:`svmlab.precompile.start_in_background`). Without it all of that ran
in the first visitor's first script run: the first Explore took 2.3-2.5x a
plain Streamlit page's first load (issue 28).

The thread never blocks the server: the hook returns at once, and a visitor
who arrives while it still imports waits only for the module being imported
(Python's per-module import lock), never for the whole list. A module that
fails to import is logged and skipped: the page that needs it then fails in
the visitor's run, with Streamlit's own message, as it would have anyway.
"""

from __future__ import annotations

import importlib
import logging
import threading

__all__ = ["PAGE_MODULES", "load_pages", "loaded"]

LOG = logging.getLogger(__name__)

#: What the pages import, the Explore page's modules first (the lecture's first
#: page, and the warm-up's first job fits its default model).
PAGE_MODULES: tuple[str, ...] = (
    "svmlab.ui.frame",
    "svmlab.ui.explore.cache",
    "svmlab.ui.explore.controls",
    "svmlab.ui.explore.chart",
    "svmlab.ui.explore.panels",
    "svmlab.ui.explore.compare",
    "svmlab.ui.explore.edit",
    "svmlab.ui.explore.follow_panel",
    "svmlab.ui.explore.inspector",
    "svmlab.ui.explore.kernel_view",
    "svmlab.ui.explore.keys",
    "svmlab.ui.explore.lecture",
    "svmlab.ui.explore.path_view",
    "svmlab.ui.explore.slides_panel",
    "svmlab.ui.explore.undo_bar",
    "svmlab.ui.presets",
    "svmlab.ui.refusals",
    "svmlab.ui.losses_page",
    "svmlab.ui.solvers_page",
    "svmlab.ui.solvers_text",
    "svmlab.ui.selection_page",
    "svmlab.ui.multiclass_page",
    "svmlab.ui.regression_page",
    "svmlab.ui.family_page",
    "svmlab.ui.model_block",
    "svmlab.ui.page_hands",
    "svmlab.ui.page_url",
    "svmlab.ui.panels",
)

_done = threading.Event()


def load_pages(modules: tuple[str, ...] = PAGE_MODULES) -> dict[str, str]:
    """Import ``modules`` in order, then start the compiled solvers' warm-up.
    Returns the modules that failed (name -> message); sets :func:`loaded`."""
    failed: dict[str, str] = {}
    try:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception as error:  # logged; the page that needs it says it
                failed[name] = f"{type(error).__name__}: {error}"
                LOG.warning("svmlab could not import %s at start: %s", name, error)
        from svmlab import precompile

        precompile.start_in_background()
    finally:
        _done.set()
    return failed


def loaded() -> bool:
    """Whether :func:`load_pages` has run to its end in this process."""
    return _done.is_set()

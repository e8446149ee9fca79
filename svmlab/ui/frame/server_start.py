"""What the server does once, at its start, before any visitor (issue 28 item 1).

A Streamlit script runs only when a visitor comes: the first visitor's first
run used to import svmlab and, through it, scikit-learn, SciPy and numba
(2-7 s on this two-core machine), and the solvers' warm-up started only then.
``streamlit run app.py`` now finds ``app = st.App(...)`` in app.py and serves
it in Streamlit's ASGI mode (1.67), which imports app.py once when the server
starts (svmlab's engine, and scikit-learn, SciPy and numba with it) and runs
the app's start-up hook, :func:`lifespan`, before it answers any request. The
hook imports every module the pages import (:func:`load_pages`) and starts the
compiled solvers' warm-up in a daemon thread
(:func:`svmlab.compiled.precompile.start_in_background`; with the install's compile
step done it only loads from numba's disk cache, without it it compiles while
the server already serves). The page modules are imported in the hook, not in
app.py's import, because Streamlit's runtime exists only from the hook on: a
``st.cache_data`` function defined before it logs "No runtime found" (once
per cached function, ten lines in the lecturer's terminal).

A module that fails to import is logged and skipped: the page that needs it
then fails in the visitor's run, with the page's own message, as it would have
anyway; the server still starts.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

__all__ = ["PAGE_MODULES", "lifespan", "load_pages"]

LOG = logging.getLogger(__name__)

#: Every page's module (each imports what it draws with), Explore's first (the
#: lecture's first page; the warm-up's first job fits its default model).
PAGE_MODULES: tuple[str, ...] = (
    "svmlab.ui.frame.router",
    "svmlab.ui.explore.page",
    "svmlab.ui.hub.page",
    "svmlab.ui.family.page",
    "svmlab.ui.losses.page",
    "svmlab.ui.solvers.page",
    "svmlab.ui.selection.page",
    "svmlab.ui.multiclass.page",
    "svmlab.ui.regression.page",
    "svmlab.ui.notes.page",
    # Imported by the router only when a page asks (its URL state's hooks).
    "svmlab.ui.explore.upload",
)


def load_pages(modules: tuple[str, ...] = PAGE_MODULES) -> dict[str, str]:
    """Import ``modules`` in order; return those that failed (name -> message)."""
    failed: dict[str, str] = {}
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as error:  # logged; the page that needs it says it
            failed[name] = f"{type(error).__name__}: {error}"
            LOG.warning("svmlab could not import %s at start: %s", name, error)
    return failed


@asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    """``st.App``'s start-up hook, run before the server answers: load the page
    modules, start the solvers' warm-up in the background, then serve."""
    from svmlab.compiled import precompile
    from svmlab.ui.hall import backend

    load_pages()
    precompile.start_in_background()
    backend.start()  # the lecture hall's broadcast and its monitor, on this loop
    yield

"""svmlab's entry point and router: ``streamlit run app.py``.

Every page runs inside one frame (:func:`svmlab.ui.frame.route`): Streamlit's
navigation with the course's sections, the page config, the style, the
classroom toggle and the URL's state. The pages are in ``pages/``; the landing
page is the lecture hub (``pages/hub.py``).

``streamlit run`` finds ``app = st.App(...)`` below and serves this file in
Streamlit's ASGI mode: the server imports it once at start, as module ``app``,
and its start-up hook loads svmlab in the background
(:func:`svmlab.ui.server_start.load_pages`: the pages' modules, then the
compiled solvers' warm-up) before the first visitor; each visitor's run then
executes this file as ``"__main__"`` and routes.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import streamlit as st


@asynccontextmanager
async def load_svmlab(_app: Any) -> AsyncIterator[None]:
    """The server's start-up hook: load svmlab in a daemon thread and serve at
    once. (The import itself is in the thread: ``import svmlab`` pulls in
    scikit-learn, SciPy and numba, seconds the server need not wait for.)"""
    threading.Thread(
        target=lambda: importlib.import_module("svmlab.ui.server_start").load_pages(),
        name="svmlab-server-start",
        daemon=True,
    ).start()
    yield


if __name__ == "__main__":
    # Streamlit (and AppTest) run this script as "__main__".
    from svmlab.ui import frame

    frame.route()
elif __name__ != "__mp_main__":
    # The server's one import at start. (A process that a test's Dask or joblib
    # cluster spawns re-runs the parent's main script as "__mp_main__": there,
    # nothing is served and nothing routed.)
    app = st.App(__file__, lifespan=load_svmlab)

"""svmlab's entry point and router: ``streamlit run app.py``.

Every page runs inside one frame (:func:`svmlab.ui.frame.router.route`): Streamlit's
navigation with the course's sections, the page config, the style, the
classroom toggle and the URL's state. The pages are in ``pages/``; the landing
page is the lecture hub (``pages/hub.py``).

``streamlit run`` finds ``app = st.App(...)`` below and serves this file in
Streamlit's ASGI mode: the server imports it once at its start, as module
``app``, and runs the app's start-up hook before it answers any request
(:mod:`svmlab.ui.frame.server_start`: svmlab and every page module loaded, the
solvers' warm-up started); each visitor's run then executes this file as
``"__main__"`` and routes.
"""

from __future__ import annotations

import streamlit as st

if __name__ == "__main__":
    # Streamlit (and AppTest) run this script as "__main__".
    from svmlab.ui.frame import router

    router.route()
elif __name__ != "__mp_main__":
    # The server's one import at start. (A process that a test's Dask or joblib
    # cluster spawns re-runs the parent's main script as "__mp_main__": there,
    # nothing is served and nothing routed.)
    from starlette.middleware import Middleware

    from svmlab.ui.frame import server_start
    from svmlab.ui.hall import routes as hall

    # The lecture hall's follower pages are routes of this same server.
    app = st.App(
        __file__,
        lifespan=server_start.lifespan,
        routes=hall.routes(),
        middleware=[Middleware(hall.VisitorCookie)],
    )

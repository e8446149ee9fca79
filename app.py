"""svmlab's entry point and router: ``streamlit run app.py``.

Every page runs inside one frame (:func:`svmlab.ui.frame.route`): Streamlit's
navigation with the course's sections, the page config, the style, the
classroom toggle and the URL's state. The pages are in ``pages/``; the landing
page is the lecture hub (``pages/hub.py``).
"""

from __future__ import annotations

from svmlab.ui import frame

# Streamlit (and AppTest) run this script as "__main__". A process that a test's
# Dask or joblib cluster spawns re-runs the parent's main script as
# "__mp_main__": there, outside any Streamlit run, nothing must be routed.
if __name__ == "__main__":
    frame.route()

"""The lecture hall (issue 45): a room of students that follows the lecturer.

One broadcast: the lecturer's Explore session encodes its main view once per
change (:mod:`.view`) and publishes it to the room store (:mod:`.store`, in
this process, or :mod:`.redis_store` when ``SVMLAB_REDIS_URL`` names a Redis
server: :mod:`.backend`); every process's :class:`.broadcast.Hub` pushes the
same bytes to each follower's page, a small HTML page served by a route of the
app's own server (:mod:`.routes`, ``/room/CODE``: plotly.js and server-sent
events, no Streamlit session per follower). Questions to the room and their
answers: :mod:`.questions`. What a visitor may do, and the sentence said when
a cap is reached: :mod:`.limits`; the codes: :mod:`.codes`.

Nothing here imports Streamlit at module level: the store, the codes, the
limits, the view and the questions are plain data (tested without a server);
the routes are Starlette's, which Streamlit's server mounts (``st.App(routes=)``
in app.py).
"""

"""Which room store this server uses, and its one broadcast hub (issue 45).

One setting: ``SVMLAB_REDIS_URL`` in the server's environment (or
``redis_url`` in ``.streamlit/secrets.toml``), e.g. ``redis://127.0.0.1:6379/0``,
puts the rooms in that Redis server (:class:`~svmlab.ui.hall.redis_store.RedisStore`),
shared by every process started with the same setting; without it the rooms
live in this process (:class:`~svmlab.ui.hall.store.MemoryStore`), as a
single server needs.

:func:`start` runs on the server's event loop (the app's start-up hook,
:mod:`svmlab.ui.frame.server_start`, and the first request of a route, for a
server started some other way): it binds the hub to the loop and starts its
monitor, which asks Streamlit's runtime whether each room's lecturer's page is
still connected.
"""

from __future__ import annotations

import asyncio
import os
import threading

from svmlab.ui.hall.broadcast import Hub
from svmlab.ui.hall.store import MemoryStore, RoomStore

__all__ = ["ENV_REDIS", "hub", "redis_url", "start", "store"]

ENV_REDIS = "SVMLAB_REDIS_URL"

_lock = threading.Lock()
_store: RoomStore | None = None
_hub: Hub | None = None
_monitor: asyncio.Task | None = None


def redis_url() -> str | None:
    """``$SVMLAB_REDIS_URL``, else ``redis_url`` in the secrets file, else None."""
    env = os.environ.get(ENV_REDIS, "").strip()
    if env:
        return env
    try:
        import streamlit as st

        value = st.secrets.get("redis_url")
    except Exception:  # no secrets file is the normal case
        return None
    return str(value).strip() or None if value else None


def store() -> RoomStore:
    """The server's room store (made at the first call)."""
    global _store
    with _lock:
        if _store is None:
            url = redis_url()
            if url:
                from svmlab.ui.hall.redis_store import RedisStore

                _store = RedisStore(url)
            else:
                _store = MemoryStore()
        return _store


def hub() -> Hub:
    """The server's broadcast hub, fed by :func:`store`."""
    global _hub
    room_store = store()
    with _lock:
        if _hub is None:
            _hub = Hub(room_store)
        return _hub


def _present(session: str) -> bool:
    """Whether Streamlit's session ``session`` is connected (a page of a test
    that runs no server counts as connected)."""
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return True
        return Runtime.instance().is_active_session(session)
    except Exception:  # Streamlit's runtime moved: never call a lecturer gone
        return True


def start() -> None:
    """On the server's event loop: bind the hub and start its monitor (once)."""
    global _monitor
    the_hub = hub()
    loop = asyncio.get_running_loop()
    if the_hub.loop is not loop:
        the_hub.bind(loop)
    if _monitor is None or _monitor.done() or _monitor.get_loop() is not loop:
        _monitor = loop.create_task(the_hub.monitor(_present))

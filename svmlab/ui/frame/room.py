"""One server for a lecture room (issue 21): the fit lane every page shares, and
room mode, the caps a lecturer turns on for a room of visitors.

- :data:`LANE`: one per server process. A page's fit that works longer than
  50 ms waits for the lane's single slot (:mod:`svmlab.solvers.lane`): long fits
  take turns on one core, and everybody's short fits (a slider move on 200
  points) never queue behind them. Every page's fits run inside
  :func:`page_fits`, which also stops a fit nobody will see.
- Room mode (``SVMLAB_ROOM=1`` in the server's environment, or ``room_mode =
  true`` in ``.streamlit/secrets.toml``): at most :data:`ROOM`'s ``n_max``
  points, ``max_iter`` iterations and ``fit_seconds`` per fit, whatever a link,
  a preset or a slider asks. The measured reasons are in docs/serving.md.

Streamlit is imported inside the functions that need it, so that the settings
and presets modules, which read the caps, stay importable without Streamlit.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from svmlab import cancel_when
from svmlab.solvers.lane import FitLane, long_fits_through

__all__ = ["LANE", "ROOM", "RoomLimits", "fit_seconds", "limits", "page_fits"]

#: Environment variable that turns room mode on ("1", "true", "yes", "on").
ENV_ROOM = "SVMLAB_ROOM"

#: The server's one lane for long fits: one slot (two cores: one for the long
#: fits, one for everything else), entered after 50 ms of a fit's work.
LANE = FitLane(slots=1, after_seconds=0.05)

#: Wall-clock budget of one fit outside room mode (seconds).
FIT_SECONDS = 5.0


@dataclass(frozen=True)
class RoomLimits:
    """The caps of room mode."""

    n_max: int = 500
    max_iter: int = 20_000
    fit_seconds: float = 1.0


ROOM = RoomLimits()


def _on(value: object) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def limits() -> RoomLimits | None:
    """The room caps when room mode is on, else None: ``$SVMLAB_ROOM``, else
    ``room_mode`` in ``.streamlit/secrets.toml``."""
    env = os.environ.get(ENV_ROOM)
    if env is not None and env.strip():
        return ROOM if _on(env) else None
    try:
        import streamlit as st

        value = st.secrets.get("room_mode")
    except Exception:  # no secrets file at all is the normal case
        return None
    return ROOM if value is not None and _on(value) else None


def fit_seconds() -> float:
    """The time budget of one fit on a page: room mode's, else 5 s."""
    room = limits()
    return room.fit_seconds if room else FIT_SECONDS


@contextmanager
def page_fits() -> Iterator[None]:
    """Around a page's fits: stop when the run is superseded, and take turns
    in :data:`LANE` once a fit is long."""
    from svmlab.ui.frame.run_state import superseded

    with cancel_when(superseded()), long_fits_through(LANE):
        yield

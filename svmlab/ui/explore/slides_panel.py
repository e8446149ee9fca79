"""Slides from Explore: the figure as it reads (PNG, SVG), a C or σ path and the
solver's iteration playback (GIF).

One click on a download button exports: the files are made when the button is
clicked (Streamlit's deferred download data), from the figure the page shows
and its fit, by :mod:`svmlab.figures.slides` (matplotlib and Pillow). The path's
frames fit the model afresh at each value (:func:`path_values`, two or three a
decade around the current value) through the fit lane every fit takes turns
in; each frame prints its value and the errors it gives. The playback's frames
fit nothing: one per recorded iteration of the fit shown
(``model.history_``, :func:`playback_frames`), each printing its iteration, the
objective and the KKT violation there.

A GIF is made once for every visitor (:data:`GIFS`), one at a time per visitor,
holding the server's fit lane and giving way between frames
(:func:`built_gif`): it runs in Streamlit's download thread, outside any
script run, where it was once built afresh on every click (docs/serving.md).
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Any

import numpy as np
import streamlit as st

from svmlab import SVC, SvmlabError, datasets, losses, solvers
from svmlab.figures import slides
from svmlab.solvers.lane import lane_turn, long_fits_through
from svmlab.ui.explore import panels, upload
from svmlab.ui.explore.cache import Data, FitRecord, model_items
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import room, theme_choice
from svmlab.ui.frame.download import download
from svmlab.ui.frame.link_values import C_GRID, SIGMA_GRID
from svmlab.ui.frame.presets import PRESETS
from svmlab.ui.frame.shared_results import SharedResults
from svmlab.user_text import plain

__all__ = [
    "GIFS",
    "N_FRAMES",
    "PLAYBACK_FRAME",
    "built_gif",
    "caption",
    "drawn_digest",
    "key_number",
    "path_frames",
    "path_values",
    "playback_frames",
    "popover",
]

#: Frames of a path animation.
N_FRAMES = 13
#: One frame of the playback's GIF: a recorded history holds up to 200 steps,
#: so smaller than a path's frame; the file is then a quarter smaller (167
#: frames: 6.5 MB against 8.5 MB), not faster (about 26 s either way, 150 ms a
#: frame of matplotlib; benchmarks/slides_gif.py).
PLAYBACK_FRAME = (800, 450)
#: At most this many frames in the playback's GIF, steps evenly spaced with the
#: first and the last: 167 frames took 26 s after the click and played 50 s on
#: a slide; 60 take about 9 s and play 18 s.
PLAYBACK_MAX_FRAMES = 60
_SYMBOL = {"C": "C", "sigma": "σ"}


def _data_title(s: ExploreSettings) -> str:
    held = upload.held(s.upload) if s.upload else None
    if held is not None:
        return plain(held.name, 60)
    return datasets.TITLES[s.dataset]


def _kernel(s: ExploreSettings) -> str:
    if s.kernel == "polynomial":
        return f"polynomial (p = {s.degree}, a = {s.coef0:g})"
    if s.kernel == "sigmoid":
        return f"sigmoid (a = {s.sig_a:g}, r = {s.sig_r:g})"
    return "Gaussian" if s.kernel == "gaussian" else s.kernel


def caption(s: ExploreSettings, record: FitRecord, *, without: str = "") -> str:
    """The caption line of a slide of ``record`` (``without`` = "C" or "sigma"
    leaves out the swept value and the errors: an animation's caption;
    "errors" the errors alone: the playback's, whose frames are not the final
    fit)."""
    loss = losses.LOSSES[s.loss].title.lower()
    if s.is_nu:  # ν-SVC: the hinge at its equivalent C, ν said beside it
        loss = f"ν-SVC, ν = {s.nu:g}, hinge"
    text = slides.caption_line(
        data=_data_title(s),
        n=len(record.y),
        kernel=_kernel(s),
        loss=loss,
        C=float(f"{record.model.C:.4g}") if s.is_nu else float(s.effective_C),
        sigma=s.sigma if s.kernel == "gaussian" else None,
        train_error=record.train_error,
        test_error=record.test_error,
    )
    if not without:
        return text
    parts = text.split(" · ")
    drop = ("training error", "test error")
    if without in _SYMBOL:
        drop += (f"{_SYMBOL[without]} = ",)
    return " · ".join(p for p in parts if not p.startswith(drop))


def key_number(s: ExploreSettings, record: FitRecord) -> str:
    """The number the settings' preset teaches, as measured on ``record``
    ("test error 22.5 %"), for the slide's heading; "" without a preset."""
    preset = PRESETS.get(s.preset) if s.preset else None
    if preset is None:
        return ""
    measured = dict(panels.number_cells(record)).get(preset.number)
    return f"{preset.number} {measured or preset.promise}"


def path_values(param: str, current: float) -> tuple[float, ...]:
    """:data:`N_FRAMES` stops of the page's slider grid (every fourth: about
    three a decade) placed so that the current value is near the middle."""
    grid = (C_GRID if param == "C" else SIGMA_GRID)[::4]
    centre = int(np.argmin(np.abs(np.log(grid) - np.log(current))))
    start = max(0, min(len(grid) - N_FRAMES, centre - N_FRAMES // 2))
    return tuple(grid[start : start + N_FRAMES])


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100.0 * value:.1f} %"


def path_frames(
    s: ExploreSettings,
    record: FitRecord,
    data: Data,
    param: str,
    values: tuple[float, ...],
    *,
    added: np.ndarray | None = None,
    scale: float = 1.0,
    axis_titles: tuple[str, str] | None = None,
    between: Callable[[], None] = lambda: None,
) -> list[tuple[dict[str, Any], str]]:
    """One ``(figure spec, label)`` per value of ``param`` ("C" or "sigma"), in
    order: the model refitted on the page's (edited) training points at that
    value, drawn as the page draws it; the label is "C = 10 · training error
    … · test error …". A value whose fit fails is drawn with its sentence.
    ``between()`` is called before each frame (the lane's ``give_way``)."""
    X, y = record.X, record.y
    test = (data.X_test, data.y_test) if s.show_test else None
    frames = []
    for value in values:
        between()
        params = dict(model_items(replace(s, **{param: float(value)})))
        params["record_history"] = False
        label = f"{_SYMBOL[param]} = {value:g}"
        try:
            with long_fits_through(room.LANE):
                model = SVC(**params).fit(X, y)
        except SvmlabError as error:
            frames.append((_empty(data.bounds), f"{label} · {error}"))
            continue
        train = float(np.mean(model.predict(X) != y))
        tested = (
            float(np.mean(model.predict(data.X_test) != data.y_test))
            if data.y_test.size
            else None
        )
        spec = panels.plane(
            model, X, y, data, test, added, scale=scale, axis_titles=axis_titles
        )
        label += f" · training error {_pct(train)} · test error {_pct(tested)}"
        frames.append((spec, label))
    return frames


def playback_steps(count: int, most: int = PLAYBACK_MAX_FRAMES) -> list[int]:
    """The recorded steps the playback's GIF shows: all ``count`` of them, or
    ``most`` evenly spaced, the first and the last included, in order."""
    if count <= most:
        return list(range(count))
    return sorted({round(k * (count - 1) / (most - 1)) for k in range(most)})


def playback_frames(
    s: ExploreSettings,
    record: FitRecord,
    data: Data,
    *,
    added: np.ndarray | None = None,
    scale: float = 1.0,
    most: int = PLAYBACK_MAX_FRAMES,
    axis_titles: tuple[str, str] | None = None,
    between: Callable[[], None] = lambda: None,
) -> list[tuple[dict[str, Any], str]]:
    """One ``(figure spec, label)`` per step of :func:`playback_steps` of the
    fit's iteration history, in order: the plane as the playback draws it at
    that step; the label is "iteration 12 · objective 3.41 · KKT violation
    0.021"."""
    history = record.model.history_
    test = (data.X_test, data.y_test) if s.show_test else None
    frames = []
    for k in playback_steps(len(history), most):
        between()
        spec = panels.plane(
            record.model,
            record.X,
            record.y,
            data,
            test,
            added,
            scale=scale,
            snapshot=k,
            axis_titles=axis_titles,
        )
        label = (
            f"iteration {history.iteration[k]} · objective "
            f"{history.objective[k]:.4g} · KKT violation "
            f"{history.kkt_violation[k]:.2g}"
        )
        frames.append((spec, label))
    return frames


def _empty(bounds: tuple[float, float, float, float]) -> dict[str, Any]:
    xmin, xmax, ymin, ymax = bounds
    return {
        "data": [],
        "layout": {
            "xaxis": {"range": [xmin, xmax], "title": {"text": "x₁"}},
            "yaxis": {"range": [ymin, ymax], "title": {"text": "x₂"}},
        },
    }


def _stem(s: ExploreSettings) -> str:
    return f"svmlab_{s.source}"


#: Finished GIFs, shared by every visitor: the same settings and points give
#: the same file, made once (:class:`SharedResults`: two visitors asking at
#: once wait for one build). At most six are kept (a 60-frame playback is a
#: few MB).
GIFS: SharedResults[bytes] = SharedResults(max_entries=6)
#: The session key of a visitor's GIF lock: one GIF at a time per visitor.
BUSY_KEY = "explore_slides_busy"


def drawn_digest(record: FitRecord, *more: Any) -> str:
    """A digest of what a GIF of ``record`` draws (its training points, its
    multipliers and ``more``: the recorded objectives of a playback), for the
    key of :data:`GIFS`."""
    digest = hashlib.sha256()
    for values in (record.X, record.y, record.model.alpha_, *more):
        digest.update(np.ascontiguousarray(values, dtype=np.float64).tobytes())
    return digest.hexdigest()[:20]


def built_gif(
    key: Hashable, build: Callable[[Callable[[], None]], bytes], busy: Any
) -> bytes:
    """The GIF of ``key``: the stored one (:data:`GIFS`), else ``build``'s. A
    build runs while its visitor builds no other (``busy``, the session's lock:
    a second click waits for the first), and in turns with every long fit on
    the server (:func:`svmlab.solvers.lane.lane_turn` on the fit lane; ``build``
    gets its ``give_way`` and calls it between frames, so a fit waiting for the
    lane waits one frame, not a whole GIF). Deferred download data run in a
    thread of their own, outside the visitor's script run."""
    hit = GIFS.get(key)
    if hit is not None:
        return hit

    def make() -> bytes:
        with lane_turn(room.LANE) as give_way:
            return build(give_way)

    with busy:
        return GIFS.get_or_compute(key, make)


def popover(
    where: Any,
    s: ExploreSettings,
    record: FitRecord,
    data: Data,
    spec: dict[str, Any],
    added: np.ndarray,
    title: str = "",
) -> None:
    """The "Slides" popover: one click each for the figure as PNG or SVG (with
    its key and caption), for the C path (and, with the Gaussian kernel, the
    σ path) as an animated GIF, and, with the playback on, for the solver's
    iterations as one. The GIFs are made once for every visitor and through
    the fit lane (:func:`built_gif`)."""
    text = caption(s, record)
    scale = 1.5 if s.classroom else 1.0
    titles = upload.axis_titles(s.upload)
    busy = st.session_state.setdefault(BUSY_KEY, threading.Lock())
    drawn = drawn_digest(record)
    theme = theme_choice.current()
    number = key_number(s, record)
    with where.popover("Slides", help="This figure as PNG or SVG, a path as GIF."):
        st.caption(text)
        for column, fmt in zip(st.columns(2), ("png", "svg"), strict=True):
            download(
                column,
                fmt.upper(),
                lambda fmt=fmt: slides.slide(
                    spec, text, fmt=fmt, title=title, theme=theme, number=number
                ),
                f"{_stem(s)}.{fmt}",
                f"explore_slide_{fmt}",
                width="stretch",
            )
        # The paths refit C-SVC at other C and σ: none under ν-SVC.
        params = [] if math.isinf(s.effective_C) or s.is_nu else ["C"]
        if s.kernel == "gaussian" and not s.is_nu:
            params.append("sigma")
        for param in params:
            values = path_values(param, getattr(s, param))
            symbol = _SYMBOL[param]
            path_caption = caption(s, record, without=param)

            def gif(
                param: str = param, values: tuple = values, text: str = path_caption
            ) -> bytes:
                def build(give_way: Callable[[], None]) -> bytes:
                    frames = path_frames(
                        s,
                        record,
                        data,
                        param,
                        values,
                        added=added,
                        scale=scale,
                        axis_titles=titles,
                        between=give_way,
                    )
                    return slides.animation(frames, text, theme=theme)

                key = ("path", s, param, values, scale, titles, drawn, theme.name)
                return built_gif(key, build, busy)

            download(
                st,
                f"GIF: {symbol} from {values[0]:g} to {values[-1]:g} "
                f"({len(values)} frames)",
                gif,
                f"{_stem(s)}_{param}_path.gif",
                f"explore_slide_gif_{param}",
                width="stretch",
            )
        steps = len(getattr(record.model, "history_", None) or ())
        if s.playback and steps >= 2:
            solver = solvers.SOLVERS[record.model.solver_].title.split(" (")[0]
            playback_caption = f"{solver} · {caption(s, record, without='errors')}"
            history = record.model.history_

            def playback_gif() -> bytes:
                def build(give_way: Callable[[], None]) -> bytes:
                    frames = playback_frames(
                        s,
                        record,
                        data,
                        added=added,
                        scale=scale,
                        axis_titles=titles,
                        between=give_way,
                    )
                    return slides.animation(
                        frames,
                        playback_caption,
                        seconds_per_frame=0.3,
                        size=PLAYBACK_FRAME,
                        theme=theme,
                    )

                recorded = drawn_digest(record, history.objective)
                key = ("playback", s, scale, titles, recorded, theme.name)
                return built_gif(key, build, busy)

            shown = len(playback_steps(steps))
            count = f"{shown} frames" if shown == steps else f"{shown} of {steps} steps"
            download(
                st,
                f"GIF: the playback, {solver} ({count})",
                playback_gif,
                f"{_stem(s)}_playback.gif",
                "explore_slide_gif_playback",
                width="stretch",
            )

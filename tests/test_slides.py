"""Slides from Explore (issue 33): the PNG and SVG of the figure with its key and
caption, and the GIF of a C or σ path, checked on the files."""

from __future__ import annotations

import io
import json
import sys
import threading
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image, ImageChops

from svmlab import SVC, figures
from svmlab.figures import slides
from svmlab.ui.explore import cache, slides_panel
from svmlab.ui.frame.chart import COMPONENT
from tests.pages import EXPLORE, open_page, problems


@pytest.fixture(scope="module")
def page():
    """Explore with 60 points: the settings, data, fit and the figure it shows."""
    at = open_page(EXPLORE, {"n": "60", "C": "10"})
    assert not problems(at)
    settings, _identity, data, _edits, record = at.session_state[cache.LAST_GOOD_KEY]
    shown = next(
        json.loads(e.proto.bytes)
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    )
    return at, settings, data, record, shown


def _svg_text(svg: bytes) -> list[str]:
    root = ET.fromstring(svg)
    return [
        "".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")
    ]


def test_the_caption_names_data_n_kernel_loss_c_sigma_and_errors(page) -> None:
    _at, settings, _data, record, _shown = page
    text = slides_panel.caption(settings, record)
    assert text.startswith("Spiral (Sugiyama Fig. 27.11) · n = 48 · Gaussian kernel")
    assert "hinge loss · C = 10 · σ = 3.3 · training error" in text
    assert f"training error {100 * record.train_error:.1f} %" in text
    assert f"test error {100 * record.test_error:.1f} %" in text
    assert "C = " not in slides_panel.caption(settings, record, without="C")


def test_the_svg_holds_the_caption_and_the_key_as_text(page) -> None:
    _at, settings, _data, record, shown = page
    text = slides_panel.caption(settings, record)
    svg = slides.slide(shown, text, fmt="svg", title="A title")
    texts = _svg_text(svg)
    # The caption, wrapped into whole parts, one text element a line.
    lines = [t for t in texts if t.split(" · ")[0] in text.split(" · ")]
    assert " · ".join(lines) == text
    assert "A title" in texts
    for entry in slides.drawn_entries(shown):
        assert entry["name"] in texts  # the key, "free SV (0 < α < C)" included
    assert b"<image" in svg  # the surface and the points, as the page shows them
    assert "kaleido" not in sys.modules  # no browser behind the export


def test_the_png_is_a_slide_with_the_figure_and_a_caption_line(page) -> None:
    _at, settings, _data, record, shown = page
    text = slides_panel.caption(settings, record)
    png = slides.slide(shown, text)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert image.size == slides.SLIDE_SIZE
    pixels = np.asarray(image, dtype=float)
    assert pixels.std() > 20 and len(np.unique(pixels.reshape(-1, 3), axis=0)) > 100
    # A one-line caption is the only thing in the bottom strip: drawn without
    # it, the strip is blank; with it, it holds dark text.
    short = " · ".join(text.split(" · ")[1:4])
    image = Image.open(io.BytesIO(slides.slide(shown, short))).convert("RGB")
    bare = Image.open(io.BytesIO(slides.slide(shown, ""))).convert("RGB")
    strip = (0, int(0.93 * image.height), image.width, image.height)
    assert np.asarray(bare.crop(strip)).min() > 250
    assert np.asarray(image.crop(strip)).min() < 80
    changed = ImageChops.difference(image, bare).getbbox()
    assert changed is not None and changed[1] >= strip[1]
    # The key, right of the plane: the swatches in their colours.
    key = np.asarray(image.crop((int(0.55 * image.width), 0, image.width, 450)))
    for colour in ("#0072B2", "#D55E00"):
        rgb = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(key.astype(int) - rgb).sum(axis=2) < 30).sum() > 50


def test_the_gif_has_one_frame_per_path_value_in_order(page) -> None:
    _at, settings, data, record, _shown = page
    values = slides_panel.path_values("C", settings.C)
    assert len(values) == slides_panel.N_FRAMES and list(values) == sorted(values)
    assert values[0] < settings.C < values[-1]
    frames = slides_panel.path_frames(settings, record, data, "C", values)
    assert [label.split(" · ")[0] for _, label in frames] == [
        f"C = {v:g}" for v in values
    ]
    # Each frame is the fit at its value: its training error is the one printed.
    for (_, label), value in zip(frames[::4], values[::4], strict=True):
        model = SVC(kernel="gaussian", sigma=settings.sigma, C=value)
        error = np.mean(model.fit(record.X, record.y).predict(record.X) != record.y)
        assert f"training error {100 * error:.1f} %" in label
    caption = slides_panel.caption(settings, record, without="C")
    gif = slides.animation(frames, caption)
    with Image.open(io.BytesIO(gif)) as image:
        assert image.format == "GIF" and image.n_frames == len(values)
        assert image.info.get("loop") == 0
        shown = []
        for k in range(image.n_frames):
            image.seek(k)
            shown.append(np.asarray(image.convert("RGB"), dtype=float))
    # Frame k is the picture of value k (nearest of the separately drawn frames).
    drawn = [
        np.asarray(slides.frame_image(spec, label, caption), dtype=float)
        for spec, label in frames
    ]
    for k, frame in enumerate(shown):
        distances = [np.abs(frame - d).mean() for d in drawn]
        assert int(np.argmin(distances)) == k


def test_the_page_offers_one_click_exports(page) -> None:
    at, *_ = page
    labels = [b.label for b in at.get("download_button")]
    assert "PNG" in labels and "SVG" in labels
    assert any(label.startswith("GIF: C from") for label in labels)
    assert any(label.startswith("GIF: σ from") for label in labels)


def test_a_long_playback_shows_evenly_spaced_steps_first_and_last_included() -> None:
    # Written out: 167 recorded steps into 60 frames, and a short history whole.
    steps = slides_panel.playback_steps(167, 60)
    assert len(steps) == 60 and steps[0] == 0 and steps[-1] == 166
    assert steps == sorted(steps) and len(set(steps)) == 60
    gaps = np.diff(steps)
    assert gaps.min() >= 2 and gaps.max() <= 3  # 166 / 59 = 2.8 apart
    assert slides_panel.playback_steps(12, 60) == list(range(12))
    # On a fit: the frames are those steps' pictures, labelled with their
    # iterations, in order.
    at = open_page(EXPLORE, {"n": "20", "playback": "1", "C": "1"})
    settings, _identity, data, _edits, record = at.session_state[cache.LAST_GOOD_KEY]
    history = record.model.history_
    frames = slides_panel.playback_frames(settings, record, data, most=4)
    chosen = slides_panel.playback_steps(len(history), 4)
    assert len(frames) == 4 and chosen[-1] == len(history) - 1
    for k, (spec, label) in zip(chosen, frames, strict=True):
        assert label.startswith(f"iteration {history.iteration[k]} · ")
        model, X, y = record.model, record.X, record.y
        expect = figures.decision_spec(
            model, X, y, bounds=data.bounds, snapshot=k, legend="none"
        )
        assert spec["layout"]["images"][0] == expect["layout"]["images"][0]


def test_the_playback_gif_has_one_frame_per_recorded_step_in_order() -> None:
    # Few points: a dozen recorded SMO steps, each drawn twice below.
    at = open_page(EXPLORE, {"n": "20", "playback": "1", "C": "1"})
    assert not problems(at)
    settings, _identity, data, _edits, record = at.session_state[cache.LAST_GOOD_KEY]
    history = record.model.history_
    steps = len(history)
    assert steps >= 3
    labels = [b.label for b in at.get("download_button")]
    assert f"GIF: the playback, SMO ({steps} frames)" in labels
    frames = slides_panel.playback_frames(settings, record, data)
    assert len(frames) == steps
    # Each label prints its step's iteration, objective and KKT violation.
    for k, (_, label) in enumerate(frames):
        assert label.startswith(f"iteration {history.iteration[k]} · ")
        assert f"objective {history.objective[k]:.4g}" in label
    assert list(history.iteration) == sorted(history.iteration)
    # The caption under every frame says what stays; not the final fit's errors.
    steady = slides_panel.caption(settings, record, without="errors")
    assert "error" not in steady and "C = 1 · σ = 3.3" in steady
    caption, size = "playback", (480, 270)  # small: the test draws every step twice
    gif = slides.animation(frames, caption, seconds_per_frame=0.3, size=size)
    with Image.open(io.BytesIO(gif)) as image:
        assert image.format == "GIF" and image.n_frames == steps
        shown = []
        for k in range(image.n_frames):
            image.seek(k)
            shown.append(np.asarray(image.convert("RGB"), dtype=float))
    # Frame k is the picture of step k, drawn separately from the model's state
    # at that step (its multipliers and intercept as recorded).
    model, X, y, bounds = record.model, record.X, record.y, data.bounds
    specs = [
        figures.decision_spec(model, X, y, bounds=bounds, snapshot=k, legend="none")
        for k in range(steps)
    ]
    drawn = [
        np.asarray(slides.frame_image(spec, label, caption, size), dtype=float)
        for spec, (_, label) in zip(specs, frames, strict=True)
    ]
    for k, frame in enumerate(shown):
        distances = [np.abs(frame - d).mean() for d in drawn]
        assert int(np.argmin(distances)) == k
    # The first step and the last are different pictures (the fit moved).
    assert np.abs(drawn[0] - drawn[-1]).mean() > 1.0


def test_a_gif_is_made_once_for_every_visitor_in_the_lane(page, monkeypatch) -> None:
    """Issue 44, item 11: a GIF is built once (a second click, or another
    visitor's, gets the stored file), while it holds the server's fit lane."""
    from svmlab.solvers.lane import FitLane
    from svmlab.ui.frame import room

    _at, settings, data, record, _shown = page
    lane = FitLane(slots=1, after_seconds=0.05)
    monkeypatch.setattr(room, "LANE", lane)
    slides_panel.GIFS.clear()
    built: list[int] = []

    def build(give_way) -> bytes:
        assert lane.running == 1  # in the lane from the first frame
        values = slides_panel.path_values("C", settings.C)[:3]
        frames = slides_panel.path_frames(
            settings, record, data, "C", values, between=give_way
        )
        built.append(len(frames))
        return slides.animation(frames, "caption")

    key = ("path", settings, "C", slides_panel.drawn_digest(record))
    first = slides_panel.built_gif(key, build, threading.Lock())
    again = slides_panel.built_gif(key, build, threading.Lock())  # another visitor
    assert again == first and built == [3] and lane.running == 0
    with Image.open(io.BytesIO(first)) as image:
        assert image.n_frames == 3
    # Other points, another file.
    moved = slides_panel.drawn_digest(record, [1.0])
    assert moved != key[-1]
    slides_panel.built_gif((*key[:-1], moved), build, threading.Lock())
    assert built == [3, 3]


def test_one_visitor_builds_one_gif_at_a_time(monkeypatch) -> None:
    """Per visitor: a second GIF waits for the first (one core at most), while
    another visitor's may build meanwhile (the lane here has three slots, so
    only the visitor's own lock can order them)."""
    from svmlab.solvers.lane import FitLane
    from svmlab.ui.frame import room

    monkeypatch.setattr(room, "LANE", FitLane(slots=3, after_seconds=0.05))
    slides_panel.GIFS.clear()
    running: list[str] = []
    overlaps: list[tuple[str, ...]] = []
    started = {name: threading.Event() for name in ("a1", "a2", "b")}
    release = threading.Event()

    def build(name: str):
        def run(_give_way) -> bytes:
            running.append(name)
            overlaps.append(tuple(running))
            started[name].set()
            assert release.wait(30)
            running.remove(name)
            return name.encode()

        return run

    a, b = threading.Lock(), threading.Lock()
    threads = [
        threading.Thread(target=slides_panel.built_gif, args=(k, build(k), lock))
        for k, lock in (("a1", a), ("a2", a), ("b", b))
    ]
    threads[0].start()
    assert started["a1"].wait(30)
    threads[1].start()
    threads[2].start()
    assert started["b"].wait(30)  # the other visitor's builds beside a1
    assert not started["a2"].is_set()  # a2 waits for a1
    release.set()
    for thread in threads:
        thread.join(30)
    assert started["a2"].is_set()
    assert not any("a1" in o and "a2" in o for o in overlaps)
    assert slides_panel.GIFS.get("a2") == b"a2"


def _fields(settings, record) -> list[str]:
    """Every field a caption must carry, written independently of caption()."""
    return [
        "Spiral",
        f"n = {len(record.y)}",
        "Gaussian kernel",
        "hinge loss",
        f"C = {settings.C:g}",
        f"σ = {settings.sigma:g}",
        f"training error {100 * record.train_error:.1f} %",
        f"test error {100 * record.test_error:.1f} %",
    ]


@pytest.mark.parametrize("size", [slides.SLIDE_SIZE, slides.FRAME_SIZE, (480, 270)])
def test_a_long_caption_wraps_inside_the_slide_with_every_field(page, size) -> None:
    _at, settings, _data, record, shown = page
    text = slides_panel.caption(settings, record)
    # The playback's caption, longer still: solver, loss and every field.
    text = f"Entropy dual (Lee's modified hinge, C¹ form) · {text}"
    svg_lines = _svg_text(slides.slide(shown, text, fmt="svg", size=size))
    joined = " · ".join(svg_lines)
    for field in _fields(settings, record):
        assert field in joined, field
    png = Image.open(io.BytesIO(slides.slide(shown, text, size=size))).convert("L")
    pixels = np.asarray(png, dtype=float)
    w, h = png.size
    # Nothing is cut at the slide's edges: the outer 1 % on every side is blank.
    edge = max(2, round(0.01 * w))
    for strip in (pixels[:, -edge:], pixels[:, :edge], pixels[-edge:, :]):
        assert strip.min() > 245, strip.min()
    # The caption sits under the plane: ink in the bottom fifth.
    assert pixels[int(0.8 * h) :, :].min() < 100


def test_the_key_lists_only_what_is_drawn(page) -> None:
    _at, _settings, _data, record, shown = page
    names = [e["name"] for e in slides.drawn_entries(shown)]
    bound = int(np.sum(record.model.alpha_ >= record.model.C * (1 - 1e-8)))
    assert ("bound SV (α = C)" in names) == (bound > 0)
    # A hard margin on separable points: no multiplier is at a bound, and the
    # slide's key does not list "bound SV" (the figure's legend still may).
    X = np.array([[-2.0, 0.0], [-1.5, 1.0], [2.0, 0.0], [1.5, -1.0]])
    y = np.array([-1, -1, 1, 1])
    model = SVC(kernel="linear", C=1e3).fit(X, y)
    spec = figures.decision_spec(model, X, y, bounds=(-3, 3, -3, 3), legend="none")
    assert "bound SV (α = C)" in [e["name"] for e in figures.legend_entries(spec)]
    texts = _svg_text(slides.slide(spec, "caption", fmt="svg"))
    assert "bound SV (α = C)" not in texts and "class +1" in texts


def test_a_preset_slide_carries_its_title_and_key_number() -> None:
    from svmlab.ui.frame.presets import PRESETS

    preset = PRESETS["c_too_large"]
    at = open_page(EXPLORE, preset.url_settings.to_query())
    assert not problems(at)
    settings, _identity, _data, _edits, record = at.session_state[cache.LAST_GOOD_KEY]
    number = slides_panel.key_number(settings, record)
    assert number == "test error 22.5 %"  # the number the preset promises
    shown = next(
        json.loads(e.proto.bytes)
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    )
    text = slides_panel.caption(settings, record)
    joined = " · ".join(
        _svg_text(
            slides.slide(shown, text, fmt="svg", title=preset.title, number=number)
        )
    )
    assert preset.title in joined and "test error 22.5 %" in joined


@pytest.mark.parametrize("name", ["dark", "contrast"])
def test_slides_follow_the_theme(page, name) -> None:
    from svmlab.figures.theme import THEMES

    theme = THEMES[name]
    _at, settings, _data, record, shown = page
    text = slides_panel.caption(settings, record)
    image = Image.open(io.BytesIO(slides.slide(shown, text, theme=theme)))
    pixels = np.asarray(image.convert("RGB")).reshape(-1, 3)
    bg = np.array([int(theme.background[i : i + 2], 16) for i in (1, 3, 5)])
    # The slide's background is the theme's (the corner and most pixels).
    assert (pixels[0] == bg).all()
    assert (np.abs(pixels - bg).sum(axis=1) <= 3).mean() > 0.4
    gif = slides.animation([(shown, "C = 10")], text, theme=theme, size=(480, 270))
    with Image.open(io.BytesIO(gif)) as frame:
        corner = np.asarray(frame.convert("RGB"))[0, 0]
    assert np.abs(corner.astype(int) - bg).sum() <= 6

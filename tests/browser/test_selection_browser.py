"""The Model selection page in Chromium: a small sweep, its heatmaps and table, a
heatmap click choosing a cell, and screenshots.

Fails on any exception box, ``st.error`` box or uncaught page error. Screenshots
land in ``tests/browser/artifacts/selection_*.png``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from svmlab.ui.selection.requests import DEFAULT_CRITERIA
from tests.browser.chart_text import chart_text, growth

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
# Opening a sub-page URL directly logs two harmless 404s (shared tools notes).
HEAT = '[class*="st-key-selection_heat_"]'


IDLE_WITH_TEXT_JS = r"""
(text) => {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && document.body.innerText.includes(text);
}
"""


def _slide_to(page, slider_key: str, target: str, expect: str) -> None:
    """Press ArrowLeft on a slider until it shows ``target``, then wait until the
    server has rerun with it: the page is idle and shows ``expect``.

    Waiting for the text, not for one rerun per key press: presses that land
    during a rerun are merged by Streamlit into fewer reruns.
    """
    slider = page.locator(f".st-key-{slider_key}").get_by_role("slider").first
    for _ in range(30):
        if slider.input_value() == target:
            break
        slider.focus()
        page.keyboard.press("ArrowLeft")
        page.wait_for_timeout(150)
    assert slider.input_value() == target
    page.wait_for_function(IDLE_WITH_TEXT_JS, arg=expect, timeout=60_000)
    page.mouse.move(2, 2)


def _run_sweep(page, wait_for_rerun) -> None:
    """Click Run sweep and wait for the heatmaps (the mouse then off them)."""
    # The slides' reruns were waited for by their text: start the log from here.
    page.evaluate("() => { const l = window.__svmlabStates; l._cursor = l.length; }")
    page.get_by_role("button", name="Run sweep").click()
    wait_for_rerun(page, timeout_ms=120_000)
    page.locator(f"{HEAT} .main-svg").first.wait_for(state="visible")
    page.mouse.move(2, 2)


def _sweep_and_shoot(
    page, wait_for_rerun, check_page, key: str, drawn: str, name: str
) -> None:
    """Run the sweep, wait for the chart ``key`` (its ``drawn`` element), check
    the page and screenshot the chart in view (``{key}_{name}.png``)."""
    _run_sweep(page, wait_for_rerun)
    page.locator(f".st-key-{key} {drawn}").first.wait_for()
    page.wait_for_timeout(800)
    check_page()
    page.locator(f".st-key-{key}").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"{key}_{name}.png"))


def _link_text(page) -> str:
    link = page.get_by_role("link", name=re.compile(r"in Explore"))
    return link.inner_text()


def test_small_sweep_heatmaps_table_and_click(
    page, open_page, check_page, wait_for_rerun, full_screenshot
):
    open_page("/Model_selection")
    page.get_by_role("button", name="Run sweep").wait_for(state="visible")
    check_page()

    # A small grid: n 100 -> 40, 7 -> 3 values of C and of sigma.
    _slide_to(page, "selection_two_circles_n_samples", "40", "n = 40 points")
    _slide_to(page, "selection_n_C", "3", "n = 40 points, 3 C × 7 σ")
    _slide_to(page, "selection_n_sigma", "3", "n = 40 points, 3 C × 3 σ = 9 cells")

    _run_sweep(page, wait_for_rerun)
    page.wait_for_timeout(600)
    check_page()

    heatmaps = page.locator(HEAT)
    # one heatmap per criterion ticked by default (every approximation and LOO).
    assert heatmaps.count() == len(DEFAULT_CRITERIA)
    assert page.locator(f"{HEAT} .hm image, {HEAT} .heatmaplayer image").count() >= 4
    full_screenshot(page, ARTIFACTS / "selection_sweep.png")
    # The summary table, then the Lee section's tables (Table 1 at least).
    assert page.locator('[data-testid="stDataFrame"]').count() >= 2
    assert page.get_by_text("How close, how fast").is_visible()

    # Click the top-right cell (largest C and sigma) of the exact LOO heatmap:
    # the chosen cell, and the Explore link, follow.
    before = _link_text(page)
    plot = page.locator(".st-key-selection_heat_loo .nsewdrag").first
    # Mouse coordinates are the viewport's: bring the heatmap into view first.
    plot.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    box = plot.bounding_box()
    assert box is not None
    # Hover first: Plotly picks the clicked point from the hover data.
    x, y = box["x"] + 0.84 * box["width"], box["y"] + 0.16 * box["height"]
    page.mouse.move(x, y, steps=5)
    page.wait_for_timeout(300)
    page.mouse.click(x, y)
    wait_for_rerun(page)
    page.mouse.move(2, 2)
    page.wait_for_timeout(400)
    after = _link_text(page)
    assert after != before
    assert "Open C = 1000, σ = 1.78 in Explore" in after
    href = page.get_by_role("link", name=re.compile(r"in Explore")).get_attribute(
        "href"
    )
    assert href is not None and href.startswith("Explore?")
    assert "C=1000" in href and "sigma=1.78" in href
    check_page()

    # The Lee section is on the page (results or the plain note), and Table 1.
    text = page.locator("body").inner_text()
    assert "Lee (2006) reproduced" in text
    assert "Lee's Table 1" in text
    page.get_by_text("Lee (2006) reproduced").scroll_into_view_if_needed()
    full_screenshot(page, ARTIFACTS / "selection_full.png")
    check_page()


def test_uploaded_csv_sweep_and_a_bad_file(
    page, open_page, check_page, wait_for_rerun, tmp_path
):
    from svmlab import datasets
    from svmlab.datasets import csv_data
    from svmlab.errors import DataError

    X, y = datasets.make("two_circles", n_samples=30, random_state=7)
    good = tmp_path / "circles.csv"
    good.write_text(
        "a,b,label\n"
        + "".join(
            f"{float(u)!r},{float(v)!r},{int(c)}\n"
            for (u, v), c in zip(X, y, strict=True)
        )
    )
    bad = tmp_path / "one_class.csv"
    bad.write_text("a,b,label\n0.1,0.2,1\n0.3,0.4,1\n0.5,0.6,1\n")
    try:
        csv_data.to_dataset(csv_data.read_table(bad.read_bytes()))
    except DataError as error:
        expected = str(error)
    else:  # pragma: no cover - the file is built to be refused
        raise AssertionError("a one-class file was accepted")

    open_page("/Model_selection")
    page.get_by_text("Upload CSV").click()
    wait_for_rerun(page)
    assert page.get_by_role("button", name="Run sweep").is_disabled()

    # A file with one class: its message, in an error box, and no sweep.
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(bad)
    page.wait_for_function(
        IDLE_WITH_TEXT_JS, arg=expected.split(".")[0], timeout=60_000
    )
    # Under the uploader in the sidebar, and in the main pane (issue 27, item 8).
    side = page.locator('[data-testid="stSidebar"] [data-testid="stAlertContentError"]')
    main = page.locator('[data-testid="stMain"] [data-testid="stAlertContentError"]')
    assert side.count() == 1 and expected in side.first.inner_text()
    assert main.count() == 1 and "was not used" in main.first.inner_text()
    assert page.get_by_role("button", name="Run sweep").is_disabled()

    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(good)
    page.wait_for_function(IDLE_WITH_TEXT_JS, arg="30 points", timeout=60_000)
    _slide_to(page, "selection_n_C", "3", "3 C × 7 σ")
    _slide_to(page, "selection_n_sigma", "3", "3 C × 3 σ = 9 cells")
    _run_sweep(page, wait_for_rerun)
    check_page()
    assert page.locator(HEAT).count() == len(DEFAULT_CRITERIA)
    text = page.locator("body").inner_text()
    assert "Uploaded data never travel in a link" in text
    assert "Fresh test sets need a generator" in text


#: The summary table (the first data grid after its heading): how far its
#: columns run past its width (the grid scrolls sideways: a hidden column),
#: and the window's top-left box of the page's first figure.
SUMMARY_JS = r"""
() => {
  const heading = [...document.querySelectorAll('[data-testid="stMain"] h3')]
    .find((h) => h.textContent.startsWith("How close, how fast"));
  const grid = [...document.querySelectorAll('[data-testid="stDataFrame"]')]
    .find((g) => heading.compareDocumentPosition(g) & Node.DOCUMENT_POSITION_FOLLOWING);
  const scroller = grid.querySelector(".dvn-scroller");
  const figure = document.querySelector('[data-testid="stMain"] .svmlab-plot');
  const r = figure.getBoundingClientRect();
  return {
    hidden: scroller.scrollWidth - scroller.clientWidth,
    figure: { y: r.top, bottom: r.bottom, w: r.width },
  };
}
"""


@pytest.mark.parametrize("classroom", [False, True], ids=["sidebar_open", "classroom"])
def test_after_a_sweep_its_figure_and_every_summary_column_fit_1280(
    page, open_page, check_page, wait_for_rerun, classroom
):
    """Issue 46 at 1280 x 720: after the default sweep its slices figure is
    the page's first figure and inside the window, and the summary table shows
    every column (test error, the last, included) without scrolling sideways,
    with the sidebar open and in classroom mode (its tables zoomed)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page("/Model_selection" + ("?classroom=1" if classroom else ""))
    page.get_by_role("button", name="Run sweep").wait_for(state="visible")
    _run_sweep(page, wait_for_rerun)
    page.wait_for_timeout(600)
    check_page()
    page.evaluate(
        "() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)"
    )
    measured = page.evaluate(SUMMARY_JS)
    name = "classroom" if classroom else "sidebar_open"
    page.screenshot(path=str(ARTIFACTS / f"selection_1280_{name}.png"))
    assert measured["hidden"] <= 1, measured
    figure = measured["figure"]
    assert 0 <= figure["y"] and figure["bottom"] <= 720, figure
    # The slices, not Lee's figure: as wide as the page's column.
    wide = 0.6 * 1280 if classroom else 700  # Lee's: 707 and 530 px
    assert figure["w"] > wide, figure


#: The page's charts measured in both modes, and the kinds of text each has:
#: Lee's Figure 2 before a sweep, the slices and a heatmap after it.
SCALED_TEXT = {
    "lee": (".st-key-selection_lee_box .svmlab-plot", ("ticks", "axis_titles")),
    "slices": (
        ".st-key-selection_slices .svmlab-plot",
        ("ticks", "axis_titles", "legend", "annotations"),
    ),
    "heatmap": (".st-key-selection_heat_loo", ("ticks", "axis_titles", "annotations")),
    "gap": (".st-key-selection_gap .svmlab-plot", ("ticks", "axis_titles")),
    "model": (".st-key-selection_model_loo .svmlab-plot", ("ticks", "axis_titles")),
}


def test_the_charts_text_grows_with_classroom_mode(
    page, open_page, check_page, wait_for_rerun
):
    """Issue 46: classroom mode enlarges Model selection's chart text as it
    does the page's (root font 16 -> 19 px) and the Multiclass and Family
    keys': tick labels, axis titles, legends and panel titles of Lee's
    Figure 2, the slices and a heatmap, measured as rendered at 1280 x 720."""
    page.set_viewport_size({"width": 1280, "height": 720})
    measured: dict[str, dict] = {"normal": {}, "classroom": {}}
    for mode, query in (("normal", ""), ("classroom", "?classroom=1")):
        open_page(f"/Model_selection{query}")
        page.locator(f"{SCALED_TEXT['lee'][0]} .xtick text").first.wait_for()
        measured[mode]["lee"] = chart_text(page, SCALED_TEXT["lee"][0])
        # Lee's legend: its two entries (the paper's mean, the Bayes error).
        assert len(measured[mode]["lee"]["legend"]["sizes"]) == 2, measured
        _run_sweep(page, wait_for_rerun)
        page.locator(f"{SCALED_TEXT['slices'][0]} .legendtext").first.wait_for()
        page.wait_for_timeout(600)
        check_page()
        for chart in ("slices", "heatmap", "gap", "model"):
            measured[mode][chart] = chart_text(page, SCALED_TEXT[chart][0])
    grew = {
        f"{chart}.{kind}": growth(
            measured["normal"][chart], measured["classroom"][chart], kind
        )
        for chart, (_, kinds) in SCALED_TEXT.items()
        for kind in (*kinds, "legend")
        # The heatmap and the gap chart have no legend (a colour bar).
        if kind != "legend" or chart not in ("heatmap", "gap")
    }
    for what, ratio in grew.items():
        assert ratio["size"] >= 19 / 16, (what, grew, measured)
        assert ratio["height"] >= 1.15, (what, grew, measured)


#: The slices chart's texts on a phone: each panel title, axis title and tick
#: label, and the legend, as window boxes; which pairs of them intersect; and
#: which lie outside the chart (cut).
PHONE_SLICES_JS = r"""
() => {
  const chart = document.querySelector(".st-key-selection_slices .svmlab-plot");
  const svg = chart.querySelector("svg.main-svg").getBoundingClientRect();
  const parts = [];
  const add = (kind, e) => {
    const r = e.getBoundingClientRect();
    if (r.width && r.height)
      parts.push({ kind, text: (e.textContent || "").trim().slice(0, 40),
                   box: [r.left, r.top, r.right, r.bottom] });
  };
  chart.querySelectorAll(".annotation-text").forEach((e) => add("title", e));
  chart.querySelectorAll(".g-xtitle text, .g-x2title text, .g-ytitle text, " +
    ".g-y2title text").forEach((e) => add("axis title", e));
  chart.querySelectorAll(".xtick text, .x2tick text").forEach((e) => add("tick", e));
  chart.querySelectorAll("g.legend").forEach((e) => add("legend", e));
  const meet = (a, b) => a[0] < b[2] - 1 && b[0] < a[2] - 1 && a[1] < b[3] - 1 &&
    b[1] < a[3] - 1;
  const overlaps = [];
  for (let i = 0; i < parts.length; i++)
    for (let j = i + 1; j < parts.length; j++)
      if (!(parts[i].kind === "tick" && parts[j].kind === "tick") &&
          meet(parts[i].box, parts[j].box))
        overlaps.push(`${parts[i].kind} "${parts[i].text}" on ` +
                      `${parts[j].kind} "${parts[j].text}"`);
  const cut = parts.filter((p) => p.box[0] < svg.left - 1 || p.box[1] < svg.top - 1 ||
    p.box[2] > svg.right + 1 || p.box[3] > svg.bottom + 1)
    .map((p) => `${p.kind} "${p.text}"`);
  const count = (kind) => parts.filter((p) => p.kind === kind).length;
  // The window's height under Streamlit's header (it covers the page's top).
  const header = document.querySelector('[data-testid="stHeader"]');
  const top = header ? header.getBoundingClientRect().bottom : 0;
  const under = window.innerHeight - top;
  return { overlaps, cut, titles: count("title"), axis_titles: count("axis title"),
           legends: count("legend"), width: svg.width, height: svg.height, under,
           parts };
}
"""


def test_the_slices_stack_on_a_phone_with_nothing_overlapping(
    page, open_page, check_page, wait_for_rerun
):
    """Issue 46 on a phone (390 x 844): after a small sweep the slices chart's
    panel titles, axis titles, tick labels and legend do not overlap and none
    is cut (side by side in 358 px the titles ran into each other and the
    legend covered the axis titles); back at 1280 px it is side by side."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page("/Model_selection")
    # A small grid, set in the sidebar (a phone hides it), swept at 390 px.
    _slide_to(page, "selection_two_circles_n_samples", "40", "n = 40 points")
    _slide_to(page, "selection_n_C", "3", "n = 40 points, 3 C × 7 σ")
    _slide_to(page, "selection_n_sigma", "3", "n = 40 points, 3 C × 3 σ = 9 cells")
    page.set_viewport_size({"width": 390, "height": 844})
    _sweep_and_shoot(
        page, wait_for_rerun, check_page, "selection_slices", ".legendtext", "phone"
    )
    phone = page.evaluate(PHONE_SLICES_JS)
    # Both panels' titles, the four axis titles (x and y of each stacked panel)
    # and the legend were measured.
    assert (phone["titles"], phone["axis_titles"], phone["legends"]) == (2, 4, 1), phone
    assert not phone["overlaps"], phone["overlaps"]
    assert not phone["cut"], phone["cut"]
    # The whole chart, its key's last row too, on one screen under the header.
    assert phone["height"] <= phone["under"], (phone["height"], phone["under"])
    # The panels stacked: the σ panel's title under the C panel's x-axis title.
    titles = [p for p in phone["parts"] if p["kind"] == "title"]
    x_title = next(p for p in phone["parts"] if p["text"] == "C (log scale)")
    assert titles[1]["box"][1] >= x_title["box"][3], phone["parts"]

    # Wide again: the panels side by side (one y title), nothing overlapping.
    page.set_viewport_size({"width": 1280, "height": 720})
    page.wait_for_timeout(1200)
    wide = page.evaluate(PHONE_SLICES_JS)
    assert wide["axis_titles"] == 3 and not wide["overlaps"], wide


#: The gap chart's title, line by line (a layout title and its subtitle, or
#: an annotation's lines), its plot area and its SVG, as window boxes.
GAP_TITLE_JS = r"""
() => {
  const chart = document.querySelector(".st-key-selection_gap .svmlab-plot");
  const box = (e) => { const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right,
             text: (e.textContent || "").trim() }; };
  const title = [...chart.querySelectorAll(".annotation-text")]
    .find((e) => (e.textContent || "").includes("exact LOO"));
  const lines = title
    ? [...title.querySelectorAll("tspan.line")].map(box)
    : [...chart.querySelectorAll(".gtitle, .gtitle-subtitle")].map(box);
  const points = [...chart.querySelectorAll(".scatterlayer .point")].map(box);
  return { lines, plot: box(chart.querySelector(".nsewdrag")),
           svg: box(chart.querySelector("svg.main-svg")),
           left: Math.min(...points.map((p) => p.left)),
           right: Math.max(...points.map((p) => p.right)) };
}
"""


def test_the_gap_charts_two_line_title_sits_on_its_plot_in_classroom_mode(
    page, open_page, check_page, wait_for_rerun
):
    """Classroom mode at 1280 x 720: the "Where an approximation fails" chart's
    two-line title ("Lee's ACV (eq. 11, corrected) vs" / "exact LOO at the
    chosen cell") reads as one title standing on the plot: its lines one line
    apart (they stood 70 px apart, a 31 px line), the second above the plot
    area and close to it, both inside the chart."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_page("/Model_selection?classroom=1&n=40&nC=3&nsigma=3")
    page.get_by_role("button", name="Run sweep").wait_for(state="visible")
    _sweep_and_shoot(
        page, wait_for_rerun, check_page, "selection_gap", ".main-svg", "classroom"
    )
    m = page.evaluate(GAP_TITLE_JS)
    lines, plot, svg = m["lines"], m["plot"], m["svg"]
    assert [line["text"] for line in lines] == [
        "Lee's ACV (eq. 11, corrected) vs",
        "exact LOO at the chosen cell",
    ], m
    height = lines[0]["bottom"] - lines[0]["top"]
    assert lines[1]["top"] - lines[0]["top"] <= 1.5 * height, m
    assert all(
        svg["top"] - 1 <= line["top"] and line["right"] <= svg["right"] + 1
        for line in lines
    ), m
    assert plot["top"] - 24 <= lines[1]["bottom"] <= plot["top"], m
    # Equal aspect by a narrower plot, not a wider x range: the points reach
    # both sides of the plot (an x range of -1.9 .. 1.9 for data in -1.1 .. 1.1
    # left a fifth of the plot empty on each side).
    width = plot["right"] - plot["left"]
    assert m["left"] - plot["left"] <= 0.15 * width, m
    assert plot["right"] - m["right"] <= 0.15 * width, m

"""The figures' themes (svmlab.figures.theme): contrast by WCAG 2.2's own
formula, the classes and support-vector states under simulated colour-vision
deficiencies (colour-science's Machado et al. 2009 matrices, CIEDE2000), and
the recolouring of whole figures: backgrounds, text, lines, the decision
surface's and the points' images, without touching the cached figure."""

from __future__ import annotations

import base64
import copy
import io
import itertools
import warnings

import numpy as np
import pytest
from PIL import Image

from svmlab import SVC, datasets, figures
from svmlab.figures.style import PALETTE
from svmlab.figures.theme import CONTRAST, DARK, LIGHT, THEMES, recolour, themed


def luminance(hexcode: str) -> float:
    """WCAG 2.2's relative luminance of an sRGB colour."""
    c = np.array([int(hexcode[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(c @ [0.2126, 0.7152, 0.0722])


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)))
    return (lb + 0.05) / (la + 0.05)


#: Roles drawn as lines or markers on every theme's figures.
GRAPHIC_ROLES = (
    "positive",
    "negative",
    "free",
    "bound",
    "boundary",
    "accent",
    "axis",
    "reference",
    "non_sv",
)
#: Okabe-Ito's light colours: secondary series (a criterion, a solver, a sixth
#: class), at 3 : 1 on the dark and high-contrast themes only (on white they
#: are 2.3, 2.3 and 1.3: README, "Themes").
LIGHT_EXCEPTIONS = ("orange", "sky", "yellow")


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
def test_text_meets_aa_on_every_theme(theme):
    # The figures' text colour (style.PALETTE["text"]) and the ink.
    for colour in (PALETTE["text"], "#000000"):
        assert contrast(recolour(colour, theme), theme.background) >= 4.5


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
def test_lines_and_markers_meet_three_to_one(theme):
    roles = GRAPHIC_ROLES + (() if theme is LIGHT else LIGHT_EXCEPTIONS)
    ratios = {r: contrast(recolour(PALETTE[r], theme), theme.background) for r in roles}
    assert min(ratios.values()) >= 3.0, ratios


def test_the_light_exceptions_are_what_the_readme_says():
    ratios = [round(contrast(PALETTE[r], "#FFFFFF"), 1) for r in LIGHT_EXCEPTIONS]
    assert ratios == [2.3, 2.3, 1.3]


def _simulated_lab(hexes: list[str], deficiency: str) -> np.ndarray:
    colour = pytest.importorskip("colour")
    rgb = np.array([[int(h[i : i + 2], 16) / 255 for i in (1, 3, 5)] for h in hexes])
    matrix = colour.blindness.matrix_cvd_Machado2009(deficiency, 1.0)
    linear = np.clip(colour.models.eotf_sRGB(rgb) @ matrix.T, 0.0, 1.0)
    space = colour.RGB_COLOURSPACES["sRGB"]
    xyz = colour.RGB_to_XYZ(linear, space, apply_cctf_decoding=False)
    return colour.XYZ_to_Lab(xyz)


@pytest.mark.parametrize("theme", list(THEMES.values()), ids=list(THEMES))
@pytest.mark.parametrize("deficiency", ["Deuteranomaly", "Protanomaly", "Tritanomaly"])
def test_classes_and_sv_states_stay_apart_under_colour_blindness(theme, deficiency):
    import colour

    # The two classes, the two support-vector rings, and each against the
    # background: at least 10 CIEDE2000 units apart as a dichromat sees them
    # (severity 1: deuteranopia, protanopia, tritanopia).
    names = ("positive", "negative", "free", "bound")
    labels = (*names, "background")
    hexes = [recolour(PALETTE[n], theme) for n in names] + [theme.background]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lab = _simulated_lab(hexes, deficiency)

        def apart(i: int, j: int) -> float:
            return float(colour.delta_E(lab[i], lab[j], method="CIE 2000"))

        pairs = [(0, 1), (2, 3)] + [(i, 4) for i in range(4)]
        distances = {f"{labels[i]}/{labels[j]}": apart(i, j) for i, j in pairs}
    assert min(distances.values()) >= 10.0, distances


@pytest.fixture(scope="module")
def spiral_spec():
    X, y = datasets.make("spiral", n_samples=80, random_state=0)
    model = SVC(C=10.0, sigma=3.3).fit(X, y)
    return figures.decision_spec(model, X, y, bounds=figures.data_bounds(X))


def _colours(node, found):
    if isinstance(node, dict):
        for key, value in node.items():
            if "color" in key and isinstance(value, str):
                found.add(value)
            else:
                _colours(value, found)
    elif isinstance(node, list):
        for value in node:
            _colours(value, found)
    return found


def _png_pixels(source: str) -> np.ndarray:
    payload = source.partition(",")[2]
    with Image.open(io.BytesIO(base64.b64decode(payload))) as image:
        return np.asarray(image.convert("RGBA"))


def test_light_is_the_figure_as_built(spiral_spec):
    assert themed(spiral_spec, LIGHT) is spiral_spec


def test_themed_leaves_the_cached_figure_alone(spiral_spec):
    before = copy.deepcopy(spiral_spec)
    themed(spiral_spec, DARK)
    themed(spiral_spec, CONTRAST)
    assert spiral_spec == before


def test_dark_has_no_white_left(spiral_spec):
    out = themed(spiral_spec, DARK)
    layout = out["layout"]
    assert layout["paper_bgcolor"] == DARK.background == layout["plot_bgcolor"]
    assert layout["font"]["color"] != PALETTE["text"]
    # Every colour a trace or the layout names is dark-theme: nothing is white
    # or the light theme's near-black text.
    for c in _colours(out, set()):
        rgb = recolour(c, LIGHT)
        if rgb.startswith("#"):
            assert rgb.upper() not in ("#FFFFFF", "#222222", "#000000"), c
    # The surface image: f = 0 was white, it is the dark background now; no
    # pixel of it is lighter than the strongest tint of the class colours.
    surface, points = (_png_pixels(i["source"]) for i in layout["images"])
    light_surface = _png_pixels(spiral_spec["layout"]["images"][0]["source"])
    assert (light_surface[..., :3] == 255).all(axis=-1).any()
    assert not (surface[..., :3] >= 250).all(axis=-1).any()
    lum = surface[..., :3].astype(float) @ [0.2126, 0.7152, 0.0722]
    assert lum.max() < 110
    # The points layer: no white outline around a point on a dark plane.
    opaque = points[..., 3] > 0
    assert not (points[..., :3][opaque] == 255).all(axis=-1).any()


def test_contrast_widens_lines_and_darkens_keys(spiral_spec):
    out = themed(spiral_spec, CONTRAST)
    widths = {t["name"]: t["line"]["width"] for t in spiral_spec["data"] if "line" in t}
    for t in out["data"]:
        if t.get("name") in widths and "line" in t:
            assert t["line"]["width"] == pytest.approx(1.5 * widths[t["name"]])
    assert recolour(PALETTE["positive"], CONTRAST) == "#005A9C"


def test_tints_and_greys_follow_the_theme():
    from svmlab.figures.style import tint

    # A tint of a key colour is the same tint of the theme's key colour over
    # the theme's background.
    light = tint(PALETTE["negative"], 0.36)
    key = np.array([int(DARK.keys["#D55E00"][i : i + 2], 16) for i in (1, 3, 5)])
    bg = np.array([int(DARK.background[i : i + 2], 16) for i in (1, 3, 5)])
    want = np.rint(bg + 0.36 * (key - bg)).astype(int)
    got = recolour(light, DARK)
    assert (
        np.abs(np.array([int(got[i : i + 2], 16) for i in (1, 3, 5)]) - want).max() <= 2
    )
    assert recolour("rgba(255,255,255,0.85)", DARK) == "rgba(23,22,20,0.85)"
    assert recolour("white", DARK) == DARK.background
    assert recolour("#000000", DARK) == DARK.ink
    assert recolour("Viridis", DARK) == "Viridis"


def test_every_combination_of_two_themes_keeps_classes_apart():
    for a, b in itertools.combinations(("positive", "negative", "free", "bound"), 2):
        for theme in THEMES.values():
            assert recolour(PALETTE[a], theme) != recolour(PALETTE[b], theme)

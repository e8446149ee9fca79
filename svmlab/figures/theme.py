"""The three themes a figure is drawn in: light (the figures as built), dark and
a high-contrast one for a washed-out projector.

Every figure builder draws in the light theme, with the colours of
:data:`svmlab.figures.style.PALETTE`; :func:`themed` redraws a built figure
(its plain dicts) in another theme, so the builders, and every cache of their
figures that all visitors share, stay theme-free. The rule is one algebra of
colours: each light colour is white, black, a grey between them, one of the
palette's key colours, or a tint of one (the key colour over white at some
opacity, :func:`svmlab.figures.style.tint`). A theme names its background (for
white), its ink (for black) and a colour for each key colour; a grey becomes
the mix of background and ink at the same place, a tint the same opacity of the
theme's key colour over the theme's background. The same rule recolours the
layout images (the decision surface, the points layer, the regions and the
rugs: palette PNGs, whose palettes are recoloured, or PNGs of a few colours)
and the colour scales. A colour outside the algebra (Viridis, a named scale)
is kept.

Contrast (WCAG 2.2): text against the background at least 4.5 : 1, lines and
markers at least 3 : 1 (``tests/test_theme.py`` measures each theme's roles
with the standard's own luminance formula, and the classes and support-vector
states under simulated deuteranopia, protanopia and tritanopia; the browser
matrix measures the rendered pixels).
"""

from __future__ import annotations

import base64
import io
import re
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image

from svmlab.errors import ParameterError

__all__ = [
    "CONTRAST",
    "DARK",
    "LIGHT",
    "THEMES",
    "Theme",
    "recolour",
    "themed",
    "themed_png",
]


@dataclass(frozen=True)
class Theme:
    """One theme: its name (the link's ``theme=`` value), its label, Streamlit's
    base theme under it ("light" or "dark"), its background and ink, the colour
    each light key colour becomes (upper-case ``#RRGGBB`` both), ``grey_gamma``
    (a grey at ``t`` of the way from white to black lands at ``t ** gamma`` of
    the way from background to ink: below 1 darkens the greys of a
    high-contrast theme), ``line_scale`` (line and outline widths times
    this) and ``frame``, the colour of the frame around the number a preset
    points at (at least 3 : 1 on the background, WCAG 2.2's figure for a
    graphic the reader must see)."""

    name: str
    label: str
    base: str
    background: str
    ink: str
    keys: Mapping[str, str] = field(default_factory=dict)
    grey_gamma: float = 1.0
    line_scale: float = 1.0
    # Okabe-Ito's orange darkened: the orange itself is 2.3 : 1 on white.
    frame: str = "#A66F00"

    @property
    def is_light(self) -> bool:
        """True for the light theme itself: figures are drawn as built."""
        return self.name == "light"


#: The figures as the builders draw them (Okabe-Ito on white).
LIGHT = Theme("light", "Light", "light", "#FFFFFF", "#000000")

#: Dark: Streamlit 1.67's dark background (``#171614``) and text (``#EDEBE8``),
#: so a chart is not a box on the page; the key colours lightened where
#: Okabe-Ito's would fall under 4.5 : 1 on it (blue 3.5, vermillion 4.7).
DARK = Theme(
    "dark",
    "Dark",
    "dark",
    "#171614",
    "#EDEBE8",
    keys={
        "#0072B2": "#2E8BD0",  # blue: 4.9 : 1 (Okabe-Ito's 3.5)
        "#D55E00": "#E8772E",  # vermillion: 6.1
        "#CC79A7": "#D98CB9",  # reddish purple: 7.2
        "#009E73": "#1DB88A",  # bluish green: 7.1
        "#8C7A00": "#C9B200",  # the multiclass yellow: 8.5
    },
    frame="#E69F00",  # Okabe-Ito's orange: 8.0 : 1 on the dark background
)

#: High contrast, for a projector that washes colours out: white, black ink,
#: the key colours darkened to at least 4.3 : 1, greys pulled towards the ink,
#: every line and outline half as wide again.
CONTRAST = Theme(
    "contrast",
    "High contrast",
    "light",
    "#FFFFFF",
    "#000000",
    keys={
        "#0072B2": "#005A9C",  # 7.1 : 1
        "#D55E00": "#B34700",  # 5.5
        "#CC79A7": "#A8487E",  # 5.4
        "#009E73": "#007A58",  # 5.4
        "#E69F00": "#A66F00",  # 4.3 (Okabe-Ito's orange: 2.3)
        "#56B4E9": "#1F7CB8",  # 4.5 (sky blue: 2.3)
        "#F0E442": "#8C7A00",  # 4.3 (yellow: 1.3)
        "#8C7A00": "#6B5D00",
    },
    grey_gamma=0.5,
    line_scale=1.5,
    frame="#7A4F00",  # 7.1 : 1, for a projector that washes colours out
)

THEMES: dict[str, Theme] = {t.name: t for t in (LIGHT, DARK, CONTRAST)}

#: The key colours of the light figures (Okabe-Ito's and the few others the
#: builders use), against which a tint is recognised.
_KEY_COLOURS = (
    "#0072B2",
    "#D55E00",
    "#CC79A7",
    "#009E73",
    "#E69F00",
    "#56B4E9",
    "#F0E442",
    "#8C7A00",
)

_NAMED = {
    "white": (255, 255, 255),
    "black": (0, 0, 0),
    "orange": (255, 165, 0),
    "grey": (128, 128, 128),
    "gray": (128, 128, 128),
}
_NUMBER = r"\s*([\d.]+)\s*"
_RGBA = re.compile(rf"rgba?\({_NUMBER},{_NUMBER},{_NUMBER}(?:,{_NUMBER})?\)")


def get(name: str) -> Theme:
    """The theme called ``name`` ("light", "dark", "contrast")."""
    try:
        return THEMES[name]
    except KeyError:
        raise ParameterError(
            f"theme must be one of {', '.join(THEMES)}; got {name!r}."
        ) from None


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(c))):02X}" for c in rgb)


def _parse(colour: str) -> tuple[tuple[int, int, int], float | None] | None:
    """``(rgb, alpha)`` of a CSS colour (``alpha`` None for an opaque form), or
    None for what this module does not read (a colour name it does not know)."""
    text = colour.strip()
    if text.startswith("#"):
        digits = text[1:]
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        if len(digits) == 6 and all(c in "0123456789abcdefABCDEF" for c in digits):
            rgb = tuple(int(digits[i : i + 2], 16) for i in (0, 2, 4))
            return rgb, None  # type: ignore[return-value]
        return None
    match = _RGBA.fullmatch(text)
    if match:
        r, g, b, a = match.groups()
        return (round(float(r)), round(float(g)), round(float(b))), (
            None if a is None else float(a)
        )
    named = _NAMED.get(text.lower())
    return (named, None) if named else None


def _rgb(hexcode: str) -> np.ndarray:
    return np.array([int(hexcode[i : i + 2], 16) for i in (1, 3, 5)], dtype=float)


def _mix(a: str, b: str, t: float) -> np.ndarray:
    """``a`` moved ``t`` of the way to ``b`` (sRGB, as :func:`style.tint`)."""
    return _rgb(a) + t * (_rgb(b) - _rgb(a))


#: Channel tolerance when recognising a grey or a tint (rounded hex codes).
_TOLERANCE = 2.5


def _recolour_rgb(rgb: tuple[int, int, int], theme: Theme) -> tuple[int, int, int]:
    """One opaque colour in ``theme`` (the algebra of the module docstring)."""
    hexcode = _hex(rgb)
    if hexcode in theme.keys:
        return tuple(int(c) for c in _rgb(theme.keys[hexcode]))  # type: ignore[return-value]
    c = np.array(rgb, dtype=float)
    if np.ptp(c) <= _TOLERANCE:  # a grey: t of the way from white to black
        t = float(1.0 - c.mean() / 255.0)
        out = _mix(theme.background, theme.ink, t**theme.grey_gamma)
        return tuple(int(v) for v in np.rint(out))  # type: ignore[return-value]
    for key in _KEY_COLOURS:
        k = _rgb(key)
        room = 255.0 - k
        # c = white + o (k - white): one opacity o for every channel.
        o = float(np.dot(255.0 - c, room) / np.dot(room, room))
        if 0.0 < o <= 1.0 + 1e-9 and np.all(np.abs(255.0 - o * room - c) <= _TOLERANCE):
            target = theme.keys.get(key, key)
            out = _mix(theme.background, target, min(o, 1.0))
            return tuple(int(v) for v in np.rint(out))  # type: ignore[return-value]
    return rgb


@lru_cache(maxsize=4096)
def _recolour_cached(colour: str, name: str) -> str:
    theme = THEMES[name]
    parsed = _parse(colour)
    if parsed is None:
        return colour
    rgb, alpha = parsed
    out = _recolour_rgb(rgb, theme)
    if alpha is None:
        return _hex(out)
    return f"rgba({out[0]},{out[1]},{out[2]},{alpha:g})"


def recolour(colour: Any, theme: Theme) -> Any:
    """``colour`` (a CSS colour string; anything else is returned as it is) in
    ``theme``: white to its background, black to its ink, a grey between, a
    key colour to the theme's, a tint to the same tint of it; any other colour
    unchanged. Opaque colours come back as ``#RRGGBB``, others as ``rgba()``."""
    if theme.is_light or not isinstance(colour, str):
        return colour
    return _recolour_cached(colour, theme.name)


#: Keys whose value is a colour, or a list of colours (one per point).
_COLOUR_KEYS = frozenset(
    {
        "color",
        "bgcolor",
        "bordercolor",
        "fillcolor",
        "linecolor",
        "gridcolor",
        "zerolinecolor",
        "tickcolor",
        "paper_bgcolor",
        "plot_bgcolor",
        "outlinecolor",
        "activecolor",
        "insidetextfont",
    }
)
#: Keys whose numbers are line widths (scaled by ``Theme.line_scale``) when
#: they sit in a ``line`` dict.
_WIDTH_PARENTS = frozenset({"line"})


def _colours(value: Any, theme: Theme) -> Any:
    if isinstance(value, str):
        return recolour(value, theme)
    if isinstance(value, list) and value and isinstance(value[0], str):
        return [recolour(v, theme) for v in value]
    return value


def _scale_pairs(value: Any, theme: Theme) -> Any:
    if isinstance(value, list):
        return [
            [pair[0], recolour(pair[1], theme)]
            if isinstance(pair, (list, tuple)) and len(pair) == 2
            else pair
            for pair in value
        ]
    return value


def _walk(node: Any, theme: Theme, parent: str = "") -> Any:
    """A copy of ``node`` with every colour recoloured (lists of numbers are
    shared, not copied: a figure's coordinates are most of it)."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _COLOUR_KEYS:
                out[key] = _colours(value, theme)
            elif key == "colorscale":
                out[key] = _scale_pairs(value, theme)
            elif key == "source" and isinstance(value, str):
                out[key] = themed_png(value, theme)
            elif (
                key == "width"
                and parent in _WIDTH_PARENTS
                and theme.line_scale != 1.0
                and isinstance(value, (int, float))
            ):
                out[key] = value * theme.line_scale
            elif isinstance(value, (dict, list)):
                out[key] = _walk(value, theme, key)
            else:
                out[key] = value
        return out
    if isinstance(node, list):
        if node and isinstance(node[0], (dict, list)):
            return [_walk(v, theme, parent) for v in node]
        return node
    return node


def _template(theme: Theme) -> dict[str, Any]:
    """What a figure that says nothing of its colours gets: the theme's
    background, ink and axis colours (Plotly's own defaults are for white)."""
    axis = {
        "linecolor": recolour("#444444", theme),
        "gridcolor": recolour("#EEEEEE", theme),
        "zerolinecolor": recolour("#444444", theme),
        "tickcolor": recolour("#444444", theme),
    }
    return {
        "layout": {
            "paper_bgcolor": theme.background,
            "plot_bgcolor": theme.background,
            "font": {"color": recolour("#222222", theme)},
            "xaxis": axis,
            "yaxis": axis,
            "scene": {"xaxis": axis, "yaxis": axis, "zaxis": axis},
            "legend": {"bgcolor": "rgba(0,0,0,0)"},
            "hoverlabel": {
                "bgcolor": theme.background,
                "font": {"color": theme.ink},
                "bordercolor": theme.ink,
            },
        }
    }


def themed(spec: dict[str, Any], theme: Theme) -> dict[str, Any]:
    """The figure ``spec`` (``{"data", "layout"}`` plain dicts, as
    :func:`svmlab.figures.decision_spec` or ``go.Figure.to_dict()`` give)
    redrawn in ``theme``: a new dict (``spec`` is left as it was: caches share
    it); the light theme returns ``spec`` itself."""
    if theme.is_light:
        return spec
    out = _walk(spec, theme)
    layout = out.setdefault("layout", {})
    layout["template"] = _template(theme)
    layout.setdefault("paper_bgcolor", theme.background)
    layout.setdefault("plot_bgcolor", theme.background)
    return out


#: Recoloured images by (theme, source): the decision surface changes on
#: every move of C, the points layer only with the data.
_PNG_CACHE: OrderedDict[tuple[str, str], str] = OrderedDict()
_PNG_CACHE_SIZE = 64
#: A PNG with more colours than this is a picture, not a drawing: kept.
_MOST_COLOURS = 1024


def themed_png(source: str, theme: Theme) -> str:
    """A ``data:image/png;base64,...`` layout image in ``theme``: a palette PNG
    gets its palette recoloured, an RGB(A) PNG of at most 1024 colours each of
    them; anything else (another format, a photograph) is returned as it is."""
    prefix = "data:image/png;base64,"
    if theme.is_light or not source.startswith(prefix):
        return source
    key = (theme.name, source)
    hit = _PNG_CACHE.get(key)
    if hit is not None:
        _PNG_CACHE.move_to_end(key)
        return hit
    out = _recolour_png(source[len(prefix) :], theme)
    result = source if out is None else prefix + out
    _PNG_CACHE[key] = result
    if len(_PNG_CACHE) > _PNG_CACHE_SIZE:
        _PNG_CACHE.popitem(last=False)
    return result


def _recolour_png(payload: str, theme: Theme) -> str | None:
    with Image.open(io.BytesIO(base64.b64decode(payload))) as image:
        image.load()
        if image.mode == "P":
            palette = image.getpalette() or []
            rgb = [tuple(palette[i : i + 3]) for i in range(0, len(palette), 3)]
            mapped = [c for p in rgb for c in _recolour_rgb(p, theme)]
            out = image.copy()
            out.putpalette(mapped)
            if "transparency" in image.info:
                out.info["transparency"] = image.info["transparency"]
        elif image.mode in ("RGB", "RGBA"):
            pixels = np.asarray(image)
            flat = pixels[..., :3].reshape(-1, 3)
            packed = (
                (flat[:, 0].astype(np.int64) << 16)
                | (flat[:, 1].astype(np.int64) << 8)
                | flat[:, 2]
            )
            values, inverse = np.unique(packed, return_inverse=True)
            if values.size > _MOST_COLOURS:
                return None
            table = np.array(
                [
                    _recolour_rgb(((v >> 16) & 255, (v >> 8) & 255, v & 255), theme)
                    for v in values.tolist()
                ],
                dtype=np.uint8,
            )
            new = pixels.copy()
            new[..., :3] = table[inverse].reshape((*pixels.shape[:-1], 3))
            out = Image.fromarray(new, mode=image.mode)
        else:
            return None
    buffer = io.BytesIO()
    keep = out.info.get("transparency")
    save = {} if keep is None else {"transparency": keep}
    out.save(buffer, format="PNG", compress_level=6, **save)
    return base64.b64encode(buffer.getvalue()).decode()

"""The grids of the log sliders and the reading of link values, shared by every
page's URL state (:mod:`svmlab.ui.frame.page_fields`, Explore's included).

One parser of numbers (:func:`parse_number`), one set of phrasings for a
value in a sentence (:func:`shown`, :func:`quoted`) and of encodings
(:func:`encoded`), where Explore and the other pages each had their own. No
streamlit: plain functions of text.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "C_GRID",
    "DELTA_GRID",
    "SIGMA_GRID",
    "encoded",
    "log_grid",
    "nearest",
    "parse_number",
    "query_getter",
    "quoted",
    "shown",
]


def log_grid(low_exp: int, high_exp: int) -> tuple[float, ...]:
    """Log-spaced values from ``10**low_exp`` to ``10**high_exp``: the E12 series
    (1, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2) in every decade.

    Twelve steps a decade (about 21 % each) read like the numbers people type.
    """
    e12 = (1.0, 1.2, 1.5, 1.8, 2.2, 2.7, 3.3, 3.9, 4.7, 5.6, 6.8, 8.2)
    values = [
        float(f"{m * 10.0**e:.3g}") for e in range(low_exp, high_exp) for m in e12
    ]
    return (*values, float(10.0**high_exp))


#: Values of the C slider (typed values may lie anywhere in (0, inf)).
C_GRID: tuple[float, ...] = log_grid(-3, 5)
#: Values of the sigma slider.
SIGMA_GRID: tuple[float, ...] = log_grid(-2, 2)
#: Values of the modified hinge's delta slider: 1-2-5 steps from Lee's 1e-4 (his
#: experiments, and the Model selection page's default) to 0.1, then steps of 0.05,
#: so that every delta the Model selection page offers is on it.
DELTA_GRID: tuple[float, ...] = (
    1e-4,
    2e-4,
    5e-4,
    1e-3,
    2e-3,
    5e-3,
    0.01,
    0.02,
    0.05,
    *(round(0.05 * k, 2) for k in range(2, 20)),
)


def nearest(grid: tuple[float, ...], value: float) -> float:
    """The grid value closest to ``value`` on a log scale (clamped to the ends;
    +inf is the largest value, anything else not positive the first)."""
    if isinstance(value, float) and value == math.inf:
        return max(grid)
    if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
        return grid[0]
    target = math.log(value)
    # A grid may start at 0 (the Regression page's ε): never nearest to a
    # positive value on a log scale.
    return min(grid, key=lambda g: abs(math.log(g) - target) if g > 0 else math.inf)


def shown(value: Any) -> str:
    """A value in a sentence: numbers as ``%g``, never a numpy repr."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return ("∞" if value > 0 else "−∞") if math.isinf(value) else f"{value:g}"
    return str(value)


def quoted(raw: str) -> str:
    """A raw query value in a sentence: short, printable, quoted."""
    text = "".join(c if c.isprintable() else "?" for c in raw[:40])
    return f"'{text}'" + ("…" if len(raw) > 40 else "")


def encoded(value: Any) -> str:
    """A value as a link writes it (``1``/``0`` for flags, the shortest exact
    form for numbers)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return (
            repr(value) if value != int(value) or abs(value) >= 1e16 else f"{value:g}"
        )
    return str(value)


def query_getter(params: Any, notes: list[str] | None = None):
    """``name -> the link's last value for it as a string, or None`` (a missing,
    empty or non-text parameter is None; never raises). A name the link gives
    more than once with different values adds a sentence to ``notes``."""
    said: set[str] = set()

    def all_values(name: str) -> list[str]:
        try:
            if hasattr(params, "get_all"):
                values = params.get_all(name)
            else:
                values = params.get(name)
        except Exception:
            return []
        if isinstance(values, str):
            return [values]
        if isinstance(values, list | tuple):
            return [v for v in values if isinstance(v, str)]
        return []

    def get(name: str) -> str | None:
        values = all_values(name)
        if not values:
            return None
        if notes is not None and len(set(values)) > 1 and name not in said:
            said.add(name)
            listed = ", ".join(quoted(v) for v in values)
            notes.append(
                f"The link gives {name} {len(values)} times ({listed}); "
                f"using the last, {quoted(values[-1])}."
            )
        return values[-1]

    return get


def parse_number(raw: str | None, overflow: bool = False) -> float | None:
    """A finite number, or None; with ``overflow`` a number written out too
    large for a float (a 5,000-digit C) is ±inf, which the range then clamps."""
    try:
        value = float(raw)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if math.isfinite(value):
        return value
    literal = str(raw).strip().lower().lstrip("+-") in ("inf", "infinity", "nan")
    return value if overflow and not math.isnan(value) and not literal else None

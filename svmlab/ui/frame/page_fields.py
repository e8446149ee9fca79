"""The kinds of field a page declares (:mod:`svmlab.ui.frame.page_state`): each knows
its query name, its widget key, its default, what its widget accepts, and how
to read a link's text (``parse``: a malformed value keeps the default with a
sentence in ``errors``, a value outside the widget's range is moved inside it
with a sentence in ``notes``) and write it (``encode``).

One set of sentences for every page, Explore included: a link's value is said
the same way whichever page it opens. No streamlit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from svmlab.ui.frame.link_values import encoded, nearest, parse_number, quoted, shown

__all__ = [
    "Choice",
    "Field",
    "Flag",
    "Grid",
    "Multi",
    "Number",
    "Range",
    "Text",
]


@dataclass(frozen=True)
class Choice:
    """A radio or select box: one of ``options`` (compared as text in a URL)."""

    query: str
    key: str
    options: tuple[Any, ...]
    default: Any
    label: str

    def parse(self, raw: str, errors: list[str], notes: list[str]) -> Any:
        for option in self.options:
            if str(option) == raw:
                return option
        errors.append(
            f"The link's {self.query} = {quoted(raw)} is not one of "
            f"{', '.join(map(str, self.options))}; using {shown(self.default)}."
        )
        return self.default

    def encode(self, value: Any) -> str:
        return str(value)


@dataclass(frozen=True)
class Number:
    """A slider or number box: a number in ``[low, high]`` (whole with
    ``integer``; above 0 with ``positive``, where 0 or less is malformed, not
    clamped)."""

    query: str
    key: str
    default: float | int
    low: float
    high: float
    label: str
    integer: bool = False
    #: The slider's step (None: Streamlit's, 1 or 0.01).
    step: float | None = None
    positive: bool = False
    #: A value between the slider's steps moves to the nearest step, said.
    snap: bool = False
    #: Written exactly in a link (a typed value), not to six digits.
    exact: bool = False

    def parse(self, raw: str, errors: list[str], notes: list[str]) -> float | int:
        value = parse_number(raw, overflow=True)
        if (
            value is None
            or (self.integer and math.isfinite(value) and value != int(value))
            or (self.positive and value <= 0)
        ):
            kind = (
                "a whole number"
                if self.integer
                else "a positive number"
                if self.positive
                else "a number"
            )
            errors.append(
                f"The link's {self.query} = {quoted(raw)} is not {kind}; "
                f"using {shown(self.default)}."
            )
            return self.default
        return self.clamp(value, notes)

    def clamp(self, value: float, notes: list[str]) -> float | int:
        """``value`` inside ``[low, high]`` (and on a step with ``snap``), each
        change said in ``notes``: a number typed into a box goes through here
        too."""
        if not self.low <= value <= self.high:
            end = self.low if value < self.low else self.high
            asked = int(value) if self.integer and math.isfinite(value) else value
            notes.append(
                f"{self.label} = {shown(asked)} is outside the range "
                f"{shown(self.low)} to {shown(self.high)} that this page offers; "
                f"using {shown(end)}."
            )
            value = end
        if self.snap and self.step:
            stop = round(
                self.low + round((value - self.low) / self.step) * self.step, 10
            )
            if stop != value:
                notes.append(
                    f"{self.label} = {shown(value)} is not on its slider; using "
                    f"the nearest value on it, {shown(stop)}."
                )
                value = stop
        return int(value) if self.integer else float(value)

    def encode(self, value: Any) -> str:
        if self.integer:
            return str(int(value))
        return encoded(float(value)) if self.exact else shown(float(value))


@dataclass(frozen=True)
class Grid:
    """A select slider over a grid of numbers (C, σ, δ, tol): a value off the
    grid moves to the nearest stop (on a log scale), with a note."""

    query: str
    key: str
    grid: tuple[float, ...]
    default: float
    label: str

    def __post_init__(self) -> None:
        # The slider shows the stop nearest its fallback: so must the URL.
        object.__setattr__(self, "default", nearest(self.grid, self.default))

    def parse(self, raw: str, errors: list[str], notes: list[str]) -> float:
        value = parse_number(raw, overflow=True)
        if value is None or (value <= 0 and value not in self.grid):
            errors.append(
                f"The link's {self.query} = {quoted(raw)} is not a positive "
                f"number; using {shown(self.default)}."
            )
            return self.default
        stop = nearest(self.grid, value)
        low, high = min(self.grid), max(self.grid)  # tol's grid runs downwards
        if not low <= value <= high:
            notes.append(
                f"{self.label} = {shown(value)} is outside the range "
                f"{shown(low)} to {shown(high)} that this page offers; "
                f"using {shown(stop)}."
            )
        elif stop != value:
            notes.append(
                f"{self.label} = {shown(value)} is not on its slider; using the "
                f"nearest value on it, {shown(stop)}."
            )
        return stop

    def encode(self, value: Any) -> str:
        return shown(float(value))


@dataclass(frozen=True)
class Flag:
    """A checkbox: ``1`` or ``0`` in a URL (``true`` / ``false`` read too)."""

    query: str
    key: str
    default: bool
    label: str

    def parse(self, raw: str, errors: list[str], notes: list[str]) -> bool:
        value = {"1": True, "true": True, "0": False, "false": False}.get(raw.lower())
        if value is None:
            errors.append(
                f"The link's {self.query} = {quoted(raw)} is not 1 or 0; "
                f"using {'1' if self.default else '0'}."
            )
            return self.default
        return value

    def encode(self, value: Any) -> str:
        return "1" if value else "0"


@dataclass(frozen=True)
class Range:
    """A two-handled select slider over a grid (``low:high`` in a URL): each end
    off the grid moves to its nearest stop, and a low above the high is swapped,
    each with a note."""

    query: str
    key: str
    grid: tuple[float, ...]
    default: tuple[float, float]
    label: str

    def parse(
        self, raw: str, errors: list[str], notes: list[str]
    ) -> tuple[float, float]:
        low, sep, high = raw.partition(":")
        ends = (parse_number(low, overflow=True), parse_number(high, overflow=True))
        if not sep or any(v is None or v <= 0 for v in ends):
            errors.append(
                f"The link's {self.query} = {quoted(raw)} is not two positive "
                f"numbers as low:high; using {self.encode(self.default)}."
            )
            return self.default
        stops = tuple(nearest(self.grid, v) for v in ends)  # type: ignore[arg-type]
        if stops != ends:
            notes.append(
                f"{self.label} = {raw} is not on its slider; using the nearest "
                f"values on it, {self.encode(stops)}."
            )
        if stops[0] > stops[1]:
            stops = (stops[1], stops[0])
            notes.append(f"{self.label}: its ends were swapped, low before high.")
        return stops  # type: ignore[return-value]

    def encode(self, value: Any) -> str:
        low, high = value
        return f"{shown(float(low))}:{shown(float(high))}"


@dataclass(frozen=True)
class Multi:
    """A multiselect of ``options`` (comma-separated in a URL); unknown names
    are dropped, each said."""

    query: str
    key: str
    options: tuple[str, ...]
    default: tuple[str, ...]
    label: str

    def parse(self, raw: str, errors: list[str], notes: list[str]) -> list[str]:
        names = [name for name in raw.split(",") if name]
        unknown = [name for name in names if name not in self.options]
        if unknown:
            errors.append(
                f"The link's {self.query} names {', '.join(map(quoted, unknown))}, "
                f"not among {', '.join(self.options)}; left out."
            )
        return [o for o in self.options if o in names]

    def encode(self, value: Any) -> str:
        return ",".join(o for o in self.options if o in value)


@dataclass(frozen=True)
class Text:
    """A value of the page's own kind (an upload's key, a preset's name, compare
    mode's B): ``accept(raw)`` returns the value, or None when ``raw`` is not
    ``expected`` (a phrase: "an upload key of 12 hex digits")."""

    query: str
    key: str
    default: str
    label: str
    accept: Callable[[str], str | None]
    expected: str

    def parse(self, raw: str, errors: list[str], notes: list[str]) -> str:
        value = self.accept(raw)
        if value is None:
            errors.append(
                f"The link's {self.query} = {quoted(raw)} is not {self.expected}; "
                + (f"using {shown(self.default)}." if self.default else "left out.")
            )
            return self.default
        return value

    def encode(self, value: Any) -> str:
        return str(value)


Field = Choice | Number | Grid | Flag | Range | Multi | Text

"""Questions to the room (issue 45, peer instruction): the lecturer asks, every
follower answers on their own device, the room's answers are drawn live on the
projector, then the reveal moves everybody to the answer with the true value
beside the room's.

Three kinds:

- ``"point"``: "where will the boundary go?": a click on the plane; the room's
  clicks are drawn as a density, and the reveal says how many fell inside the
  new margin (|f| ≤ 1 of the model the reveal shows);
- ``"choice"``: "which C gives the fewest support vectors?": one of a few
  choices; the true one is found by fitting each (``options``);
- ``"number"``: "the test error at C = 100?": a number; the true one is
  measured on the settings the reveal moves to.

:data:`QUESTIONS` gives eight of the hub's presets a question. Everything a
follower sends is checked here (:func:`parse_answer`) before the store sees it,
and the room's answers are summarised here (:func:`summary`) for the projector
and the reveal. No Streamlit: the page hands in the fits (``measure_at``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from svmlab.user_text import plain

__all__ = [
    "KINDS",
    "MEASURES",
    "QUESTIONS",
    "BadAnswer",
    "Question",
    "margin_share",
    "parse_answer",
    "summary",
    "truth_of",
]

KINDS = ("point", "choice", "number")
#: The largest number an answer may be (a test error, a count of points).
MAX_NUMBER = 1e9
#: The most choices a question offers, and the longest prompt or choice.
MAX_CHOICES = 6
PROMPT_CHARS = 200
CHOICE_CHARS = 40
#: Bins of a histogram of numbers at most.
MAX_BINS = 12

Changes = tuple[tuple[str, Any], ...]


class BadAnswer(ValueError):
    """An answer that is not one of the question's kind; the sentence says why."""


@dataclass(frozen=True)
class Question:
    """One question. ``reveal``: the settings the reveal moves the page to
    (changes to the lecturer's, as field-value pairs); ``options``: for a
    choice, each choice's changes; ``measure``: the number of the numbers panel
    the true value is (:data:`MEASURES`); ``best``: for a choice, whether the
    true choice has the smallest (``"min"``) or largest measure."""

    kind: str
    prompt: str
    choices: tuple[str, ...] = ()
    unit: str = ""
    reveal: Changes = ()
    options: tuple[Changes, ...] = ()
    measure: str = ""
    best: str = "min"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"a question's kind is one of {KINDS}, not {self.kind!r}")
        if self.kind == "choice" and not 2 <= len(self.choices) <= MAX_CHOICES:
            raise ValueError(f"a choice question has 2 to {MAX_CHOICES} choices")
        if self.options and len(self.options) != len(self.choices):
            raise ValueError("a choice question needs one option per choice")
        if self.measure and self.measure not in MEASURES:
            raise ValueError(f"no measure {self.measure!r}")

    def public(self, bounds: Sequence[float] | None = None) -> dict[str, Any]:
        """What followers are sent (texts cleaned; ``bounds``: the plane's
        ``[x0, x1, y0, y1]``, where a point answer must lie)."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "prompt": plain(self.prompt, PROMPT_CHARS),
            "choices": [plain(c, CHOICE_CHARS) for c in self.choices],
            "unit": plain(self.unit, 8),
        }
        if bounds is not None:
            out["bounds"] = [float(b) for b in bounds]
        return out


#: What a question's true value can be: a number of the fit, as the numbers
#: panel shows it (support vectors as a count, errors in per cent).
MEASURES: dict[str, Callable[[Any], float]] = {
    "support vectors": lambda r: float(r.n_free + r.n_bound),
    "bound SVs": lambda r: float(r.n_bound),
    "training error": lambda r: 100.0 * float(r.train_error),
    "test error": lambda r: (
        float("nan") if r.test_error is None else 100.0 * float(r.test_error)
    ),
}

QUESTIONS: dict[str, Question] = {
    "c_too_small": Question(
        "point",
        "C rises from 0.01 to 100: where will the boundary go? Click on it.",
        reveal=(("C", 100.0),),
    ),
    "c_too_large": Question(
        "choice",
        "Which C gives the fewest support vectors on these two circles?",
        choices=("C = 0.01", "C = 1", "C = 100", "C = 10,000"),
        options=((("C", 0.01),), (("C", 1.0),), (("C", 100.0),), (("C", 10000.0),)),
        measure="support vectors",
    ),
    "sigma_too_small": Question(
        "number",
        "σ grows from 0.1 to 1: how many of the 160 points stay support vectors?",
        reveal=(("sigma", 1.0),),
        measure="support vectors",
    ),
    "sigma_too_large": Question(
        "number",
        "σ shrinks from 30 to 0.5: the training error, in per cent?",
        unit="%",
        reveal=(("sigma", 0.5),),
        measure="training error",
    ),
    "spiral_hinge": Question(
        "choice",
        "Which loss keeps more support vectors on the spiral?",
        choices=("the hinge", "the squared hinge"),
        options=((("loss", "hinge"),), (("loss", "squared_hinge"),)),
        measure="support vectors",
        best="max",
    ),
    "outliers_hinge": Question(
        "point",
        "The ramp loss caps what an outlier costs: where will the boundary go? "
        "Click on it.",
        reveal=(("loss", "ramp"),),
    ),
    "poly_degree_too_high": Question(
        "choice",
        "Which degree of the polynomial kernel gives the lowest test error?",
        choices=("degree 2", "degree 4", "degree 10"),
        options=((("degree", 2),), (("degree", 4),), (("degree", 10),)),
        measure="test error",
    ),
    "linear_cannot_separate": Question(
        "number",
        "With the Gaussian kernel in place of the linear one: the training "
        "error, in per cent?",
        unit="%",
        reveal=(("kernel", "gaussian"),),
        measure="training error",
    ),
}


def parse_answer(question: dict[str, Any], raw: Any) -> Any:
    """A follower's ``raw`` answer (decoded JSON) to ``question`` (its public
    dict) as the store keeps it: ``[x, y]`` within the plane, a choice's index,
    or a finite number; :class:`BadAnswer` otherwise."""
    kind = question.get("kind")
    if kind == "point":
        try:
            x, y = (float(v) for v in raw)
        except (TypeError, ValueError):
            raise BadAnswer("A point is two numbers.") from None
        x0, x1, y0, y1 = question.get("bounds") or (-math.inf, math.inf) * 2
        if not (math.isfinite(x) and math.isfinite(y)):
            raise BadAnswer("A point is two finite numbers.")
        if not (min(x0, x1) <= x <= max(x0, x1) and min(y0, y1) <= y <= max(y0, y1)):
            raise BadAnswer("Click inside the plane.")
        return [round(x, 4), round(y, 4)]
    if kind == "choice":
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise BadAnswer("Pick one of the choices.")
        if not 0 <= raw < len(question.get("choices", ())):
            raise BadAnswer("Pick one of the choices.")
        return raw
    if kind == "number":
        try:
            value = float(str(raw).strip().replace(",", ".").rstrip("%"))
        except ValueError:
            raise BadAnswer("Type a number (like 12.5).") from None
        if not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise BadAnswer("Type a number between -10⁹ and 10⁹.")
        return value
    raise BadAnswer("This question takes no answer.")


def summary(question: dict[str, Any], values: Sequence[Any]) -> dict[str, Any]:
    """The room's answers for the projector and the reveal: ``counts`` per
    choice; a histogram of numbers (``edges``, ``counts``); the points."""
    kind = question.get("kind")
    out: dict[str, Any] = {"answered": len(values)}
    if kind == "choice":
        counts = [0] * len(question.get("choices", ()))
        for v in values:
            counts[v] += 1
        out["counts"] = counts
    elif kind == "number":
        a = np.asarray(values, dtype=np.float64)
        if a.size:
            bins = int(min(MAX_BINS, max(1, len(np.unique(a)))))
            counts, edges = np.histogram(a, bins=bins)
            out["counts"] = counts.tolist()
            out["edges"] = edges.tolist()
            out["median"] = float(f"{float(np.median(a)):.6g}")
    elif kind == "point":
        out["points"] = [list(v) for v in values]
    return out


def truth_of(
    question: Question, measure_at: Callable[[Changes], float]
) -> tuple[Any, str]:
    """The true value of a choice or number question and its sentence;
    ``measure_at(changes)`` fits the lecturer's settings with ``changes`` and
    returns the question's measure."""
    if question.kind == "choice":
        values = [measure_at(changes) for changes in question.options]
        pick = np.nanargmin if question.best == "min" else np.nanargmax
        best = int(pick(values))
        shown = ", ".join(
            f"{c}: {_number(v)}" for c, v in zip(question.choices, values, strict=True)
        )
        return best, f"{question.choices[best]} ({question.measure}: {shown})"
    if question.kind == "number":
        value = measure_at(question.reveal)
        return value, f"{question.measure}: {_number(value)}{question.unit}"
    return None, ""


def margin_share(f_at_clicks: Sequence[float]) -> tuple[float, str]:
    """The share of the room's clicks inside the revealed model's margin
    (|f| ≤ 1) and its sentence."""
    f = np.asarray(f_at_clicks, dtype=np.float64)
    if f.size == 0:
        return float("nan"), "Nobody clicked."
    share = float(np.mean(np.abs(f) <= 1.0))
    return share, (
        f"{100 * share:.0f} % of the room's clicks lie inside the new margin (|f| ≤ 1)."
    )


def _number(value: float) -> str:
    if not math.isfinite(value):
        return "–"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.3g}"

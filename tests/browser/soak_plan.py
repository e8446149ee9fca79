"""The browser soak's plan and its error judge: pure Python, no browser.

Plan. Move ``i`` takes every random choice from its own generator,
``random.Random(f"{seed}-{i}")``: whether to switch page first, the kind of move
and the fractions that pick a widget, an option, a step button or a file from
what the page shows. No choice depends on how many draws earlier moves used or
on what the browser showed them, so the plan is a pure function of the seed (a
replay makes the same choices) and move ``i`` is the same in a 20-move run and a
300-move run. What a choice lands on still depends on the page, which is a
function of the earlier moves.

Judge. An error box is acceptable only when the move just made may provoke it:
each expected message is tied to the kinds of move that can cause it
(:func:`allowed_messages`), e.g. a typed C of 0 ("must be a positive number")
comes from a number input, a malformed file's message from an upload. A box
that was already on the page before the move and was accepted then may stay; a
page revisited through the sidebar may show again a box accepted earlier in the
session. Anything else -- an exception box, a message no move of that kind can
cause (a tol error after clicking "Upload CSV") -- is unexpected.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CSV = ROOT / "tests" / "data" / "csv"
SEED = 20261122

#: Relative weight of each kind of move (an upload move first picks "Upload CSV"
#: when the uploader is hidden: that move is then a radio move).
WEIGHTS = {
    "slider": 6,
    "selectbox": 4,
    "checkbox": 3,
    "radio": 2,
    "number": 3,
    "button": 1,
    "upload": 3,
}
#: Chance that a move is preceded by a switch to another page (same session).
NAVIGATE_P = 0.05
#: A number move clicks a step button with this chance, else types a value.
STEP_P = 0.6
#: An upload move picks a malformed file with this chance, else a good one.
MALFORMED_P = 0.8
TYPED = ("double", "half", "zero")


@dataclass(frozen=True)
class PlannedMove:
    """Every random choice of one move, fixed before the browser starts.

    The fractions in [0, 1) pick from lists the page shows at run time
    (:func:`pick`): ``widget`` one of the visible widgets of ``kind``,
    ``option`` one option, step button or file; ``navigate`` (None: stay) one of
    the other pages' sidebar links, sorted by address.
    """

    index: int
    navigate: float | None
    kind: str
    widget: float
    option: float
    slider_key: str
    number_step: bool
    typed: str
    malformed: bool


def plan_move(seed: int, index: int) -> PlannedMove:
    """Move ``index`` of the soak seeded with ``seed``: its own generator, always
    the same number of draws in the same order."""
    rng = random.Random(f"{seed}-{index}")
    go = rng.random()
    page = rng.random()
    kind = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()))[0]
    return PlannedMove(
        index=index,
        navigate=page if go < NAVIGATE_P else None,
        kind=kind,
        widget=rng.random(),
        option=rng.random(),
        slider_key=rng.choice(["ArrowLeft", "ArrowRight"]),
        number_step=rng.random() < STEP_P,
        typed=rng.choice(TYPED),
        malformed=rng.random() < MALFORMED_P,
    )


def plan_moves(seed: int, count: int) -> list[PlannedMove]:
    """The soak's whole plan: ``count`` moves, a pure function of ``seed``."""
    return [plan_move(seed, i) for i in range(count)]


def plan_as_json(plan: list[PlannedMove]) -> list[dict]:
    return [asdict(m) for m in plan]


def pick(fraction: float, items: list):
    """The item a fraction in [0, 1) lands on (None for an empty list)."""
    if not items:
        return None
    return items[min(int(fraction * len(items)), len(items) - 1)]


# --------------------------------------------------------------------------------
# Which move may provoke which message.

#: Every widget kind; "navigate" and "open" are not moves and provoke nothing.
MOVE_KINDS = frozenset(WEIGHTS)
#: The uploaded file is validated again when a column, the "drop rows" or the
#: "standardise" box or the data source changes.
CSV_KINDS = frozenset({"upload", "checkbox", "selectbox", "radio"})


def csv_phrases() -> list[str]:
    """The expected message of each malformed file in ``tests/data/csv``."""
    expected = json.loads((CSV / "EXPECTED.json").read_text())
    return [case["phrase"] for case in expected["malformed"]]


def allowed_messages(phrases: list[str] | None = None) -> dict[str, frozenset[str]]:
    """Fragment of each legitimate message -> the kinds of move that may provoke it.

    - a malformed file's message: an upload, or a change that revalidates the
      uploaded file (:data:`CSV_KINDS`);
    - a value out of range: a typed number ("must be a positive number" for a C,
      sigma or tol of 0); a range across two widgets ("n_outliers must be at
      most n_samples - 2") also from a slider;
    - the hard margin on overlapping classes, and a solver or machine that a
      non-positive-semidefinite Gram matrix refuses: any change of data or model;
    - column choices and class counts of an uploaded table: the column select
      boxes, an upload, the "drop rows" box; "Only one class" also from the
      sliders and numbers that shrink the training set.
    """
    allowed = {p: CSV_KINDS for p in (csv_phrases() if phrases is None else phrases)}
    allowed.update(
        {
            "must be a positive number": frozenset({"number"}),
            "must be a finite number": frozenset({"number"}),
            "must be at least": frozenset({"number", "slider"}),
            "must be between": frozenset({"number", "slider"}),
            "must be at most": frozenset({"number", "slider"}),
            "The hard-margin SVM has no solution": MOVE_KINDS,
            # A model the kernel's Gram matrix cannot have (the sigmoid is not
            # positive semidefinite): refused with the last picture kept (issue
            # 44, item 7). It depends on the data and the model alike, so on
            # any change of either, as the hard margin's.
            "needs a convex problem": MOVE_KINDS,
            "not positive semidefinite on these points": MOVE_KINDS,
            "is unbounded": MOVE_KINDS,
            "Choose two different feature columns": frozenset({"selectbox", "upload"}),
            "cannot also be a feature": frozenset({"selectbox", "upload"}),
            "is not numeric": frozenset({"selectbox", "upload"}),
            "classes (": frozenset({"selectbox", "upload", "checkbox"}),
            "Only one class": frozenset(
                {"selectbox", "upload", "checkbox", "slider", "number"}
            ),
            # all_rows_nonfinite.csv with the "drop rows" box cleared.
            "contain missing, NaN or infinite values": frozenset(
                {"upload", "checkbox", "selectbox"}
            ),
        }
    )
    return allowed


@dataclass
class ErrorJudge:
    """Decides, after each action, which error boxes on the page it explains."""

    allowed: dict[str, frozenset[str]]
    before: list[str] = field(default_factory=list)
    accepted: set[str] = field(default_factory=set)

    def reason(self, action: str, text: str) -> str | None:
        """Why ``text`` is acceptable after ``action`` (None: it is not)."""
        if not text.startswith("stAlertContentError"):
            return None  # an exception box is never expected
        if text in self.before and text in self.accepted:
            return "still shown from an earlier move"
        if action == "navigate" and text in self.accepted:
            return "shown again on a revisited page"
        for phrase, kinds in self.allowed.items():
            if phrase in text and action in kinds:
                return f"a {action} move may cause {phrase!r}"
        return None

    def judge(self, action: str, texts: list[str]) -> list[dict]:
        """One record per box shown after ``action`` (a move kind, "navigate",
        or "open": a fresh session, which starts with nothing accepted)."""
        if action == "open":
            self.before, self.accepted = [], set()
        records = []
        for text in texts:
            why = self.reason(action, text)
            if why is not None:
                self.accepted.add(text)
            records.append(
                {
                    "action": action,
                    "text": text,
                    "expected": why is not None,
                    "why": why or f"no {action} move causes this",
                }
            )
        self.before = list(texts)
        return records

"""The lecture hall's rooms without a server (issue 45): codes, who may do
what, the caps and the attempt limit with their sentences, the lives of rooms,
what followers are told, the view's encoding and the questions' answers.
The same rules over a real server and over Redis:
tests/browser/test_hall_server.py and tests/browser/test_hall_redis.py."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from svmlab.ui.hall import codes, limits, questions
from svmlab.ui.hall.limits import Refusal
from svmlab.ui.hall.store import MemoryStore
from svmlab.ui.hall.view import STEPS, delta_json, full_json, view_parts


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(clock: Clock) -> tuple[MemoryStore, list[tuple[str, str, dict]]]:
    heard: list[tuple[str, str, dict]] = []
    s = MemoryStore(clock=clock)
    s.listen(
        lambda code, kind, payload: heard.append((code, kind, json.loads(payload)))
    )
    return s, heard


def test_codes_are_six_characters_typed_loosely() -> None:
    made = {codes.new_code() for _ in range(200)}
    assert len(made) == 200
    assert all(len(c) == 6 and set(c) <= set(codes.ALPHABET) for c in made)
    assert len(codes.ALPHABET) ** codes.LENGTH > 5e8  # vs 29**4 = 707,281 before
    assert codes.normalize(" abc-def ".replace("c", "k")) == "ABKDEF"
    for bad in ("ABCDE", "ABCDEFG", "ABC DE0", "[click me](https://e.com)", "A" * 9999):
        assert codes.normalize(bad) is None


def test_only_the_owner_acts_and_followers_hear_each_change(store) -> None:
    s, heard = store
    code, owner = s.open("lecturer", "session-1")
    for act in (
        lambda o: s.publish(code, o, {"a": "1"}),
        lambda o: s.set_paused(code, o, True),
        lambda o: s.ask(code, o, {"kind": "number", "prompt": "?"}),
        lambda o: s.reveal(code, o, {"truth": 1}),
        lambda o: s.close(code, o),
    ):
        assert act("someone else") in (None, False)
    assert heard == [] and s.info(code).version == 0
    assert s.publish(code, owner, {"a": "1", "b": "2"}) == 1
    assert s.publish(code, owner, {"a": "1", "b": "2"}) == 1  # nothing new: no event
    assert s.publish(code, owner, {"a": "1", "b": "3"}) == 2
    assert [h[2] for h in heard] == [
        {"v": 1, "base": 0, "parts": {"a": 1, "b": 2}, "drop": []},
        {"v": 2, "base": 1, "parts": {"b": 3}, "drop": []},
    ]
    heard.clear()
    s.set_paused(code, owner, True)  # followers keep version 2 ...
    s.publish(code, owner, {"a": "5", "b": "3"})
    assert s.view(code) == (2, {"a": "1", "b": "3"})
    s.set_paused(code, owner, False)  # ... and get what they missed at the resume
    assert [(k, p) for _, k, p in heard] == [
        ("status", {"state": "paused"}),
        ("view", {"v": 3, "base": 2, "parts": {"a": 5}, "drop": []}),
        ("status", {"state": "live"}),
    ]
    heard.clear()
    s.set_present(code, owner, False)
    s.set_present(code, owner, True)
    s.close(code, owner)
    assert [p["state"] for _, k, p in heard if k == "status"] == [
        "gone",
        "live",
        "closed",
    ]
    assert s.info(code) is None and s.publish(code, owner, {"a": "6"}) is None


def test_followers_never_extend_a_room_and_a_gone_lecturer_closes_it(
    store, clock
) -> None:
    s, _ = store
    code, owner = s.open("lecturer", "session")
    s.ask(code, owner, {"kind": "choice", "choices": ["a", "b"]})
    qid = s.info(code).question["id"]
    for k in range(10):  # a busy room, its lecturer idle
        clock.now = k * limits.ROOM_SECONDS / 10
        s.attach(code, f"c{k}", f"v{k}", "follow")
        s.answer(code, f"v{k}", qid, 1)
    clock.now = limits.ROOM_SECONDS + 1
    assert s.info(code) is None
    code, owner = s.open("lecturer", "session")
    s.set_present(code, owner, False)
    clock.now += limits.GONE_SECONDS - 1
    assert s.info(code).state == "gone"
    clock.now += 2
    assert s.info(code) is None
    # A page that reconnects to a closed room is told so, not counted as a guess.
    for _ in range(limits.WRONG_CODES_PER_VISITOR + 1):
        with pytest.raises(Refusal) as refused:
            s.find("student", code)
        assert refused.value.reason == "closed"


def test_each_thing_the_owner_does_keeps_the_room_open(store, clock) -> None:
    s, _ = store
    code, owner = s.open("lecturer", "session")
    step = 0.9 * limits.ROOM_SECONDS  # each act comes before the room would end
    for act in (
        lambda: s.publish(code, owner, {"a": "1"}),
        lambda: s.set_paused(code, owner, True),
        lambda: s.ask(code, owner, {"kind": "number", "prompt": "?"}),
        lambda: s.reveal(code, owner, {"truth": 1}),
    ):
        clock.now += step
        assert act() not in (None, False)
    clock.now += step  # idle, but less than ROOM_SECONDS since the last act
    assert s.info(code) is not None
    clock.now += 0.2 * limits.ROOM_SECONDS
    assert s.info(code) is None


def test_each_cap_says_its_sentence(store, monkeypatch) -> None:
    s, _ = store
    monkeypatch.setattr(limits, "MAX_ROOMS", 3)
    monkeypatch.setattr(limits, "MAX_FOLLOWERS", 4)
    rooms = [s.open("a", "s1"), s.open("a", "s2")]
    with pytest.raises(Refusal, match="You have 2 rooms open already"):
        s.open("a", "s3")  # one visitor cannot take the rooms ...
    rooms.append(s.open("b", "s4"))
    with pytest.raises(Refusal, match="The server holds 3 rooms already"):
        s.open("c", "s5")  # ... and the server has room for so many
    (code, owner), (other, _) = rooms[0], rooms[1]
    for k in range(limits.PAGES_PER_VISITOR):
        s.attach(code if k % 2 else other, f"tab{k}", "tabs", "follow")
    with pytest.raises(Refusal, match="in 6 pages already"):
        s.attach(code, "tab-last", "tabs", "follow")
    s.detach(other, "tab0")  # a page that leaves frees its place
    s.attach(code, "tab-last", "tabs", "branched")
    assert s.counts(code).following + s.counts(code).branched == 4
    with pytest.raises(Refusal, match="This room is full: 4 pages"):
        s.attach(code, "x", "someone", "follow")
    s.ask(code, owner, {"kind": "number"})
    qid = s.info(code).question["id"]
    for k in range(limits.ANSWER_CHANGES):
        s.answer(code, "tabs", qid, float(k))
    with pytest.raises(Refusal, match="changed your answer 10 times"):
        s.answer(code, "tabs", qid, 99.0)
    assert [a.value for a in s.answers(code)] == [9.0]
    s.reveal(code, owner, {})
    with pytest.raises(Refusal, match="This question is closed"):
        s.answer(code, "late", qid, 1.0)


def test_wrong_codes_are_limited_per_visitor_and_per_server(store, clock) -> None:
    s, _ = store
    code, _ = s.open("lecturer", "s")
    wrong = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    for _ in range(limits.WRONG_CODES_PER_VISITOR):
        with pytest.raises(Refusal, match="No open room has that code"):
            s.find("guesser", wrong)
    with pytest.raises(Refusal, match="typed 10 wrong codes"):
        s.find("guesser", code)  # even the right code, for a while
    assert s.find("student", code.lower()).code == code
    clock.now += limits.WRONG_WINDOW_SECONDS + 1
    assert s.find("guesser", code).code == code
    # A script that drops its cookie is a new visitor each time: the server's
    # own limit stops it, for every visitor, for a minute.
    for k in range(limits.WRONG_CODES_PER_SERVER):
        with pytest.raises(Refusal):
            s.find(f"fresh{k}", wrong)
    with pytest.raises(Refusal, match="too many wrong room codes"):
        s.find("fresh-again", code)
    clock.now += limits.SERVER_WINDOW_SECONDS + 1
    assert s.find("fresh-again", code).code == code


def _decode(xy: list, grid: dict, steps: bool) -> list[tuple[float, float] | None]:
    """The test's own reading of a packed trace (follower.js reads it so)."""
    out: list[tuple[float, float] | None] = []
    last = None
    for a, b in zip(xy[::2], xy[1::2], strict=True):
        if a is None:
            out.append(None)
            last = None
            continue
        last = (last[0] + a, last[1] + b) if steps and last else (a, b)
        out.append((grid["x0"] + last[0] * grid["q"], grid["y0"] + last[1] * grid["q"]))
    return out


def test_the_view_keeps_each_line_within_half_a_step() -> None:
    from svmlab import SVC, datasets, figures

    X, y = datasets.make("two_circles", n_samples=120, noise=0.1, random_state=0)
    model = SVC(C=10.0, kernel="gaussian", sigma=0.5).fit(X, y)
    spec = figures.decision_spec(model, X, y, bounds=(-1.3, 1.2, -1.25, 1.25))
    parts = view_parts(spec, [("support vectors", "9 / 120")], title="<b>t</b>")
    grid = json.loads(parts["grid"])
    assert grid["q"] == pytest.approx(2.5 / STEPS)
    decoded = {
        t["name"]: (t, steps)
        for name, steps in (("lines", True), ("marks", False))
        for t in json.loads(parts[name])
    }
    originals = [t for t in spec["data"] if t["mode"] in ("lines", "markers")]
    checked = 0
    for trace in originals:
        if trace["name"] not in decoded:
            assert len(trace["x"]) == 1  # a legend's swatch: not sent
            continue
        packed, steps = decoded[trace["name"]]
        points = _decode(packed["xy"], grid, steps)
        for (x, yv), got in zip(
            zip(trace["x"], trace["y"], strict=True), points, strict=True
        ):
            if x is None or not math.isfinite(x):
                assert got is None
                continue
            # Rounding each step would drift; each point rounds once.
            assert abs(got[0] - x) <= grid["q"] / 2 + 1e-12
            assert abs(got[1] - yv) <= grid["q"] / 2 + 1e-12
            checked += 1
    assert checked > 200
    assert "customdata" not in "".join(parts.values())  # the hover data stay home
    assert json.loads(parts["text"])["title"] == "<b>t</b>"  # text: the page sets it
    full = json.loads(full_json(4, parts))
    assert full["v"] == 4 and set(full["parts"]) == set(parts)
    delta = json.loads(delta_json(5, 4, {"link": parts["link"]}, ["image1"]))
    assert delta == {"v": 5, "base": 4, "parts": {"link": ""}, "drop": ["image1"]}


def test_hostile_answers_are_refused_and_the_rest_counted() -> None:
    point = {"kind": "point", "bounds": [-1.0, 1.0, -2.0, 2.0]}
    choice = {"kind": "choice", "choices": ["a", "b", "c"]}
    number = {"kind": "number"}
    assert questions.parse_answer(point, [0.5, -1.5]) == [0.5, -1.5]
    assert questions.parse_answer(choice, 2) == 2
    assert questions.parse_answer(number, " 12,5% ") == 12.5
    for question, raw in (
        (point, [3.0, 0.0]),
        (point, ["nan", 0]),
        (point, "<script>"),
        (choice, 3),
        (choice, True),
        (choice, "1"),
        (number, "1e400"),
        (number, "<img src=x onerror=alert(1)>"),
        (number, float("inf")),
        ({"kind": "essay"}, "text"),
    ):
        with pytest.raises(questions.BadAnswer):
            questions.parse_answer(question, raw)
    rng = np.random.default_rng(0)
    picks = rng.integers(0, 3, size=50).tolist()
    assert questions.summary(choice, picks)["counts"] == [
        picks.count(k) for k in range(3)
    ]
    values = rng.normal(10, 3, size=40).tolist()
    hist = questions.summary(number, values)
    assert sum(hist["counts"]) == 40 and hist["edges"][0] <= min(values)
    assert hist["median"] == pytest.approx(float(np.median(values)), rel=1e-5)


def test_the_truth_of_a_choice_is_the_best_measure() -> None:
    measured = {0.01: 120.0, 1.0: 60.0, 100.0: 45.0, 10000.0: 48.0}
    q = questions.QUESTIONS["c_too_large"]
    truth, text = questions.truth_of(q, lambda changes: measured[dict(changes)["C"]])
    assert truth == 2 and text.startswith("C = 100 (support vectors:")
    share, said = questions.margin_share([0.5, -0.9, 1.5, -3.0])
    assert share == 0.5 and said.startswith("50 %")


def test_at_least_six_presets_carry_a_question() -> None:
    from dataclasses import replace

    from svmlab.ui.frame.presets import EXPLORE, PRESETS

    assert len(questions.QUESTIONS) >= 6
    for name, q in questions.QUESTIONS.items():
        preset = PRESETS[name]
        assert preset.page == EXPLORE
        for changes in (q.reveal, *q.options):
            replace(preset.settings, **dict(changes))  # each names real fields


def test_the_projector_draws_each_kind_of_answer() -> None:
    """Bars per choice (the true one in the accent), a histogram of numbers
    with the true value's line, the clicks over the plane's lines."""
    from svmlab import figures
    from svmlab.figures.style import PALETTE

    choice = {"kind": "choice", "choices": ["C = 0.01", "C = 1", "<b>C</b>"]}
    spec = figures.answers_spec(
        "choice",
        questions.summary(choice, [0, 2, 2]),
        choices=choice["choices"],
        truth=2,
    )
    (bars,) = spec["data"]
    assert list(bars["x"]) == [1, 0, 2] and len(bars["y"]) == 3
    assert "<b>" not in bars["y"][2]  # the lecturer's words, escaped for Plotly
    assert [c == PALETTE["accent"] for c in bars["marker"]["color"]] == [0, 0, 1]

    values = [3.0, 3.5, 4.0, 10.0, 10.0, 11.0]
    spec = figures.answers_spec(
        "number", questions.summary({"kind": "number"}, values), unit=" %", truth=9.5
    )
    (hist,) = spec["data"]
    lefts = np.asarray(hist["x"]) - np.asarray(hist["width"]) / 2
    rights = lefts + np.asarray(hist["width"])
    # Each bar counts the answers in its bin, by hand: [left, right), the last
    # bin closed.
    for k, count in enumerate(hist["y"]):
        last = k == len(lefts) - 1
        inside = [
            v
            for v in values
            if lefts[k] - 1e-9 <= v < rights[k] - 1e-9
            or (last and lefts[k] <= v <= rights[k] + 1e-9)
        ]
        assert count == len(inside), (k, inside)
    assert sum(hist["y"]) == len(values)
    (line,) = spec["layout"]["shapes"]
    assert line["x0"] == line["x1"] == 9.5

    plane = {
        "data": [
            {"mode": "lines", "x": [0, 1], "y": [0, 1], "name": "f = 0"},
            {"mode": "markers", "x": [0.5], "y": [0.5], "name": "points"},
        ],
        "layout": {"xaxis": {"range": [-1, 1]}, "yaxis": {"range": [-1, 1]}},
    }
    clicks = [[0.1, 0.2], [-0.3, 0.4], [0.5, -0.5]]
    spec = figures.answers_spec(
        "point", questions.summary({"kind": "point"}, clicks), plane=plane
    )
    kinds = [t.get("type", "scatter") for t in spec["data"]]
    assert kinds == ["scatter", "histogram2dcontour", "scatter"]  # no data points
    for trace in spec["data"][1:]:
        assert [[x, y] for x, y in zip(trace["x"], trace["y"], strict=True)] == clicks

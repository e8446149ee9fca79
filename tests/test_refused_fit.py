"""A refused fit never blanks a page (issue 44, item 7): the engine's sentence,
and the last picture with every control, or, before any picture, the data.

The reference for what is drawn is the data set itself (generated here), not
the page's own figure code.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from svmlab import datasets
from svmlab.ui.frame.chart import COMPONENT
from tests.pages import EXPLORE, open_page, problems

pytestmark = pytest.mark.usefixtures("fresh_caches")


def _charts(at) -> list[dict]:
    return [
        json.loads(e.proto.bytes)
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    ]


def test_explore_refused_at_once_still_draws_the_data_the_room_and_every_control():
    # The exact QP refuses the sigmoid's indefinite Gram matrix: the session's
    # first fit is refused, so there is no last picture to keep.
    at = open_page(EXPLORE, {"kernel": "sigmoid", "solver": "qp", "n": "60"})
    assert not at.exception
    (sentence,) = problems(at)
    assert "not positive semidefinite" in sentence
    (chart,) = _charts(at)
    s = at.session_state["explore_settings"]
    X, _ = datasets.make("spiral", n_samples=60, random_state=0)
    hover = [t for t in chart["data"] if t.get("hovertemplate")]
    drawn = sum(len(t["x"]) for t in hover)
    assert s.test_fraction == 0.2 and 46 <= drawn <= 50  # the 80 % that train
    xs = np.concatenate([t["x"] for t in hover])
    assert xs.min() >= X[:, 0].min() - 1e-3 and xs.max() <= X[:, 0].max() + 1e-3
    assert at.button(key="hall_open")  # the room row is there
    assert at.selectbox(key="explore_kernel").value == "sigmoid"
    assert at.selectbox(key="explore_solver").value == "qp"
    # A solver that takes it draws the model, as ever.
    at.selectbox(key="explore_solver").set_value("smo").run()
    assert not problems(at), problems(at)
    assert any("f = 0" in t.get("name", "") for t in _charts(at)[0]["data"])


def test_explore_refused_later_keeps_the_last_picture():
    at = open_page(EXPLORE, {"n": "60"})
    assert not problems(at)
    at.selectbox(key="explore_kernel").set_value("sigmoid").run()
    at.selectbox(key="explore_solver").set_value("qp").run()
    assert "not positive semidefinite" in problems(at)[0]
    assert any("last one that could be drawn" in c.value for c in at.caption)
    main = _charts(at)[0]
    assert any("f = 0" in t.get("name", "") for t in main["data"])
    s = at.session_state["explore_settings"]
    assert (s.kernel, s.solver, s.n) == ("sigmoid", "qp", 60)

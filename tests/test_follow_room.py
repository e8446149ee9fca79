"""Rooms that follow a lecturer (issue 33): the room table on its own, then a
lecturer's and followers' Explore pages under AppTest (one process, one table;
the push that reruns a follower's page by itself is the server's, driven in
Streamlit's protocol by tests/browser/test_follow_room_protocol.py)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from svmlab.ui.explore import follow_panel
from svmlab.ui.frame import follow_rooms
from svmlab.ui.frame.follow_rooms import Rooms
from tests.pages import EXPLORE, open_page, page_test, problems


def test_only_the_owner_publishes_and_followers_are_told() -> None:
    told: list[str] = []
    rooms = Rooms(notify=lambda session, hint: told.append(session))
    room, owner = rooms.open("s0")
    assert re.fullmatch(r"[A-Z2-9]{4}", room.code)
    rooms.join(room.code.lower(), "a")
    rooms.join(room.code, "b")
    assert rooms.publish(room.code, "not the owner", "s1") == []
    assert room.state == "s0"
    assert sorted(rooms.publish(room.code, owner, "s1")) == ["a", "b"]
    assert rooms.publish(room.code, owner, "s1") == []  # nothing changed
    rooms.join(room.code, "b", branched=True)
    assert rooms.publish(room.code, owner, "s2") == ["a"] and room.following == 1
    assert not rooms.set_paused(room.code, "x", True)
    assert rooms.set_paused(room.code, owner, True)
    told.clear()
    assert rooms.publish(room.code, owner, "s3") == [] and room.version == 3
    rooms.set_paused(room.code, owner, False)
    assert told == ["a"]  # resuming tells them what they missed
    assert not rooms.close(room.code, "x") and rooms.close(room.code, owner)
    assert rooms.get(room.code) is None and rooms.join(room.code, "c") is None
    assert rooms.publish(room.code, owner, "s4") == []


def test_rooms_expire_and_are_bounded() -> None:
    now = [0.0]
    rooms = Rooms(clock=lambda: now[0])
    room, _ = rooms.open(None)
    now[0] = follow_rooms.ROOM_SECONDS + 1
    assert rooms.get(room.code) is None and room.closed
    for _ in range(follow_rooms.MAX_ROOMS):
        assert rooms.open(None) is not None
    assert rooms.open(None) is None


@pytest.fixture
def fresh_rooms():
    follow_panel.ROOMS.clear()
    yield follow_panel.ROOMS
    follow_panel.ROOMS.clear()


def _settings(at):
    return replace(at.session_state["explore_settings"], classroom=False)


def _edits(at):
    e = at.session_state["explore_edits"]
    return e["added"], e["removed"], e["moved"]


def test_followers_see_the_lecturers_page_branch_and_come_back(fresh_rooms) -> None:
    lecturer = open_page(EXPLORE, {"n": "40"})
    lecturer.button(key="explore_room_open").click().run()
    code = lecturer.session_state[follow_panel.OWN_KEY][0]
    assert any(code in h.proto.body for h in lecturer.get("html"))
    lecturer.select_slider(key="explore_C_slider").set_value(100.0).run()
    lecturer.selectbox(key="explore_dataset").set_value("moons").run()

    followers = []
    for _ in range(2):
        at = page_test(EXPLORE)
        at.query_params["follow"] = code.lower()
        followers.append(at.run())
    for at in followers:
        assert not problems(at)
        assert _settings(at) == _settings(lecturer)
        assert "Following room" in at.info[0].value
    assert fresh_rooms.get(code).following == 2

    # The lecturer moves on: each follower's next run shows the new state.
    lecturer.select_slider(key="explore_sigma_slider").set_value(1.5).run()
    lecturer.radio(key="explore_tool").set_value("inspect").run()
    lecturer.button(key="explore_inspect_delete").click().run()
    for at in followers:
        at.run()
        assert _settings(at) == _settings(lecturer)
        assert _edits(at) == _edits(lecturer)

    # A follower who moves C has branched off: the lecturer is not changed,
    # and the lecturer's next move leaves that follower alone.
    mine, other = followers
    mine.select_slider(key="explore_C_slider").set_value(1.0).run()
    assert mine.session_state[follow_panel.FOLLOW_KEY]["branched"]
    assert _settings(lecturer).C == 100.0
    lecturer.run()
    assert _settings(lecturer).C == 100.0
    assert fresh_rooms.get(code).following == 1
    lecturer.select_slider(key="explore_C_slider").set_value(10.0).run()
    mine.run()
    other.run()
    assert _settings(mine).C == 1.0 and _settings(other).C == 10.0
    # One click back to the lecturer.
    mine.button(key="explore_room_back_button").click().run()
    assert _settings(mine) == _settings(lecturer)

    # Paused: followers keep what they see; closed: they hear nothing again.
    lecturer.toggle(key="explore_room_pause").set_value(True).run()
    lecturer.select_slider(key="explore_C_slider").set_value(1000.0).run()
    other.run()
    assert _settings(other).C == 10.0
    lecturer.toggle(key="explore_room_pause").set_value(False).run()
    other.run()
    assert _settings(other).C == 1000.0
    lecturer.button(key="explore_room_close").click().run()
    lecturer.select_slider(key="explore_C_slider").set_value(1.0).run()
    other.run()
    assert _settings(other).C == 1000.0
    assert "is closed" in other.info[0].value
    assert not problems(lecturer) and not problems(other)


def test_a_room_opens_in_classroom_mode_from_the_title_row(fresh_rooms) -> None:
    """Classroom mode hides the row above the numbers until a room is open, so
    the Room popover sits in the title row there; once open, the code shows big
    above the numbers and the title row's popover goes (one set of its keys)."""
    lecturer = open_page(EXPLORE, {"n": "40", "classroom": "1"})
    assert not problems(lecturer)
    lecturer.button(key="explore_room_open").click().run()
    assert not problems(lecturer)
    code = lecturer.session_state[follow_panel.OWN_KEY][0]
    assert any(code in h.proto.body for h in lecturer.get("html"))
    assert lecturer.session_state["explore_settings"].classroom
    follower = page_test(EXPLORE)
    follower.query_params["follow"] = code
    assert not problems(follower.run())
    assert fresh_rooms.get(code).following == 1


def test_a_pushed_run_sends_its_link_whatever_query_it_started_from(
    fresh_rooms, monkeypatch
) -> None:
    """The follower's address bar (issue 33): a run the server pushes starts
    from the session's saved query, which Streamlit refreshes only when the
    session's script thread ends; two pushes in a row (C 10 → 12 → 10) start
    the second from C=10 while the browser shows C=12. The run that takes the
    room's state must send its link even when it equals that stale query."""
    from streamlit.runtime.state.query_params import QueryParams

    sent: list[dict] = []
    original = QueryParams._send_query_param_msg

    def spy(self) -> None:
        sent.append(dict(self._query_params))
        original(self)

    monkeypatch.setattr(QueryParams, "_send_query_param_msg", spy)
    lecturer = open_page(EXPLORE, {"n": "40"})
    lecturer.button(key="explore_room_open").click().run()
    code = lecturer.session_state[follow_panel.OWN_KEY][0]
    follower = page_test(EXPLORE)
    follower.query_params["follow"] = code
    follower.run()
    start = dict(follower.query_params)  # the link at C = 10: the saved query
    lecturer.select_slider(key="explore_C_slider").set_value(100.0).run()
    follower.run()  # the first push: the browser's address bar shows C = 100
    assert follower.query_params["C"] == "100"
    lecturer.select_slider(key="explore_C_slider").set_value(10.0).run()
    # The second push starts from the query saved before the first.
    follower.query_params.clear()
    follower.query_params.update(start)
    sent.clear()
    follower.run()
    assert _settings(follower).C == 10.0
    assert sent, "the run took the room's state but sent no link"

    def one(params) -> dict[str, str]:
        return {k: v if isinstance(v, str) else v[-1] for k, v in params.items()}

    assert one(sent[-1]) == one(lecturer.query_params)


def test_a_room_carries_uploaded_data_bounded_in_size() -> None:
    rooms = Rooms()
    room, owner = rooms.open(None)
    rooms.publish(room.code, owner, "s1", data=("points", follow_rooms.MAX_DATA_POINTS))
    assert room.data == "points"
    rooms.publish(
        room.code, owner, "s2", data=("more", follow_rooms.MAX_DATA_POINTS + 1)
    )
    assert room.data is None  # too big: not carried
    rooms.publish(room.code, owner, "s3")
    assert room.data is None


def test_uploaded_data_and_edited_points_travel_to_two_followers(fresh_rooms) -> None:
    """The lecturer uploads a CSV and deletes a point of it; two followers who
    never saw the file show the same data, the same points and the same fit."""
    from pathlib import Path

    import numpy as np

    from svmlab.datasets import csv_data
    from svmlab.ui.explore import cache, upload

    name = "good_comma_header.csv"
    content = (Path(__file__).parent / "data" / "csv" / name).read_bytes()
    lecturer = open_page(EXPLORE, {"n": "40"})
    lecturer.button(key="explore_room_open").click().run()
    code = lecturer.session_state[follow_panel.OWN_KEY][0]
    followers = []
    for _ in range(2):
        at = page_test(EXPLORE)
        at.query_params["follow"] = code
        followers.append(at.run())
    lecturer.radio(key=upload.SOURCE_KEY).set_value(upload.UPLOAD_CSV).run()
    lecturer.file_uploader(key=upload.FILE_KEY).set_value((name, content, "text/csv"))
    lecturer.run()
    assert _settings(lecturer).upload and not problems(lecturer)
    lecturer.radio(key="explore_tool").set_value("inspect").run()
    lecturer.number_input(key="explore_inspect_point").set_value(2).run()
    lecturer.button(key="explore_inspect_delete").click().run()
    assert _edits(lecturer)[1] == (2,)
    # The file's points, read by the engine directly (not through any page).
    X_file, y_file, _ = csv_data.to_dataset(csv_data.read_table(content))
    for at in followers:
        at.run()
        assert not problems(at)
        assert _settings(at) == _settings(lecturer)
        assert _edits(at) == _edits(lecturer)
        mine = at.session_state[cache.LAST_GOOD_KEY][-1]
        theirs = lecturer.session_state[cache.LAST_GOOD_KEY][-1]
        np.testing.assert_array_equal(mine.X, theirs.X)
        np.testing.assert_array_equal(mine.model.alpha_, theirs.model.alpha_)
        # Every point the follower fits is one of the file's (one deleted).
        rows = {tuple(p) for p in X_file}
        assert all(tuple(p) in rows for p in mine.X)
        assert len(mine.y) < len(y_file)

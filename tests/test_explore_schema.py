"""Explore on the one state schema (issue 30, item 2): its fields are declared
once (:data:`svmlab.ui.explore.fields.EXPLORE_STATE`, a ``PageState`` like every
page's), its link is read and said by the shared mechanism in the same sentences
as on Losses, and its C widget is drawn by the same shared function as Losses'.
"""

from __future__ import annotations

import pytest

from svmlab.ui.explore.fields import EXPLORE_STATE, KEYS
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame import model_block
from svmlab.ui.frame.page_state import PageState
from tests.pages import EXPLORE, PAGES, notes, open_page, problems

pytestmark = pytest.mark.usefixtures("fresh_caches")

LOSSES = str(PAGES / "4_Losses.py")


def test_explore_declares_its_fields_in_the_shared_schema() -> None:
    assert isinstance(EXPLORE_STATE, PageState)
    declared = {f.key for f in EXPLORE_STATE.fields}
    # Every setting but the data source's own (data set, seed, n, noise) is a
    # declared field, and the settings' defaults are the fields' defaults.
    own = {"dataset", "seed", "n", "noise"}
    assert {key for name, key in KEYS.items() if name not in own} == declared
    s = ExploreSettings()
    for f in EXPLORE_STATE.fields:
        name = next(n for n, k in KEYS.items() if k == f.key)
        assert getattr(s, name) == f.default, name


def test_a_data_set_s_model_defaults_come_from_the_schema() -> None:
    values = EXPLORE_STATE.values({"data": "outlier_blobs"})
    assert values["explore_kernel"] == "linear" and values["explore_C"] == 1.0
    assert EXPLORE_STATE.query(values) == {"data": "outlier_blobs"}
    # A malformed C falls back to *this data set's* C, said so.
    errors: list[str] = []
    values = EXPLORE_STATE.values({"data": "outlier_blobs", "C": "x"}, errors)
    assert values["explore_C"] == 1.0
    assert errors == ["The link's C = 'x' is not a positive number; using 1."]


@pytest.mark.parametrize(
    ("script", "C_default"), [(EXPLORE, "10"), (LOSSES, "1")], ids=["explore", "losses"]
)
def test_a_malformed_and_an_out_of_range_link_value_are_said_alike(
    script: str, C_default: str
) -> None:
    """The same sentences on Explore as on Losses: the malformed value as an
    error, the clamped one as a note, each once."""
    at = open_page(script, {"C": "abc", "sigma": "1e9"}, default_timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    errors = problems(at)
    assert errors == [
        f"The link's C = 'abc' is not a positive number; using {C_default}."
    ]
    (note,) = [i for i in notes(at) if "σ = 1e+09" in i]
    assert "σ = 1e+09 is outside the range" in note and "that this page offers" in note
    at.run()
    assert not at.error and not [i for i in notes(at) if "σ = 1e+09" in i]


def test_explore_and_losses_draw_c_with_the_same_shared_function(monkeypatch) -> None:
    """C's widget on both pages is the shared model block's ``draw_field``: a
    wrapper around it sees both pages' C fields go through it."""
    seen: list[tuple[str, str]] = []
    original = model_block.draw_field

    def spy(field, *args, **kwargs):
        seen.append((field.query, field.key))
        return original(field, *args, **kwargs)

    monkeypatch.setattr(model_block, "draw_field", spy)
    at = open_page(EXPLORE, {"n": "60"}, default_timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    assert ("C", "explore_C") in seen
    # Every model widget of Explore's sidebar comes through it too.
    for name in ("kernel", "loss", "bias", "machine", "hard_margin", "tol"):
        assert (KEYS[name].removeprefix("explore_"), KEYS[name]) in [
            (q if q != "hard" else "hard_margin", k) for q, k in seen
        ], name
    seen.clear()
    at = open_page(LOSSES, default_timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    assert ("C", "losses_C") in seen


def test_a_typed_c_is_clamped_by_the_schema_s_rule() -> None:
    """The number typed into Explore's C box goes through the field's own clamp
    (the sentence of a link's out-of-range C)."""
    at = open_page(EXPLORE, {"n": "60"}, default_timeout=180)
    at.number_input(key="explore_C").set_value(5e11).run()
    (note,) = [w.value for w in at.warning if "outside the range" in w.value]
    notes: list[str] = []
    ExploreSettings.from_query({"C": "5e11"}, notes)
    assert note == notes[0]

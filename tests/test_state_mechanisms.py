"""Which of Streamlit's own state mechanisms svmlab uses, and why the rest stays
its own (issue 30), each shown on a small script of Streamlit 1.67.

- ``bind="query-params"`` (a widget's value kept in the URL under its key) drops
  a malformed or out-of-range link value without a word and falls back to the
  widget's default; svmlab's rule is to say it, and to clamp an out-of-range
  number to its end (``C=99`` on a slider to 10 is 10, not the default). Its URL
  names are the widget keys (``losses_C``), and a bound parameter cannot be set
  through ``st.query_params``, which a preset's link (it wins over the session's
  values) needs; Explore's links name ``C``, not ``explore_C``, and a data
  set's link changes the defaults of kernel, C and σ, which a bound widget's
  fixed default cannot. So the URL state stays :mod:`svmlab.ui.frame.page_state`'s,
  Explore's included (:data:`svmlab.ui.explore.fields.EXPLORE_STATE`).
- ``persist_state`` keeps a widget's value while the widget is not drawn; svmlab
  uses it for every widget a page hides (the model block's, the data block's).
"""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from svmlab.ui.explore.fields import EXPLORE_STATE
from svmlab.ui.frame.page_state import LOSSES_STATE

BOUND = """
import streamlit as st
v = st.slider("C", 1, 10, 3, key="C", bind="query-params")
st.write("value", v)
if not st.toggle("hide", key="hide"):
    st.slider("w", 1, 10, 5, key="w", persist_state="page")
"""


def _script(tmp_path: Path) -> str:
    path = tmp_path / "bound.py"
    path.write_text(BOUND)
    return str(path)


def test_a_bound_widget_drops_a_bad_link_value_without_a_word(tmp_path) -> None:
    for raw in ("banana", "99"):
        at = AppTest.from_file(_script(tmp_path))
        at.query_params["C"] = raw
        at.run()
        assert at.slider(key="C").value == 3  # the default, not 10 for "99"
        assert not at.error and not at.info and not at.warning
        assert "C" not in at.query_params  # the link's value is gone
    # svmlab's URL state says both, and clamps the number to its end.
    errors: list[str] = []
    notes: list[str] = []
    values = LOSSES_STATE.values({"count": "banana", "C": "1e9"}, errors, notes)
    assert values["losses_count"] == 5 and values["losses_C"] == 1e4
    assert any("'banana'" in e for e in errors)
    assert any("outside the range" in n for n in notes)
    # Explore's link too, through the same schema.
    errors, notes = [], []
    values = EXPLORE_STATE.values({"C": "banana", "sigma": "1e9"}, errors, notes)
    assert values["explore_C"] == 10.0 and values["explore_sigma"] == 1000.0
    assert errors == ["The link's C = 'banana' is not a positive number; using 10."]
    assert any("σ = 1e+09 is outside the range" in n for n in notes)


def test_persist_state_keeps_a_hidden_widgets_value(tmp_path) -> None:
    at = AppTest.from_file(_script(tmp_path)).run()
    at.slider(key="w").set_value(8).run()
    at.toggle(key="hide").set_value(True).run()
    at.toggle(key="hide").set_value(False).run()
    assert at.slider(key="w").value == 8


def test_the_pages_settings_survive_a_hidden_widget_and_a_page_switch() -> None:
    """svmlab's state widgets are persist_state="session" (the model block, the
    data block, the page's own): a slider hidden under an upload, and every
    setting across a visit to another page, come back as they were."""
    from tests.pages import page_test

    at = page_test("pages/4_Losses.py", default_timeout=180).run()
    at.slider(key="losses_outlier_blobs_n_samples").set_value(40).run()
    at.slider(key="losses_count").set_value(9).run()
    at.select_slider(key="losses_C").set_value(10.0).run()
    at.radio(key="losses_source").set_value("Upload CSV").run()  # sliders hidden
    at.radio(key="losses_source").set_value("Generator").run()
    assert at.slider(key="losses_outlier_blobs_n_samples").value == 40
    at.switch_page("pages/hub.py").run()
    at.switch_page("pages/4_Losses.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.slider(key="losses_count").value == 9
    assert at.select_slider(key="losses_C").value == 10.0
    assert at.slider(key="losses_outlier_blobs_n_samples").value == 40

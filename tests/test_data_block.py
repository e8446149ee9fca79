"""The data source block written once (issue 30, item 3): Explore and the other
pages draw a generator slider through the same shared function, its dependent
rule is the same on both, and a refused CSV file says the same sentence."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from svmlab import datasets
from svmlab.datasets import csv_data
from svmlab.errors import DataError
from svmlab.ui.explore import upload
from svmlab.ui.frame import data_source
from tests.pages import EXPLORE, PAGES, notes, open_page, page_test

pytestmark = pytest.mark.usefixtures("fresh_caches")

LOSSES = str(PAGES / "4_Losses.py")
SELECTION = str(PAGES / "2_Model_selection.py")


def test_explore_and_model_selection_draw_a_slider_with_one_function(
    monkeypatch,
) -> None:
    """A wrapper around the shared slider sees both pages' two-circles radius
    go through it (each under its own page's key)."""
    seen: list[tuple[str, str]] = []
    original = data_source.param_slider

    def spy(p, dataset, key_of, *args, **kwargs):
        seen.append((p.name, key_of(p.name)))
        return original(p, dataset, key_of, *args, **kwargs)

    monkeypatch.setattr(data_source, "param_slider", spy)
    at = open_page(EXPLORE, {"data": "two_circles", "n": "60"}, default_timeout=180)
    assert not at.exception, [e.value for e in at.exception]
    assert ("r_inner", "explore_dp_r_inner") in seen
    assert ("n_samples", "explore_n") in seen
    seen.clear()
    at = open_page(SELECTION, default_timeout=180)  # two circles by default
    assert not at.exception, [e.value for e in at.exception]
    assert ("r_inner", "selection_two_circles_r_inner") in seen
    assert ("n_samples", "selection_two_circles_n_samples") in seen


def test_a_dependent_slider_follows_on_another_page_as_on_explore() -> None:
    """Moving the inner radius past the outer one raises the outer on Model
    selection as on Explore, said in the engine rule's sentence."""
    _, (sentence,) = datasets.consistent_params(
        "two_circles", {"r_inner": 1.3, "r_outer": 0.75}, moved="r_inner"
    )
    assert sentence.startswith("Outer radius raised from 0.75 to 1.35")
    for script, key in (
        (EXPLORE, "explore_dp_r_"),
        (SELECTION, "selection_two_circles_r_"),
    ):
        at = open_page(script, {"data": "two_circles"}, default_timeout=180)
        at.slider(key=key + "inner").set_value(1.3).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.slider(key=key + "outer").value == 1.35, script
        assert sentence in notes(at), script


def _refused(script: str, source_key: str, file_key: str, data: bytes) -> AppTest:
    at = page_test(script, default_timeout=180).run()
    at.radio(key=source_key).set_value("Upload CSV").run()
    at.file_uploader(key=file_key).set_value(("bad.csv", data, "text/csv"))
    return at.run()


@pytest.mark.parametrize(
    "data",
    [b"x1,x2,label\n1,2,a\n3,4,a\n5,6,a\n", b"only one column\n1\n2\n"],
    ids=["one-class", "one-column"],
)
def test_a_refused_csv_says_the_same_sentence_on_explore_and_losses(
    data: bytes,
) -> None:
    """The reader's own sentence, under the uploader on both pages."""
    try:
        csv_data.to_dataset(csv_data.read_table(data))
    except DataError as error:
        reference = str(error)
    else:
        raise AssertionError("the file was meant to be refused")
    sidebars = []
    for script, source_key, file_key in (
        (EXPLORE, upload.SOURCE_KEY, upload.FILE_KEY),
        (LOSSES, "losses_source", "losses_file"),
    ):
        at = _refused(script, source_key, file_key, data)
        assert not at.exception, [e.value for e in at.exception]
        sidebar = [e.value for e in at.sidebar.error]
        assert len(sidebar) == 1, (script, sidebar)
        # Escaped for markdown: the reference's words, backslashes aside.
        assert sidebar[0].replace("\\", "") == reference.replace("\\", "")
        sidebars.append(sidebar[0])
    assert sidebars[0] == sidebars[1]


@pytest.mark.parametrize(
    ("script", "source_key", "file_key"),
    [
        (EXPLORE, upload.SOURCE_KEY, upload.FILE_KEY),
        (LOSSES, "losses_source", "losses_file"),
    ],
    ids=["explore", "losses"],
)
def test_a_file_is_parsed_once_over_reruns(
    monkeypatch, script, source_key, file_key
) -> None:
    """The shared reader keeps the last file's table: reruns (any widget
    moved) do not parse the file again, on Explore as on Losses."""
    calls: list[int] = []
    original = csv_data.read_table

    def counting(data, *args, **kwargs):
        calls.append(len(data))
        return original(data, *args, **kwargs)

    monkeypatch.setattr(csv_data, "read_table", counting)
    data = b"x1,x2,label\n0,0,a\n1,1,b\n0,1,a\n1,0,b\n2,2,a\n3,1,b\n"
    at = page_test(script, default_timeout=180).run()
    at.radio(key=source_key).set_value("Upload CSV").run()
    at.file_uploader(key=file_key).set_value(("ok.csv", data, "text/csv"))
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    at.run()
    at.run()
    assert calls == [len(data)]

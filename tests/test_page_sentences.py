"""Sentences that fit their page (issue 27, item 12): each promise, hint and
summary a page writes is true of that page and of the numbers it shows."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab import datasets
from svmlab.errors import counted
from svmlab.experiments.multiclass_compare import MethodResult
from svmlab.ui.explore.settings import ExploreSettings
from svmlab.ui.frame.page_state import LOSSES_STATE
from svmlab.ui.losses import requests
from svmlab.ui.multiclass.requests import story
from tests.pages import EXPLORE, PAGES, notes, open_page, page_test, problems

pytestmark = pytest.mark.usefixtures("fresh_caches")


def _nan_csv() -> bytes:
    X, y = datasets.make_blobs(40, random_state=2)
    rows = [f"{a:.3f},{b:.3f},{int(c)}" for (a, b), c in zip(X, y, strict=True)]
    rows[5] = "nan,1.0,1"
    return ("x1,x2,label\n" + "\n".join(rows)).encode()


@pytest.mark.parametrize(
    ("script", "prefix"),
    [
        ("4_Losses.py", "losses"),
        ("5_Solvers.py", "solvers"),
        ("2_Model_selection.py", "selection"),
        ("6_Multiclass.py", "multiclass"),
    ],
)
def test_the_nan_rows_hint_names_a_box_the_page_has(script: str, prefix: str):
    at = page_test(str(PAGES / script), default_timeout=180).run()
    at.radio(key=f"{prefix}_source").set_value("Upload CSV").run()
    at.file_uploader(key=f"{prefix}_file").set_value(("d.csv", _nan_csv(), "text/csv"))
    at.run()
    assert not at.exception
    shown = [e.value.replace("\\", "") for e in at.error]  # markdown-escaped
    assert any("Tick 'drop those rows'" in e for e in shown), shown
    at.checkbox(key=f"{prefix}_drop").check().run()
    assert not problems(at), problems(at)


def test_an_explore_link_says_what_it_could_not_use() -> None:
    notes: list[str] = []
    s = ExploreSettings.from_query({"solver": "qp", "loss": "ramp"}, notes)
    assert s.solver == "auto"
    assert any("'qp' cannot handle the ramp loss" in n for n in notes), notes
    notes = []
    s = ExploreSettings.from_query({"solver": "coordinate"}, notes)
    assert s.solver == "auto" and any("unregularized bias" in n for n in notes)
    notes = []
    s = ExploreSettings.from_query({"C": ["1", "2"]}, notes)
    assert s.C == 2.0 and notes == [
        "The link gives C 2 times ('1', '2'); using the last, '2'."
    ]
    notes = []
    s = ExploreSettings.from_query({"C": "9" * 5000}, notes)
    assert s.C == 1e10 and notes and "outside the range" in notes[0]
    assert "not understood" not in notes[0]
    # The other pages' links too.
    errors, notes = [], []
    values = LOSSES_STATE.values({"C": "9" * 5000, "count": ["3", "4"]}, errors, notes)
    assert values["losses_C"] == 10_000.0 and not errors
    assert any("gives count 2 times" in n for n in notes), notes


def test_explore_says_the_link_notes_on_the_page() -> None:
    at = open_page(EXPLORE, {"solver": "coordinate", "n": "60"})
    assert not problems(at)
    assert any("'coordinate' cannot handle" in i for i in notes(at))


def test_solvers_page_says_why_nothing_was_recorded() -> None:
    link = {"hard": "1", "loss": "ramp"}
    at = open_page(PAGES / "5_Solvers.py", link, default_timeout=120)
    assert not problems(at)
    (note, *_) = [i.value for i in at.info if "Nothing was recorded" in i.value]
    assert "'cccp' cannot handle the hard margin" in note


def test_counts_agree_with_their_nouns() -> None:
    assert counted(1, "iteration") == "1 iteration"
    assert counted(2, "iteration") == "2 iterations"
    assert counted(1000, "seed") == "1,000 seeds"
    import warnings

    from svmlab import SVC

    X, y = datasets.make_blobs(40, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SVC(max_iter=1, tol=1e-12).fit(X, y)
    text = " ".join(str(w.message) for w in caught)
    assert "after 1 iteration " in text and "1 iterations" not in text


class _Fitted:
    solver_ = "qp"
    alpha_ = np.zeros(3)


def _method(name: str, error: float) -> MethodResult:
    return MethodResult(method=name, model=_Fitted(), test_error=error)


def test_multiclass_names_no_winner_in_a_tie() -> None:
    three = {m: _method(m, 0.2) for m in ("ovr", "ovo")}
    text = story(three)
    assert "same test error" in text and "Lowest test error:" not in text
    two = {"ovr": _method("ovr", 0.1), "ovo": _method("ovo", 0.1)}
    # Crammer-Singer not fitted: not in the running.
    two["crammer_singer"] = MethodResult(method="crammer_singer", error="failed")
    assert "same test error" in story(two)
    one = {"ovr": _method("ovr", 0.1), "ovo": _method("ovo", 0.3)}
    assert "Lowest test error: **One-vs-rest**" in story(one)


def test_the_losses_sweep_promises_no_time_it_may_not_keep() -> None:
    at = page_test(str(PAGES / "4_Losses.py"), default_timeout=180).run()
    text = "\n".join(i.value for i in at.info)
    assert "about 1 s" not in text
    values, seeds = len(requests.DISTANCES), requests.N_SEEDS
    fits = (values + 1) * seeds * 5  # each seed: the clean data, then every value
    assert f"{values} values × {seeds} seeds, {fits:,} fits" in text
    at.slider(key="losses_outlier_blobs_n_samples").set_value(40).run()
    at.button(key="losses_run_sweep").click().run()
    assert any("done in" in c.value for c in at.caption)


def test_counted_rejects_nothing_numeric() -> None:
    assert counted(np.int64(3), "point") == "3 points"

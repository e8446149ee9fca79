"""Bring your own data on the Explore page (issue 6), under AppTest.

Streamlit 1.67's AppTest drives ``st.file_uploader``
(``at.file_uploader(key=...).set_value((name, bytes, mime))``), so every
malformed file of ``tests/data/csv`` goes through the page here: each must show
its message (``EXPECTED.json``) and leave the previous data (the numbers panel)
and every setting (a C typed before) exactly as they were. The good files must
fit, the column choice must work on a five-column file, the download must read
back to the uploaded data, and a link naming an upload this session does not
hold must fall back to the generator.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmlab.datasets import csv_data
from svmlab.errors import DataError
from svmlab.ui.explore import upload
from svmlab.ui.explore.cache import load_data, split_indices
from svmlab.ui.frame.chart import COMPONENT
from tests.pages import EXPLORE, notes, numbers, page_test, problems

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "tests" / "data" / "csv"
EXPECTED = json.loads((CSV / "EXPECTED.json").read_text())
MALFORMED = EXPECTED["malformed"]
GOOD = EXPECTED["good"]
C_BEFORE = 4.7


def _stable_metrics(at: AppTest) -> dict[str, str]:
    """The numbers panel without the fit time (which a rerun may change)."""
    return {k: v for k, v in numbers(at).items() if k != "fit time"}


def _has_chart(at: AppTest) -> bool:
    """The page drew its Plotly chart (an svmlab.ui.frame.chart component)."""
    return any(e.proto.component_name == COMPONENT for e in at.get("bidi_component"))


def _upload(at: AppTest, name: str, data: bytes | None = None) -> AppTest:
    content = (CSV / name).read_bytes() if data is None else data
    at.file_uploader(key=upload.FILE_KEY).set_value((name, content, "text/csv"))
    return at.run()


def _shown(markdown: str) -> str:
    """Markdown text as the browser shows it (escapes removed)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def _captions(at: AppTest) -> list[str]:
    """The captions as the browser shows them (markdown escapes removed)."""
    return [_shown(c.value) for c in at.caption]


def _settings(at: AppTest):
    return at.session_state["explore_settings"]


def _table(name: str, **options):
    """(X, y, labels) of a file, read by the engine directly."""
    return csv_data.to_dataset(
        csv_data.read_table((CSV / name).read_bytes()), **options
    )


def _upload_app(good: str = "good_comma_header.csv") -> AppTest:
    """The page with C typed to 4.7, then a good upload shown."""
    at = page_test(EXPLORE, default_timeout=30).run()
    at.number_input(key="explore_C").set_value(C_BEFORE).run()
    at.radio(key=upload.SOURCE_KEY).set_value(upload.UPLOAD_CSV).run()
    _upload(at, good)
    assert not problems(at), problems(at)
    assert _settings(at).upload
    return at


# -- the upload module without a page ------------------------------------------------


def test_upload_key_depends_on_the_data_only() -> None:
    X, y, _ = _table("good_comma_header.csv")
    key = upload.upload_key(X, y)
    assert upload.upload_key(X.copy(), y.copy()) == key
    assert re.fullmatch(r"[0-9a-f]{12}", key)
    X2 = X.copy()
    X2[3, 1] = np.nextafter(X2[3, 1], np.inf)
    assert upload.upload_key(X2, y) != key
    assert upload.upload_key(X, -y) != key


def test_default_columns() -> None:
    three = csv_data.read_table((CSV / "good_string_labels.csv").read_bytes())
    assert upload.default_columns(three) == ("weight", "height", "animal")
    five = csv_data.read_table((CSV / "good_five_columns.csv").read_bytes())
    # The last column is the label; the first two numeric columns are features.
    assert upload.default_columns(five) == ("id", "x1", "label")


def test_standardise_and_back_to_file_units() -> None:
    table = csv_data.read_table((CSV / "good_comma_header.csv").read_bytes())
    plain = upload.make_held(table, "a.csv")
    scaled = upload.make_held(table, "a.csv", standardise=True)
    raw = plain.X
    np.testing.assert_allclose(scaled.X.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(scaled.X.std(axis=0), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(scaled.raw, raw)
    np.testing.assert_allclose(scaled.to_file_units(scaled.X), raw, rtol=1e-12)
    assert scaled.key != plain.key and plain.standard is None


def test_a_constant_feature_is_centred_not_divided_by_zero() -> None:
    text = "a,b,c\n" + "".join(f"{i},5,{i % 2}\n" for i in range(6))
    table = csv_data.read_table(text.encode())
    held = upload.make_held(table, "c.csv", standardise=True)
    assert np.isfinite(held.X).all()
    assert held.X[:, 1].tolist() == [0.0] * 6


EXTREME = {
    "huge": "x1,x2,l\n1e200,2e200,a\n-1e200,3e200,b\n2e200,-1e200,a\n0,1e200,b\n",
    "largest": "x1,x2,l\n1.7e308,1.7e308,a\n-1.7e308,-1.7e308,b\n1e308,0,a\n0,1,b\n",
    "tiny": "x1,x2,l\n1e-300,2e-300,a\n-1e-300,3e-300,b\n2e-300,-1e-300,a\n0,0,b\n",
    "offset": "x1,x2,l\n1e12,1e12,a\n1e12,1.0000000001e12,b\n1.0000000002e12,1e12,a\n",
}


@pytest.mark.parametrize("name", EXTREME)
def test_extreme_scales_are_refused_plainly_or_standardised(name: str) -> None:
    table = csv_data.read_table(EXTREME[name].encode())
    with pytest.raises(DataError, match="standardise features for display"):
        upload.make_held(table, "x.csv")
    held = upload.make_held(table, "x.csv", standardise=True)
    assert np.isfinite(held.X).all() and np.abs(held.X).max() < 10.0
    np.testing.assert_allclose(held.X.mean(axis=0), 0.0, atol=1e-12)
    back = held.to_file_units(held.X)
    np.testing.assert_allclose(back, held.raw, rtol=1e-9, atol=0.0)


@pytest.mark.parametrize("standardise", [False, True])
@pytest.mark.parametrize("name", EXTREME)
def test_extreme_scales_on_the_page_never_raise(name: str, standardise: bool) -> None:
    at = page_test(EXPLORE, default_timeout=30).run()
    at.radio(key=upload.SOURCE_KEY).set_value(upload.UPLOAD_CSV).run()
    at.checkbox(key=upload.STANDARDISE_KEY).set_value(standardise)
    _upload(at, f"{name}.csv", EXTREME[name].encode())
    assert not at.exception, [e.value for e in at.exception]
    if standardise:
        assert not at.error and _settings(at).upload and _has_chart(at)
    else:
        assert "standardise features" in _shown(at.sidebar.error[0].value)
        assert _settings(at).upload == ""


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c["file"])
def test_download_reads_back_to_the_upload(case: dict) -> None:
    options = case["options"]
    table = csv_data.read_table((CSV / case["file"]).read_bytes())
    columns = None
    if "x_columns" in options:
        columns = (*options["x_columns"], options["label_column"])
    held = upload.make_held(
        table,
        case["file"],
        columns,
        drop_nonfinite=options.get("drop_nonfinite", False),
        standardise=True,
    )
    text = upload.data_csv(held, 0.2, 0, ((), ()))
    back = csv_data.read_table(text.encode())
    assert (back.delimiter, back.has_header, back.decimal_comma) == (
        case["delimiter"],
        case["has_header"],
        case["decimal_comma"],
    )
    X, y, labels = csv_data.to_dataset(back)
    X0, y0, labels0 = _table(case["file"], **options)
    np.testing.assert_array_equal(X, X0)  # file units, exactly
    np.testing.assert_array_equal(y, y0)
    assert labels == labels0 == tuple(case["labels"])


def test_download_leaves_out_removed_rows_and_adds_clicks() -> None:
    table = csv_data.read_table((CSV / "good_semicolon_decimal_comma.csv").read_bytes())
    held = upload.make_held(table, "d.csv", standardise=True)
    train, _ = split_indices(held.y, 0.2, 3)
    clicked = (0.25, -0.5, 1.0)
    text = upload.data_csv(held, 0.2, 3, ((clicked,), (0, 2)))
    X, y, labels = csv_data.to_dataset(csv_data.read_table(text.encode()))
    keep = np.setdiff1d(np.arange(held.y.size), train[[0, 2]])
    np.testing.assert_array_equal(X[:-1], held.raw[keep])
    np.testing.assert_array_equal(y[:-1], held.y[keep])
    raw = held.raw
    expected = np.array(clicked[:2]) * raw.std(axis=0) + raw.mean(axis=0)
    np.testing.assert_allclose(X[-1], expected, rtol=1e-12)
    assert y[-1] == 1.0 and labels == held.labels
    assert ";" in text and "," in text.splitlines()[1]  # decimal commas kept


# -- the page ------------------------------------------------------------------


@pytest.fixture(scope="module")
def shown() -> AppTest:
    """One page for all malformed files: C = 4.7 and a good upload shown."""
    return _upload_app()


@pytest.mark.parametrize("case", MALFORMED, ids=lambda c: c["file"])
def test_a_malformed_file_shows_its_message_and_keeps_everything(
    shown: AppTest, case: dict
) -> None:
    at = shown
    options = case.get("options", {})
    at.checkbox(key=upload.DROP_KEY).set_value(options.get("drop_nonfinite", False))
    if "x_columns" in options:
        # A column choice that fails: the file first gives data with the
        # columns chosen before (x1, x2, label), then the student picks others.
        _upload(at, case["file"])
        assert not problems(at), problems(at)
    before, panel = _settings(at), _stable_metrics(at)
    name = at.session_state[upload.HELD_KEY][before.upload].name
    if "x_columns" in options:
        chosen = (*options["x_columns"], options["label_column"])
        for key, value in zip(upload.COLUMN_KEYS, chosen, strict=True):
            at.selectbox(key=key).set_value(value)
        at.run()
    else:
        _upload(at, case["file"])
    assert not at.exception, [e.value for e in at.exception]
    messages = [_shown(e.value) for e in at.sidebar.error]
    assert len(messages) == 1 and case["phrase"] in messages[0], messages
    # Said in the main pane too (issue 27, item 8): the sidebar's message is
    # below the fold on a projector.
    main = [_shown(e.value) for e in at.main.error]
    assert len(main) == 1 and "was not used" in main[0], main
    assert case["phrase"] in main[0] and "still shows" in main[0]
    assert any(f"still shows {name}" in c for c in _captions(at))
    assert _settings(at) == before
    assert at.number_input(key="explore_C").value == C_BEFORE
    assert _stable_metrics(at) == panel
    assert _has_chart(at)
    at.checkbox(key=upload.DROP_KEY).set_value(False)
    if name != "good_comma_header.csv":  # the next case starts from the first file
        _upload(at, "good_comma_header.csv")


def test_a_cell_quoted_in_an_error_is_shown_as_text() -> None:
    """A cell that is a markdown image (which the browser would fetch) or link,
    quoted in the message, stays text."""
    at = page_test(EXPLORE, default_timeout=30).run()
    at.radio(key=upload.SOURCE_KEY).set_value(upload.UPLOAD_CSV).run()
    cell = "![i](http://example.invalid/i.png)"
    _upload(at, "md.csv", f"a,b,label\n1,2,x\n{cell},3,z\n4,5,x\n".encode())
    errors = [e.value for e in at.error]  # the sidebar's and the main pane's
    assert len(errors) == 2
    for error in errors:
        assert not re.search(r"(?<!\\)\]\(", error), error
        assert repr(cell) in _shown(error)


def test_at_least_twenty_malformed_files() -> None:
    files = {case["file"] for case in MALFORMED}
    assert len(files) >= 20
    assert all((CSV / name).is_file() for name in files)


def test_a_bad_file_keeps_the_generated_data() -> None:
    at = page_test(EXPLORE, default_timeout=30)
    at.query_params["data"] = "moons"
    at.query_params["n"] = "60"
    at.run()
    at.number_input(key="explore_C").set_value(C_BEFORE).run()
    before, panel = _settings(at), _stable_metrics(at)
    at.radio(key=upload.SOURCE_KEY).set_value(upload.UPLOAD_CSV).run()
    assert _settings(at) == before
    _upload(at, "one_class.csv")
    assert "Only one class" in _shown(at.sidebar.error[0].value)
    assert _settings(at) == before and _stable_metrics(at) == panel
    assert any("still shows the generated data" in c for c in _captions(at))
    # Back to the generator: its widgets come back with their values.
    at.radio(key=upload.SOURCE_KEY).set_value(upload.GENERATOR).run()
    assert not problems(at)
    assert at.slider(key="explore_n").value == 60
    assert at.selectbox(key="explore_dataset").value == "moons"
    assert _settings(at) == before


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c["file"])
def test_a_good_file_is_fitted(case: dict) -> None:
    at = _upload_app()
    options = case["options"]
    if "x_columns" in options:
        for key, value in zip(
            upload.COLUMN_KEYS,
            (*options["x_columns"], options["label_column"]),
            strict=True,
        ):
            at.selectbox(key=key).set_value(value)
    if options.get("drop_nonfinite"):
        at.checkbox(key=upload.DROP_KEY).set_value(True)
    _upload(at, case["file"])
    assert not problems(at), problems(at)
    X, y, labels = _table(case["file"], **options)
    s = _settings(at)
    assert s.upload == upload.upload_key(X, y)
    assert s.C == C_BEFORE and s.kernel == "gaussian"
    data = load_data((s.source, tuple(s.data_kwargs().items()), s.test_fraction))
    train, test = split_indices(y, s.test_fraction, s.seed)
    np.testing.assert_array_equal(data.X_train, X[train])
    np.testing.assert_array_equal(data.y_test, y[test])
    assert X[0].tolist() == case["first"]
    assert numbers(at)["support vectors"].endswith(f"/ {train.size}")
    assert _has_chart(at)
    note = " ".join(_captions(at))
    assert f"{labels[0]!r} → class −1, {labels[1]!r} → class +1" in note
    if "kept" in case:
        k = case["rows"] - case["kept"]
        assert f"{k} row{'s' * (k != 1)} with missing" in note
        assert f"({case['kept']} kept)" in note
    button = next(
        b
        for b in at.get("download_button")
        if b.proto.label.startswith("Download data")
    )
    assert button.proto.label == "Download data (CSV)"


def test_nan_rows_are_offered_for_dropping() -> None:
    at = _upload_app()
    key = _settings(at).upload
    _upload(at, "nan_feature.csv")
    assert "Tick 'drop those rows'" in _shown(at.sidebar.error[0].value)
    assert _settings(at).upload == key
    at.checkbox(key=upload.DROP_KEY).set_value(True).run()
    assert not problems(at)
    assert _settings(at).upload != key
    assert numbers(at)["support vectors"].endswith("/ 4")  # 4 kept, none held out
    assert any("1 row with missing, NaN or infinite values" in c for c in _captions(at))


def test_column_choice_on_a_five_column_file() -> None:
    at = _upload_app()
    _upload(at, "good_five_columns.csv")
    assert not problems(at)
    x1, x2, label = (at.selectbox(key=k) for k in upload.COLUMN_KEYS)
    # The columns chosen for the last file (x1, x2, label) are kept.
    assert (x1.value, x2.value, label.value) == ("x1", "x2", "label")
    assert x1.options == ["id", "x1", "x2", "group", "label"]
    assert any(
        "Numeric columns: 'id', 'x1', 'x2', 'label'." in c for c in _captions(at)
    )
    default_key = _settings(at).upload
    x1.set_value("x2")
    x2.set_value("x1").run()
    assert not problems(at)
    X, y, _ = _table(
        "good_five_columns.csv", x_columns=("x2", "x1"), label_column="label"
    )
    assert _settings(at).upload == upload.upload_key(X, y) != default_key
    held = at.session_state[upload.HELD_KEY][_settings(at).upload]
    assert held.columns == ("x2", "x1", "label")
    # A bad choice (the 4-class column as label) keeps the last good choice.
    at.selectbox(key=upload.COLUMN_KEYS[2]).set_value("group").run()
    assert "4 classes (e, n, s, w)" in _shown(at.sidebar.error[0].value)
    assert _settings(at).upload == upload.upload_key(X, y)
    # Feature = label is refused too.
    at.selectbox(key=upload.COLUMN_KEYS[2]).set_value("x2").run()
    assert "cannot also be a feature" in _shown(at.sidebar.error[0].value)
    assert _settings(at).upload == upload.upload_key(X, y)


def test_standardise_on_the_page_and_download_in_file_units() -> None:
    at = _upload_app("good_semicolon_decimal_comma.csv")
    plain = _settings(at).upload
    at.checkbox(key=upload.STANDARDISE_KEY).set_value(True).run()
    assert not problems(at)
    s = _settings(at)
    assert s.upload != plain
    data = load_data((s.source, tuple(s.data_kwargs().items()), s.test_fraction))
    both = np.vstack([data.X_train, data.X_test])
    np.testing.assert_allclose(both.mean(axis=0), 0.0, atol=1e-12)
    held = at.session_state[upload.HELD_KEY][s.upload]
    text = upload.data_csv(held, s.test_fraction, s.seed, ((), ()))
    X, y, _ = csv_data.to_dataset(csv_data.read_table(text.encode()))
    X0, y0, _ = _table("good_semicolon_decimal_comma.csv")
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    at.checkbox(key=upload.STANDARDISE_KEY).set_value(False).run()
    assert _settings(at).upload == plain


def test_switching_source_keeps_both_data_sets() -> None:
    at = _upload_app()
    uploaded = _settings(at)
    at.radio(key=upload.SOURCE_KEY).set_value(upload.GENERATOR).run()
    assert not problems(at)
    generated = _settings(at)
    assert generated.upload == "" and generated.C == C_BEFORE
    assert generated.dataset == uploaded.dataset and generated.n == uploaded.n
    assert "upload" not in at.query_params
    at.radio(key=upload.SOURCE_KEY).set_value(upload.UPLOAD_CSV).run()
    assert not problems(at)
    assert _settings(at) == uploaded
    assert at.query_params["upload"] in (uploaded.upload, [uploaded.upload])


def test_a_link_to_an_upload_falls_back_to_the_generator() -> None:
    at = page_test(EXPLORE, default_timeout=30)
    at.query_params["upload"] = "0123456789ab"
    at.query_params["C"] = "47"
    at.query_params["n"] = "60"
    at.run()
    assert not problems(at)
    said = notes(at)
    assert any("0123456789ab" in n and "generated data" in n for n in said), said
    s = _settings(at)
    assert s.upload == "" and s.C == 47.0 and s.n == 60
    assert at.radio(key=upload.SOURCE_KEY).value == upload.GENERATOR
    assert "upload" not in at.query_params
    assert numbers(at)["support vectors"].endswith(f"/ {round(0.8 * 60)}")


def test_an_undo_step_names_an_upload_by_its_file() -> None:
    """Issue 44 item 9: the undo step named an upload by its hash ("upload none
    → 3fa2b1c9d0e1"); it says the file's name, as the page lists it."""
    at = _upload_app()
    key = _settings(at).upload
    assert key
    steps = [c for c in _captions(at) if c.startswith("undo:")]
    assert steps == ["undo: data spiral → 'good_comma_header.csv'"], steps
    assert key not in " ".join(_captions(at))

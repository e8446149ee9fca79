"""Tests for svmlab.datasets.csv_data: every sample file in tests/data/csv, round trips,
fuzzing.

``tests/data/csv/EXPECTED.json`` (written by ``tests/data/csv/generate.py``) lists the
malformed files with the stage that refuses them and a phrase of the message, and the
good files with what they parse to; the page tests reuse it.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import svmlab.datasets.csv_data as csv_data
import svmlab.datasets.csv_table as csv_table
from svmlab.datasets.csv_data import CsvTable, read_table, to_csv, to_dataset
from svmlab.errors import DataError, SvmlabError

DATA = Path(__file__).parent / "data" / "csv"
EXPECTED = json.loads((DATA / "EXPECTED.json").read_text(encoding="utf-8"))
MALFORMED = EXPECTED["malformed"]
GOOD = EXPECTED["good"]


def options(entry: dict) -> dict:
    """``to_dataset`` keyword arguments of an EXPECTED entry (JSON lists to tuples)."""
    found = dict(entry.get("options", {}))
    if "x_columns" in found:
        found["x_columns"] = tuple(found["x_columns"])
    return found


def load(name: str) -> CsvTable:
    return read_table((DATA / name).read_bytes())


# --------------------------------------------------------------------------------------
# The sample files.


def test_expected_lists_every_file_and_enough_distinct_failures():
    listed = {e["file"] for e in MALFORMED} | {e["file"] for e in GOOD}
    on_disk = {p.name for p in DATA.glob("*.csv")}
    assert listed == on_disk
    assert len(MALFORMED) >= 20
    phrases = [e["phrase"] for e in MALFORMED]
    assert len(set(phrases)) == len(phrases)
    assert {e["stage"] for e in MALFORMED} == {"read", "dataset"}


@pytest.mark.parametrize("entry", MALFORMED, ids=[e["file"] for e in MALFORMED])
def test_malformed_file_is_refused_with_its_message(entry):
    data = (DATA / entry["file"]).read_bytes()
    assert entry["error"] == "DataError"
    if entry["stage"] == "read":
        with pytest.raises(DataError) as caught:
            read_table(data)
    else:
        table = read_table(data)
        with pytest.raises(DataError) as caught:
            to_dataset(table, **options(entry))
    message = str(caught.value)
    assert entry["phrase"] in message
    assert (message[0].isupper() or message[0].isdigit()) and message.endswith(".")
    assert "Traceback" not in message and len(message) < 400


@pytest.mark.parametrize("entry", GOOD, ids=[e["file"] for e in GOOD])
def test_good_file_parses(entry):
    table = load(entry["file"])
    assert table.delimiter == entry["delimiter"]
    assert table.has_header is entry["has_header"]
    assert table.decimal_comma is entry["decimal_comma"]
    assert table.rows == entry["rows"] == len(table.frame)
    assert list(table.columns) == entry["columns"] == list(table.frame.columns)
    X, y, labels = to_dataset(table, **options(entry))
    n = entry.get("kept", entry["rows"])
    assert X.shape == (n, 2) and y.shape == (n,)
    assert X.dtype == y.dtype == np.float64 and X.flags.c_contiguous
    assert np.isfinite(X).all() and set(np.unique(y)) == {-1.0, 1.0}
    assert list(labels) == entry["labels"]
    assert int((y > 0).sum()) == entry["positives"]
    assert X[0].tolist() == entry["first"]


def test_good_comma_file_values_and_line_numbers():
    table = load("good_comma_header.csv")
    assert table.frame.index.tolist() == list(range(2, 12))
    assert table.numeric == ("x1", "x2", "label")
    assert table.describe() == "10 rows, 3 columns, comma-separated, with a header"
    X, y, _labels = to_dataset(table)
    assert X[5].tolist() == [-0.6, -1.1] and y[:6].tolist() == [1] * 5 + [-1]


def test_excel_file_strips_bom_quotes_trailing_delimiter_and_blank_lines():
    table = load("good_excel_bom_crlf.csv")
    assert table.columns == ("x", "y", "label")  # no BOM in 'x', no empty 4th column
    assert table.describe().endswith("with a header, decimal commas")
    assert table.frame["label"].iloc[0] == "1"


def test_five_columns_need_a_choice():
    table = load("good_five_columns.csv")
    with pytest.raises(DataError, match=r"has 5 columns; choose two feature columns"):
        to_dataset(table)
    with pytest.raises(DataError, match="has 5 columns; choose"):
        to_dataset(table, x_columns=("x1", "x2"))
    with pytest.raises(DataError, match="The column 'group' is not numeric"):
        to_dataset(table, x_columns=("x1", "group"), label_column="label")
    X, _y, labels = to_dataset(table, x_columns=("id", "x1"), label_column="label")
    assert X[:2].tolist() == [[0.0, 0.5], [1.0, 1.1]] and labels == ("-1", "1")


def test_column_choices_are_checked():
    table = load("good_comma_header.csv")
    with pytest.raises(DataError, match=r"no column 'z'; the columns are: x1, x2"):
        to_dataset(table, label_column="z")
    with pytest.raises(DataError, match="two different feature columns"):
        to_dataset(table, x_columns=("x1", "x1"))
    with pytest.raises(DataError, match="cannot also be a feature"):
        to_dataset(table, x_columns=("x1", "label"), label_column="label")
    # With three columns, one choice fixes the other.
    X, y, labels = to_dataset(table, x_columns=("x2", "x1"))
    assert X[0].tolist() == [1.2, 0.5] and labels == ("-1", "1") and y[0] == 1.0
    X, _y, labels = to_dataset(table, label_column="label")
    assert X[0].tolist() == [0.5, 1.2]
    with pytest.raises(DataError, match=r"'x1' has 10 classes \(-1.5, -1.2, -0.8"):
        to_dataset(table, label_column="x1")


# --------------------------------------------------------------------------------------
# read_table details.


@pytest.mark.parametrize(
    ("text", "delimiter", "decimal_comma"),
    [
        ("1,5;2,25;a\n3;1,5;b\n", ";", True),
        ("1,5\t2,25\ta\n3\t1,5\tb\n", "\t", True),
        ("1;2;a\n3;4;b\n", ";", False),
        ("1.5;2;a\n3;4.25;b\n", ";", False),
        ("1.5,2,a\n3,4.25,b\n", ",", False),
        ('x,y,label\n1,2,"a;b"\n3,4,"c;d"\n', ",", False),
        ("x;y;label\n1,5;2;a\n3;1,5;b\n", ";", True),
    ],
)
def test_delimiter_and_decimal_comma_detection(text, delimiter, decimal_comma):
    table = read_table(text.encode())
    assert (table.delimiter, table.decimal_comma) == (delimiter, decimal_comma)
    assert len(table.columns) == 3 and table.rows == 2
    X, _, _ = to_dataset(table)
    assert np.isfinite(X).all()


def test_decimal_comma_values():
    X, _y, labels = to_dataset(read_table(b"1,5;-2,25;a\n,5;1e3;b\n"))
    assert X.tolist() == [[1.5, -2.25], [0.5, 1000.0]] and labels == ("a", "b")


@pytest.mark.parametrize(
    ("text", "has_header"),
    [
        ("x,y,label\n1,2,a\n3,4,b\n", True),
        ("1,2,a\n3,4,b\n", False),
        ("a,b,c\nd,e,f\n", True),  # all text: a header, then "no numeric columns"
        (",x,y\n0,1,2\n1,3,4\n", True),  # a pandas index column
        ("nan,nan,a\n1,2,b\n3,4,a\n", False),  # a first row of missing values
        ("x,y,label\n1,2,cat\nabc,4,dog\n3,5,cat\n", True),
    ],
)
def test_header_detection(text, has_header):
    table = read_table(text.encode())
    assert table.has_header is has_header
    if text.startswith(","):
        assert table.columns == ("column 1", "x", "y")


def test_missing_markers_and_spaces():
    text = b"x , y , label\n 1 , NA , a \n2, n/a,b\n 3,null ,a\n4,None,b\n5,-inf,a\n"
    text += b"6,7,b\n8,9e-1,a\n"
    table = read_table(text)
    assert table.columns == ("x", "y", "label") and table.numeric == ("x", "y")
    with pytest.raises(DataError, match=r"5 rows contain .* line 2, column 'y': 'NA'"):
        to_dataset(table)
    X, y, _labels = to_dataset(table, drop_nonfinite=True)
    assert X.tolist() == [[6.0, 7.0], [8.0, 0.9]] and y.tolist() == [1.0, -1.0]


def test_drop_nonfinite():
    table = load("nan_feature.csv")
    with pytest.raises(DataError, match=r"^1 row contains missing, NaN or infinite"):
        to_dataset(table)
    X, _y, _labels = to_dataset(table, drop_nonfinite=True)
    assert X.shape == (4, 2) and np.isfinite(X).all()
    assert 0.9 not in X[:, 0]
    # Dropping down to one row, and to no row.
    table = read_table(b"x,y,l\n1,2,a\nnan,1,b\n3,inf,b\n")
    with pytest.raises(DataError, match="only 1 row"):
        to_dataset(table, drop_nonfinite=True)
    with pytest.raises(DataError, match="No rows are left"):
        to_dataset(load("all_rows_nonfinite.csv"), drop_nonfinite=True)


@pytest.mark.parametrize(
    ("text", "labels", "y"),
    [
        (b"1,2,1\n3,4,-1\n", ("-1", "1"), [1, -1]),
        (b"1,2,1\n3,4,0\n", ("0", "1"), [1, -1]),
        (b"1,2,10\n3,4,9\n", ("9", "10"), [1, -1]),  # numerically, not as text
        (b"1,2,1.0\n3,4,1\n5,6,2\n", ("1.0", "2"), [-1, -1, 1]),  # 1.0 == 1
        (b"1,2,b\n3,4,a\n", ("a", "b"), [1, -1]),
        (b"1,2,dog\n3,4,cat\n5,6,dog\n", ("cat", "dog"), [1, -1, 1]),
        (b"1;2;0,5\n3;4;1,5\n", ("0,5", "1,5"), [-1, 1]),
        (b"1,2,10\n3,4,9x\n", ("10", "9x"), [-1, 1]),  # not all numbers: as text
    ],
)
def test_label_values_and_order(text, labels, y):
    _X, y_read, labels_read = to_dataset(read_table(text))
    assert labels_read == labels and y_read.tolist() == y


def test_size_row_and_cell_limits(tmp_path):
    good = (DATA / "good_comma_header.csv").read_bytes()
    with pytest.raises(
        DataError, match=r"The file is 127 bytes; the limit is 100 bytes"
    ):
        read_table(good, max_bytes=100)
    big = b"x,y,l\n" + b"0.1,0.2,1\n" * 600_000
    with pytest.raises(DataError, match=r"is 5\.7 MB; the limit is 5 MB"):
        read_table(big)
    with pytest.raises(DataError, match="more than 9 data rows; the limit is 9"):
        read_table(good, max_rows=9)
    assert read_table(good, max_rows=10).rows == 10
    headerless = (DATA / "good_zero_one_labels.csv").read_bytes()
    with pytest.raises(DataError, match="more than 9 data rows"):
        read_table(headerless, max_rows=9)
    path = tmp_path / "huge_cell.csv"  # beyond the csv module's own field limit
    path.write_bytes(b'x,y,l\n1,2,a\n3,4,"' + b"b" * 200_000 + b'"\n')
    with pytest.raises(DataError, match="Line 3 has a value of more than 1,000"):
        read_table(path.read_bytes())
    with pytest.raises(DataError, match="Line 1 has a value of more than 1,000"):
        read_table(b'"' + b"b" * 200_000 + b'",1,2\n1,2,3\n')


def test_read_table_wants_bytes():
    with pytest.raises(TypeError):
        read_table("x,y,l\n1,2,a\n")  # type: ignore[arg-type]
    assert read_table(bytearray(b"1,2,a\n3,4,b\n")).rows == 2
    assert read_table(memoryview(b"1,2,a\n3,4,b\n")).rows == 2


def test_errors_are_svmlab_errors():
    assert issubclass(DataError, SvmlabError) and issubclass(DataError, ValueError)


def test_more_than_five_classes_are_summarised():
    text = "".join(f"{i},{i},{i}\n" for i in range(40)).encode()
    with pytest.raises(DataError, match=r"40 classes \(0, 1, 2, 3, 4, \.\.\. and 35"):
        to_dataset(read_table(text))


def test_table_is_frozen_and_frame_holds_strings():
    table = load("good_string_labels.csv")
    with pytest.raises(AttributeError):
        table.rows = 3  # type: ignore[misc]
    assert all(isinstance(v, str) for v in table.frame.to_numpy().ravel())


# --------------------------------------------------------------------------------------
# to_csv and round trips.


def test_to_csv_default_format():
    X = np.array([[0.1, -2.0], [1e16, 3.0]])
    text = to_csv(X, np.array([-1.0, 1.0]))
    assert text == "x1,x2,label\n0.1,-2.0,-1\n1e+16,3.0,1\n"


def test_to_csv_same_format_as_upload():
    table = load("good_semicolon_decimal_comma.csv")
    X, y, labels = to_dataset(table)
    header = table.columns if table.has_header else None
    text = to_csv(
        X,
        y,
        labels,
        delimiter=table.delimiter,
        header=header,
        decimal_comma=table.decimal_comma,
    )
    assert text.splitlines()[:2] == ["Länge;Breite;Klasse", "0,5;1,2;ja"]
    again = read_table(text.encode())
    X2, y2, labels2 = to_dataset(again)
    assert np.array_equal(X, X2) and np.array_equal(y, y2) and labels2 == labels


@pytest.mark.parametrize("name", [e["file"] for e in GOOD])
def test_round_trip_of_every_good_file(name):
    entry = next(e for e in GOOD if e["file"] == name)
    table = load(name)
    X, y, labels = to_dataset(table, **options(entry))
    header = ("a", "b", "c") if table.has_header else None
    text = to_csv(
        X,
        y,
        labels,
        delimiter=table.delimiter,
        header=header,
        decimal_comma=table.decimal_comma,
    )
    again = read_table(text.encode())
    assert (again.delimiter, again.has_header) == (table.delimiter, table.has_header)
    X2, y2, labels2 = to_dataset(again)
    assert [repr(v) for v in X2.ravel().tolist()] == [
        repr(v) for v in X.ravel().tolist()
    ]
    assert np.array_equal(y, y2) and labels2 == labels


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"delimiter": "|"}, "Unknown delimiter"),
        ({"decimal_comma": True}, "need a semicolon or a tab"),
        ({"labels": ("1", "-1")}, "sorted order"),
        ({"labels": ("a", "a")}, "sorted order"),
        ({"labels": ("", "b")}, "non-empty"),
        ({"labels": ("NA", "b")}, "would not read back"),
        ({"labels": ("1,5", "2"), "delimiter": ";"}, "change how numbers are read"),
        ({"header": ("x", "x", "y")}, "three different column names"),
        ({"header": ("x", "2", "y")}, "looks like a number"),
        ({"y": np.array([0.0, 1.0])}, r"only -1 and \+1"),
        ({"X": np.zeros((2, 3))}, r"shape \(n, 2\)"),
    ],
)
def test_to_csv_refuses_what_would_not_read_back(kwargs, match):
    args = {"X": np.zeros((2, 2)), "y": np.array([-1.0, 1.0])}
    args.update(kwargs)
    X, y = args.pop("X"), args.pop("y")
    with pytest.raises(DataError, match=match):
        to_csv(X, y, **args)


def _label_text():
    alphabet = st.characters(
        blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\ufeff"
    )
    return st.one_of(
        st.sampled_from(
            [
                *("-1", "1", "0", "2", "a", "b", "cat", "dog", "1.5", "-0"),
                *("=1+1", "+a", "-b", "@c", "'=d", "''-e", "'f", "-1,5"),
            ]
        ),
        st.text(alphabet, min_size=1, max_size=8),
    )


@st.composite
def tables(draw):
    n = draw(st.integers(2, 25))
    value = st.floats(allow_nan=False, allow_infinity=False)
    X = np.array(draw(st.lists(st.tuples(value, value), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    y[0], y[1] = -1.0, 1.0
    delimiter = draw(st.sampled_from([",", ";", "\t"]))
    decimal_comma = delimiter != "," and draw(st.booleans())
    header = draw(st.sampled_from([None, ("x1", "x2", "label"), ("a b", "Höhe", "y")]))
    labels = draw(st.tuples(_label_text(), _label_text()))
    return X, y, labels, delimiter, decimal_comma, header


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(tables())
def test_round_trip_property(case):
    """Random small numeric tables written by to_csv read back identically."""
    X, y_drawn, drawn, delimiter, decimal_comma, header = case
    fmt = {"delimiter": delimiter, "header": header, "decimal_comma": decimal_comma}
    for labels, y in ((drawn, y_drawn), (drawn[::-1], -y_drawn)):
        try:
            text = to_csv(X, y, labels, **fmt)
            break
        except DataError:  # labels out of order, equal, or not writable as such
            continue
    else:
        assume(False)
    table = read_table(text.encode())
    assert table.delimiter == delimiter and table.has_header is (header is not None)
    X2, y2, labels2 = to_dataset(table)
    assert [repr(v) for v in X2.ravel().tolist()] == [
        repr(v) for v in X.ravel().tolist()
    ]
    assert np.array_equal(y2, y) and labels2 == labels


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=300))
def test_random_bytes_give_a_table_or_a_data_error(data):
    try:
        table = read_table(data)
    except DataError as error:
        assert str(error)
        return
    try:
        X, y, _labels = to_dataset(table, drop_nonfinite=True)
    except DataError:
        return
    assert X.shape == (len(y), 2) and np.isfinite(X).all()


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(
        st.lists(
            st.sampled_from(
                [
                    "1",
                    "-2.5",
                    "1,5",
                    "",
                    "nan",
                    "inf",
                    "a",
                    "x y",
                    '"q"',
                    ";",
                    ",",
                    "\t",
                    "\n",
                    "=1+1",
                    "1e400",
                    " ",
                ]
            ),
            min_size=1,
            max_size=5,
        ),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([",", ";", "\t"]),
)
def test_random_cells_give_a_table_or_a_data_error(rows, delimiter):
    text = "\n".join(delimiter.join(row) for row in rows)
    try:
        table = read_table(text.encode())
        X, y, _labels = to_dataset(table, drop_nonfinite=True)
    except DataError:
        return
    assert np.isfinite(X).all() and set(y) == {-1.0, 1.0}


# --------------------------------------------------------------------------------------
# Safety.


def test_source_never_evaluates_or_unpickles():
    source = "".join(
        Path(module.__file__).read_text(encoding="utf-8")
        for module in (csv_data, csv_table)
    )
    for word in ("eval(", "exec(", "pickle", "literal_eval", "__import__"):
        assert word not in source, word
    assert not re.search(r"\bimport (streamlit|plotly)", source)


def test_formula_cell_is_just_text():
    table = load("formula_in_feature.csv")
    assert table.frame["x1"].iloc[1] == "=cmd|' /C calc'!A0"
    assert table.numeric == ("x2", "label")


FORMULA_LABELS = [
    "=cmd|' /C calc'!A0",
    '=HYPERLINK("http://example.invalid")',
    "+1+1",
    "-a",
    "@SUM(A1)",
    "'=x",  # already quoted: stays distinguishable from "=x"
    "''+y",
]


def _cells(text: str, delimiter: str = ",") -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


@pytest.mark.parametrize("label", FORMULA_LABELS)
@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_formula_labels_are_neutralised_in_the_download_and_read_back(label, delimiter):
    """OWASP CSV injection: a text cell starting with = + - @ (tab, CR) goes out
    with a leading single quote, so a spreadsheet shows it as text; numbers,
    negative ones included, go out as they are; the reader drops the quote."""
    X = np.array([[-1.5, 2.0], [3.0, -4e-5], [-0.0, 1.0]])
    y = np.array([-1.0, 1.0, 1.0])
    header = ("=x1", "-x2", "label")
    text = to_csv(X, y, (label, "zz"), delimiter=delimiter, header=header)
    rows = _cells(text, delimiter)
    assert rows[0] == ["'=x1", "'-x2", "label"]
    numbers = [["-1.5", "2.0"], ["3.0", "-4e-05"], ["-0.0", "1.0"]]
    assert [r[:2] for r in rows[1:]] == numbers
    assert [r[2] for r in rows[1:]] == ["'" + label, "zz", "zz"]
    for row in rows:
        for cell in row:
            if cell and cell[0] in "=+-@\t\r":
                assert csv_table.cell_kind(cell, False) == "number", cell
    table = read_table(text.encode())
    assert table.columns == header
    X2, y2, labels = to_dataset(table)
    assert labels == (label, "zz")
    assert np.array_equal(X2, X) and np.array_equal(y2, y)


def test_a_quoted_formula_cell_reads_as_its_text():
    table = read_table(b"a,b,label\n1,2,'=1+1\n3,4,'-b\n5,6,'x\n7,8,''@c\n")
    assert table.frame["label"].tolist() == ["=1+1", "-b", "'x", "'@c"]
    # A quoted number is the number (how a spreadsheet exports a number as text).
    X, _y, _labels = to_dataset(read_table(b"a,b,l\n'-1.5,2,x\n3,'+4,y\n"))
    assert X.tolist() == [[-1.5, 2.0], [3.0, 4.0]]


_TABLE = b"a,b,label\n1,2,x\n3,4,y\n"
_XY = (np.zeros((2, 2)), np.array([-1.0, 1.0]))


@pytest.mark.parametrize(
    ("call", "phrase"),
    [
        (
            lambda: to_dataset(read_table(_TABLE), label_column=np.int64(1)),
            "There is no column 1;",
        ),
        (
            lambda: to_dataset(read_table(_TABLE), x_columns=("a", np.str_("q"))),
            "There is no column 'q';",
        ),
        (
            lambda: to_dataset(
                read_table(_TABLE),
                x_columns=("a", np.str_("label")),
                label_column=np.str_("label"),
            ),
            "The label column 'label' cannot",
        ),
        (lambda: to_csv(*_XY, (np.str_("NA"), "b")), "A label 'NA' would not"),
        (lambda: to_csv(*_XY, (np.str_("b"), np.str_("a"))), "not ('b', 'a')."),
        (
            lambda: to_csv(*_XY, ("a", "b"), header=("x", np.str_("2"), "y")),
            "The column name '2' looks",
        ),
        (lambda: to_csv(*_XY, delimiter=np.str_("|")), "Unknown delimiter '|';"),
    ],
)
def test_messages_name_values_without_numpy_reprs(call, phrase):
    with pytest.raises(DataError) as caught:
        call()
    message = str(caught.value)
    assert phrase in message
    assert "np." not in message and "int64" not in message and "str_" not in message
    assert message[0].isupper() and message.endswith("."), message


def test_a_ragged_line_of_one_value_says_value():
    with pytest.raises(DataError, match=r"^Line 3 has 1 value, but line 1 has 3;"):
        read_table(b"x,y,label\n1,2,a\n7\n3,4,b\n")


def test_mixed_delimiters_name_the_lines_of_each():
    text = "".join(
        f"{i},{i + 1},a\n" if i % 3 else f"{i};{i + 1};b\n" for i in range(1, 12)
    )
    with pytest.raises(DataError) as caught:
        read_table(text.encode())
    assert str(caught.value) == (
        "The file mixes delimiters: lines 1-2, 4-5, 7-8 and 10-11 are separated by "
        "commas and lines 3, 6 and 9 by semicolons; use one delimiter in the whole "
        "file."
    )


def test_nan_is_not_a_label_value():
    assert math.isnan(csv_table.parse_number("NaN", False))


@pytest.mark.parametrize(
    "codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"]
)
def test_a_wide_encoding_is_named_as_it_is(codec: str) -> None:
    """Issue 44 item 9: UTF-32 was called UTF-16. The name said is the codec's
    own family (Python's codec, with and without a byte-order mark)."""
    data = "x1,x2,label\n1.5,2,a\n3,4.25,b\n".encode(codec)
    with pytest.raises(DataError, match=f"it is {codec[:6].upper()}\\."):
        read_table(data)


def test_excel_s_sep_line_names_the_separator() -> None:
    """Issue 44 item 9: Excel's "CSV" export may start with ``sep=;``; the line
    sets the separator and is no row. Reference: pandas told the same by hand."""
    import io

    import pandas as pd

    data = b"sep=;\r\nx1;x2;label\r\n1,5;2;a\r\n3;4,25;b\r\n-1;0,5;a\r\n"
    table = read_table(data)
    assert table.columns == ("x1", "x2", "label") and table.delimiter == ";"
    X, y, labels = to_dataset(table)
    ref = pd.read_csv(io.BytesIO(data), sep=";", skiprows=1, decimal=",")
    assert np.array_equal(X, ref[["x1", "x2"]].to_numpy(dtype=float))
    assert [labels[int(v > 0)] for v in y] == list(ref["label"])
    # A row's line number is still the file's (the sep line is line 1).
    assert list(table.frame.index) == [3, 4, 5]
    with pytest.raises(DataError, match="names '\\|' as the separator"):
        read_table(b"sep=|\nx1|x2|label\n1|2|a\n3|4|b\n")

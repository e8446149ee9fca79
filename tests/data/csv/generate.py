"""Write the sample CSV files of this folder and EXPECTED.json (run from anywhere).

    python tests/data/csv/generate.py

Each MALFORMED entry is one distinct problem a student's upload can have: the file, the
stage that refuses it (``"read"``: :func:`svmlab.datasets.csv_data.read_table`,
``"dataset"``:
:func:`svmlab.datasets.csv_data.to_dataset`), the error class, a phrase of its message
and, where the problem only shows with a choice of columns, the ``to_dataset`` options.
Each GOOD entry says what the file parses to. ``tests/test_csv_data.py`` checks both
lists and the page tests reuse them. The files are written byte for byte
(``.gitattributes`` keeps git from touching line endings).
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

HERE = Path(__file__).parent

GOOD_ROWS = [  # x1, x2, label (-1/1): two small blobs
    ("0.5", "1.2", "1"),
    ("1.1", "0.7", "1"),
    ("0.9", "1.5", "1"),
    ("1.4", "1.1", "1"),
    ("0.7", "0.9", "1"),
    ("-0.6", "-1.1", "-1"),
    ("-1.2", "-0.4", "-1"),
    ("-0.8", "-0.9", "-1"),
    ("-1.5", "-1.3", "-1"),
    ("-0.3", "-0.8", "-1"),
]


def lines(*rows: str, end: str = "\n") -> bytes:
    return "".join(row + end for row in rows).encode("utf-8")


def table(rows, sep: str = ",", header: str | None = "x1,x2,label") -> bytes:
    body = [sep.join(row) for row in rows]
    return lines(*([header] if header else []), *body)


def excel_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        # A fixed date: the same bytes on every run (git sees no change).
        for name, text in (
            ("[Content_Types].xml", '<?xml version="1.0"?><Types/>'),
            ("xl/workbook.xml", "<workbook/>"),
        ):
            archive.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), text)
    return buffer.getvalue()


def png_junk() -> bytes:
    head = (
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06"
    )
    return head + bytes((i * 37 + 11) % 256 for i in range(300))


def read_error(name: str, contents: bytes, phrase: str) -> tuple:
    """A file that ``read_table`` refuses with a message containing ``phrase``."""
    return (name, contents, "read", phrase, {})


def dataset_error(name: str, contents: bytes, phrase: str, **options) -> tuple:
    """A file that ``to_dataset(table, **options)`` refuses."""
    return (name, contents, "dataset", phrase, options)


#: GOOD_ROWS with an id column and a four-way group before the label.
FIVE_COLUMNS = table(
    [(str(i), a, b, "nsew"[i % 4], c) for i, (a, b, c) in enumerate(GOOD_ROWS)],
    header="id,x1,x2,group,label",
)

# (file, contents, stage, phrase, to_dataset options)
MALFORMED = [
    read_error("empty.csv", b"", "The file is empty"),
    read_error("whitespace_only.csv", b"  \n\t\n   \r\n\n", "only blank lines"),
    read_error(
        "only_delimiters.csv", b",,\n;;;\n , ,\n", "Every line of the file is empty"
    ),
    read_error("header_only.csv", lines("x1,x2,label"), "only a header row"),
    read_error("binary_junk.csv", png_junk(), "looks like a binary file"),
    read_error(
        "latin1.csv",
        "x;y;étiquette\n1,5;2;café\n2;1,5;thé\n".encode("latin-1"),
        "not UTF-8 text: line 1 has the byte 0xE9",
    ),
    read_error(
        "utf16.csv",
        "x1,x2,label\n0.5,1.2,1\n-0.6,-1.1,-1\n".encode("utf-16"),
        "it is UTF-16",
    ),
    read_error("excel_renamed.csv", excel_zip(), "Excel workbook"),
    read_error(
        "nul_byte.csv",
        lines("x1,x2,label", "0.5,1.2,1", "1.1,0.\x007,1", "-0.6,-1.1,-1"),
        "Line 3 contains a NUL character",
    ),
    read_error(
        "lone_label_column.csv", lines("label", "a", "b", "a", "b"), "only one column"
    ),
    read_error(
        "ragged_row.csv",
        lines(
            "x1,x2,label", "0.5,1.2,1", "1.1,0.7,1", "-0.6,-1.1,-1", "-1.2,-0.4,-1,7"
        ),
        "Line 5 has 4 values, but line 1 has 3",
    ),
    read_error(
        "too_many_rows.csv",
        lines(
            "x1,x2,label", *(f"{i % 7},{i % 5},{1 - 2 * (i % 2)}" for i in range(5001))
        ),
        "more than 5,000 data rows",
    ),
    read_error(
        "too_many_lines.csv",
        lines("x1,x2,label", "0.5,1.2,1", "-0.6,-1.1,-1") + b"\n" * 21_000,
        "has 21,003 lines; the limit is 5,000 data rows",
    ),
    read_error(
        "too_many_columns.csv",
        lines(
            *(
                ",".join(f"c{j}" if r == 0 else str(r) for j in range(1001))
                for r in range(3)
            )
        ),
        "1,001 columns; the limit is 1,000",
    ),
    read_error(
        "long_cell.csv",
        lines("x1,x2,label", "0.5,1.2,1", "-0.6,-1.1," + "b" * 5000),
        "Line 3 has a value of more than 1,000 characters",
    ),
    read_error(
        "duplicated_header.csv",
        table(GOOD_ROWS, header="x,x,label"),
        "more than one column named 'x'",
    ),
    read_error(
        "unclosed_quote.csv",
        lines("x1,x2,label", "0.5,1.2,1", '1.1,0.7,"1', "-0.6,-1.1,-1"),
        'A quote (") opened on line 3 is never closed',
    ),
    read_error(
        "stray_quote.csv",
        lines("x1,x2,label", "0.5,1.2,1", "1.1,0.7,1", '-0.6,-1.1,"a"b'),
        "Line 4 is not valid CSV",
    ),
    dataset_error(
        "two_columns.csv",
        lines("x,y", "1,2", "3,4", "5,6"),
        "has 2 columns; it needs three",
    ),
    dataset_error(
        "no_numeric_columns.csv",
        lines("name,colour,label", "foo,red,a", "bar,blue,b", "baz,green,a"),
        "no numeric columns",
    ),
    dataset_error(
        "one_numeric_column.csv",
        lines("x,name,label", "1.0,foo,a", "2.5,bar,b", "0.3,baz,a"),
        "only one numeric column ('x')",
    ),
    dataset_error(
        "non_numeric_feature_numeric_label.csv",
        lines("x,y,label", "1,abc,1", "2,def,-1", "3,ghi,1"),
        "The column 'y' is not numeric",
    ),
    dataset_error(
        "formula_in_feature.csv",
        lines("x1,x2,label", "0.5,1.2,1", "=cmd|' /C calc'!A0,0.7,1", "-0.6,-1.1,-1"),
        "formulas are not evaluated",
    ),
    dataset_error(
        "decimal_comma_mixed.csv",
        lines("x;y;label", "1,5;2,25;a", "1.5;2.0;b", "0,5;1;a"),
        "mixes decimal commas and decimal points",
    ),
    dataset_error(
        "nan_feature.csv",
        lines(
            "x1,x2,label",
            "0.5,1.2,1",
            "1.1,0.7,1",
            "0.9,NaN,1",
            "-0.6,-1.1,-1",
            "-1.2,-0.4,-1",
        ),
        "line 4, column 'x2': 'NaN'",
    ),
    dataset_error(
        "inf_feature.csv",
        lines("x1,x2,label", "0.5,1.2,1", "inf,0.7,1", "-0.6,-1.1,-1", "-1.2,-0.4,-1"),
        "line 3, column 'x1': 'inf'",
    ),
    dataset_error(
        "empty_cell.csv",
        lines("x1,x2,label", "0.5,1.2,1", "1.1,0.7,1", "-0.6,-1.1,-1", "-1.2,,-1"),
        "line 5, column 'x2': empty",
    ),
    dataset_error(
        "empty_label.csv",
        lines("x1,x2,label", "0.5,1.2,1", "1.1,0.7,", "-0.6,-1.1,-1", "-1.2,-0.4,-1"),
        "line 3, column 'label': empty",
    ),
    dataset_error(
        "all_rows_nonfinite.csv",
        lines("x1,x2,label", "nan,1.2,1", "1.1,inf,1", "-0.6,,-1"),
        "No rows are left after dropping",
        drop_nonfinite=True,
    ),
    dataset_error("one_data_row.csv", lines("x1,x2,label", "0.5,1.2,1"), "only 1 row"),
    dataset_error(
        "one_class.csv",
        table([(a, b, "a") for a, b, _ in GOOD_ROWS]),
        "Only one class ('a')",
    ),
    dataset_error(
        "three_classes.csv",
        table([(a, b, "abc"[i % 3]) for i, (a, b, _) in enumerate(GOOD_ROWS)]),
        "3 classes (a, b, c); this page is binary",
    ),
    dataset_error(
        "continuous_label.csv",
        table(
            [(a, b, f"{i * 0.37:.2f}") for i, (a, b, _) in enumerate(GOOD_ROWS)],
            header="x,y,z",
        ),
        "10 classes (0.00, 0.37, 0.74, 1.11, 1.48, ... and 5 more)",
    ),
    dataset_error(
        "thousands_separators.csv",
        lines(
            "x,y,label",
            '"1,234.5",2.5,1',
            '"2,000.0",0.7,1',
            "-0.6,-1.1,-1",
            "-1.2,-0.4,-1",
        ),
        "Line 2, column 'x': '1,234.5' has a thousands separator; numbers with "
        "thousands separators such as 1,234.5 are not supported: remove the "
        "separators (write 1234.5)",
    ),
    dataset_error(
        "thousands_separators_no_header.csv",
        lines('"1,234.5","2,500.0",a', '"3,456.5","1,000.0",b', '"12,000","1,500",a'),
        "Line 1, column 'column 1': '1,234.5' has a thousands separator",
    ),
    dataset_error(
        "thousands_separators_decimal_comma.csv",
        lines("x;y;label", "1.234,5;2,5;a", "3,5;4;b", "0,5;1;a"),
        "'1.234,5' has a thousands separator; numbers with thousands separators "
        "such as 1.234,5 are not supported: remove the separators (write 1234,5)",
    ),
    read_error(
        "mixed_delimiters.csv",
        lines("x,y,label", "1,2,a", "3,4,b", "5;6;a", "7;8;b", "9;1;a"),
        "The file mixes delimiters: lines 1-3 are separated by commas and lines "
        "4-6 by semicolons; use one delimiter in the whole file",
    ),
    read_error(
        "mixed_delimiters_tab.csv",
        lines("x;y;label", "1;2;a", "3\t4\tb", "5;6;a", "7\t8\tb"),
        "lines 1-2 and 4 are separated by semicolons and lines 3 and 5 by tabs",
    ),
    dataset_error(
        "five_columns_four_groups.csv",
        FIVE_COLUMNS,
        "4 classes (e, n, s, w)",
        x_columns=["x1", "x2"],
        label_column="group",
    ),
]

NUMBERED = ["column 1", "column 2", "column 3"]


def parses_to(
    delimiter: str = ",",
    has_header: bool = True,
    decimal_comma: bool = False,
    columns: list[str] | None = None,
    labels: tuple[str, str] = ("-1", "1"),
    first: tuple[float, float] = (0.5, 1.2),
    rows: int = 10,
    positives: int = 5,
    **more,
) -> dict:
    """What ``read_table`` and ``to_dataset`` give for a good file: by default
    the ten GOOD_ROWS, five of them positive, under the header x1,x2,label."""
    return {
        "delimiter": delimiter,
        "has_header": has_header,
        "decimal_comma": decimal_comma,
        "rows": rows,
        "columns": columns or ["x1", "x2", "label"],
        "labels": list(labels),
        "positives": positives,
        "first": list(first),
        **more,
    }


# (file, contents or None to reuse a malformed file, to_dataset options, expectations)
GOOD = [
    ("good_comma_header.csv", table(GOOD_ROWS), {}, parses_to()),
    (
        "good_semicolon_no_header.csv",
        table(GOOD_ROWS, sep=";", header=None),
        {},
        parses_to(";", has_header=False, columns=NUMBERED),
    ),
    (
        "good_semicolon_decimal_comma.csv",
        table(
            [
                (a.replace(".", ","), b.replace(".", ","), "ja" if c == "1" else "nein")
                for a, b, c in GOOD_ROWS
            ],
            sep=";",
            header="Länge;Breite;Klasse",
        ),
        {},
        parses_to(
            ";",
            decimal_comma=True,
            columns=["Länge", "Breite", "Klasse"],
            labels=("ja", "nein"),
        ),
    ),
    (
        "good_string_labels.csv",
        table(
            [(a, b, "dog" if c == "1" else "cat") for a, b, c in GOOD_ROWS],
            header="weight,height,animal",
        ),
        {},
        parses_to(columns=["weight", "height", "animal"], labels=("cat", "dog")),
    ),
    (
        "good_zero_one_labels.csv",
        table([(a, b, "1" if c == "1" else "0") for a, b, c in GOOD_ROWS], header=None),
        {},
        parses_to(has_header=False, columns=NUMBERED, labels=("0", "1")),
    ),
    (
        "good_tab.csv",
        table(GOOD_ROWS, sep="\t", header="x1\tx2\tlabel"),
        {},
        parses_to("\t"),
    ),
    (
        "good_excel_bom_crlf.csv",
        b"\xef\xbb\xbf"
        + lines(
            '"x";"y";"label";',
            *(
                f'{a.replace(".", ",")};{b.replace(".", ",")};"{c}";'
                for a, b, c in GOOD_ROWS
            ),
            ";;;",
            "",
            end="\r\n",
        ),
        {},
        parses_to(";", decimal_comma=True, columns=["x", "y", "label"]),
    ),
    (
        "good_five_columns.csv",
        FIVE_COLUMNS,
        {"x_columns": ["x2", "x1"], "label_column": "label"},
        parses_to(columns=["id", "x1", "x2", "group", "label"], first=(1.2, 0.5)),
    ),
    (
        "nan_feature.csv",
        None,
        {"drop_nonfinite": True},
        parses_to(rows=5, positives=2, kept=4),
    ),
]


def main() -> None:
    malformed, good = [], []
    for name, contents, stage, phrase, options in MALFORMED:
        (HERE / name).write_bytes(contents)
        entry = {"file": name, "stage": stage, "error": "DataError", "phrase": phrase}
        malformed.append(entry | ({"options": options} if options else {}))
    for name, contents, options, expected in GOOD:
        if contents is not None:
            (HERE / name).write_bytes(contents)
        good.append({"file": name, "options": options, **expected})
    document = {
        "_about": (
            "Sample uploads for svmlab.datasets.csv_data (written by generate.py). "
            "'malformed': "
            "stage 'read' fails in read_table(bytes), 'dataset' in to_dataset(table, "
            "**options); the message contains 'phrase'. 'good': what read_table and "
            "to_dataset(table, **options) give ('kept' rows after dropping, if not "
            "'rows'; 'positives' rows labelled +1; 'first' the first row of X)."
        ),
        "malformed": malformed,
        "good": good,
    }
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    (HERE / "EXPECTED.json").write_text(text, encoding="utf-8")
    (HERE / ".gitattributes").write_text(
        "# Sample files are bytes: no eol conversion.\n* -text\n"
    )


if __name__ == "__main__":
    main()

"""Write the sample CSV files of this folder and EXPECTED.json (run from anywhere).

    python tests/data/csv/generate.py

Each MALFORMED entry is one distinct problem a student's upload can have: the file, the
stage that refuses it (``"read"``: :func:`svmlab.csv_data.read_table`, ``"dataset"``:
:func:`svmlab.csv_data.to_dataset`), the error class, a phrase of its message and, where
the problem only shows with a choice of columns, the ``to_dataset`` options. Each GOOD
entry says what the file parses to. ``tests/test_csv_data.py`` checks both lists and
the page tests reuse them. The files are written byte for byte (``.gitattributes``
keeps git from touching line endings).
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


# (file, contents, stage, phrase, to_dataset options)
MALFORMED = [
    ("empty.csv", b"", "read", "The file is empty", {}),
    ("whitespace_only.csv", b"  \n\t\n   \r\n\n", "read", "only blank lines", {}),
    (
        "only_delimiters.csv",
        b",,\n;;;\n , ,\n",
        "read",
        "Every line of the file is empty",
        {},
    ),
    ("header_only.csv", lines("x1,x2,label"), "read", "only a header row", {}),
    ("binary_junk.csv", png_junk(), "read", "looks like a binary file", {}),
    (
        "latin1.csv",
        "x;y;étiquette\n1,5;2;café\n2;1,5;thé\n".encode("latin-1"),
        "read",
        "not UTF-8 text: line 1 has the byte 0xE9",
        {},
    ),
    (
        "utf16.csv",
        "x1,x2,label\n0.5,1.2,1\n-0.6,-1.1,-1\n".encode("utf-16"),
        "read",
        "it is UTF-16",
        {},
    ),
    ("excel_renamed.csv", excel_zip(), "read", "Excel workbook", {}),
    (
        "nul_byte.csv",
        lines("x1,x2,label", "0.5,1.2,1", "1.1,0.\x007,1", "-0.6,-1.1,-1"),
        "read",
        "Line 3 contains a NUL character",
        {},
    ),
    (
        "lone_label_column.csv",
        lines("label", "a", "b", "a", "b"),
        "read",
        "only one column",
        {},
    ),
    (
        "ragged_row.csv",
        lines(
            "x1,x2,label", "0.5,1.2,1", "1.1,0.7,1", "-0.6,-1.1,-1", "-1.2,-0.4,-1,7"
        ),
        "read",
        "Line 5 has 4 values, but line 1 has 3",
        {},
    ),
    (
        "too_many_rows.csv",
        lines(
            "x1,x2,label", *(f"{i % 7},{i % 5},{1 - 2 * (i % 2)}" for i in range(5001))
        ),
        "read",
        "more than 5,000 data rows",
        {},
    ),
    (
        "too_many_lines.csv",
        lines("x1,x2,label", "0.5,1.2,1", "-0.6,-1.1,-1") + b"\n" * 21_000,
        "read",
        "has 21,003 lines; the limit is 5,000 data rows",
        {},
    ),
    (
        "too_many_columns.csv",
        lines(
            *(
                ",".join(f"c{j}" if r == 0 else str(r) for j in range(1001))
                for r in range(3)
            )
        ),
        "read",
        "1,001 columns; the limit is 1,000",
        {},
    ),
    (
        "long_cell.csv",
        lines("x1,x2,label", "0.5,1.2,1", "-0.6,-1.1," + "b" * 5000),
        "read",
        "Line 3 has a value of more than 1,000 characters",
        {},
    ),
    (
        "duplicated_header.csv",
        table(GOOD_ROWS, header="x,x,label"),
        "read",
        "more than one column named 'x'",
        {},
    ),
    (
        "unclosed_quote.csv",
        lines("x1,x2,label", "0.5,1.2,1", '1.1,0.7,"1', "-0.6,-1.1,-1"),
        "read",
        'A quote (") opened on line 3 is never closed',
        {},
    ),
    (
        "stray_quote.csv",
        lines("x1,x2,label", "0.5,1.2,1", "1.1,0.7,1", '-0.6,-1.1,"a"b'),
        "read",
        "Line 4 is not valid CSV",
        {},
    ),
    (
        "two_columns.csv",
        lines("x,y", "1,2", "3,4", "5,6"),
        "dataset",
        "has 2 columns; it needs three",
        {},
    ),
    (
        "no_numeric_columns.csv",
        lines("name,colour,label", "foo,red,a", "bar,blue,b", "baz,green,a"),
        "dataset",
        "no numeric columns",
        {},
    ),
    (
        "one_numeric_column.csv",
        lines("x,name,label", "1.0,foo,a", "2.5,bar,b", "0.3,baz,a"),
        "dataset",
        "only one numeric column ('x')",
        {},
    ),
    (
        "non_numeric_feature_numeric_label.csv",
        lines("x,y,label", "1,abc,1", "2,def,-1", "3,ghi,1"),
        "dataset",
        "The column 'y' is not numeric",
        {},
    ),
    (
        "formula_in_feature.csv",
        lines("x1,x2,label", "0.5,1.2,1", "=cmd|' /C calc'!A0,0.7,1", "-0.6,-1.1,-1"),
        "dataset",
        "formulas are not evaluated",
        {},
    ),
    (
        "decimal_comma_mixed.csv",
        lines("x;y;label", "1,5;2,25;a", "1.5;2.0;b", "0,5;1;a"),
        "dataset",
        "mixes decimal commas and decimal points",
        {},
    ),
    (
        "nan_feature.csv",
        lines(
            "x1,x2,label",
            "0.5,1.2,1",
            "1.1,0.7,1",
            "0.9,NaN,1",
            "-0.6,-1.1,-1",
            "-1.2,-0.4,-1",
        ),
        "dataset",
        "line 4, column 'x2': 'NaN'",
        {},
    ),
    (
        "inf_feature.csv",
        lines("x1,x2,label", "0.5,1.2,1", "inf,0.7,1", "-0.6,-1.1,-1", "-1.2,-0.4,-1"),
        "dataset",
        "line 3, column 'x1': 'inf'",
        {},
    ),
    (
        "empty_cell.csv",
        lines("x1,x2,label", "0.5,1.2,1", "1.1,0.7,1", "-0.6,-1.1,-1", "-1.2,,-1"),
        "dataset",
        "line 5, column 'x2': empty",
        {},
    ),
    (
        "empty_label.csv",
        lines("x1,x2,label", "0.5,1.2,1", "1.1,0.7,", "-0.6,-1.1,-1", "-1.2,-0.4,-1"),
        "dataset",
        "line 3, column 'label': empty",
        {},
    ),
    (
        "all_rows_nonfinite.csv",
        lines("x1,x2,label", "nan,1.2,1", "1.1,inf,1", "-0.6,,-1"),
        "dataset",
        "No rows are left after dropping",
        {"drop_nonfinite": True},
    ),
    (
        "one_data_row.csv",
        lines("x1,x2,label", "0.5,1.2,1"),
        "dataset",
        "only 1 row",
        {},
    ),
    (
        "one_class.csv",
        table([(a, b, "a") for a, b, _ in GOOD_ROWS]),
        "dataset",
        "Only one class ('a')",
        {},
    ),
    (
        "three_classes.csv",
        table([(a, b, "abc"[i % 3]) for i, (a, b, _) in enumerate(GOOD_ROWS)]),
        "dataset",
        "3 classes (a, b, c); this page is binary",
        {},
    ),
    (
        "continuous_label.csv",
        table(
            [(a, b, f"{i * 0.37:.2f}") for i, (a, b, _) in enumerate(GOOD_ROWS)],
            header="x,y,z",
        ),
        "dataset",
        "10 classes (0.00, 0.37, 0.74, 1.11, 1.48, ... and 5 more)",
        {},
    ),
    (
        "thousands_separators.csv",
        lines(
            "x,y,label",
            '"1,234.5",2.5,1',
            '"2,000.0",0.7,1',
            "-0.6,-1.1,-1",
            "-1.2,-0.4,-1",
        ),
        "dataset",
        "Line 2, column 'x': '1,234.5' has a thousands separator; numbers with "
        "thousands separators such as 1,234.5 are not supported: remove the "
        "separators (write 1234.5)",
        {},
    ),
    (
        "thousands_separators_no_header.csv",
        lines('"1,234.5","2,500.0",a', '"3,456.5","1,000.0",b', '"12,000","1,500",a'),
        "dataset",
        "Line 1, column 'column 1': '1,234.5' has a thousands separator",
        {},
    ),
    (
        "thousands_separators_decimal_comma.csv",
        lines("x;y;label", "1.234,5;2,5;a", "3,5;4;b", "0,5;1;a"),
        "dataset",
        "'1.234,5' has a thousands separator; numbers with thousands separators "
        "such as 1.234,5 are not supported: remove the separators (write 1234,5)",
        {},
    ),
    (
        "mixed_delimiters.csv",
        lines("x,y,label", "1,2,a", "3,4,b", "5;6;a", "7;8;b", "9;1;a"),
        "read",
        "The file mixes delimiters: lines 1-3 are separated by commas and lines "
        "4-6 by semicolons; use one delimiter in the whole file",
        {},
    ),
    (
        "mixed_delimiters_tab.csv",
        lines("x;y;label", "1;2;a", "3\t4\tb", "5;6;a", "7\t8\tb"),
        "read",
        "lines 1-2 and 4 are separated by semicolons and lines 3 and 5 by tabs",
        {},
    ),
    (
        "five_columns_four_groups.csv",
        table(
            [(str(i), a, b, "nsew"[i % 4], c) for i, (a, b, c) in enumerate(GOOD_ROWS)],
            header="id,x1,x2,group,label",
        ),
        "dataset",
        "4 classes (e, n, s, w)",
        {"x_columns": ["x1", "x2"], "label_column": "group"},
    ),
]

# (file, contents or None to reuse a malformed file, to_dataset options, expectations)
GOOD = [
    (
        "good_comma_header.csv",
        table(GOOD_ROWS),
        {},
        {
            "delimiter": ",",
            "has_header": True,
            "decimal_comma": False,
            "rows": 10,
            "columns": ["x1", "x2", "label"],
            "labels": ["-1", "1"],
            "positives": 5,
            "first": [0.5, 1.2],
        },
    ),
    (
        "good_semicolon_no_header.csv",
        table(GOOD_ROWS, sep=";", header=None),
        {},
        {
            "delimiter": ";",
            "has_header": False,
            "decimal_comma": False,
            "rows": 10,
            "columns": ["column 1", "column 2", "column 3"],
            "labels": ["-1", "1"],
            "positives": 5,
            "first": [0.5, 1.2],
        },
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
        {
            "delimiter": ";",
            "has_header": True,
            "decimal_comma": True,
            "rows": 10,
            "columns": ["Länge", "Breite", "Klasse"],
            "labels": ["ja", "nein"],
            "positives": 5,
            "first": [0.5, 1.2],
        },
    ),
    (
        "good_string_labels.csv",
        table(
            [(a, b, "dog" if c == "1" else "cat") for a, b, c in GOOD_ROWS],
            header="weight,height,animal",
        ),
        {},
        {
            "delimiter": ",",
            "has_header": True,
            "decimal_comma": False,
            "rows": 10,
            "columns": ["weight", "height", "animal"],
            "labels": ["cat", "dog"],
            "positives": 5,
            "first": [0.5, 1.2],
        },
    ),
    (
        "good_zero_one_labels.csv",
        table([(a, b, "1" if c == "1" else "0") for a, b, c in GOOD_ROWS], header=None),
        {},
        {
            "delimiter": ",",
            "has_header": False,
            "decimal_comma": False,
            "rows": 10,
            "columns": ["column 1", "column 2", "column 3"],
            "labels": ["0", "1"],
            "positives": 5,
            "first": [0.5, 1.2],
        },
    ),
    (
        "good_tab.csv",
        table(GOOD_ROWS, sep="\t", header="x1\tx2\tlabel"),
        {},
        {
            "delimiter": "\t",
            "has_header": True,
            "decimal_comma": False,
            "rows": 10,
            "columns": ["x1", "x2", "label"],
            "labels": ["-1", "1"],
            "positives": 5,
            "first": [0.5, 1.2],
        },
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
        {
            "delimiter": ";",
            "has_header": True,
            "decimal_comma": True,
            "rows": 10,
            "columns": ["x", "y", "label"],
            "labels": ["-1", "1"],
            "positives": 5,
            "first": [0.5, 1.2],
        },
    ),
    (
        "good_five_columns.csv",
        table(
            [(str(i), a, b, "nsew"[i % 4], c) for i, (a, b, c) in enumerate(GOOD_ROWS)],
            header="id,x1,x2,group,label",
        ),
        {"x_columns": ["x2", "x1"], "label_column": "label"},
        {
            "delimiter": ",",
            "has_header": True,
            "decimal_comma": False,
            "rows": 10,
            "columns": ["id", "x1", "x2", "group", "label"],
            "labels": ["-1", "1"],
            "positives": 5,
            "first": [1.2, 0.5],
        },
    ),
    (
        "nan_feature.csv",
        None,
        {"drop_nonfinite": True},
        {
            "delimiter": ",",
            "has_header": True,
            "decimal_comma": False,
            "rows": 5,
            "columns": ["x1", "x2", "label"],
            "labels": ["-1", "1"],
            "positives": 2,
            "first": [0.5, 1.2],
            "kept": 4,
        },
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
            "Sample uploads for svmlab.csv_data (written by generate.py). 'malformed': "
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

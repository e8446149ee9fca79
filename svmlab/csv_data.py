"""Bring your own data: read a student's CSV file into ``(X, y)`` and write it back.

- :func:`read_table` turns the uploaded bytes into a :class:`CsvTable` of strings: it
  finds the delimiter (comma, semicolon or tab), a header row if there is one, and
  decimal commas (``1,5;2,25;a``), and checks the file: size, encoding, row, column and
  cell caps, broken quotes, lines of different lengths.
- :func:`to_dataset` takes two feature columns and a label column and returns ``X`` of
  shape ``(n, 2)`` and ``y`` in {-1, +1} (the contract of :mod:`svmlab.datasets`),
  checking numeric features, missing/NaN/inf values (optionally dropped), at least two
  rows and exactly two classes.
- :func:`to_csv` writes ``(X, y)`` back in the upload's format, so that a download
  reads back to the same arrays; a label or column name a spreadsheet would run as
  a formula goes out behind a single quote (OWASP "CSV injection").
- :func:`check_drawable` refuses points the pages cannot draw (values near 1e308,
  spreads far below their magnitude); both pages call it on uploads.

Every problem raises :class:`svmlab.errors.DataError` with a sentence a student can
act on. User input is only ever parsed as text: nothing here evaluates it or loads
objects from it, and a cell such as ``=cmd|' /C calc'!A0`` is just a non-numeric string.

Numbers are ASCII decimals (``-1``, ``.5``, ``2.``, ``1e-3``) or ``inf``/``infinity``
with a sign; in a file with decimal commas, ``,`` replaces ``.``. Thousands
separators (``1,234.5``) are refused with a message saying so. Empty cells and
``NA``, ``N/A``, ``NaN``, ``null``, ``None`` (any case) are missing values. A
leading single quote before ``= + - @`` is dropped (``'=1+1`` reads as ``=1+1``),
as :func:`to_csv` writes such cells.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain, islice

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from svmlab.errors import DataError

__all__ = [
    "DELIMITERS",
    "MAX_BYTES",
    "MAX_CELL_CHARS",
    "MAX_CLASSES",
    "MAX_COLUMNS",
    "MAX_MAGNITUDE",
    "MAX_ROWS",
    "MIN_RELATIVE_SPREAD",
    "MIN_SPREAD",
    "CsvTable",
    "check_drawable",
    "read_table",
    "to_csv",
    "to_dataset",
    "to_multiclass_dataset",
]

#: Most data rows: the solvers stay interactive up to a few thousand points.
MAX_ROWS = 5000
#: Largest file in bytes: ``server.maxUploadSize = 5`` (MB) in .streamlit/config.toml.
MAX_BYTES = 5 * 1024 * 1024
#: Most columns (a data set of 28 x 28 images has 785).
MAX_COLUMNS = 1000
#: Longest cell in characters: cells are numbers or short labels.
MAX_CELL_CHARS = 1000
#: The delimiters :func:`read_table` recognises, with their names.
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab"}

_SAMPLE = 50  # records that decide the delimiter and the header ...
_SAMPLE_LINES = 2000  # ... taken from at most this many lines
_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_DOT = re.compile(_NUM, re.ASCII)
_COMMA = re.compile(_NUM.replace(r"\.", ","), re.ASCII)
_POINT = re.compile(_NUM.replace(r"(?:\.\d*)?", r"\.\d*"), re.ASCII)  # 1.5, not 1
_DECIMAL_COMMA = re.compile(_POINT.pattern.replace(r"\.", ","), re.ASCII)  # 1,5
_INF = re.compile(r"[+-]?inf(?:inity)?", re.ASCII | re.IGNORECASE)
#: A number with thousands separators, where that reading is the only one:
#: 1,234.5 and 1,234,567 (or 1.234,5 and 1.234.567), not 1,234 (a decimal comma?).
_THOUSANDS = re.compile(
    r"[+-]?\d{1,3}(?:(?:,\d{3}){2,}(?:\.\d*)?|(?:,\d{3})+\.\d*"
    r"|(?:\.\d{3}){2,}(?:,\d*)?|(?:\.\d{3})+,\d*)",
    re.ASCII,
)
_MISSING = frozenset({"", "na", "n/a", "nan", "-nan", "+nan", "null", "none"})
_NUMBER_OR_MISSING = {  # by decimal_comma: one regex call per cell
    comma: re.compile(
        rf"{(_COMMA if comma else _DOT).pattern}|{_INF.pattern}"
        r"|na|n/a|[+-]?nan|null|none|",
        re.ASCII | re.IGNORECASE,
    )
    for comma in (False, True)
}
_ONLY_DELIMITERS = str.maketrans("", "", ',;\t"')
#: A text cell a spreadsheet would run as a formula (OWASP, "CSV injection"),
#: possibly behind quotes already added: :func:`to_csv` writes it with one more
#: leading single quote, and :func:`read_table` drops one, so text reads back.
_FORMULA = re.compile(r"'*[=+\-@\t\r]")


@dataclass(frozen=True, eq=False)
class CsvTable:
    """A CSV file read as text, with what :func:`read_table` found out about it.

    Attributes
    ----------
    columns
        Column names: the header's, else (and for an empty header cell)
        ``"column 1"``, ``"column 2"``, ...
    numeric
        The columns whose cells are all numbers or missing, at least one a number.
    rows
        Number of data rows (header and blank lines excluded).
    delimiter
        ``","``, ``";"`` or ``"\\t"``.
    has_header
        Whether the first non-blank line is a header.
    decimal_comma
        Whether numbers are written ``1,5`` (only with ``;`` or tab).
    frame
        The cells as stripped strings, one column per name, indexed by the line
        number of each row in the file (from 1).
    """

    columns: tuple[str, ...]
    numeric: tuple[str, ...]
    rows: int
    delimiter: str
    has_header: bool
    decimal_comma: bool
    frame: pd.DataFrame

    def describe(self) -> str:
        """One line for the page: ``"120 rows, 3 columns, semicolon-separated, with a
        header, decimal commas"``."""
        return ", ".join(
            [
                f"{self.rows:,} row{'s' * (self.rows != 1)}",
                f"{len(self.columns)} columns",
                f"{DELIMITERS[self.delimiter]}-separated",
                "with a header" if self.has_header else "no header",
            ]
            + ["decimal commas"] * self.decimal_comma
        )


def _number(cell: str, decimal_comma: bool) -> float | None:
    """The value of a stripped cell: a float, NaN if missing, None if it is text."""
    if cell.lower() in _MISSING:
        return math.nan
    if _INF.fullmatch(cell):
        return float(cell)
    if decimal_comma:
        return float(cell.replace(",", ".")) if _COMMA.fullmatch(cell) else None
    return float(cell) if _DOT.fullmatch(cell) else None


def _kind(cell: str, allow_comma: bool) -> str:
    """``"missing"``, ``"number"`` (either decimal mark if allowed) or ``"text"``."""
    if cell.lower() in _MISSING:
        return "missing"
    # 1,234.5 counts as a number here (a first row of them is data, not a
    # header), although to_dataset refuses it with its own message.
    number = _INF.fullmatch(cell) or _DOT.fullmatch(cell) or _THOUSANDS.fullmatch(cell)
    return "number" if number or (allow_comma and _COMMA.fullmatch(cell)) else "text"


def _neutralise(cell: str, decimal_comma: bool) -> str:
    """``cell`` for a file a spreadsheet may open: a text cell starting with
    ``= + - @`` (tab, CR), after any single quotes, gets a leading ``'``;
    numbers (``-1.5``, ``+2``, ``-inf``) are left as they are."""
    if _FORMULA.match(cell) and _kind(cell, decimal_comma) == "text":
        return "'" + cell
    return cell


def _unquote(cell: str) -> str:
    """:func:`_neutralise` undone: one leading ``'`` dropped before a formula
    character (``'=1+1`` reads as ``=1+1``, ``'x`` stays ``'x``)."""
    return cell[1:] if cell[:1] == "'" and _FORMULA.match(cell, 1) else cell


def _quote(value: object) -> str:
    """``repr`` of a value a caller passed (a column name, a label), without
    numpy's type names: ``'a'`` and ``1``, never ``np.str_('a')``, ``np.int64(1)``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        value = str(value)
    return repr(value)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' * (n != 1)}"


def _show(cell: str) -> str:
    return repr(cell if len(cell) <= 40 else cell[:37] + "...")


def _size(n: int) -> str:
    scale, unit = (1 << 20, "MB") if n >= 1 << 20 else (1 << 10, "KB")
    if n < 1 << 10:
        return f"{n} bytes"
    return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"


def _decode(data: bytes) -> str:
    """UTF-8 text (a BOM is dropped), or a DataError saying what the bytes are."""
    if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        raise DataError(
            "The file looks like an Excel workbook (or another zipped file), not CSV "
            "text. In your spreadsheet program choose Save As > 'CSV UTF-8'."
        )
    nuls = data.count(0)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or (
        nuls > len(data) / 4
        and max(data[::2].count(0), data[1::2].count(0)) > nuls * 0.9
    ):
        raise DataError(
            "The file is not UTF-8 text: it is UTF-16. Save it as 'CSV UTF-8' and "
            "upload it again."
        )
    binary = DataError(
        "The file looks like a binary file (an image, a program, an archive), not CSV "
        "text."
    )
    try:
        text = data.replace(b"\x00", b"").decode("utf-8-sig")
    except UnicodeDecodeError as error:
        if nuls:
            raise binary from None
        raise DataError(
            f"The file is not UTF-8 text: line {data[: error.start].count(10) + 1} has "
            f"the byte 0x{data[error.start]:02X}, which UTF-8 does not allow (the file "
            "was probably saved as Latin-1 or Windows text). Save it as 'CSV UTF-8' "
            "and upload it again."
        ) from None
    if nuls:
        if nuls + sum(c < " " and c not in "\t\n\r" for c in text) > len(data) / 10:
            raise binary
        raise DataError(
            f"Line {data[: data.index(0)].count(10) + 1} contains a NUL character "
            "(byte 0), so the file is damaged or not plain text. Remove it and upload "
            "the file again."
        )
    return text


def _rows(text: str, delimiter: str) -> Iterator[tuple[int, list[str]]]:
    """``(line where the record starts, stripped cells)`` for each non-blank record."""
    reader = csv.reader(
        io.StringIO(text, newline=""),
        delimiter=delimiter,
        skipinitialspace=True,
        strict=True,
    )
    while True:
        line = reader.line_num + 1
        try:
            cells = [_unquote(cell.strip()) for cell in next(reader)]
        except StopIteration:
            return
        except csv.Error as error:
            if "field larger" in str(error):
                raise DataError(_long_cell(line)) from None
            if "unexpected end of data" in str(error):
                raise DataError(
                    f'A quote (") opened on line {line} is never closed; quotes must '
                    "surround a whole cell."
                ) from None
            raise DataError(
                f"Line {line} is not valid CSV ({error}). Check the quotes on that "
                "line: a quote must surround a whole cell."
            ) from None
        if any(cells):
            yield line, cells


def _long_cell(line: int) -> str:
    return (
        f"Line {line} has a value of more than {MAX_CELL_CHARS:,} characters; the "
        "cells of a data file are numbers or short labels."
    )


def _find_delimiter(text: str) -> str:
    """The delimiter that splits the first lines into the same number (> 1) of cells.

    ``csv.Sniffer`` is unreliable on decimal commas, so each candidate is scored by
    (same count on every sampled line, lines agreeing with the first, cells that are
    numbers, tab > semicolon > comma). The numbers tell ``1,5;2,25;a`` (semicolons)
    from the same line cut at its commas.
    """
    best, best_score, error = None, None, None
    for priority, delimiter in enumerate((",", ";", "\t")):
        sample = []
        try:  # a broken quote ends the sample; the full read reports it
            for line, cells in islice(_rows(text, delimiter), _SAMPLE):
                if line > _SAMPLE_LINES:
                    break
                sample.append(cells)
        except DataError as broken:
            error = error or broken
        counts = [len(cells) for cells in sample]
        if not counts or max(counts) < 2:
            continue
        comma = delimiter != ","
        score = (
            len(set(counts)) == 1,
            counts.count(counts[0]),
            sum(_kind(c, comma) == "number" for c in chain.from_iterable(sample)),
            priority,
        )
        if best_score is None or score > best_score:
            best, best_score = delimiter, score
    if best is None:
        raise error or DataError(
            "The file has only one column. Each line needs two feature values and a "
            "label, separated by commas, semicolons or tabs."
        )
    return best


def _read_records(
    text: str, delimiter: str, max_rows: int
) -> tuple[list[int], list[list[str]]]:
    """Line numbers and cells of the non-blank records, with the per-line checks."""
    lines, records = [], []
    for line, cells in _rows(text, delimiter):
        if len(cells) > MAX_COLUMNS:
            raise DataError(
                f"Line {line} has {len(cells):,} columns; the limit is "
                f"{MAX_COLUMNS:,} columns."
            )
        if max(map(len, cells)) > MAX_CELL_CHARS:
            raise DataError(_long_cell(line))
        if len(records) > max_rows:  # too many even if the first is a header
            raise DataError(_too_many_rows(max_rows))
        lines.append(line)
        records.append(cells)
    if len(records[0]) > 1 and all(cells[-1] == "" for cells in records):
        records = [cells[:-1] for cells in records]  # every line ends in a delimiter
    for line, cells in zip(lines, records, strict=True):
        if len(cells) != len(records[0]):
            raise DataError(
                _mixed_delimiters(text)
                or f"Line {line} has {_plural(len(cells), 'value')}, but line "
                f"{lines[0]} has {len(records[0])}; every line needs the same number "
                "of values."
            )
    return lines, records


_PLURAL_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


def _mixed_delimiters(text: str) -> str | None:
    """A sentence saying which lines use which delimiter, if every non-blank line
    splits into the same number (> 1) of cells with one delimiter or another and
    the lines do not all use the same one; else None (the caller's message)."""
    split: dict[int, dict[str, int]] = {}
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        if not line.strip():
            continue
        split[number] = {}
        for delimiter in DELIMITERS:
            try:
                row = next(csv.reader([line], delimiter=delimiter, strict=True))
            except (csv.Error, StopIteration):
                continue
            split[number][delimiter] = len(row)
    # The number of cells that explains the most lines, then per line the
    # delimiter giving it (the one most lines use, where several do).
    counts = {k for found in split.values() for k in found.values() if k > 1}
    if not counts:
        return None
    best = max(counts, key=lambda k: (sum(k in f.values() for f in split.values()), k))
    users = {d: sum(f.get(d) == best for f in split.values()) for d in DELIMITERS}
    chosen: dict[str, list[int]] = {}
    for number, found in split.items():
        fits = [d for d in DELIMITERS if found.get(d) == best]
        if not fits:
            return None
        chosen.setdefault(max(fits, key=users.__getitem__), []).append(number)
    if len(chosen) < 2:
        return None
    parts = []
    for k, (delimiter, numbers) in enumerate(chosen.items()):
        where = _line_list(numbers)
        verb = (" are" if where.startswith("lines") else " is") * (k == 0)
        parts.append(
            f"{where}{verb}{' separated' * (k == 0)} by {_PLURAL_NAMES[delimiter]}"
        )
    listed = ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"The file mixes delimiters: {listed}; use one delimiter in the whole file."


def _line_list(numbers: list[int], most: int = 4) -> str:
    """``"line 4"``, ``"lines 1-3"``, ``"lines 1-2, 4 and 6"``, ``"lines 1, 3, 5,
    7 and others"``: sorted line numbers as ranges."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    shown = [f"{a}-{b}" if b > a else f"{a}" for a, b in runs]
    if len(shown) > most:
        shown = [*shown[:most], "others"]
    word = "line" if len(numbers) == 1 else "lines"
    if len(shown) == 1:
        return f"{word} {shown[0]}"
    return f"{word} {', '.join(shown[:-1])} and {shown[-1]}"


def _too_many_rows(max_rows: int) -> str:
    return (
        f"The file has more than {max_rows:,} data rows; the limit is {max_rows:,} "
        "(the solvers on these pages stay interactive up to a few thousand points). "
        "Upload a sample of the rows."
    )


def _has_header(records: list[list[str]], comma: bool) -> bool:
    """The first record is a header if it holds text and no number, and some column
    has text there but mostly numbers below (or no later row holds a number)."""
    kinds = [_kind(cell, comma) for cell in records[0]]
    if "number" in kinds or "text" not in kinds:
        return False
    later = [[_kind(c, comma) for c in cells] for cells in records[1 : 1 + _SAMPLE]]
    for j, kind in enumerate(kinds):
        below = [row[j] for row in later]
        if kind == "text" and below.count("number") > below.count("text"):
            return True
    return not any("number" in row for row in later)


def read_table(
    data: bytes, *, max_rows: int = MAX_ROWS, max_bytes: int = MAX_BYTES
) -> CsvTable:
    """Read an uploaded CSV file into a table of strings.

    Parameters
    ----------
    data
        The file's bytes: UTF-8 text (a byte-order mark is fine), separated by commas,
        semicolons or tabs, with or without a header row, with decimal points or (with
        semicolons or tabs) decimal commas. Blank lines are skipped, and an empty last
        column on every line (``1;2;a;``) is dropped.
    max_rows
        Most data rows accepted.
    max_bytes
        Largest file accepted, in bytes.

    Returns
    -------
    CsvTable
        The cells as text, the column names, and which columns are numeric.

    Raises
    ------
    DataError
        The file is empty, blank, too large, not UTF-8 text (Latin-1, UTF-16, Excel,
        binary, a NUL character), has one column only, too many lines, rows or
        columns, an over-long cell, a broken quote, lines of different lengths, only
        a header, or a header naming a column twice.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"read_table expects bytes, not {type(data).__name__}")
    data = bytes(data)
    if not data:
        raise DataError("The file is empty.")
    if len(data) > max_bytes:
        raise DataError(
            f"The file is {_size(len(data))}; the limit is {_size(max_bytes)}. "
            "Upload a smaller sample of the data."
        )
    text = _decode(data)
    n_lines = max(text.count("\n"), text.count("\r"))
    if n_lines > 4 * max_rows + 1000:  # reading blank lines takes time too
        raise DataError(
            f"The file has {n_lines:,} lines; the limit is {max_rows:,} data rows. "
            "Remove the blank lines or upload a sample of the rows."
        )
    if not text.strip():
        raise DataError(
            "The file holds only blank lines or whitespace, no data."
            if text
            else "The file is empty."
        )
    if not text.translate(_ONLY_DELIMITERS).strip():
        raise DataError(
            "Every line of the file is empty or holds only delimiters: no data."
        )
    delimiter = _find_delimiter(text)
    lines, records = _read_records(text, delimiter, max_rows)
    comma = delimiter != ","
    cells = list(chain.from_iterable(records))
    decimal_comma = (
        comma
        and not any(map(_POINT.fullmatch, cells))
        and any(map(_DECIMAL_COMMA.fullmatch, cells))
    )
    has_header = _has_header(records, comma)
    names = [f"column {j + 1}" for j in range(len(records[0]))]
    if has_header:
        if len(records) == 1:
            raise DataError("The file has only a header row and no data.")
        names = [name or names[j] for j, name in enumerate(records[0])]
        lines, records = lines[1:], records[1:]
        for name in names:
            if names.count(name) > 1:
                raise DataError(
                    f"The header has more than one column named {_quote(name)}; "
                    "give each column its own name."
                )
    if len(records) > max_rows:
        raise DataError(_too_many_rows(max_rows))
    match = _NUMBER_OR_MISSING[decimal_comma].fullmatch
    numeric = [
        name
        for name, column in zip(names, zip(*records, strict=True), strict=True)
        if all(map(match, column)) and any(c.lower() not in _MISSING for c in column)
    ]
    index = pd.Index(lines, name="line")
    return CsvTable(
        columns=tuple(names),
        numeric=tuple(numeric),
        rows=len(records),
        delimiter=delimiter,
        has_header=has_header,
        decimal_comma=decimal_comma,
        frame=pd.DataFrame(records, columns=names, index=index, dtype=str),
    )


def _choose(
    table: CsvTable, x_columns: tuple[str, str] | None, label_column: str | None
) -> tuple[list[str], str]:
    """The two feature columns and the label column, defaults applied and checked."""
    columns = list(table.columns)
    chosen = [*(x_columns or ()), *([] if label_column is None else [label_column])]
    for name in chosen:
        if name not in columns:
            raise DataError(
                f"There is no column {_quote(name)}; the columns are: "
                f"{', '.join(columns)}."
            )
    if len(columns) < 3:
        raise DataError(
            f"The file has {len(columns)} columns; it needs three: two feature columns "
            "and a label column."
        )
    if len(columns) > 3 and (x_columns is None or label_column is None):
        raise DataError(
            f"The file has {len(columns)} columns; choose two feature columns and a "
            "label column."
        )
    if x_columns is not None and (len(x_columns) != 2 or x_columns[0] == x_columns[1]):
        raise DataError("Choose two different feature columns.")
    if label_column is None:
        label_column = [c for c in columns if c not in (x_columns or ())][-1]
    if label_column in (x_columns or ()):
        raise DataError(
            f"The label column {_quote(label_column)} cannot also be a feature."
        )
    return list(x_columns or [c for c in columns if c != label_column]), label_column


def _check_numeric(table: CsvTable, features: list[str]) -> None:
    """A DataError naming the first non-numeric feature column and its first text."""
    bad = [c for c in features if c not in table.numeric]
    if not bad:
        return
    cells = table.frame[bad[0]]
    for line, cell in cells.items():
        if _THOUSANDS.fullmatch(cell):
            # The first mark of 1,234.5 (or of 1.234,5) is the separator; in
            # 1,234,567 every mark is.
            mark = min((cell.find(m), m) for m in ",." if m in cell)[1]
            raise DataError(
                f"Line {line}, column {_quote(bad[0])}: {_show(cell)} has a thousands "
                f"separator; numbers with thousands separators such as {cell} are not "
                f"supported: remove the separators (write {cell.replace(mark, '')})."
            )
    text = [_number(cell, table.decimal_comma) is None for cell in cells]
    where, hint = "it holds no numbers", ""
    if any(text):
        line, cell = cells.index[text.index(True)], cells.iloc[text.index(True)]
        where = f"line {line}: {_show(cell)}"
        if (_DOT if table.decimal_comma else _COMMA).fullmatch(cell):
            hint = " The file mixes decimal commas and decimal points; use one of them."
        elif cell.startswith("="):
            hint = " Cells are read as text: formulas are not evaluated."
    if len(table.numeric) < 2:
        only = (
            f"only one numeric column ({_quote(table.numeric[0])})"
            if table.numeric
            else ""
        )
        raise DataError(
            f"The file has {only or 'no numeric columns'}; it needs two numeric "
            f"feature columns (column {_quote(bad[0])}, {where}).{hint}"
        )
    raise DataError(
        f"The column {_quote(bad[0])} is not numeric ({where}); feature columns must "
        f"hold numbers.{hint}"
    )


def _label_keys(values: list[str], decimal_comma: bool) -> list[object]:
    """Keys that group and order label values: numbers if all are numbers, else text."""
    numbers = [_number(v, decimal_comma) for v in values]
    return list(values) if None in numbers else numbers


def _labelled_rows(
    table: CsvTable,
    x_columns: tuple[str, str] | None,
    label_column: str | None,
    drop_nonfinite: bool,
) -> tuple[NDArray[np.float64], list[str], list, dict, list, str]:
    """The checked rows: ``(X, values, keys, first, classes, label)``: features,
    label texts, their sort keys, the first text of each key, the sorted keys
    and the label column's name (shared by the binary and multiclass readers)."""
    features, label = _choose(table, x_columns, label_column)
    _check_numeric(table, features)
    frame, comma = table.frame, table.decimal_comma
    X = np.array(
        [[_number(cell, comma) for cell in frame[c].tolist()] for c in features]
    ).T.reshape(-1, 2)
    values = frame[label].tolist()
    missing = np.array([v.lower() in _MISSING for v in values], dtype=bool)
    bad = ~np.isfinite(X).all(axis=1) | missing
    if bad.any() and not drop_nonfinite:
        i, k = int(np.argmax(bad)), int(bad.sum())
        nonfinite = [
            c for c, x in zip(features, X[i], strict=True) if not np.isfinite(x)
        ]
        column = (nonfinite or [label])[0]
        cell = frame[column].iloc[i]
        raise DataError(
            f"{k} row{'s contain' if k > 1 else ' contains'} missing, NaN or infinite "
            f"values (the first is line {frame.index[i]}, column {_quote(column)}: "
            f"{_show(cell) if cell else 'empty'}). Tick 'drop those rows' to leave "
            "them out, or fix the file."
        )
    if bad.all():
        raise DataError(
            "No rows are left after dropping the rows with missing, NaN or infinite "
            "values."
        )
    X, values = X[~bad], [v for v, b in zip(values, bad, strict=True) if not b]
    if len(values) < 2:
        raise DataError(
            "The data has only 1 row; an SVM needs at least two points, one of each "
            "class."
        )
    keys = _label_keys(values, comma)
    first: dict[object, str] = {}
    for key, value in zip(keys, values, strict=True):
        first.setdefault(key, value)
    classes = sorted(first)
    return X, values, keys, first, classes, label


def to_dataset(
    table: CsvTable,
    *,
    x_columns: tuple[str, str] | None = None,
    label_column: str | None = None,
    drop_nonfinite: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[str, str]]:
    """Two feature columns and a label column of a table, as ``(X, y, labels)``.

    Parameters
    ----------
    table
        A table from :func:`read_table`.
    x_columns
        The two feature columns (numeric). By default, in a file of three columns:
        the two that are not the label column. In a wider file, choose them.
    label_column
        The label column: any two distinct values (``-1``/``1``, ``0``/``1``,
        ``cat``/``dog``, ...). By default, in a file of three columns: the last one
        not in ``x_columns``. In a wider file, choose it.
    drop_nonfinite
        Leave out the rows with a missing, NaN or infinite feature or a missing label
        instead of refusing the data.

    Returns
    -------
    X : ndarray of shape (n, 2)
        The features, finite float64.
    y : ndarray of shape (n,)
        -1.0 or +1.0; the larger label value (as numbers if all are numbers, else as
        text) is +1.
    labels : tuple of two str
        The label values as written in the file: for -1, for +1.

    Raises
    ------
    DataError
        Columns not chosen or unknown, a feature not numeric, missing/NaN/inf values
        (unless dropped), fewer than two rows, one class only, more than two classes.
    """
    X, values, keys, first, classes, label = _labelled_rows(
        table, x_columns, label_column, drop_nonfinite
    )
    if len(classes) == 1:
        raise DataError(
            f"Only one class ({_quote(values[0])}) in the label column "
            f"{_quote(label)}; an SVM needs points of two classes."
        )
    if len(classes) > 2:
        shown = ", ".join(first[key] for key in classes[:5])
        more = f", ... and {len(classes) - 5} more" if len(classes) > 5 else ""
        raise DataError(
            f"The label column {_quote(label)} has {len(classes)} classes "
            f"({shown}{more}); "
            "this page is binary, so it needs exactly two (the Multiclass page "
            "takes several). Choose another label column or keep the rows of two "
            "classes only."
        )
    y = np.where([key == classes[1] for key in keys], 1.0, -1.0)
    return np.ascontiguousarray(X), y, (first[classes[0]], first[classes[1]])


#: The most classes :func:`to_multiclass_dataset` accepts (the colours the
#: Multiclass page can tell apart).
MAX_CLASSES = 8


def to_multiclass_dataset(
    table: CsvTable,
    x_columns: tuple[str, str] | None = None,
    label_column: str | None = None,
    *,
    drop_nonfinite: bool = False,
    max_classes: int = MAX_CLASSES,
) -> tuple[NDArray[np.float64], NDArray[np.int64], tuple[str, ...]]:
    """:func:`to_dataset` for two or more classes (the Multiclass page).

    The same columns, checks and messages, but the label column may hold up to
    ``max_classes`` distinct values. Returns ``X`` (n, 2), ``y`` the class
    numbers 0 .. k-1 (in sorted label order: as numbers if all are numbers,
    else as text) and the labels as written in the file, in that order.
    """
    X, values, keys, first, classes, label = _labelled_rows(
        table, x_columns, label_column, drop_nonfinite
    )
    if len(classes) == 1:
        raise DataError(
            f"Only one class ({_quote(values[0])}) in the label column "
            f"{_quote(label)}; a classifier needs points of at least two classes."
        )
    if len(classes) > max_classes:
        shown = ", ".join(first[key] for key in classes[:5])
        raise DataError(
            f"The label column {_quote(label)} has {len(classes)} classes "
            f"({shown}, ...); this page draws at most {max_classes}. Choose another "
            "label column or keep the rows of fewer classes."
        )
    code = {key: c for c, key in enumerate(classes)}
    y = np.array([code[key] for key in keys], dtype=np.int64)
    return np.ascontiguousarray(X), y, tuple(first[key] for key in classes)


#: Largest feature magnitude the pages draw (the grid and kernel need headroom).
MAX_MAGNITUDE = 1e100
#: Smallest spread of the points, relative to their magnitude and absolute, that
#: still gives a grid of distinct float coordinates.
MIN_RELATIVE_SPREAD = 1e-9
MIN_SPREAD = 1e-100


def check_drawable(X: ArrayLike, *, advice: str = "Rescale the columns.") -> None:
    """Refuse points the pages cannot draw on a grid at this scale.

    A :class:`DataError` (its sentence ends with ``advice``) if a value is beyond
    :data:`MAX_MAGNITUDE`, or if distinct points are closer than
    :data:`MIN_SPREAD` or than :data:`MIN_RELATIVE_SPREAD` of their magnitude.
    Finite values near 1e308 pass :func:`to_dataset` (they are numbers), but
    their span overflows, and so do the decision grid and the axis limits.
    """
    X = np.asarray(X, dtype=np.float64)
    magnitude = float(np.abs(X).max())
    with np.errstate(over="ignore"):  # 1e308 - (-1e308) is inf: refused below
        spread = float((X.max(axis=0) - X.min(axis=0)).max())
    if magnitude > MAX_MAGNITUDE:
        raise DataError(
            f"The feature values reach {magnitude:.3g}; the page draws values up to "
            f"{MAX_MAGNITUDE:.0e}. {advice}"
        )
    if spread > 0 and spread < max(MIN_SPREAD, MIN_RELATIVE_SPREAD * magnitude):
        raise DataError(
            f"The points differ by at most {spread:.3g} while their values reach "
            f"{magnitude:.3g}: too close together to draw. {advice}"
        )


def _check_text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value or value != value.strip():
        raise DataError(f"{what} must be non-empty text without surrounding spaces.")
    if value.lower() in _MISSING or "\x00" in value or len(value) > MAX_CELL_CHARS:
        raise DataError(f"{what} {_quote(value)} would not read back as written.")
    return value


def to_csv(
    X: NDArray[np.float64],
    y: NDArray[np.float64],
    labels: tuple[str, str] = ("-1", "1"),
    *,
    delimiter: str = ",",
    header: tuple[str, str, str] | None = ("x1", "x2", "label"),
    decimal_comma: bool = False,
) -> str:
    """Write ``(X, y)`` as CSV text in a given format: :func:`to_dataset` inverted.

    ``to_dataset(read_table(to_csv(X, y, ...).encode()))`` gives back ``X`` (each float
    is written as its shortest exact ``repr``), ``y`` and ``labels``.

    A label or column name that a spreadsheet would run as a formula (text
    starting with ``=``, ``+``, ``-``, ``@``, a tab or CR; OWASP "CSV injection")
    is written with a leading single quote, which spreadsheets show as text and
    :func:`read_table` drops; numbers such as ``-1.5`` are written as they are.

    Parameters
    ----------
    X
        Features, shape (n, 2).
    y
        Labels in {-1, +1}, shape (n,).
    labels
        The text for -1 and for +1, in the order :func:`to_dataset` returns them
        (the smaller value first), so that they read back the same way round.
    delimiter
        ``","``, ``";"`` or ``"\\t"``: the upload's :attr:`CsvTable.delimiter`.
    header
        Three column names, or None for no header row.
    decimal_comma
        Write ``1,5`` for 1.5 (only with ``;`` or tab).

    Returns
    -------
    str
        The CSV text, each line ending in ``"\\n"``.

    Raises
    ------
    DataError
        A format or arguments that would not read back to the same data.
    """
    if delimiter not in DELIMITERS or (decimal_comma and delimiter == ","):
        raise DataError(
            f"Unknown delimiter {_quote(delimiter)}; use ',', ';' or a tab (decimal "
            "commas need a semicolon or a tab)."
        )
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != X.shape[:1]:
        raise DataError(
            f"X must have shape (n, 2), y shape (n,), not {X.shape}, {y.shape}."
        )
    if not np.isin(y, (-1.0, 1.0)).all():
        raise DataError("y must hold only -1 and +1.")
    other, mark = (_DOT, ".") if decimal_comma else (_COMMA, ",")
    for value in labels:
        _check_text(value, "A label")
        if delimiter != "," and mark in value and other.fullmatch(value):
            raise DataError(
                f"The label {_quote(value)} would change how numbers are read."
            )
    keys = _label_keys(list(labels), decimal_comma)
    if len(keys) != 2 or not keys[0] < keys[1]:
        raise DataError(
            "The labels must be (value for -1, value for +1) in sorted order, as "
            f"to_dataset returns them, not ({', '.join(map(_quote, labels))})."
        )
    if header is not None and (len(header) != 3 or len(set(header)) != 3):
        raise DataError("header must be three different column names.")
    for name in header or ():
        if _kind(_check_text(name, "A column name"), True) != "text":
            raise DataError(f"The column name {_quote(name)} looks like a number.")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    if header is not None:
        writer.writerow([_neutralise(name, decimal_comma) for name in header])
    point = "," if decimal_comma else "."
    text = [_neutralise(value, decimal_comma) for value in labels]
    for (a, b), t in zip(X.tolist(), y.tolist(), strict=True):
        writer.writerow(
            [repr(a).replace(".", point), repr(b).replace(".", point), text[t > 0]]
        )
    return out.getvalue()

"""Read a student's CSV file into a table of text: :func:`read_table`.

:func:`read_table` turns the uploaded bytes into a :class:`CsvTable` of strings: it
finds the delimiter (comma, semicolon or tab), a header row if there is one, and
decimal commas (``1,5;2,25;a``), and checks the file: size, encoding, row, column and
cell caps, broken quotes, lines of different lengths. What a cell is (a number, a
missing value, text a spreadsheet would run as a formula) is decided here too
(:func:`cell_kind`, :func:`parse_number`, :func:`neutralise`, :func:`quote`), and
:mod:`svmlab.datasets.csv_data` turns the table into ``(X, y)`` with the same rules.

Every problem raises :class:`svmlab.errors.DataError` with a sentence a student can
act on. User input is only ever parsed as text: nothing here evaluates it or loads
objects from it, and a cell such as ``=cmd|' /C calc'!A0`` is just a non-numeric string.

Numbers are ASCII decimals (``-1``, ``.5``, ``2.``, ``1e-3``) or ``inf``/``infinity``
with a sign; in a file with decimal commas, ``,`` replaces ``.``. Thousands
separators (``1,234.5``) are refused with a message saying so. Empty cells and
``NA``, ``N/A``, ``NaN``, ``null``, ``None`` (any case) are missing values. A
leading single quote before ``= + - @`` is dropped (``'=1+1`` reads as ``=1+1``),
as :func:`svmlab.datasets.csv_data.to_csv` writes such cells.
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

from svmlab.errors import DataError

__all__ = [
    "COMMA_NUMBER",
    "DELIMITERS",
    "DOT_NUMBER",
    "MAX_BYTES",
    "MAX_CELL_CHARS",
    "MAX_COLUMNS",
    "MAX_ROWS",
    "MISSING",
    "THOUSANDS",
    "CsvTable",
    "cell_kind",
    "neutralise",
    "parse_number",
    "quote",
    "read_table",
    "show_cell",
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
DOT_NUMBER = re.compile(_NUM, re.ASCII)
COMMA_NUMBER = re.compile(_NUM.replace(r"\.", ","), re.ASCII)
_POINT = re.compile(_NUM.replace(r"(?:\.\d*)?", r"\.\d*"), re.ASCII)  # 1.5, not 1
_DECIMAL_COMMA = re.compile(_POINT.pattern.replace(r"\.", ","), re.ASCII)  # 1,5
_INF = re.compile(r"[+-]?inf(?:inity)?", re.ASCII | re.IGNORECASE)
#: A number with thousands separators, where that reading is the only one:
#: 1,234.5 and 1,234,567 (or 1.234,5 and 1.234.567), not 1,234 (a decimal comma?).
THOUSANDS = re.compile(
    r"[+-]?\d{1,3}(?:(?:,\d{3}){2,}(?:\.\d*)?|(?:,\d{3})+\.\d*"
    r"|(?:\.\d{3}){2,}(?:,\d*)?|(?:\.\d{3})+,\d*)",
    re.ASCII,
)
MISSING = frozenset({"", "na", "n/a", "nan", "-nan", "+nan", "null", "none"})
_NUMBER_OR_MISSING = {  # by decimal_comma: one regex call per cell
    comma: re.compile(
        rf"{(COMMA_NUMBER if comma else DOT_NUMBER).pattern}|{_INF.pattern}"
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


def parse_number(cell: str, decimal_comma: bool) -> float | None:
    """The value of a stripped cell: a float, NaN if missing, None if it is text."""
    if cell.lower() in MISSING:
        return math.nan
    if _INF.fullmatch(cell):
        return float(cell)
    if decimal_comma:
        return float(cell.replace(",", ".")) if COMMA_NUMBER.fullmatch(cell) else None
    return float(cell) if DOT_NUMBER.fullmatch(cell) else None


def cell_kind(cell: str, allow_comma: bool) -> str:
    """``"missing"``, ``"number"`` (either decimal mark if allowed) or ``"text"``."""
    if cell.lower() in MISSING:
        return "missing"
    # 1,234.5 counts as a number here (a first row of them is data, not a
    # header), although to_dataset refuses it with its own message.
    number = (
        _INF.fullmatch(cell) or DOT_NUMBER.fullmatch(cell) or THOUSANDS.fullmatch(cell)
    )
    return (
        "number" if number or (allow_comma and COMMA_NUMBER.fullmatch(cell)) else "text"
    )


def neutralise(cell: str, decimal_comma: bool) -> str:
    """``cell`` for a file a spreadsheet may open: a text cell starting with
    ``= + - @`` (tab, CR), after any single quotes, gets a leading ``'``;
    numbers (``-1.5``, ``+2``, ``-inf``) are left as they are."""
    if _FORMULA.match(cell) and cell_kind(cell, decimal_comma) == "text":
        return "'" + cell
    return cell


def _unquote(cell: str) -> str:
    """:func:`neutralise` undone: one leading ``'`` dropped before a formula
    character (``'=1+1`` reads as ``=1+1``, ``'x`` stays ``'x``)."""
    return cell[1:] if cell[:1] == "'" and _FORMULA.match(cell, 1) else cell


def quote(value: object) -> str:
    """``repr`` of a value a caller passed (a column name, a label), without
    numpy's type names: ``'a'`` and ``1``, never ``np.str_('a')``, ``np.int64(1)``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        value = str(value)
    return repr(value)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' * (n != 1)}"


def show_cell(cell: str) -> str:
    return repr(cell if len(cell) <= 40 else cell[:37] + "...")


def _size(n: int) -> str:
    scale, unit = (1 << 20, "MB") if n >= 1 << 20 else (1 << 10, "KB")
    if n < 1 << 10:
        return f"{n} bytes"
    return f"{n / scale:.1f}".removesuffix(".0") + f" {unit}"


def _wide_encoding(data: bytes, nuls: int) -> str:
    """ "UTF-32" or "UTF-16" when the bytes are text in one of them (by its
    byte-order mark, or by the zero bytes ASCII leaves in every code unit: three
    of four in UTF-32, one of two in UTF-16), else "". UTF-32 LE's mark begins
    with UTF-16 LE's, so it is tested first."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    lanes = [data[k::4] for k in range(4)]
    if (
        nuls > len(data) / 2
        and sum(lane.count(0) > 0.9 * len(lane) for lane in lanes) >= 2
    ):
        return "UTF-32"
    if nuls > len(data) / 4 and max(data[::2].count(0), data[1::2].count(0)) > (
        nuls * 0.9
    ):
        return "UTF-16"
    return ""


#: Excel's first line naming the separator (``sep=;``), written by its "CSV"
#: export in some locales.
_EXCEL_SEP = re.compile(r"\ufeff?[ \t]*sep=(.)[ \t]*(?=\r\n|\n|\r|$)", re.IGNORECASE)


def _excel_separator(text: str) -> tuple[str, str | None]:
    """``text`` with Excel's ``sep=X`` first line blanked (so line numbers stay
    the file's) and the separator it names, or ``(text, None)``."""
    found = _EXCEL_SEP.match(text)
    if found is None:
        return text, None
    sep = found.group(1)
    if sep not in _PLURAL_NAMES:
        raise DataError(
            f"The file's first line {quote(found.group(0).strip())} names "
            f"{quote(sep)} as the separator; svmlab reads commas, semicolons or "
            "tabs. Save the file with one of those."
        )
    return text[found.end() :], sep


def _decode(data: bytes) -> str:
    """UTF-8 text (a BOM is dropped), or a DataError saying what the bytes are."""
    if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        raise DataError(
            "The file looks like an Excel workbook (or another zipped file), not CSV "
            "text. In your spreadsheet program choose Save As > 'CSV UTF-8'."
        )
    nuls = data.count(0)
    wide = _wide_encoding(data, nuls)
    if wide:
        raise DataError(
            f"The file is not UTF-8 text: it is {wide}. Save it as 'CSV UTF-8' and "
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


#: What each line of a classification file holds (the one-column message).
CLASSIFICATION_LINE = "two feature values and a label"


def _find_delimiter(text: str, needs: str = CLASSIFICATION_LINE) -> str:
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
            sum(cell_kind(c, comma) == "number" for c in chain.from_iterable(sample)),
            priority,
        )
        if best_score is None or score > best_score:
            best, best_score = delimiter, score
    if best is None:
        raise error or DataError(
            f"The file has only one column. Each line needs {needs}, separated by "
            "commas, semicolons or tabs."
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
    kinds = [cell_kind(cell, comma) for cell in records[0]]
    if "number" in kinds or "text" not in kinds:
        return False
    later = [[cell_kind(c, comma) for c in cells] for cells in records[1 : 1 + _SAMPLE]]
    for j, kind in enumerate(kinds):
        below = [row[j] for row in later]
        if kind == "text" and below.count("number") > below.count("text"):
            return True
    return not any("number" in row for row in later)


def read_table(
    data: bytes,
    *,
    max_rows: int = MAX_ROWS,
    max_bytes: int = MAX_BYTES,
    needs: str = CLASSIFICATION_LINE,
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
    needs
        What each line holds, for the sentence refusing a one-column file.

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
    text, declared = _excel_separator(text)
    delimiter = declared or _find_delimiter(text, needs)
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
                    f"The header has more than one column named {quote(name)}; "
                    "give each column its own name."
                )
    if len(records) > max_rows:
        raise DataError(_too_many_rows(max_rows))
    match = _NUMBER_OR_MISSING[decimal_comma].fullmatch
    numeric = [
        name
        for name, column in zip(names, zip(*records, strict=True), strict=True)
        if all(map(match, column)) and any(c.lower() not in MISSING for c in column)
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

"""Bring your own data: a student's CSV file as ``(X, y)``, and back.

- :func:`read_table` (:mod:`svmlab.datasets.csv_table`, re-exported here) turns the
uploaded
  bytes into a :class:`CsvTable` of strings: it finds the delimiter, a header row and
  decimal commas, and checks the file (size, encoding, caps, quotes, line lengths).
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

What a number, a missing value and a formula-like cell are is said in
:mod:`svmlab.datasets.csv_table`; this module applies the same rules.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from svmlab.array_types import Array
from svmlab.datasets.csv_table import (
    COMMA_NUMBER,
    DELIMITERS,
    DOT_NUMBER,
    MAX_BYTES,
    MAX_CELL_CHARS,
    MAX_COLUMNS,
    MAX_ROWS,
    MISSING,
    THOUSANDS,
    CsvTable,
    cell_kind,
    neutralise,
    parse_number,
    quote,
    read_table,
    show_cell,
)
from svmlab.errors import DataError, counted

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
    "to_points",
]


def check_columns(
    columns: list[str],
    named: list[str | None],
    needed: int,
    *,
    needs: str,
    choose: str = "",
) -> None:
    """A :class:`DataError` unless every column ``named`` (None: one not named)
    is one of ``columns``, the table has ``needed`` columns at least (``needs``
    says how many and what), and a wider one has them all named (``choose``)."""
    for name in named:
        if name is not None and name not in columns:
            raise DataError(
                f"There is no column {quote(name)}; the columns are: "
                f"{', '.join(columns)}."
            )
    if len(columns) < needed:
        raise DataError(
            f"The file has {counted(len(columns), 'column')}; it needs {needs}."
        )
    if len(columns) > needed and None in named:
        raise DataError(f"The file has {len(columns)} columns; choose {choose}.")


def _choose(
    table: CsvTable, x_columns: tuple[str, str] | None, label_column: str | None
) -> tuple[list[str], str]:
    """The two feature columns and the label column, defaults applied and checked."""
    columns = list(table.columns)
    check_columns(
        columns,
        [*(x_columns or (None,)), label_column],
        3,
        needs="three: two feature columns and a label column",
        choose="two feature columns and a label column",
    )
    if x_columns is not None and (len(x_columns) != 2 or x_columns[0] == x_columns[1]):
        raise DataError("Choose two different feature columns.")
    if label_column is None:
        label_column = [c for c in columns if c not in (x_columns or ())][-1]
    if label_column in (x_columns or ()):
        raise DataError(
            f"The label column {quote(label_column)} cannot also be a feature."
        )
    return list(x_columns or [c for c in columns if c != label_column]), label_column


def _nonfinite_rows(
    frame: Any, bad: NDArray[np.bool_], features: list[str], X: Array, label: str = ""
) -> DataError:
    """The sentence for rows with missing, NaN or infinite values, naming the
    first one's line and column (its first bad feature, else the ``label``)."""
    i, k = int(np.argmax(bad)), int(bad.sum())
    nonfinite = [c for c, x in zip(features, X[i], strict=True) if not np.isfinite(x)]
    column = (nonfinite or [label])[0]
    cell = frame[column].iloc[i]
    return DataError(
        f"{k} row{'s contain' if k > 1 else ' contains'} missing, NaN or infinite "
        f"values (the first is line {frame.index[i]}, column {quote(column)}: "
        f"{show_cell(cell) if cell else 'empty'}). Tick 'drop those rows' under "
        "the file (drop_nonfinite=True in code) to leave them out, or fix it."
    )


def _check_numeric(table: CsvTable, features: list[str]) -> None:
    """A DataError naming the first non-numeric feature column and its first text."""
    bad = [c for c in features if c not in table.numeric]
    if not bad:
        return
    cells = table.frame[bad[0]]
    for line, cell in cells.items():
        if THOUSANDS.fullmatch(cell):
            # The first mark of 1,234.5 (or of 1.234,5) is the separator; in
            # 1,234,567 every mark is.
            mark = min((cell.find(m), m) for m in ",." if m in cell)[1]
            raise DataError(
                f"Line {line}, column {quote(bad[0])}: {show_cell(cell)} has a "
                "thousands separator; numbers with thousands separators such as "
                f"{cell} are not supported: remove the separators "
                f"(write {cell.replace(mark, '')})."
            )
    text = [parse_number(cell, table.decimal_comma) is None for cell in cells]
    where, hint = "it holds no numbers", ""
    if any(text):
        line, cell = cells.index[text.index(True)], cells.iloc[text.index(True)]
        where = f"line {line}: {show_cell(cell)}"
        if (DOT_NUMBER if table.decimal_comma else COMMA_NUMBER).fullmatch(cell):
            hint = " The file mixes decimal commas and decimal points; use one of them."
        elif cell.startswith("="):
            hint = " Cells are read as text: formulas are not evaluated."
    if len(table.numeric) < 2:
        only = (
            f"only one numeric column ({quote(table.numeric[0])})"
            if table.numeric
            else ""
        )
        raise DataError(
            f"The file has {only or 'no numeric columns'}; it needs two numeric "
            f"feature columns (column {quote(bad[0])}, {where}).{hint}"
        )
    raise DataError(
        f"The column {quote(bad[0])} is not numeric ({where}); feature columns must "
        f"hold numbers.{hint}"
    )


def _label_keys(values: list[str], decimal_comma: bool) -> list[object]:
    """Keys that group and order label values: numbers if all are numbers, else text."""
    numbers = [parse_number(v, decimal_comma) for v in values]
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
        [[parse_number(cell, comma) for cell in frame[c].tolist()] for c in features]
    ).T.reshape(-1, 2)
    values = frame[label].tolist()
    missing = np.array([v.lower() in MISSING for v in values], dtype=bool)
    bad = ~np.isfinite(X).all(axis=1) | missing
    if bad.any() and not drop_nonfinite:
        raise _nonfinite_rows(frame, bad, features, X, label)
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


def to_points(
    table: CsvTable,
    *,
    x_columns: tuple[str, str] | None = None,
    drop_nonfinite: bool = False,
) -> NDArray[np.float64]:
    """Two feature columns of a table without labels, as ``X`` of shape (n, 2):
    the data of a one-class SVM (the SVM family page).

    ``x_columns`` default to the file's two columns; a wider file must name
    them. The features are checked as :func:`to_dataset` checks them
    (numeric, missing/NaN/inf values refused unless ``drop_nonfinite``, at
    least two rows), with the same sentences.
    """
    columns = list(table.columns)
    if x_columns is None:
        if len(columns) != 2:
            raise DataError(
                f"The file has {len(columns)} column{'s' if len(columns) != 1 else ''}"
                "; points without labels need two feature columns."
            )
        x_columns = (columns[0], columns[1])
    check_columns(columns, list(x_columns), 2, needs="two feature columns")
    if len(x_columns) != 2 or x_columns[0] == x_columns[1]:
        raise DataError("Choose two different feature columns.")
    features = list(x_columns)
    _check_numeric(table, features)
    frame, comma = table.frame, table.decimal_comma
    X = np.array(
        [[parse_number(cell, comma) for cell in frame[c].tolist()] for c in features]
    ).T.reshape(-1, 2)
    bad = ~np.isfinite(X).all(axis=1)
    if bad.any() and not drop_nonfinite:
        raise _nonfinite_rows(frame, bad, features, X)
    X = X[~bad]
    if X.shape[0] < 2:
        raise DataError(
            f"The data has {X.shape[0]} usable row{'s' if X.shape[0] != 1 else ''}; "
            "the one-class SVM needs at least two points."
        )
    return np.ascontiguousarray(X)


def to_dataset(
    table: CsvTable,
    *,
    x_columns: tuple[str, str] | None = None,
    label_column: str | None = None,
    drop_nonfinite: bool = False,
    one_class: bool = False,
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
    one_class
        Accept a label column with one class (the one-class SVM's data): every
        point is then +1 and both labels are that class's value.

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
    if len(classes) == 1 and one_class:
        X = np.ascontiguousarray(X)
        return X, np.ones(X.shape[0]), (first[classes[0]], first[classes[0]])
    if len(classes) == 1:
        raise DataError(
            f"Only one class ({quote(values[0])}) in the label column "
            f"{quote(label)}; an SVM needs points of two classes."
        )
    if len(classes) > 2:
        shown = ", ".join(first[key] for key in classes[:5])
        more = f", ... and {len(classes) - 5} more" if len(classes) > 5 else ""
        raise DataError(
            f"The label column {quote(label)} has {len(classes)} classes "
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
            f"Only one class ({quote(values[0])}) in the label column "
            f"{quote(label)}; a classifier needs points of at least two classes."
        )
    if len(classes) > max_classes:
        shown = ", ".join(first[key] for key in classes[:5])
        raise DataError(
            f"The label column {quote(label)} has {len(classes)} classes "
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
    if value.lower() in MISSING or "\x00" in value or len(value) > MAX_CELL_CHARS:
        raise DataError(f"{what} {quote(value)} would not read back as written.")
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
            f"Unknown delimiter {quote(delimiter)}; use ',', ';' or a tab (decimal "
            "commas need a semicolon or a tab)."
        )
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2 or y.shape != X.shape[:1]:
        raise DataError(
            f"X must have shape (n, 2), y shape (n,), not {X.shape}, {y.shape}."
        )
    if not np.isin(y, (-1.0, 1.0)).all():
        raise DataError("y must hold only -1 and +1.")
    other, mark = (DOT_NUMBER, ".") if decimal_comma else (COMMA_NUMBER, ",")
    for value in labels:
        _check_text(value, "A label")
        if delimiter != "," and mark in value and other.fullmatch(value):
            raise DataError(
                f"The label {quote(value)} would change how numbers are read."
            )
    keys = _label_keys(list(labels), decimal_comma)
    if len(keys) != 2 or not keys[0] < keys[1]:
        raise DataError(
            "The labels must be (value for -1, value for +1) in sorted order, as "
            f"to_dataset returns them, not ({', '.join(map(quote, labels))})."
        )
    if header is not None and (len(header) != 3 or len(set(header)) != 3):
        raise DataError("header must be three different column names.")
    for name in header or ():
        if cell_kind(_check_text(name, "A column name"), True) != "text":
            raise DataError(f"The column name {quote(name)} looks like a number.")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    if header is not None:
        writer.writerow([neutralise(name, decimal_comma) for name in header])
    point = "," if decimal_comma else "."
    text = [neutralise(value, decimal_comma) for value in labels]
    for (a, b), t in zip(X.tolist(), y.tolist(), strict=True):
        writer.writerow(
            [repr(a).replace(".", point), repr(b).replace(".", point), text[t > 0]]
        )
    return out.getvalue()

"""A student's CSV file as one-dimensional regression data: an input column x
and a target column t, read with :func:`svmlab.datasets.csv_table.read_table`'s rules
(delimiter, header, decimal commas, caps) and refused with the same plain
sentences as the classification reader (:mod:`svmlab.datasets.csv_data`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from svmlab.datasets.csv_data import _check_numeric, check_columns
from svmlab.datasets.csv_table import CsvTable, parse_number, quote, show_cell
from svmlab.errors import DataError

__all__ = ["REGRESSION_LINE", "to_regression_dataset"]

#: What each line of a regression file holds (for ``read_table(needs=...)``).
REGRESSION_LINE = "an input value x and a target value t"


def to_regression_dataset(
    table: CsvTable,
    x_column: str | None = None,
    t_column: str | None = None,
    drop_nonfinite: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[str, str]]:
    """``(X, t, (x name, t name))`` from a table: ``X`` of shape (n, 1) sorted by
    x (a line through the points draws left to right), ``t`` of shape (n,).

    Two columns: the first is x, the second t. More: name both. Rows with a
    missing, NaN or infinite value raise a :class:`DataError`, or are left out
    with ``drop_nonfinite``.
    """
    columns = list(table.columns)
    check_columns(
        columns,
        [x_column, t_column],
        2,
        needs="two: an input column x and a target column t",
        choose="the input column x and the target column t",
    )
    x_name = x_column or columns[0]
    t_name = t_column or next(c for c in columns if c != x_name)
    if x_name == t_name:
        raise DataError("Choose two different columns for x and t.")
    _check_numeric(table, [x_name, t_name])
    frame, comma = table.frame, table.decimal_comma

    def values(name: str) -> NDArray[np.float64]:
        parsed = [parse_number(cell, comma) for cell in frame[name].tolist()]
        return np.array([np.nan if v is None else v for v in parsed], dtype=float)

    x, t = values(x_name), values(t_name)
    bad = ~(np.isfinite(x) & np.isfinite(t))
    if bad.any() and not drop_nonfinite:
        i = int(np.argmax(bad))
        column = x_name if not np.isfinite(x[i]) else t_name
        cell = frame[column].iloc[i]
        raise DataError(
            f"{int(bad.sum())} row{'s' if bad.sum() > 1 else ''} with missing, NaN "
            f"or infinite values (the first is line {frame.index[i]}, column "
            f"{quote(column)}: {show_cell(cell) if cell else 'empty'}). Tick 'drop "
            "those rows' under the file to leave them out, or fix it."
        )
    x, t = x[~bad], t[~bad]
    if x.size < 2:
        raise DataError(
            "The file has fewer than two usable rows; a regression needs at least "
            "two points."
        )
    order = np.argsort(x, kind="stable")
    return x[order].reshape(-1, 1), t[order], (x_name, t_name)

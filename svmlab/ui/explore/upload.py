"""Bring your own data on the Explore page: the CSV upload and its session state.

A student's file goes through :mod:`svmlab.datasets.csv_data` (parsed as text only:
never ``eval``, never ``pickle``): :func:`~svmlab.datasets.csv_data.read_table` finds
the delimiter, the header and decimal commas, and the student picks two feature columns
and a label column (the defaults are those of
:func:`~svmlab.datasets.csv_data.to_dataset`).
:func:`make_held` turns the choice into a :class:`HeldUpload`, whose
:attr:`~HeldUpload.key` is the start of the SHA-256 of the arrays the page fits.

The key is all the settings carry (``ExploreSettings.upload``): the data live in
``st.session_state`` (at most :data:`MAX_SESSION_UPLOADS` per session) and, for
the cached data functions, in :func:`svmlab.ui.explore.cache.hold_upload`'s table. A URL
can name a key but never carries the data; a session that does not hold it falls
back to the generator and says so (:func:`resolve`).

A bad file, or a column choice that does not give two classes, shows its
:class:`~svmlab.errors.DataError` with ``st.error`` and changes nothing else: the
page keeps the data it showed before and every other setting.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePath

import numpy as np
import streamlit as st
from numpy.typing import NDArray

from svmlab.datasets import csv_data
from svmlab.errors import DataError
from svmlab.ui.explore.cache import Edits, edit_parts, hold_upload, split_indices
from svmlab.ui.frame import data_source, keyed, refusals
from svmlab.ui.frame.data_source import MAX_SESSION_UPLOADS
from svmlab.ui.frame.page_state import CSV_COLUMNS, csv_column_key
from svmlab.user_text import for_markdown

__all__ = [
    "GENERATOR",
    "UPLOAD_CSV",
    "HeldUpload",
    "Standardisation",
    "adopt",
    "axis_titles",
    "data_csv",
    "default_columns",
    "draw",
    "escape_markdown",
    "held",
    "hold_current",
    "keep",
    "make_held",
    "resolve",
    "upload_key",
]

Array = NDArray[np.float64]

#: The data source radio's options.
GENERATOR, UPLOAD_CSV = data_source.SOURCES

P = "explore_"
#: Session keys: the upload key shown ("" = generated data), the last applied
#: key (restored when the source goes back to "Upload CSV"), the held uploads
#: by key, the parsed current file, and the note of a link whose upload is gone.
CURRENT_KEY = P + "upload"
LAST_KEY = P + "upload_last"
HELD_KEY = P + "uploads"
LINK_NOTE_KEY = P + "upload_link_note"
#: Widget keys.
SOURCE_KEY = P + "source"
#: The uploader, its drop-rows box and the column boxes: the shared data
#: source block's keys (:mod:`svmlab.ui.frame.data_source`).
FILE_KEY = P + "file"
COLUMN_KEYS = tuple(csv_column_key("explore", c) for c in CSV_COLUMNS)
DROP_KEY = P + "drop"
STANDARDISE_KEY = P + "upload_standardise"


@dataclass(frozen=True, eq=False)
class Standardisation:
    """Features shown standardised: ``X = (raw / unit - mean) / scale``, each of
    shape (2,); ``unit`` is the largest magnitude of each feature, so nothing
    overflows."""

    unit: Array
    mean: Array
    scale: Array

    @classmethod
    def of(cls, raw: Array) -> Standardisation:
        # Divided by the largest magnitude first: mean and sd of values near
        # 1e308 would overflow, and of values near 1e-300 lose their digits.
        unit = np.abs(raw).max(axis=0)
        unit = np.where(unit > 0, unit, 1.0)
        mean, scale = (raw / unit).mean(axis=0), (raw / unit).std(axis=0)
        return cls(unit, mean, np.where(scale > 0, scale, 1.0))

    def shown(self, raw: Array) -> Array:
        """File values as the page shows them."""
        return (raw / self.unit - self.mean) / self.scale

    def to_file_units(self, X: Array) -> Array:
        """Shown coordinates back in the file's units."""
        return (X * self.scale + self.mean) * self.unit


@dataclass(frozen=True, eq=False)
class HeldUpload:
    """Uploaded data as the page uses them, and what it needs to write them back.

    Attributes
    ----------
    key
        :func:`upload_key` of ``(X, y)``.
    name
        The uploaded file's name.
    X
        The points the page fits and draws, shape (n, 2): ``raw`` or, if asked
        for, ``standard.shown(raw)``.
    raw
        The feature values as read from the file, shape (n, 2), in file order.
    y
        Labels in {-1, +1}, shape (n,).
    labels
        The label values as written in the file: for -1, for +1.
    columns
        The two feature columns and the label column.
    delimiter, has_header, decimal_comma
        The file's format (:class:`svmlab.datasets.csv_data.CsvTable`), used by the
        download.
    description
        :meth:`svmlab.datasets.csv_data.CsvTable.describe` of the file.
    dropped
        Rows left out for missing, NaN or infinite values.
    standard
        The standardisation (:class:`Standardisation`); None when the features
        are shown as they are.
    """

    key: str
    name: str
    X: Array
    raw: Array
    y: Array
    labels: tuple[str, str]
    columns: tuple[str, str, str]
    delimiter: str
    has_header: bool
    decimal_comma: bool
    description: str
    dropped: int
    standard: Standardisation | None = None

    def to_file_units(self, X: Array) -> Array:
        """Shown coordinates (clicked points) back in the file's units."""
        X = np.asarray(X, dtype=np.float64).reshape(-1, 2)
        return X if self.standard is None else self.standard.to_file_units(X)


def upload_key(X: Array, y: Array) -> str:
    """The first 12 hex digits of SHA-256 over the bytes of ``X`` (float64, C
    order) and ``y``: equal data give equal keys, so caches may key on it."""
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
    digest.update(np.ascontiguousarray(y, dtype=np.float64).tobytes())
    return digest.hexdigest()[:12]


def default_columns(table: csv_data.CsvTable) -> tuple[str, str, str]:
    """Feature columns and label column offered first.

    Three columns: the first two and the last, as :func:`csv_data.to_dataset`
    assumes. More: the last column is the label, the features are the first two
    numeric columns before it (else the first two others).
    """
    columns = list(table.columns)
    label = columns[-1]
    others = [c for c in columns if c != label]
    if len(columns) > 3:
        numeric = [c for c in others if c in table.numeric]
        others = numeric + [c for c in others if c not in numeric]
    first, second = (others + others[:1] * 2)[:2]
    return first, second, label


def make_held(
    table: csv_data.CsvTable,
    name: str,
    columns: tuple[str, str, str] | None = None,
    *,
    drop_nonfinite: bool = False,
    standardise: bool = False,
) -> HeldUpload:
    """The data of ``table`` for the page: :func:`csv_data.to_dataset` on the
    chosen columns, then (if asked) each feature standardised,
    ``(x - mean) / sd`` (a constant column keeps sd = 1).

    ``columns`` None uses :func:`csv_data.to_dataset`'s defaults (a file of three
    columns). Raises :class:`DataError` with the message for the page.
    """
    x_columns = label = None
    if columns is not None and len(table.columns) >= 3:
        x_columns, label = (columns[0], columns[1]), columns[2]
    raw, y, labels = csv_data.to_dataset(
        table, x_columns=x_columns, label_column=label, drop_nonfinite=drop_nonfinite
    )
    chosen = (*(x_columns or table.columns[:2]), label or table.columns[-1])
    standard = Standardisation.of(raw) if standardise else None
    X = raw if standard is None else standard.shown(raw)
    _check_drawable(X, standardise)
    return HeldUpload(
        key=upload_key(X, y),
        name=name,
        X=X,
        raw=raw,
        y=y,
        labels=labels,
        columns=chosen,
        delimiter=table.delimiter,
        has_header=table.has_header,
        decimal_comma=table.decimal_comma,
        description=table.describe(),
        dropped=table.rows - len(y),
        standard=standard,
    )


#: The drawable range (:func:`svmlab.datasets.csv_data.check_drawable`).
MAX_MAGNITUDE = csv_data.MAX_MAGNITUDE
MIN_RELATIVE_SPREAD = csv_data.MIN_RELATIVE_SPREAD
MIN_SPREAD = csv_data.MIN_SPREAD


def _check_drawable(X: Array, standardised: bool) -> None:
    """:func:`svmlab.datasets.csv_data.check_drawable`, with this page's advice."""
    csv_data.check_drawable(
        X,
        advice="Rescale the columns."
        if standardised
        else "Tick 'standardise features for display', or rescale the columns.",
    )


def data_csv(upload: HeldUpload, test_fraction: float, seed: int, edits: Edits) -> str:
    """The data on the page in the upload's format (delimiter, header, decimal
    commas, label values), in the file's units and row order.

    Rows removed on the chart are left out and clicked points follow at the end,
    so without edits the download reads back (:func:`csv_data.read_table`,
    :func:`csv_data.to_dataset`) to exactly the uploaded data.
    """
    added, removed, moved = edit_parts(edits)
    train, _ = split_indices(upload.y, test_fraction, seed)
    raw = np.array(upload.raw, dtype=np.float64)
    for i, x1, x2 in moved:  # a moved training point, back in the file's units
        if 0 <= i < train.size:
            raw[train[i]] = upload.to_file_units(np.array([[x1, x2]]))[0]
    keep = np.ones(upload.y.size, dtype=bool)
    keep[train[[i for i in removed if 0 <= i < train.size]]] = False
    X, y = raw[keep], upload.y[keep]
    if added:
        extra = np.asarray(added, dtype=np.float64)
        X = np.vstack([X, upload.to_file_units(extra[:, :2])])
        y = np.concatenate([y, extra[:, 2]])
    header = upload.columns if upload.has_header else None
    try:
        return csv_data.to_csv(
            X,
            y,
            upload.labels,
            delimiter=upload.delimiter,
            header=header,
            decimal_comma=upload.decimal_comma,
        )
    except DataError:  # a name or label that would not read back: plain CSV
        return csv_data.to_csv(X, y)


# -- session state --------------------------------------------------------------------


def _held_uploads() -> dict[str, HeldUpload]:
    return st.session_state.setdefault(HELD_KEY, {})


def held(key: str) -> HeldUpload | None:
    """The upload ``key`` if this session holds it."""
    return _held_uploads().get(key) if key else None


def axis_titles(key: str) -> tuple[str, str] | None:
    """The plane's axis titles for the upload ``key``: its two feature columns
    as the file's header names them ("(standardised)" after each when they are
    shown so); None for generated data or a file without a header (x₁, x₂).
    Visitor text: the figure builders escape it."""
    upload = held(key)
    if upload is None or not upload.has_header:
        return None
    suffix = " (standardised)" if upload.standard is not None else ""
    first, second, _ = upload.columns
    return (f"{first}{suffix}", f"{second}{suffix}")


def keep(upload: HeldUpload) -> None:
    """Hold ``upload`` in the session (newest last, at most a few) and the cache."""
    uploads = _held_uploads()
    uploads.pop(upload.key, None)
    uploads[upload.key] = upload
    current = st.session_state.get(CURRENT_KEY, "")
    for key in list(uploads)[: max(len(uploads) - MAX_SESSION_UPLOADS, 0)]:
        if key != current:
            del uploads[key]
    hold_upload(upload.key, upload.X, upload.y)


def adopt(upload: HeldUpload) -> None:
    """Hold data that came without a file (a followed room's) as this session's
    last upload: the upload branch then shows them with no file chosen."""
    keep(upload)
    st.session_state[LAST_KEY] = upload.key


def hold_current(key: str) -> None:
    """Hand the session's upload ``key`` to the cached data functions again (the
    process-wide table forgets old keys when many sessions upload)."""
    upload = held(key)
    if upload is not None:
        hold_upload(upload.key, upload.X, upload.y)


def resolve() -> None:
    """Before the data widgets are drawn: if the settings name an upload this
    session does not hold (a shared link, a new tab), go back to the generator
    and leave a note for :func:`draw`."""
    state = st.session_state
    key = state.get(CURRENT_KEY, "")
    if key and held(key) is None:
        state[CURRENT_KEY] = ""
        state[SOURCE_KEY] = GENERATOR
        state[LINK_NOTE_KEY] = key


# -- widgets ----------------------------------------------------------------------


def _column_widgets(table: csv_data.CsvTable, digest: str) -> tuple[str, str, str]:
    """Feature and label column choice: the shared boxes
    (:func:`data_source.column_boxes`), starting from :func:`default_columns`."""
    defaults = default_columns(table)
    x1, x2, label = data_source.column_boxes(
        "explore",
        table,
        digest,
        tuple(
            zip(
                CSV_COLUMNS,
                ("Feature x1", "Feature x2", "Label column (two values)"),
                defaults,
                strict=True,
            )
        ),
    )
    numeric = ", ".join(_md(repr(c)) for c in table.numeric) or "none"
    st.caption(f"Numeric columns: {numeric}.")
    return x1, x2, label


#: User text where Streamlit renders markdown: the one escaping function
#: (svmlab.user_text), under the name the pages have always imported.
escape_markdown = for_markdown


_md = escape_markdown


def _describe(upload: HeldUpload, current: bool) -> str:
    x1, x2, label = (_md(repr(c)) for c in upload.columns)
    negative, positive = (_md(repr(v)) for v in upload.labels)
    std = upload.standard
    parts = [
        f"**{_md(upload.name)}**: {upload.description}.",
        f"Features x1 = {x1}, x2 = {x2}"
        + (
            f", standardised (x − mean) / sd, mean {_fmt(std.mean * std.unit)}, "
            f"sd {_fmt(std.scale * std.unit)}."
            if std is not None
            else "."
        ),
        f"Label {label}: {negative} → class −1, {positive} → class +1.",
    ]
    if upload.dropped:
        k = upload.dropped
        parts.append(
            f"{k} row{'s' * (k != 1)} with missing, NaN or infinite values dropped "
            f"({upload.y.size} kept)."
        )
    if not current:
        parts.append("(The file was uploaded earlier.)")
    return " ".join(parts)


def _fmt(values: Array | None) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in np.ravel(values)) + ")"


def _safe_name(name: str) -> str:
    """A file name for messages: its last part, printable, at most 60 characters."""
    name = PurePath(str(name)).name or "upload.csv"
    name = re.sub(r"[^\w.\- ]", "_", name)
    return name[:60]


def draw() -> None:
    """The data source radio's upload branch: the file uploader, the column
    choice, the NaN/inf and standardisation options, and the messages.

    Sets the current upload key in the session state when the file gives data,
    and leaves it (so the picture stays) when it does not.
    """
    state = st.session_state
    note = state.pop(LINK_NOTE_KEY, None)
    if note:
        st.info(
            f"The link names uploaded data ({note}) that this browser session does "
            "not hold: uploaded data never travel in a link. Showing the generated "
            "data instead; upload the file to see it again."
        )
    if state.get(SOURCE_KEY) != UPLOAD_CSV:
        refusals.accept("explore")
        state[CURRENT_KEY] = ""
        return
    file, drop = data_source.file_box(
        "explore", "two feature columns and a label column"
    )
    standardise = st.checkbox(
        "standardise features for display",
        value=bool(keyed.value(STANDARDISE_KEY, False)),
        key=STANDARDISE_KEY,
        help="Shift and scale each feature to mean 0 and sd 1, so one σ fits both "
        "axes. The download stays in the file's units.",
    )
    if file is None:
        refusals.accept("explore")
        last = state.get(LAST_KEY, "")
        state[CURRENT_KEY] = last if held(last) is not None else ""
        if state[CURRENT_KEY]:
            st.caption(_describe(held(state[CURRENT_KEY]), current=False))
        else:
            st.info("Choose a CSV file. Until then the page shows the generated data.")
        return
    name = _safe_name(file.name)
    try:
        digest, table = data_source.read_file("explore", file)
        columns = _column_widgets(table, digest) if len(table.columns) >= 3 else None
        upload = make_held(
            table, name, columns, drop_nonfinite=drop, standardise=standardise
        )
    except DataError as error:
        data_source.refuse_file("explore", file.name, error)
        previous = held(state.get(CURRENT_KEY, ""))
        st.caption(
            f"The page still shows {_md(previous.name)}."
            if previous is not None
            else "The page still shows the generated data."
        )
        return
    refusals.accept("explore")
    keep(upload)
    state[CURRENT_KEY] = state[LAST_KEY] = upload.key
    st.caption(_describe(upload, current=True))

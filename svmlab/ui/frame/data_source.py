"""The data of a page: a generator with its sliders, or a CSV upload held in
the session (every page with data; Explore draws the same pieces,
:func:`dataset_box`, :func:`param_slider`, :func:`file_box`, :func:`read_file`,
:func:`refuse_file` and :func:`column_boxes`, around its own data set switch,
clicked points and held uploads).

Every widget is keyed ``<prefix>_...`` and drawn with its current value as its
default (:mod:`svmlab.ui.frame.keyed`), so a widget the browser mounts afresh never
sends a built-in default back. The data are described by primitives (the source
name and ``data_items``), so they key the pages' caches; the arrays come from
:func:`generated_data` (cached) or from the session's held uploads (at most
:data:`MAX_SESSION_UPLOADS` per page), read back by
:func:`request_data`. Uploads are checked drawable
(:func:`svmlab.datasets.csv_data.check_drawable`) and every user string is escaped
before Streamlit renders it as markdown.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, ClassVar, TypeVar

import numpy as np
import streamlit as st

from svmlab import datasets
from svmlab.array_types import Array
from svmlab.datasets import csv_data
from svmlab.datasets import multiclass as multiclass_data
from svmlab.datasets import regression as regression_data
from svmlab.datasets.regression_csv import REGRESSION_LINE, to_regression_dataset
from svmlab.errors import DataError
from svmlab.ui.frame import keyed
from svmlab.ui.frame.page_state import PageState, csv_column_key
from svmlab.ui.frame.refusals import accept, refuse
from svmlab.user_text import for_markdown

#: Most uploaded data sets one session keeps per page (the current one is never
#: dropped); Explore's upload keeps as many.
MAX_SESSION_UPLOADS = 4

__all__ = [
    "CATALOGUES",
    "MAX_SESSION_UPLOADS",
    "SOURCES",
    "UPLOAD",
    "DataItems",
    "DataRequest",
    "column_boxes",
    "dataset_box",
    "file_box",
    "generated_data",
    "generator_controls",
    "hold",
    "param_slider",
    "params_moved",
    "read_file",
    "refuse_file",
    "request_data",
    "sample_rows",
    "source_block",
    "source_radio",
    "upload_controls",
]

DataItems = tuple[tuple[str, Any], ...]

#: The source name of an uploaded file (every other source is a generator).
UPLOAD = "upload"
#: The data source radio's options: a generator, or an uploaded file.
SOURCES = ("Generator", "Upload CSV")

#: Advice ending the drawable check's sentence (these pages have no standardise box).
DRAWABLE_ADVICE = "Rescale the columns (for example to mean 0 and sd 1)."


#: The generator tables a page can draw from: the binary ones (every page but
#: Multiclass) and the multiclass ones (:mod:`svmlab.datasets.multiclass`).
CATALOGUES = {
    "binary": datasets,
    "multiclass": multiclass_data,
    "regression": regression_data,
}


@st.cache_data(max_entries=32, show_spinner=False)
def generated_data(
    source: str, data_items: DataItems, catalogue: str = "binary"
) -> tuple:
    """The generator's arrays (raises the generator's typed error)."""
    return CATALOGUES[catalogue].make(source, **dict(data_items))


def _uploads(prefix: str) -> dict[str, tuple[Array, Array]]:
    return st.session_state.setdefault(f"{prefix}_uploads", {})


def hold(prefix: str, key: str, X: Array, y: Array) -> None:
    """Hold an upload in the session: newest last, at most
    :data:`MAX_SESSION_UPLOADS` (Explore's cap too), ``key`` kept."""
    uploads = _uploads(prefix)
    uploads.pop(key, None)
    uploads[key] = (X, y)
    for old in list(uploads)[: max(len(uploads) - MAX_SESSION_UPLOADS, 0)]:
        del uploads[old]


def request_data(
    prefix: str, source: str, data_items: DataItems, catalogue: str = "binary"
) -> tuple[Array, Array]:
    """The arrays of a source: generated (from ``catalogue``, a key of
    :data:`CATALOGUES`), or the upload this session holds."""
    if source == UPLOAD:
        key = dict(data_items)["upload"]
        held = _uploads(prefix).get(key)
        if held is None:
            raise DataError("The uploaded file is no longer held: upload it again.")
        return held
    return generated_data(source, data_items, catalogue)


#: An engine settings dataclass built by :meth:`DataRequest.model_as`.
T = TypeVar("T")


@dataclass(frozen=True)
class DataRequest:
    """A page's data as primitives (the first fields of its request, the key of
    its caches): the source name and its items. A page's request extends it
    with the model's fields and names its ``prefix`` and ``catalogue``."""

    source: str
    data_items: DataItems

    #: The page's widget prefix (where its uploads are held).
    prefix: ClassVar[str] = ""
    #: The key of :data:`CATALOGUES` its generators come from.
    catalogue: ClassVar[str] = "binary"

    @property
    def generated(self) -> bool:
        return self.source != UPLOAD

    @property
    def identity(self) -> tuple:
        """What the points depend on (points clicked in add to these)."""
        return (self.source, self.data_items)

    def test_data(self, n: int) -> tuple | None:
        """``n`` fresh points from the generator (:meth:`fresh`, another seed);
        an upload has none."""
        if not self.generated:
            return None
        return self.fresh(n)

    @property
    def axis_titles(self) -> tuple[str, str] | None:
        """An upload's two feature columns as its header names them (the
        plane's axis titles; visitor text, escaped by
        :func:`svmlab.figures.plane.retitled`); None for generated data or a
        file without a header (x₁, x₂)."""
        columns = dict(self.data_items).get("columns")
        return None if columns is None else (str(columns[0]), str(columns[1]))

    def model_as(self, spec: type[T], **given: Any) -> T:
        """``spec`` (the engine's settings dataclass) built from this request's
        fields of the same names and ``given`` (its other fields keep their
        defaults): the page's model as the engine takes it."""
        mine = {f.name for f in dataclasses.fields(self)}
        shared = {f.name for f in dataclasses.fields(spec)} & mine - given.keys()
        return spec(**{name: getattr(self, name) for name in shared}, **given)

    def data(self) -> tuple:
        """The generator's (or the held upload's) arrays."""
        return request_data(self.prefix, self.source, self.data_items, self.catalogue)

    def fresh(self, n_samples: int, seed: int | None = None) -> tuple:
        """``n_samples`` fresh points of the same generator, drawn with another
        seed (``seed``, the request's own by default, plus 10 000): a test set
        that no training point is in."""
        items = dict(self.data_items)
        if seed is None:
            seed = int(items.get("random_state", 0))
        items["n_samples"] = int(n_samples)
        items["random_state"] = int(seed) + 10_000
        return generated_data(self.source, tuple(items.items()), self.catalogue)


def upload_controls(
    prefix: str,
    empty_note: str,
    *,
    multiclass: bool = False,
    regression: bool = False,
    one_class: bool = False,
    max_n: int = 0,
) -> DataItems | None:
    """The file uploader and, for a wide table, the column choices; the upload's
    data items, or None (with ``empty_note`` or the reader's sentence shown).

    ``multiclass``: the label column may hold several classes
    (:func:`svmlab.datasets.csv_data.to_multiclass_dataset`; ``y`` holds class numbers
    and the ``labels`` item every class's text); otherwise exactly two.
    ``regression``: an input column x and a target column t
    (:func:`svmlab.datasets.regression_csv.to_regression_dataset`). ``one_class``: a
    file of two columns (no labels, :func:`svmlab.datasets.csv_data.to_points`) or a
    label column with one class is taken too, every point +1 (the one-class SVM's
    data). ``max_n`` (0: none): the page's cap on the number of points; a larger
    file is cut to it (:func:`_cap`), said in a caption."""
    if regression:
        return _regression_upload(prefix, empty_note, max_n)
    chosen_file = _file_and_drop(
        prefix, "two feature columns and a label column", empty_note
    )
    if chosen_file is None:
        return None
    file, drop = chosen_file
    try:
        digest, table = read_file(prefix, file)
        columns: dict[str, Any] = {}
        if len(table.columns) > 3:
            names = list(table.columns)
            x1, x2, label = column_boxes(
                prefix,
                table,
                digest,
                (
                    ("x1", "first feature", names[0]),
                    ("x2", "second feature", names[1]),
                    ("label", "label", names[-1]),
                ),
            )
            columns = {"x_columns": (x1, x2), "label_column": label}
        if multiclass:
            X, y, labels = csv_data.to_multiclass_dataset(
                table, **columns, drop_nonfinite=drop
            )
        elif one_class and len(table.columns) == 2:
            X = csv_data.to_points(table, drop_nonfinite=drop)
            y, labels = np.ones(X.shape[0]), ("", "")
        else:
            X, y, labels = csv_data.to_dataset(
                table, **columns, drop_nonfinite=drop, one_class=one_class
            )
        # Values near 1e308 are finite numbers, but their span overflows the axes.
        csv_data.check_drawable(X, advice=DRAWABLE_ADVICE)
    except DataError as error:
        refuse_file(prefix, file.name, error)
        return None
    X, y, cut = _cap(X, y, max_n)
    if cut:
        st.caption(cut)
    key = _keep(prefix, X, y)
    if multiclass:
        names = ", ".join(for_markdown(repr(str(v))) for v in labels)
        st.caption(f"{len(y)} points; {len(labels)} classes: {names}.")
    elif np.all(y > 0):
        what = (
            f"one class, {for_markdown(repr(str(labels[1])))}"
            if labels[1]
            else "no labels"
        )
        st.caption(
            f"{len(y)} points, {what}: the one-class SVM fits them (C-SVC and "
            "ν-SVC need two classes)."
        )
    else:
        negative, positive = (for_markdown(repr(str(v))) for v in labels)
        st.caption(f"{len(y)} points; +1 is {positive}, −1 is {negative}.")
    # The file's own class names ride along (as text: they key the caches),
    # and its feature columns' names, which title the plane's axes.
    items: DataItems = (("upload", key), ("labels", tuple(str(v) for v in labels)))
    if table.has_header:
        names = columns.get("x_columns", tuple(table.columns[:2]))
        items += (("columns", tuple(str(v) for v in names)),)
    return items


def _file_and_drop(prefix: str, holds: str, empty_note: str) -> tuple[Any, bool] | None:
    """The uploader (``holds``: what the file must hold) and the drop-rows
    choice: ``(file, drop)``, or None (the source accepted, ``empty_note``
    shown) while no file is chosen."""
    file, drop = file_box(prefix, holds)
    if file is None:
        accept(prefix)
        st.info(empty_note)
        return None
    return file, drop


def sample_rows(y: Array, size: int, *, stratify: bool = True) -> Array:
    """The indices (in file order) of ``size`` rows drawn at random, seed 0, from
    the ``len(y)`` rows of an upload; with ``stratify`` each class keeps its
    share of the rows (rounded down, at least one row, the rounding's remainder
    to the largest classes), so a small class is never sampled away."""
    n = len(y)
    rng = np.random.default_rng(0)
    if size >= n:
        return np.arange(n)
    if not stratify:
        return np.sort(rng.choice(n, size, replace=False))
    classes, counts = np.unique(y, return_counts=True)
    quota = np.minimum(np.maximum(1, (size * counts) // n), counts)
    order = np.argsort(-counts, kind="stable")
    # The rounding leaves fewer than one row per class to place (or, with the
    # one-row floor, to take back): one pass over the classes, largest first.
    for c in order:
        gap = size - int(quota.sum())
        room = counts[c] - quota[c] if gap > 0 else quota[c] - 1
        quota[c] += np.sign(gap) * min(abs(gap), room)
    picked = [
        rng.choice(np.flatnonzero(y == c), q, replace=False)
        for c, q in zip(classes, quota, strict=True)
    ]
    return np.sort(np.concatenate(picked))


def _cap(
    X: Array, y: Array, max_n: int, *, stratify: bool = True
) -> tuple[Array, Array, str]:
    """An upload of more than ``max_n`` rows cut to ``max_n`` of them
    (:func:`sample_rows`), with the sentence that says so ("" when it is not
    cut). A page fits several models on every move (Losses: five losses, twice
    each), each costing O(n²) at least: its generators' cap bounds that work per
    visitor, and an upload is bounded by the same cap."""
    n = len(y)
    if max_n <= 0 or n <= max_n:
        return X, y, ""
    rows = sample_rows(y, max_n, stratify=stratify)
    share = " in the classes' proportions" if stratify else ""
    return (
        X[rows],
        y[rows],
        f"The file has {n:,} points; this page fits several models on every "
        f"move, so it takes {max_n:,} of them, drawn at random{share} (the same "
        f"ones every time). Explore fits all {n:,}.",
    )


def _keep(prefix: str, X: Array, y: Array) -> str:
    """Accept an upload that read well and hold its arrays; returns their key
    (a hash of the values: the caches key on it)."""
    accept(prefix)
    key = hashlib.sha256(X.tobytes() + y.tobytes()).hexdigest()[:12]
    hold(prefix, key, X, y)
    return key


def file_box(prefix: str, holds: str) -> tuple[Any, bool]:
    """Every page's CSV uploader (``holds``: what the file must hold) and its
    drop-rows choice, keyed ``<prefix>_file`` and ``<prefix>_drop``:
    ``(file or None, drop)``."""
    file = st.file_uploader(
        f"CSV file: {holds}",
        type=["csv", "txt"],
        key=f"{prefix}_file",
        max_upload_size=csv_data.MAX_BYTES >> 20,
        help="Comma, semicolon or tab separated, with or without a header row, "
        f"UTF-8 text, at most {csv_data.MAX_ROWS:,} rows.",
    )
    # One choice on every page, so the reader's sentence about rows with
    # missing values ("tick 'drop those rows'") is true everywhere.
    drop = st.checkbox(
        "drop those rows (missing, NaN or infinite values)",
        value=bool(keyed.value(f"{prefix}_drop", False)),
        key=f"{prefix}_drop",
    )
    return file, drop


def read_file(
    prefix: str, file: Any, needs: str | None = None
) -> tuple[str, csv_data.CsvTable]:
    """The uploaded ``file`` read as a table (every page's reader; ``needs``:
    what a line must hold, the reader's default for two features and a label).
    The last file's result is kept in the session by its SHA-256, so reruns do
    not parse a 5 MB file again. Returns the file's SHA-256 and the table;
    raises the reader's :class:`DataError`."""
    data = file.getvalue()
    slot = f"{prefix}_csv_read"
    digest = hashlib.sha256(data).hexdigest()
    last = st.session_state.get(slot)
    if last is None or last[:2] != (digest, needs):
        try:
            result: Any = (
                csv_data.read_table(data)
                if needs is None
                else csv_data.read_table(data, needs=needs)
            )
        except DataError as error:
            result = error
        last = st.session_state[slot] = (digest, needs, result)
    if isinstance(last[2], DataError):
        raise last[2]
    return digest, last[2]


def refuse_file(prefix: str, name: str, error: DataError) -> None:
    """Say why the file ``name`` was refused, the same sentence on every page:
    under the uploader (as text: it may quote the file's cells) and, through
    :mod:`svmlab.ui.frame.refusals`, at the top of the main pane."""
    st.error(for_markdown(error))
    refuse(prefix, name, error)


def column_boxes(
    prefix: str,
    table: csv_data.CsvTable,
    digest: str,
    fields: tuple[tuple[str, str, str], ...],
) -> list[str]:
    """One select box per ``(field, label, default column)`` (keys
    :func:`~svmlab.ui.frame.page_state.csv_column_key`): the columns chosen of a
    table wider than the reader needs. A new file keeps the last choice when
    it has those columns, all different (a corrected file, uploaded again);
    otherwise every box starts from its default. The first two sit side by
    side when there are three. ``digest``: the file's (:func:`read_file`)."""
    state = st.session_state
    names = list(table.columns)
    keys = [csv_column_key(prefix, field) for field, _, _ in fields]
    chosen = [state.get(key) for key in keys]
    for_key = f"{prefix}_csv_for"
    new_file = state.get(for_key) != digest
    if not set(chosen) <= set(names) or (new_file and len(set(chosen)) < len(keys)):
        state.update({k: f[2] for k, f in zip(keys, fields, strict=True)})
    state[for_key] = digest
    # Plain labels: a label that depends on the file would come back from the
    # browser as a raw value after the next upload.
    places = [*st.columns(2), st] if len(fields) == 3 else [st] * len(fields)
    for where, key, (_, label, _) in zip(places, keys, fields, strict=False):
        where.selectbox(label, names, index=keyed.index(key, names), key=key)
    return [state[key] for key in keys]


def _regression_upload(
    prefix: str, empty_note: str, max_n: int = 0
) -> DataItems | None:
    """The uploader of the Regression page: x and t, chosen when there are more
    columns (at most ``max_n`` rows kept, :func:`_cap`); the upload's data
    items, or None."""
    chosen_file = _file_and_drop(
        prefix, "an input column x and a target column t", empty_note
    )
    if chosen_file is None:
        return None
    file, drop = chosen_file
    try:
        digest, table = read_file(prefix, file, needs=REGRESSION_LINE)
        chosen: dict[str, Any] = {}
        if len(table.columns) > 2:
            names = list(table.columns)
            x, t = column_boxes(
                prefix,
                table,
                digest,
                (("x1", "x", names[0]), ("label", "t", names[1])),
            )
            chosen = {"x_column": x, "t_column": t}
        X, t, (x_name, t_name) = to_regression_dataset(
            table, **chosen, drop_nonfinite=drop
        )
        csv_data.check_drawable(np.c_[X, t], advice=DRAWABLE_ADVICE)
    except DataError as error:
        refuse_file(prefix, file.name, error)
        return None
    X, t, cut = _cap(X, t, max_n, stratify=False)
    if cut:
        st.caption(cut)
    key = _keep(prefix, X, t)
    st.caption(
        f"{len(t)} points; x is {for_markdown(repr(x_name))}, t is "
        f"{for_markdown(repr(t_name))}."
    )
    return (("upload", key), ("labels", (str(x_name), str(t_name))))


def param_slider(
    p: datasets.Param,
    dataset: str,
    key_of: Callable[[str], str],
    say: Callable[[list[str]], None],
    *,
    catalogue: str = "binary",
) -> Any:
    """One generator parameter's slider (every page's, Explore's too), keyed
    ``key_of(p.name)`` and drawn at its current value. Moving it makes the
    parameters that depend on it follow (:func:`params_moved`), and ``say``
    gets the sentences of what followed."""
    kind = int if p.integer else float  # st.slider refuses mixed types
    key = key_of(p.name)
    return st.slider(
        p.label,
        kind(p.low),
        kind(p.high),
        value=kind(keyed.value(key, p.default)),
        step=kind(p.step),
        key=key,
        persist_state="session",
        help=p.help or None,
        on_change=params_moved,
        args=(catalogue, dataset, p.name, key_of, say),
    )


def params_moved(
    catalogue: str,
    dataset: str,
    moved: str,
    key_of: Callable[[str], str],
    say: Callable[[list[str]], None],
) -> None:
    """A generator slider moved: the sliders that depend on it follow
    (``consistent_params`` of the catalogue, where it has one: two circles'
    radii, the outliers and the number of points), and ``say`` says so."""
    rule = getattr(CATALOGUES[catalogue], "consistent_params", None)
    if rule is None:
        return
    state = st.session_state
    params = {
        p.name: state[key_of(p.name)]
        for p in CATALOGUES[catalogue].PARAMS[dataset]
        if key_of(p.name) in state
    }
    fixed, notes = rule(dataset, params, moved=moved)
    for name, value in fixed.items():
        if value != params[name]:
            state[key_of(name)] = value
    if notes:
        say(notes)


def _hold_notes(prefix: str, notes: list[str]) -> None:
    """Keep a moved slider's sentences for :func:`generator_controls` to show."""
    held = st.session_state.get(f"{prefix}_param_notes", [])
    st.session_state[f"{prefix}_param_notes"] = [*held, *notes]


def dataset_box(
    prefix: str,
    default: str,
    *,
    catalogue: str = "binary",
    on_change: Callable[[], None] | None = None,
) -> str:
    """Every page's data set box (key ``<prefix>_dataset``), drawn at its
    current value (``default`` until it has one); ``on_change``: a page's
    own rule for a switch (Explore's keeps the visitor's model)."""
    tables = CATALOGUES[catalogue]
    names = list(tables.GENERATORS)
    key = f"{prefix}_dataset"
    return st.selectbox(
        "Data set",
        names,
        index=keyed.index(key, names, names.index(default)),
        format_func=tables.TITLES.__getitem__,
        key=key,
        persist_state="session",
        on_change=on_change,
    )


def source_radio(prefix: str) -> str:
    """Every page's generator-or-upload radio (key ``<prefix>_source``)."""
    return keyed.radio(
        "Data source",
        list(SOURCES),
        f"{prefix}_source",
        horizontal=True,
        persist_state="session",
        label_visibility="collapsed",
    )


def generator_controls(
    state: PageState, *, n_help: str, notes: Mapping[str, str] | None = None
) -> tuple[str, DataItems]:
    """The data set box, its parameters' sliders and a seed, as the page's
    ``state`` declares them: its prefix, default generator, catalogue, cap on
    the number of points (``n_help`` says it) and the parameters it sets itself
    (``state.fixed``, no slider; e.g. the Losses page places its own outliers).

    ``notes``: a caption per generator, shown under the box. Returns the
    generator's name and keyword arguments (seed included).
    """
    prefix, max_n, catalogue = state.prefix, state.max_n, _catalogue(state)
    tables = CATALOGUES[catalogue]
    name = dataset_box(prefix, state.dataset, catalogue=catalogue)
    if notes and name in notes:
        st.caption(notes[name])
    pinned = dict(state.fixed.get(name, {}))
    items: list[tuple[str, Any]] = []
    for p in tables.PARAMS[name]:
        if p.name in pinned:
            items.append((p.name, pinned[p.name]))
            continue
        if p.name == "n_samples":  # the page's own cap and grid
            default = min(int(p.default), max_n)
            p = replace(p, low=10, high=max_n, step=10, default=default, help=n_help)
        value = param_slider(
            p,
            name,
            lambda n, name=name: f"{prefix}_{name}_{n}",
            partial(_hold_notes, prefix),
            catalogue=catalogue,
        )
        items.append((p.name, value))
    for note in st.session_state.pop(f"{prefix}_param_notes", ()):
        st.info(note, icon=":material/tune:")
    key = f"{prefix}_seed"
    seed = st.number_input(
        "Seed",
        min_value=0,
        max_value=2**31 - 1,
        value=keyed.value(key, 0),
        step=1,
        key=key,
        persist_state="session",
    )
    items.append(("random_state", int(seed)))
    return name, tuple(items)


def source_block(
    state: PageState,
    *,
    empty_note: str,
    n_help: str,
    notes: Mapping[str, str] | None = None,
    one_class: bool = False,
) -> tuple[str, DataItems | None]:
    """The sidebar's data block, written once for every page: "Data", the
    generator-or-upload radio, then the generator's sliders
    (:func:`generator_controls`) or the uploader (``empty_note`` under it while
    it is empty; ``one_class``: feature columns alone will do). Returns the
    source's name (a generator's, or :data:`UPLOAD`) and its data items (None
    while an upload is missing)."""
    prefix, catalogue = state.prefix, _catalogue(state)
    st.header("Data")
    if source_radio(prefix) == SOURCES[1]:
        items = upload_controls(
            prefix,
            empty_note,
            multiclass=catalogue == "multiclass",
            regression=catalogue == "regression",
            one_class=one_class,
            max_n=state.max_n,
        )
        return UPLOAD, items
    return generator_controls(state, n_help=n_help, notes=notes)


def _catalogue(state: PageState) -> str:
    """The key of :data:`CATALOGUES` of the page's generator table."""
    return next(k for k, tables in CATALOGUES.items() if tables is state.catalogue)

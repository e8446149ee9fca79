"""A file the visitor downloads: every page's download button, drawn one way.

The file's type follows its name (:data:`MIME_TYPES`, by suffix: IANA's
registered media types, and Jupyter's ``application/x-ipynb+json`` for a
notebook), and a click never reruns the page (``on_click="ignore"``): the
file is handed over as it is, deferred data included, and the page the
visitor reads stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

import streamlit as st

__all__ = ["MIME_TYPES", "download", "mime_type"]

#: File suffix -> media type, for every kind of file a page hands over.
MIME_TYPES: dict[str, str] = {
    ".csv": "text/csv",
    ".gif": "image/gif",
    ".ipynb": "application/x-ipynb+json",
    ".json": "application/json",
    ".png": "image/png",
    ".py": "text/x-python",
    ".svg": "image/svg+xml",
}


def mime_type(file_name: str) -> str:
    """The media type of ``file_name`` by its suffix (:data:`MIME_TYPES`);
    a suffix not listed is a programming error (KeyError), not a guess."""
    return MIME_TYPES[PurePosixPath(file_name).suffix.lower()]


def download(
    where: Any,
    label: str,
    data: str | bytes | Callable[[], str | bytes],
    file_name: str,
    key: str,
    **style: Any,
) -> None:
    """A download button in ``where`` (a container, a column or ``st``):
    ``data`` (or the callable that makes it when clicked) saved as
    ``file_name``, typed by :func:`mime_type`; ``style`` is the button's look
    (``icon``, ``width``)."""
    place = st if where is None else where
    place.download_button(
        label,
        data=data,
        file_name=file_name,
        mime=mime_type(file_name),
        key=key,
        on_click="ignore",
        **style,
    )

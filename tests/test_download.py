"""svmlab.ui.frame.download: every page's download button, typed by its file name.

The media types are checked against Python's own table (``mimetypes``, which
reads none of svmlab's), the notebook's against Jupyter's registered name.
"""

from __future__ import annotations

import mimetypes

import pytest

from svmlab.ui.frame.download import MIME_TYPES, download, mime_type


@pytest.mark.parametrize("suffix", sorted(set(MIME_TYPES) - {".ipynb"}))
def test_mime_type_is_the_standard_one(suffix: str) -> None:
    expected, _ = mimetypes.MimeTypes().guess_type(f"file{suffix}", strict=True)
    assert mime_type(f"svmlab_spiral{suffix}") == expected


def test_notebook_is_jupyters_type_and_case_does_not_matter() -> None:
    assert mime_type("view.ipynb") == "application/x-ipynb+json"
    assert mime_type("SLIDE.PNG") == "image/png"


def test_an_unknown_suffix_is_refused() -> None:
    with pytest.raises(KeyError):
        mime_type("model.pkl")


class _Place:
    """Records the download button a page draws in it."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple, dict]] = []

    def download_button(self, *args, **kwargs) -> None:
        self.calls.append((args, kwargs))


def test_download_never_reruns_and_types_the_file() -> None:
    place = _Place()
    make = lambda: b"GIF89a"  # noqa: E731
    download(place, "GIF", make, "svmlab_spiral_C_path.gif", "k", width="stretch")
    ((args, kwargs),) = place.calls
    assert args == ("GIF",)
    assert kwargs == {
        "data": make,
        "file_name": "svmlab_spiral_C_path.gif",
        "mime": "image/gif",
        "key": "k",
        "on_click": "ignore",
        "width": "stretch",
    }

"""AppTests of svmlab's pages, each run as a visitor meets it: through the app's
router (``app.py``: the navigation and the frame), switched to the page; and
what the page tests read back from one (its error boxes, its numbers panel)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
PAGES = ROOT / "pages"
EXPLORE = str(PAGES / "1_Explore.py")


def page_test(script: str | Path, default_timeout: float = 60) -> AppTest:
    """An AppTest of the app from its router, switched to ``script`` (a page
    file, absolute or relative to the app root); set query parameters on it
    before the first ``run()``."""
    path = Path(script)
    if path.is_absolute():
        path = path.relative_to(ROOT)
    at = AppTest.from_file(APP, default_timeout=default_timeout)
    if path.as_posix() != "app.py":
        at.switch_page(path.as_posix())
    return at


def open_page(
    script: str | Path,
    query: Mapping[str, str] | None = None,
    default_timeout: float = 60,
) -> AppTest:
    """:func:`page_test` opened with the link's ``query`` parameters, run once."""
    at = page_test(script, default_timeout=default_timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def unescaped(text: str) -> str:
    """Markdown text as it reads: the backslashes of
    :func:`svmlab.user_text.for_markdown` taken out."""
    return re.sub(r"\\(.)", r"\1", text)


def problems(at: AppTest) -> list[str]:
    """The text of every exception box and ``st.error`` box on the page (as
    it reads: a sentence quoting a visitor's text is markdown-escaped)."""
    return [e.value for e in at.exception] + [unescaped(e.value) for e in at.error]


def notes(at: AppTest) -> list[str]:
    """The text of every ``st.info`` box on the page, as it reads."""
    return [unescaped(i.value) for i in at.info]


def bad_link_test(
    script: str | Path,
    cases: list[tuple[dict[str, str], str]],
    rest: dict[str, str],
    kept: Callable[[AppTest], None],
    said_in: Callable[[AppTest], list[str]] = problems,
) -> Callable[..., None]:
    """The test that a page opened from a link with one bad value of
    ``cases`` (``(link, words)``) and the good values ``rest`` says the
    ``words`` in a box of ``said_in`` (the error boxes, unless a page clamps
    some values with a note), in one error box at most, and keeps the rest
    (``kept`` checks the widgets and what the page shows)."""

    @pytest.mark.parametrize(("link", "said"), cases)
    def test(link: dict[str, str], said: str) -> None:
        at = open_page(script, {**link, **rest}, default_timeout=120)
        assert not at.exception, [e.value for e in at.exception]
        assert len(at.error) <= 1, [e.value for e in at.error]
        assert said in " ".join(said_in(at))
        kept(at)

    return test


def click_after_promise(at: AppTest, button: str, promise: str) -> AppTest:
    """Click ``button`` (a long run's), checking that an info box starting with
    ``promise`` says what the click gives before it, and is gone after it."""

    def promised() -> list[str]:
        return [i.value for i in at.info if i.value.startswith(promise)]

    assert promised(), f"no {promise!r} before the click"
    at.button(key=button).click().run()
    assert not promised(), f"{promise!r} still there after the click"
    return at


def numbers(at: AppTest) -> dict[str, str]:
    """Explore's numbers panel: label -> text."""
    body = "".join(h.proto.body for h in at.get("html"))
    found = re.findall(r'data-svmlab-number="([^"]+)"[^>]*>([^<]*)<', body)
    return {html.unescape(k): html.unescape(v) for k, v in found}


def clear_caches() -> None:
    """Forget Streamlit's data cache and the results every visitor shares, so
    that no test gets another's cache hits."""
    import streamlit as st

    from svmlab.ui.frame import shared_results

    st.cache_data.clear()
    shared_results.clear_all()


def _figures(at: AppTest) -> list[tuple[str | None, str]]:
    """``(element key, figure JSON)`` of every Plotly figure on the page:
    svmlab's kept-alive charts (:func:`svmlab.ui.frame.panels.plotly_chart`; the
    frame's invisible preload is a component of its own), then any
    ``st.plotly_chart`` (Explore's path)."""
    from svmlab.ui.frame.chart import COMPONENT

    return [
        (e.key, e.proto.bytes.decode())
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    ] + [(c.key, c.proto.spec) for c in at.get("plotly_chart")]


def figure_texts(at: AppTest) -> list[str]:
    """Every Plotly figure on the page as the JSON text the browser is sent."""
    return [text for _, text in _figures(at)]


def charts(at: AppTest) -> list[dict]:
    """:func:`figure_texts` parsed (``{"data", "layout", "config", ...}``), each
    with its element key as ``"key"``."""
    return [{**json.loads(text), "key": key} for key, text in _figures(at)]

"""Text a visitor supplied (file names, column headers, class labels), made safe
to show: the one place that escapes it, for every page and every figure.

A CSV's header or label reaches captions, radio options, tables, errors and the
Plotly figures' legends and hover boxes. Each of those *renders* its text:
Streamlit as markdown (a header ``![i](http://host/p.png)`` made the browser
fetch that address; ``[x](...)`` became a link), Plotly as a subset of HTML
(``<b>x</b>`` drew bold). And a right-to-left override (U+202E) reverses every
character after it, whatever renders it. So each sink has one function here:

- :func:`for_markdown`: Streamlit's markdown (``st.markdown``, captions, alerts,
  widget labels and options);
- :func:`for_plotly`: Plotly's text (trace names, hover templates, annotations,
  titles);
- :func:`for_html`: HTML this project writes itself (``st.html``, attributes).

Each first applies :func:`plain`: no control or bidirectional formatting
characters (and in a figure, where a long name would push the plot aside, at
most :data:`MAX_CHARS` characters).
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["MAX_CHARS", "for_html", "for_markdown", "for_plotly", "plain"]

#: The longest user text a figure shows whole; longer text is cut with an ellipsis.
MAX_CHARS = 120

#: Unicode's bidirectional controls (embeddings, overrides, isolates, marks):
#: each reorders the text around it, so a label could show another label.
_BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:=\"'&@^%])")


def plain(text: object, limit: int | None = None) -> str:
    """``str(text)`` without control, format (bidirectional, zero-width) or
    line-breaking characters (a space instead), at most ``limit`` characters."""
    out = []
    for ch in str(text):
        category = unicodedata.category(ch)
        if ch in _BIDI or category == "Cf":
            continue
        out.append(" " if category in ("Cc", "Zl", "Zp") else ch)
    cleaned = "".join(out)
    if limit is not None and len(cleaned) > limit:
        cleaned = cleaned[: limit - 1] + "…"
    return cleaned


def for_markdown(text: object) -> str:
    """User text shown literally where Streamlit renders markdown: every
    markdown character escaped, so nothing becomes a link, an image that
    fetches an address, LaTeX (``$``), a coloured directive (``:red[...]``), an
    emoji shortcode or HTML."""
    return _MARKDOWN.sub(r"\\\1", plain(text))


def for_plotly(text: object) -> str:
    """User text shown literally in a Plotly figure (names, hover, titles):
    ``<``, ``>`` and ``&`` as entities, so no tag or link is drawn. A ``%``
    is doubled-braced where Plotly would read ``%{...}`` as a template."""
    escaped = html.escape(plain(text, MAX_CHARS), quote=False)
    return escaped.replace("%{", "%&#123;")


def for_html(text: object) -> str:
    """User text inside HTML this project writes (quotes escaped too)."""
    return html.escape(plain(text), quote=True)

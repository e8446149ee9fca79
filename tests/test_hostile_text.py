"""User text shown, never rendered (issue 27, item 11).

A CSV's headers and labels reach captions, radio options, tables and the
figures' legends and hover boxes on every page that takes an upload. Here each
of the six upload pages gets the same hostile file (a markdown image that would
fetch an address, a markdown link, Plotly/HTML tags, a right-to-left override,
LaTeX and a colour directive) and every text element the page sends is checked:
markdown is escaped, figures carry entities instead of tags, and no
bidirectional control survives. :mod:`svmlab.user_text` is checked against the
renderers' own rules first.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from svmlab.ui.explore import upload
from svmlab.user_text import MAX_CHARS, for_html, for_markdown, for_plotly, plain
from tests.pages import PAGES, figure_texts, page_test

pytestmark = pytest.mark.usefixtures("fresh_caches")

RLO = "\u202e"
IMAGE = "![i](http://example.com/p.png)"
LINK = "[link](http://example.com/q)"
BOLD = "<b>bold</b>"
HOSTILE_LABELS = (f"{RLO}evil", BOLD, f"{LINK} $x^2$ :red[x]")


def _csv(classes: int) -> bytes:
    rng = np.random.default_rng(0)
    rows = [f"{IMAGE},{LINK},{BOLD}"]
    for i in range(60):
        c = i % classes
        x = rng.normal(size=2) + 3 * np.array([np.cos(2 * c), np.sin(2 * c)])
        rows.append(f"{x[0]:.4f},{x[1]:.4f},{HOSTILE_LABELS[c]}")
    return "\n".join(rows).encode()


# -- the functions against the renderers' rules ----------------------------------


def test_plain_drops_controls_and_cuts_long_text() -> None:
    assert plain(f"a{RLO}b\u2066c\u200fd\x00e\nf") == "abcd e f"
    assert plain("x" * 500) == "x" * 500
    assert len(plain("x" * 500, 50)) == 50 and plain("x" * 500, 50).endswith("…")
    assert len(for_plotly("x" * 500)) == MAX_CHARS


def test_markdown_escapes_every_active_character() -> None:
    out = for_markdown(f"{IMAGE} {LINK} $x$ :red[y] <b>z</b> *a* _b_ `c`")
    # Every markdown metacharacter is preceded by a backslash.
    for ch in "![]()$:<>*_`":
        assert not re.search(rf"(?<!\\){re.escape(ch)}", out), (ch, out)


def test_plotly_and_html_text_carry_no_tags() -> None:
    assert for_plotly(BOLD) == "&lt;b&gt;bold&lt;/b&gt;"
    assert "%{" not in for_plotly("%{x}")
    assert for_html('"><img src=x>') == "&quot;&gt;&lt;img src=x&gt;"


# -- every upload page ------------------------------------------------------------


def _texts(at: AppTest) -> list[str]:
    """Every markdown-rendered text the page sends (markdown, captions,
    alerts, radio and widget labels and options)."""
    out = [m.value for m in at.markdown] + [c.value for c in at.caption]
    for kind in ("error", "warning", "info", "success"):
        out += [e.value for e in getattr(at, kind)]
    for radio in at.radio:
        out += [radio.label, *map(str, radio.options)]
    return out


def _check(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    for text in _texts(at):
        assert RLO not in text, text
        assert "![i](" not in text and "[link](" not in text, text
        assert "<b>" not in text, text
    for spec in figure_texts(at):
        data = json.dumps(json.loads(spec))
        assert "<b>bold" not in data and RLO not in data and "\\u202e" not in data


def _upload(at: AppTest, source_key: str, file_key: str, data: bytes) -> AppTest:
    at.radio(key=source_key).set_value("Upload CSV").run()
    at.file_uploader(key=file_key).set_value(("<b>x</b>.csv", data, "text/csv"))
    return at.run()


@pytest.mark.parametrize(
    ("script", "source_key", "file_key", "classes"),
    [
        ("1_Explore.py", upload.SOURCE_KEY, upload.FILE_KEY, 2),
        ("4_Losses.py", "losses_source", "losses_file", 2),
        ("5_Solvers.py", "solvers_source", "solvers_file", 2),
        ("2_Model_selection.py", "selection_source", "selection_file", 2),
        ("6_Multiclass.py", "multiclass_source", "multiclass_file", 3),
        ("8_Family.py", "family_source", "family_file", 2),
    ],
)
def test_a_hostile_file_is_shown_literally(script, source_key, file_key, classes):
    at = page_test(str(PAGES / script), default_timeout=180).run()
    at = _upload(at, source_key, file_key, _csv(classes))
    _check(at)
    # The file was read (its labels are the classes), not refused.
    assert not at.error, [e.value for e in at.error]
    shown = "\n".join(_texts(at))
    assert "evil" in shown and "bold" in shown

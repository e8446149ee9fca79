"""The vendored cartesian plotly.js (svmlab/ui/frame/static/) is the plotly.js that
the installed plotly.py draws its figures for (issue 28): an upgrade of plotly
that leaves the vendored file behind fails here, not in a browser."""

from __future__ import annotations

import re

from svmlab.ui.frame import chart


def _version(path) -> str:
    head = path.read_text(encoding="utf-8")[:300]
    match = re.search(r"plotly\.js(?: \([^)]*\))? v(\d+\.\d+\.\d+)", head)
    assert match, head
    return match.group(1)


def test_the_cartesian_bundle_is_plotly_pys_plotly_js() -> None:
    assert chart.PLOTLY_2D_JS.is_file()
    assert "cartesian" in chart.PLOTLY_2D_JS.read_text(encoding="utf-8")[:200]
    assert _version(chart.PLOTLY_2D_JS) == _version(chart.PLOTLY_JS)

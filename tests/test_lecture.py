"""Explore's lecture tools under AppTest: classroom mode, the path scrubber, the
point inspector, the kernel views and compare mode."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from svmlab.ui.chart import COMPONENT

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "1_Explore.py")


def _app(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()


def _errors(at: AppTest) -> list[str]:
    return [e.value for e in at.exception] + [e.value for e in at.error]


def _numbers(at: AppTest) -> dict[str, str]:
    body = "".join(h.proto.body for h in at.get("html"))
    found = re.findall(r'data-svmlab-number="([^"]+)"[^>]*>([^<]*)<', body)
    return {html.unescape(k): html.unescape(v) for k, v in found}


def _charts(at: AppTest) -> dict[str, dict]:
    """Chart key -> payload (``{"data", "layout", ...}``)."""
    return {
        e.key: json.loads(e.proto.bytes)
        for e in at.get("bidi_component")
        if e.proto.component_name == COMPONENT
    }


def test_path_scrub_draws_stored_models_and_fits_nothing(monkeypatch) -> None:
    at = _app({"data": "two_circles"})
    at.radio(key="explore_tool").set_value("path").run()
    at.button(key="explore_path_run").click().run()
    assert not _errors(at)
    held = at.session_state["explore_path"][1]
    assert held.complete and held.values.size == 30
    assert "explore_path_chart" in _charts(at)

    from svmlab.estimator import SVC

    def no_fit(*args, **kwargs):
        raise AssertionError("a scrub must not fit")

    monkeypatch.setattr(SVC, "fit", no_fit)
    i = int(np.flatnonzero(held.values == 1.0)[0])
    at.select_slider(key="explore_path_scrub").set_value(1.0).run()
    assert not _errors(at)
    assert at.session_state["explore_settings"].C == 1.0
    shown = _numbers(at)
    n_sv = int(held.n_free[i] + held.n_bound[i])
    assert shown["support vectors"].startswith(f"{n_sv} / ")
    assert shown["free SVs"] == str(int(held.n_free[i]))
    # The cursor on the curves sits at the scrubbed value.
    shapes = _charts(at)["explore_path_chart"]["layout"]["shapes"]
    assert shapes[0]["x0"] == 1.0

"""AppTest smoke tests: the landing page and every page in pages/ run cleanly.

``app.py`` is always in the parametrised list, so the list is never empty and
nothing is reported as skipped while ``pages/`` is still empty.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]


def _run(path: Path) -> AppTest:
    at = AppTest.from_file(str(path), default_timeout=30)
    return at.run()


@pytest.mark.parametrize(
    "script", SCRIPTS, ids=[p.relative_to(ROOT).as_posix() for p in SCRIPTS]
)
def test_script_runs_without_exception(script: Path) -> None:
    at = _run(script)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_landing_page_shows_title_and_sources() -> None:
    at = _run(ROOT / "app.py")
    assert [t.value for t in at.title] == ["svmlab"]
    subheaders = [s.value for s in at.subheader]
    assert "Sources" in subheaders
    text = "\n".join(m.value for m in at.markdown)
    for name in ("Sugiyama", "Lee", "Zhu", "Rifkin"):
        assert name in text

"""A freshly started server loads svmlab before anyone visits (issue 28 item 1).

``streamlit run app.py`` serves app.py's ``st.App``, whose start-up hook loads
svmlab's page modules (scikit-learn, SciPy and numba with them) before the
server answers and warms the compiled solvers in a thread
(tests/test_server_start.py checks both in a plain process). Here a real
server is started and never visited: its memory map (``/proc/<pid>/maps``)
must show scikit-learn's, SciPy's and numba's compiled extensions, which
neither Streamlit nor Plotly loads.
"""

from __future__ import annotations

import time
from pathlib import Path

#: What the server process must have mapped before any visitor, and how long
#: it may take on a loaded two-core machine (about 2-7 s measured).
LOADED_BY = ("/sklearn/", "/numba/", "/scipy/")
WAIT_S = 90.0


def _mapped(pid: int) -> str:
    return Path(f"/proc/{pid}/maps").read_text()


def test_an_unvisited_server_has_loaded_svmlab(fresh_server, tmp_path) -> None:
    with fresh_server() as (url, pid):
        deadline = time.monotonic() + WAIT_S
        while True:
            maps = _mapped(pid)
            missing = [name for name in LOADED_BY if name not in maps]
            if not missing or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert not missing, f"not loaded {WAIT_S:.0f} s after the start: {missing}"
        # The page modules were loaded once Streamlit's runtime existed: no
        # cached function fell back to a private memory cache at the start.
        port = url.rsplit(":", 1)[1]
        log = (tmp_path / f"server-{port}.log").read_text(errors="replace")
        assert "No runtime found" not in log

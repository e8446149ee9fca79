"""The server loads svmlab at its start, before any visitor (issue 28 item 1).

app.py holds ``app = st.App(...)``, so ``streamlit run app.py`` serves it in
Streamlit's ASGI mode: it imports app.py once as module ``app`` and runs its
start-up hook before it answers (:mod:`svmlab.ui.frame.server_start`: the page
modules loaded, the solvers' warm-up started); each visitor's run executes
app.py as ``"__main__"`` and routes. A live server's memory before any visitor
is checked in ``tests/browser/test_first_visit.py``.
"""

from __future__ import annotations

import ast
import os
import textwrap
from pathlib import Path

from streamlit.web.server.app_discovery import discover_asgi_app

from tests.conftest import python_output

ROOT = Path(__file__).resolve().parents[1]


def test_streamlit_run_finds_app_py_as_an_asgi_app() -> None:
    """Streamlit's own discovery (what ``streamlit run`` calls) sees the app."""
    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app
    assert found.import_string == "app:app"


def test_the_servers_import_of_app_py_builds_the_app_and_routes_nothing() -> None:
    """Imported as ``app`` (as uvicorn imports it), in a process that had no
    svmlab, app.py builds one st.App with svmlab's start-up hook, and neither
    routes (no page module yet: the hook loads them, once Streamlit's runtime
    exists) nor starts the warm-up."""
    out = python_output(
        textwrap.dedent(
            """
            import importlib, sys
            import streamlit as st
            before = "svmlab" in sys.modules
            app = importlib.import_module("app")
            from svmlab.compiled import precompile
            from svmlab.ui.frame import server_start
            print(before, isinstance(app.app, st.App),
                  app.app._user_lifespan is server_start.lifespan,
                  "svmlab.ui.frame.router" in sys.modules, precompile._thread is None)
            """
        ),
        env={**os.environ, "SVMLAB_PRECOMPILE": "1"},
    )
    assert out.split() == ["False", "True", "True", "False", "True"]


def test_the_start_up_hook_loads_every_page_module_and_starts_the_warm_up() -> None:
    """Before the server answers, the hook has imported every page module
    (scikit-learn with them) and started the warm-up, which runs on in the
    background (its job is held until after the hook returned)."""
    out = python_output(
        textwrap.dedent(
            """
            import asyncio, sys, threading
            from svmlab.compiled import precompile
            from svmlab.ui.frame import server_start
            gate = threading.Event()
            precompile.JOBS = {"job": gate.wait}
            precompile.BACKGROUND_PAUSE_S = 0.0
            before = [m for m in server_start.PAGE_MODULES if m in sys.modules]

            async def serve():
                async with server_start.lifespan(None):
                    missing = [m for m in server_start.PAGE_MODULES + ("sklearn",)
                               if m not in sys.modules]
                    return missing, precompile._thread.is_alive()

            missing, running = asyncio.run(serve())
            gate.set()
            precompile._thread.join(60)
            print(before, missing, running, precompile.ready())
            """
        ),
        env={**os.environ, "SVMLAB_PRECOMPILE": "1"},
    )
    assert out.split() == ["[]", "[]", "True", "True"]


def test_a_module_that_fails_to_import_is_reported_and_the_rest_still_load() -> None:
    out = python_output(
        textwrap.dedent(
            """
            import sys
            from svmlab.ui.frame import server_start
            failed = server_start.load_pages(
                ("svmlab.ui.frame.presets", "svmlab.no_such_module",
                "svmlab.ui.frame.refusals"))
            print(sorted(failed), "svmlab.ui.frame.refusals" in sys.modules)
            """
        ),
        env={**os.environ, "SVMLAB_PRECOMPILE": "0"},
    )
    assert out.split() == ["['svmlab.no_such_module']", "True"]


def _svmlab_modules_imported_by(path: Path) -> set[str]:
    """The ``svmlab.ui`` modules a script imports (``from svmlab.ui.x import y``:
    the module ``svmlab.ui.x.y`` where there is one, else ``svmlab.ui.x``), read
    from its source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "svmlab.ui" or node.module.startswith("svmlab.ui."):
                for alias in node.names:
                    name = f"{node.module}.{alias.name}"
                    module = ROOT.joinpath(*name.split("."))
                    if module.with_suffix(".py").is_file() or module.is_dir():
                        found.add(name)
                    elif node.module != "svmlab.ui":
                        found.add(node.module)
    return found


def test_the_start_up_hook_loads_everything_the_pages_import() -> None:
    """Every svmlab.ui module a page script, a page's module (``svmlab/ui/<page>/
    page.py``) or the router imports is loaded by the hook's list, directly or
    through the modules on it: read from their own import statements."""
    wanted = set().union(
        *(_svmlab_modules_imported_by(p) for p in ROOT.glob("pages/*.py")),
        *(_svmlab_modules_imported_by(p) for p in ROOT.glob("svmlab/ui/*/page.py")),
        _svmlab_modules_imported_by(ROOT / "app.py"),
    )
    wanted.discard("svmlab.ui.frame.server_start")
    assert len(wanted) > 10
    out = python_output(
        textwrap.dedent(
            f"""
            import importlib, sys
            from svmlab.ui.frame.server_start import PAGE_MODULES
            for name in PAGE_MODULES:
                importlib.import_module(name)
            print(sorted(m for m in {sorted(wanted)!r} if m not in sys.modules))
            """
        ),
        env={**os.environ, "SVMLAB_PRECOMPILE": "0"},
    )
    assert out.strip() == "[]"

"""No stale compiled code (issue 27, item 16): numba's cache lives in a directory
named by a hash of the compiled modules' source, so an edit to a compiled helper
in another module is seen by the functions that call it.

The end-to-end test copies the package to a temporary directory, runs a compiled
function of ``solvers/row_cache.py`` that calls ``kernels.kernel_row_into``,
edits only ``kernels/rows.py``, and runs it again in a new process: numba's own
``cache=True`` (which checks the caller's file only) gave the old answer.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap
import time
from pathlib import Path

import pytest

from svmlab.compiled import cache as compiled_cache
from tests.conftest import python_output

ROOT = Path(__file__).resolve().parents[1]

#: Row 0 of K, read through the row cache (kind 0: gathered from K, through
#: ``kernel_row_into`` in kernels/rows.py); also where numba's cache points.
SCRIPT = textwrap.dedent(
    """
    import json, numba, numpy as np
    import svmlab
    from svmlab.solvers import row_cache
    K = np.array([[1.0, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 1.0]])
    src = (K, np.zeros((3, 1)), np.arange(3), 0, np.zeros(6))
    cache = row_cache.cache_arrays(3, 1.0, np.float64)
    ist = np.zeros(row_cache.N_COUNTERS, dtype=np.int64)
    row = row_cache.cached_row(0, 3, src, cache, ist)
    print(json.dumps({"row": row.tolist(), "cache_dir": numba.config.CACHE_DIR}))
    """
)

#: The helper's line in kernels.kernel_row_into that gathers a row of K.
GATHER = "out[t] = Krow[c - m if c >= m else c]"


def _copy_package(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(
        ROOT / "svmlab", root / "svmlab", ignore=shutil.ignore_patterns("__pycache__")
    )
    return root


def _env(cache_base: Path, **extra: str) -> dict[str, str]:
    """This process's environment with the compiled cache under ``cache_base``
    (and no NUMBA_CACHE_DIR of its own)."""
    env = {**os.environ, "SVMLAB_CACHE_DIR": str(cache_base), **extra}
    env.pop("NUMBA_CACHE_DIR", None)
    return env


def _run(root: Path, cache_base: Path) -> dict:
    env = _env(cache_base, PYTHONPATH=str(root))
    out = python_output(SCRIPT, env=env, cwd=root)
    return json.loads(out.strip().splitlines()[-1])


def _entries(directory: Path) -> dict[str, int]:
    """Every file numba wrote under ``directory`` and its modification time."""
    return {
        str(p.relative_to(directory)): p.stat().st_mtime_ns
        for p in directory.rglob("*")
        if p.is_file()
    }


@pytest.mark.slow  # compiles the solvers twice from nothing: about 2 minutes
def test_an_edit_to_a_called_helper_in_another_module_is_seen(tmp_path):
    root = _copy_package(tmp_path)
    cache_base = tmp_path / "cache"
    first = _run(root, cache_base)
    assert first["row"] == [1.0, 0.5, 0.25]
    written = _entries(Path(first["cache_dir"]))
    assert any(name.endswith(".nbi") for name in written)
    again = _run(root, cache_base)  # same sources: the same directory, reused
    assert again == first
    assert _entries(Path(first["cache_dir"])) == written  # loaded, not recompiled
    kernels = root / "svmlab" / "kernels" / "rows.py"
    text = kernels.read_text()
    assert text.count(GATHER) == 1
    kernels.write_text(
        text.replace(GATHER, "out[t] = 2.0 * Krow[c - m if c >= m else c]")
    )
    edited = _run(root, cache_base)
    assert edited["row"] == [2.0, 1.0, 0.5]
    assert edited["cache_dir"] != first["cache_dir"]
    for run in (first, edited):
        assert Path(run["cache_dir"]).parent == cache_base / "numba"


@pytest.mark.parametrize(
    "numba_first", [False, True], ids=["svmlab_first", "numba_first"]
)
def test_numba_points_at_the_directory_of_this_source(tmp_path, numba_first):
    # numba imported first has read its cache setting (none) before svmlab sets it.
    before = (
        "import numba; print(repr(numba.config.CACHE_DIR)); " if numba_first else ""
    )
    code = before + (
        "import os, svmlab, numba; from svmlab.compiled import cache as c; "
        "print(numba.config.CACHE_DIR); print(os.environ['NUMBA_CACHE_DIR']); "
        "print(c.source_hash()); print(c.CACHE_DIR)"
    )
    out = python_output(code, env=_env(tmp_path)).split()
    if numba_first:
        assert out.pop(0) == "''"
    expected = str(tmp_path / "numba" / out[2])
    assert out[:2] == [expected, expected] == [out[3], out[3]]
    assert Path(expected).is_dir()


@pytest.mark.parametrize(
    "name",
    [
        "kernels/functions.py",
        "kernels/rows.py",
        "solvers/crammer_singer.py",
        "compiled/arguments.py",
        "solvers/row_cache.py",
        "solvers/shrinking.py",
        "solvers/smo.py",
        "solvers/base.py",
        "errors.py",  # imported by compiled modules
    ],
)
def test_the_hash_changes_with_any_compiled_source(tmp_path, name):
    package = _copy_package(tmp_path) / "svmlab"
    before = compiled_cache.source_hash(package)
    with (package / name).open("a") as file:
        file.write("\n# an edit\n")
    assert compiled_cache.source_hash(package) != before


def test_the_hash_ignores_pages_and_figures(tmp_path):
    package = _copy_package(tmp_path) / "svmlab"
    before = compiled_cache.source_hash(package)
    edited = ("ui/explore/cache.py", "figures/decision.py", "experiments/selection.py")
    for name in edited:
        with (package / name).open("a") as file:
            file.write("\n# an edit\n")
    assert compiled_cache.source_hash(package) == before


def test_every_module_that_compiles_is_hashed():
    hashed = set(compiled_cache.compiled_sources())
    for path in compiled_cache.PACKAGE.rglob("*.py"):
        text = path.read_text()
        if any(mark in text for mark in ("@njit", "@jit", "numba.njit", "numba.jit")):
            assert path in hashed, path


def test_only_the_most_recently_used_directories_are_kept(tmp_path):
    base = tmp_path / "numba"
    now = time.time()
    for k in range(compiled_cache.KEEP + 3):
        old = base / f"{k:016x}"
        old.mkdir(parents=True)
        (old / "entry.nbi").write_text("x")
        os.utime(old, (now - 100 * (k + 1), now - 100 * (k + 1)))
    current = base / "current"
    current.mkdir()
    compiled_cache._prune(current)
    left = sorted(p.name for p in base.iterdir())
    assert len(left) == compiled_cache.KEEP
    assert "current" in left
    # The newest of the old ones stay, the oldest go.
    assert f"{0:016x}" in left and f"{compiled_cache.KEEP + 2:016x}" not in left


def test_two_signatures_saved_at_once_keep_their_own_code(tmp_path, monkeypatch):
    # Two processes compiling two signatures of one function at once both read
    # the index, both took data file 1, and the index kept one key while the
    # file held the other's machine code: a crash on every later load (seen on
    # this machine, a segfault in the SMO loop). Here two threads (flock locks
    # open files, so they contend as two processes do) meet at a barrier right
    # after reading the index: unlocked, both pass it with the same index;
    # under svmlab's lock the second waits outside, the barrier times out for
    # the first, and the second reads the index the first wrote.
    import threading

    from numba.core import caching

    assert getattr(caching.IndexDataCacheFile.save, "svmlab_locked", False)
    meet = threading.Barrier(2, timeout=1.0)
    read = caching.IndexDataCacheFile._load_index

    def read_then_meet(self):
        overloads = read(self)
        try:
            meet.wait()
        except threading.BrokenBarrierError:
            pass
        return overloads

    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", read_then_meet)

    def cache_file():
        return caching.IndexDataCacheFile(str(tmp_path), "f-1.py311", ("stamp", 1))

    threads = [
        threading.Thread(target=cache_file().save, args=(key, f"code of {key}"))
        for key in ("float64 signature", "float32 signature")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", read)
    for key in ("float64 signature", "float32 signature"):
        assert cache_file().load(key) == f"code of {key}"

"""Where numba keeps svmlab's compiled functions: a directory named by their source.

numba's ``cache=True`` reuses a compiled function while the function's *own*
source file keeps its modification time and size (and its bytecode hash). A
compiled function that calls a compiled helper in another module carries the
helper's machine code in its own cache entry, so an edit to the helper alone is
not seen: with a bug planted in ``svmlab/solvers/row_cache.py`` the in-tree
cache of the SMO loop still gave the old, correct answer (issue 27, item 16).

So numba's cache directory (``NUMBA_CACHE_DIR``) is named by a hash of the
source of every module that holds compiled functions, of the svmlab modules
they import from, and of the Python, NumPy and numba versions
(:func:`source_hash`). An edit to any of them gives a new, empty directory and
numba compiles afresh; another process with the same sources (a test worker, a
server session, a precompile step at install time) finds the same directory and
loads what is there.

The directory is ``<base>/numba/<hash>`` with ``<base>`` ``$SVMLAB_CACHE_DIR``,
else ``$XDG_CACHE_HOME/svmlab``, else ``~/.cache/svmlab`` (outside the source
tree, so nothing to git-ignore and a read-only install works); if that cannot be
written, a directory under the system's temporary directory. Each process that
uses a directory touches it, and only the :data:`KEEP` most recently used are
kept: the others are removed (a process whose directory is removed meanwhile
only recompiles; numba recreates the directory when it saves).

This module must run before numba decorates anything in svmlab, so
``svmlab/__init__.py`` imports it first. It sets ``NUMBA_CACHE_DIR`` (worker
processes inherit it) and, when numba is already imported, ``numba.config``'s
``CACHE_DIR``. The variable is process-wide: another library's numba cache in
the same process lands in the same directory.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import platform
import re
import shutil
import sys
import tempfile
from importlib import metadata
from pathlib import Path

__all__ = [
    "CACHE_DIR",
    "KEEP",
    "PACKAGE",
    "cache_dir",
    "compiled_sources",
    "configure",
    "lock_saves",
    "source_hash",
]

#: The svmlab package directory.
PACKAGE = Path(__file__).resolve().parents[1]
#: How many hash directories are kept (the most recently used): a few source
#: versions (worktrees, branches) used side by side each keep their cache.
KEEP = 8
#: A module that compiles: it imports numba.
_USES_NUMBA = re.compile(r"^\s*(?:from\s+numba\b|import\s+numba\b)", re.MULTILINE)
#: A module of svmlab imported by name (``from svmlab.x.y import ...``).
_IMPORTS_SVMLAB = re.compile(r"^\s*from\s+(svmlab(?:\.\w+)+)\s+import\b", re.MULTILINE)


def _module_file(dotted: str, package: Path) -> Path | None:
    """``svmlab.solvers.base`` -> ``<package>/solvers/base.py`` (or a package's
    ``__init__.py``); None if it is not a file of this package."""
    parts = dotted.split(".")[1:]
    stem = package.joinpath(*parts)
    for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def compiled_sources(package: Path = PACKAGE) -> list[Path]:
    """The files whose source the compiled code depends on, sorted.

    Every module of the package outside ``ui/`` that imports numba, every module
    of ``solvers/``, and the svmlab modules those import from (a compiled
    function freezes the globals it reads, constants imported from elsewhere
    among them, when it is compiled), through the re-exports of a package's
    ``__init__`` to the module that defines the name.
    """
    compiled = {
        path
        for path in package.rglob("*.py")
        if "ui" not in path.relative_to(package).parts
        and _USES_NUMBA.search(path.read_text(encoding="utf-8"))
    }
    compiled |= set((package / "solvers").glob("*.py"))
    imported: set[Path] = set()
    todo = list(compiled)
    while todo:
        path = todo.pop()
        for dotted in _IMPORTS_SVMLAB.findall(path.read_text(encoding="utf-8")):
            found = _module_file(dotted, package)
            if found is None or found in imported:
                continue
            imported.add(found)
            # A name imported from a package (``from svmlab.kernels import
            # gram``) lives in the module its ``__init__`` re-exports it from.
            if found.name == "__init__.py":
                todo.append(found)
    return sorted(compiled | imported)


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "none"


def source_hash(package: Path = PACKAGE) -> str:
    """SHA-256 (first 16 hex digits) of :func:`compiled_sources` (their paths
    relative to the package and their bytes) and of the Python, NumPy and numba
    versions and the machine: what the compiled code is a function of."""
    digest = hashlib.sha256()
    for part in (
        sys.version,
        platform.machine(),
        _version("numpy"),
        _version("numba"),
    ):
        digest.update(part.encode() + b"\0")
    for path in compiled_sources(package):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _base() -> Path:
    if os.environ.get("SVMLAB_CACHE_DIR"):
        return Path(os.environ["SVMLAB_CACHE_DIR"]).expanduser()
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]).expanduser() / "svmlab"
    return Path.home() / ".cache" / "svmlab"


def _writable(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def cache_dir(package: Path = PACKAGE) -> Path:
    """``<base>/numba/<source_hash>`` (module docstring), created; under the
    temporary directory when the base cannot be written."""
    name = source_hash(package)
    path = _base() / "numba" / name
    if not _writable(path):
        user = getattr(os, "getuid", lambda: "user")()
        path = Path(tempfile.gettempdir()) / f"svmlab-{user}" / "numba" / name
        path.mkdir(parents=True, exist_ok=True)
    return path


def _prune(current: Path, keep: int = KEEP) -> None:
    """Remove all but the ``keep`` most recently used hash directories beside
    ``current`` (which was just touched, so it stays)."""
    try:
        siblings = [p for p in current.parent.iterdir() if p.is_dir()]
        siblings.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:  # another process removed one meanwhile: next time
        return
    for old in siblings[keep:]:
        if old != current:
            shutil.rmtree(old, ignore_errors=True)


def configure(package: Path = PACKAGE) -> Path:
    """Point numba's cache at :func:`cache_dir`, mark it used, prune old ones;
    returns the directory."""
    path = cache_dir(package)
    try:
        os.utime(path)
    except OSError:
        pass
    _prune(path)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba already imported: its config read the old value
        config.CACHE_DIR = str(path)
    return path


def lock_saves() -> None:
    """Make numba's cache saves one process at a time (an exclusive ``flock``
    on ``<index>.lock`` beside each function's index).

    numba's ``IndexDataCacheFile.save`` reads the function's index, takes the
    first free data-file number for a new signature and writes the index and
    the data. Two processes compiling two signatures of one function at once
    (test workers, a server's warm-up beside a page's fit, several server
    processes) both took number 1: the index kept one signature, the data file
    the other's machine code, and every later process that loaded that
    signature crashed (seen here: a segmentation fault in the SMO loop on each
    start until the directory was removed). Under the lock the index is read
    afresh, so the second process takes number 2. Loads need no lock: numba
    writes each file to a temporary name and renames it.
    """
    from numba.core import caching

    original = caching.IndexDataCacheFile.save
    if getattr(original, "svmlab_locked", False):
        return

    def save(self: caching.IndexDataCacheFile, key: object, data: object) -> None:
        os.makedirs(self._cache_path, exist_ok=True)
        with open(self._index_path + ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                original(self, key, data)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    save.svmlab_locked = True  # type: ignore[attr-defined]
    caching.IndexDataCacheFile.save = save


#: The directory this process uses (set on import, before any compiled module).
CACHE_DIR = configure()
lock_saves()

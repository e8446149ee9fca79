"""scikit-learn's own SVM tests, run with svmlab's estimators in its place
(issue 48, item 2).

The installed scikit-learn's ``sklearn/svm/tests`` run in a fresh interpreter
with the plugin :mod:`tests.sklearn_suite.svmlab_in_sklearn`, which puts
:class:`svmlab.SVC`, ``NuSVC``, ``OneClassSVM``, ``SVR`` and ``NuSVR`` where
scikit-learn's are before the test modules import them. The installed files are
only read: no bytecode is written (``PYTHONDONTWRITEBYTECODE``), pytest's cache
is off and the run's directory is a temporary one.

``docs/sklearn_tests.md`` lists every test that fails, with the error it fails
with and why (a LIBSVM internal, a deliberate difference). This test fails
when a test fails that the list does not name (newly failing), fails with
another error than the list says (newly wrong), or passes although the list
names it (the list must be corrected), and when the counts the page states are
not the run's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parents[1]
LIST = ROOT / "docs" / "sklearn_tests.md"
PLUGIN_DIR = ROOT / "tests" / "sklearn_suite"

#: A row of the list: | `test_file.py::test_name[params]` | `Error` | reason |
ROW = re.compile(r"^\|\s*`([^`]+::[^`]+)`\s*\|\s*`(\w+)`\s*\|(.+)\|\s*$")
#: The list's statement of the counts and the version they were measured with.
COUNTS = re.compile(
    r"(\d+) of the (\d+) tests pass with scikit-learn ([\d.]+)", re.MULTILINE
)


def listed_failures(text: str) -> dict[str, str]:
    """``{test id: error class name}`` of the list's table rows."""
    rows = {}
    for line in text.splitlines():
        match = ROW.match(line.strip())
        if match:
            test, error, reason = match.groups()
            assert reason.strip(), f"{test} is listed without a reason"
            assert test not in rows, f"{test} is listed twice"
            rows[test] = error
    return rows


def run_suite(workdir: Path) -> dict[str, dict[str, str]]:
    """Every test's outcome (the plugin's JSON) from one run of scikit-learn's
    ``sklearn/svm/tests`` with svmlab's estimators."""
    tests = Path(sklearn.__file__).resolve().parent / "svm" / "tests"
    results = workdir / "results.json"
    (workdir / "pytest.ini").write_text("[pytest]\n")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(PLUGIN_DIR), str(ROOT)]),
        "PYTHONDONTWRITEBYTECODE": "1",
        "SKLEARN_TESTS_GLOBAL_RANDOM_SEED": "42",
        "SVMLAB_SKLEARN_RESULTS": str(results),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(workdir / "pytest.ini"),
            "--rootdir",
            str(workdir),
            # scikit-learn's conftest.py (its fixtures) sits above the tests.
            "--confcutdir",
            str(tests.parents[2]),
            "-p",
            "svmlab_in_sklearn",
            "-p",
            "no:cacheprovider",
            "-q",
            str(tests),
        ],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert results.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(results.read_text())


@pytest.mark.slow
def test_scikit_learns_svm_tests_fail_only_as_listed(tmp_path: Path) -> None:
    text = LIST.read_text()
    listed = listed_failures(text)
    counts = COUNTS.search(text)
    assert counts, "docs/sklearn_tests.md must say 'N of the M tests pass with ...'"
    assert counts.group(3) == sklearn.__version__, (
        f"docs/sklearn_tests.md was measured with scikit-learn {counts.group(3)}; "
        f"this is {sklearn.__version__}: run it again and update the list"
    )
    results = run_suite(tmp_path)
    failed = {t: r for t, r in results.items() if r["outcome"] == "failed"}
    skipped = sorted(t for t, r in results.items() if r["outcome"] == "skipped")
    newly_failing = {
        t: f"{r['error']}: {r['message']}" for t, r in failed.items() if t not in listed
    }
    now_passing = sorted(
        t for t in listed if results.get(t, {}).get("outcome") == "passed"
    )
    missing = sorted(t for t in listed if t not in results)
    other_error = {
        t: f"listed {listed[t]}, got {r['error']}: {r['message']}"
        for t, r in failed.items()
        if t in listed and r["error"] != listed[t]
    }
    assert newly_failing == {}
    assert other_error == {}
    assert now_passing == [], "these pass now: take them off docs/sklearn_tests.md"
    assert missing == [], "these are listed but were not run"
    assert skipped == []
    passed = sum(r["outcome"] == "passed" for r in results.values())
    assert (int(counts.group(1)), int(counts.group(2))) == (passed, len(results))


def test_the_list_is_well_formed() -> None:
    """The rows parse, each with an error class and a reason, and the list's
    counts add up (the run itself is the slow test above)."""
    text = LIST.read_text()
    listed = listed_failures(text)
    counts = COUNTS.search(text)
    assert counts and listed
    passed, total = int(counts.group(1)), int(counts.group(2))
    assert passed + len(listed) == total
    assert all(
        t.split("::")[0] in ("test_svm.py", "test_sparse.py", "test_bounds.py")
        for t in listed
    )

"""The benchmark suite as one tool (issue 43): one entry point that lists and runs
the benchmarks, one current results file per benchmark, nothing loose."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import __main__ as suite
from benchmarks.harness import report

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"


def _suite(*argv: str) -> subprocess.CompletedProcess:
    """``python -m benchmarks *argv`` from the project's root, its output kept."""
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_benchmark_module_has_a_main_and_a_summary() -> None:
    names = suite.names()
    assert "solvers" in names and "model_selection" in names
    assert "harness" not in names and "__main__" not in names
    for name in names:
        tree = ast.parse((BENCHMARKS / f"{name}.py").read_text(encoding="utf-8"))
        mains = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        assert "main" in {f.name for f in mains}, name
        assert suite.summary(name), name


def test_the_results_hold_one_current_file_per_benchmark() -> None:
    """Every file in benchmarks/results/ is a benchmark's, with its runs by mode."""
    names = set(suite.names())
    files = sorted((BENCHMARKS / "results").iterdir())
    assert files
    for path in files:
        assert path.suffix == ".json" and path.stem in names, path.name
        document = json.loads(path.read_text())
        assert document["benchmark"] == path.stem
        assert document["runs"] and all(
            isinstance(r, dict) for r in document["runs"].values()
        )


def test_write_json_keeps_the_other_modes_and_refuses_loose_files(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    report.write_json("qp", {"rows": [1]})
    report.write_json("qp", {"rows": [2]}, mode="quick")
    report.write_json("qp", {"rows": [3]})  # the default run replaced
    document = json.loads((tmp_path / "qp.json").read_text())
    assert document["benchmark"] == "qp"
    assert {m: r["rows"] for m, r in document["runs"].items()} == {
        "default": [3],
        "quick": [2],
    }
    assert "load_average_at_write" in document["runs"]["quick"]["machine"]
    for bad_name in ("s41_qp", "harness", "__main__"):
        with pytest.raises(ValueError):
            report.write_json(bad_name, {})
    with pytest.raises(ValueError):
        report.write_json("qp", {}, mode="../escape")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qp.json"]


def test_python_m_benchmarks_lists_and_refuses_an_unknown_name() -> None:
    listing = _suite().stdout
    for name in suite.names():
        assert f"  {name} " in listing
    unknown = _suite("issue29_targets")
    assert unknown.returncode != 0 and "no benchmark named" in unknown.stderr


def test_a_benchmark_runs_through_the_suite_with_its_own_options() -> None:
    """``python -m benchmarks NAME --help`` reaches the benchmark's own parser."""
    run = _suite("path", "--help")
    out = run.stdout
    assert run.returncode == 0
    assert "--repeats" in out and "python -m benchmarks path" in out


@pytest.mark.parametrize(("given", "threads"), [(None, 1), ("2", 2)])
def test_a_benchmark_runs_on_one_blas_thread_unless_the_caller_says(
    given: str | None, threads: int
) -> None:
    """The package pins OpenBLAS before a benchmark's numpy loads it, so a ratio's
    two sides share one thread; a caller's own setting is kept. What numpy's
    OpenBLAS really runs with is asked of threadpoolctl, not of the variable."""
    # OpenBLAS falls back on OMP_NUM_THREADS (which conftest sets): none of them.
    env = {k: v for k, v in os.environ.items() if not k.endswith("NUM_THREADS")}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = (
        "import benchmarks.path, threadpoolctl\n"
        "print(sorted({p['num_threads'] for p in threadpoolctl.threadpool_info()"
        " if p['internal_api'] == 'openblas'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == str([threads])


def test_every_benchmark_parses_its_options_so_help_does_not_run_it() -> None:
    """``--help`` must print and stop, not run the benchmark and rewrite its JSON
    (qp_backends once had no parser): each module calls ``parse_args``."""
    for name in suite.names():
        tree = ast.parse((BENCHMARKS / f"{name}.py").read_text(encoding="utf-8"))
        called = {
            c.func.attr
            for c in ast.walk(tree)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
        }
        assert "parse_args" in called, name
    run = _suite("qp_backends", "--help")
    assert run.returncode == 0
    assert "--sizes" in run.stdout and "n=" not in run.stdout
